/*
 * hip/hip_cooperative_groups.h as rocjit serves it to NVRTC (HIP source on NVIDIA GPUs).
 * HIP's cooperative groups copy CUDA's (namespace cooperative_groups: thread_block,
 * this_thread_block, tiled_partition, thread_block_tile, coalesced_group, sync,
 * thread_rank, size, shfl ...), so this is CUDA's header.  CUDA 13 needs both
 * -I<cuda>/include and -I<cuda>/include/cccl for it (it includes libcu++ headers).
 */
#pragma once

/* The pre-included hip/hip_runtime.h maps HIP's whole-warp __shfl, __any, __all, __ballot
 * ... onto CUDA's *_sync calls with function-like macros; libcu++ (reached from here)
 * declares functions of those names.  NVRTC has no push_macro, so the macros are dropped
 * while it is read and defined again after, as hip_runtime.h defines them. */
#undef __shfl
#undef __shfl_up
#undef __shfl_down
#undef __shfl_xor
#undef __ballot
#undef __any
#undef __all

#include <cooperative_groups.h>

#define __shfl(...) __shfl_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(0xffffffffu, __VA_ARGS__)
#define __ballot(pred) __ballot_sync(0xffffffffu, (pred))
#define __any(pred) __any_sync(0xffffffffu, (pred))
#define __all(pred) __all_sync(0xffffffffu, (pred))
