/*
 * hip/hip_cooperative_groups.h as rocjit serves it to hipRTC.
 *
 * hipRTC 5.7 builds cooperative groups in (HIP's guard below is then defined): nothing to
 * add.  hipRTC 5.2 does not, and HIP's header on disk is both unusable as is there (it
 * includes headers whose content the built-in header already declared: "redefinition of
 * integral_constant") and older than the API code calls (no meta_group_rank, num_threads or
 * tile votes).  So on 5.2 rocjit serves its own implementation of the same API,
 * hip/rocjit_cooperative_groups.h, which needs no HIP headers installed.
 * Known limit of HIP 5.7 itself: tiled_partition<N>(block).sync() is ambiguous there
 * ("member 'sync' found in multiple base classes").
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_COOPERATIVE_GROUPS_H
#define ROCJIT_DEVLIB_AMD_HIP_COOPERATIVE_GROUPS_H

#include <hip/hip_runtime.h>

#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H
#include <hip/rocjit_cooperative_groups.h>
#endif

#endif
