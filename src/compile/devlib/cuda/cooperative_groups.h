/*
 * cooperative_groups.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD):
 * rocjit's cooperative groups (hip/rocjit_cooperative_groups.h, served from devlib/amd),
 * which HIP code on hipRTC 5.2 gets too.  They follow CUDA 11/12's API (meta_group_rank,
 * num_threads, tile votes, tiles of tiles ...), which HIP's own groups only partly do.
 * HIP 5.7 builds its own groups in, in namespace cooperative_groups, and they lack part of
 * that (num_threads, tiled_partition of a tile); so there the CUDA source's name
 * `cooperative_groups` is made to mean rocjit's groups, declared under another namespace
 * name (rocjit_cooperative_groups, the name compiler messages then show), and HIP's stay
 * untouched.  CUDA's collectives live beside this header: cooperative_groups/reduce.h,
 * scan.h and memcpy_async.h, written against any group's size/thread_rank/shfl/sync.
 */
#ifndef ROCJIT_CUDA_COOPERATIVE_GROUPS_H
#define ROCJIT_CUDA_COOPERATIVE_GROUPS_H

#include <hip/hip_runtime.h>

#if defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H) && \
	!defined(ROCJIT_DEVLIB_AMD_HIP_ROCJIT_COOPERATIVE_GROUPS_H)
#define cooperative_groups rocjit_cooperative_groups
#endif
#include <hip/rocjit_cooperative_groups.h>

#endif
