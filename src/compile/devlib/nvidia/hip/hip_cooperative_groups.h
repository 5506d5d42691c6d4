/*
 * hip/hip_cooperative_groups.h as rocjit serves it to NVRTC (HIP source on NVIDIA GPUs).
 * HIP's cooperative groups copy CUDA's (namespace cooperative_groups: thread_block,
 * this_thread_block, tiled_partition, thread_block_tile, coalesced_group, sync,
 * thread_rank, size, shfl ...), so this is CUDA's header.  CUDA 13 needs both
 * -I<cuda>/include and -I<cuda>/include/cccl for it (it includes libcu++ headers).
 * libcu++ declares a `__any`, which the HIP preamble's function-like macros would rewrite:
 * rocjit_hip_nvidia_ext.h turns them into consistent renames first.
 */
#pragma once

#include <hip/rocjit_hip_nvidia_ext.h>
#include <cooperative_groups.h>
