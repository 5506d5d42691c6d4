/*
 * cooperative_groups.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD).
 * HIP's cooperative groups copy CUDA's API in the same namespace (cooperative_groups:
 * this_thread_block, tiled_partition, thread_block_tile, sync, thread_rank, shfl ...), so
 * this is HIP's header.  hipRTC 5.7 builds it in but cannot include it (-nogpuinc), and 5.2
 * rejects the on-disk copy (redefinitions): <hip/hip_cooperative_groups.h> is the stand-in
 * rocjit serves from devlib/amd for both.  Not provided: CUDA's cooperative_groups/reduce.h
 * and memcpy_async.h (no HIP counterpart).
 */
#ifndef ROCJIT_CUDA_COOPERATIVE_GROUPS_H
#define ROCJIT_CUDA_COOPERATIVE_GROUPS_H

#include <hip/hip_cooperative_groups.h>

#endif
