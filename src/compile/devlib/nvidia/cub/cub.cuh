/*
 * <cub/cub.cuh> as rocjit serves it to NVRTC: CUB's umbrella without its device-wide
 * algorithms.  CCCL's own cub/cub.cuh (CUDA 13) also includes cub/device/ and
 * cub/util_allocator.cuh, host code that NVRTC refuses ("A function explicitly marked as
 * a __host__ function is not allowed in JIT mode", the same in plain NVRTC without
 * rocjit), so a kernel that includes the umbrella would not compile at all.  The parts
 * below are CCCL's own headers, found on the include path (include/cccl); a kernel that
 * includes them one by one gets the same.
 */
#ifndef ROCJIT_DEVLIB_NVIDIA_CUB_CUH
#define ROCJIT_DEVLIB_NVIDIA_CUB_CUH

#include <cub/config.cuh>

#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cub/thread/thread_load.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>
#include <cub/thread/thread_store.cuh>

#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>

#include <cub/iterator/arg_index_input_iterator.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cub/iterator/cache_modified_output_iterator.cuh>

#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>

#endif
