/*
 * cooperative_groups.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD).
 * HIP's cooperative groups copy CUDA's API in the same namespace (cooperative_groups:
 * this_thread_block, tiled_partition, thread_block_tile, sync, thread_rank, shfl ...), so
 * this is HIP's header: <hip/hip_cooperative_groups.h> as rocjit serves it from devlib/amd
 * (HIP 5.7's built-in groups, or on 5.2 rocjit's own, hip/rocjit_cooperative_groups.h,
 * which adds what CUDA 11/12 code calls: meta_group_rank, num_threads, tile votes ...).
 * CUDA's collectives live beside it: cooperative_groups/reduce.h, scan.h and
 * memcpy_async.h, written against any group's size/thread_rank/shfl/sync.
 */
#ifndef ROCJIT_CUDA_COOPERATIVE_GROUPS_H
#define ROCJIT_CUDA_COOPERATIVE_GROUPS_H

#include <hip/hip_cooperative_groups.h>

#endif
