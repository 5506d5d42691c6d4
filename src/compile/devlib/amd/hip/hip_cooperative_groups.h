/*
 * hip/hip_cooperative_groups.h as rocjit serves it to hipRTC.
 *
 * hipRTC 5.7 builds cooperative groups in (its guard below is then defined): nothing to
 * add.  hipRTC 5.2 does not, and HIP's header on disk fails there: it includes headers
 * whose content the built-in header already declared ("redefinition of
 * integral_constant").  So on 5.2 this stand-in marks those headers as already included
 * (their include guards), keeps the host <bitset> the helper header asks for out (device
 * code uses none of it; its guard under libstdc++ and libc++), and then includes HIP's
 * cooperative-groups implementation from the installed HIP headers (Debian:
 * libamdhip64-dev, /usr/include/hip).  Where neither is there, it says so.
 * Known limit of HIP 5.7 itself: tiled_partition<N>(block).sync() is ambiguous there
 * ("member 'sync' found in multiple base classes").
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_COOPERATIVE_GROUPS_H
#define ROCJIT_DEVLIB_AMD_HIP_COOPERATIVE_GROUPS_H

#include <hip/hip_runtime.h>

#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H
#if __has_include(<hip/amd_detail/amd_hip_cooperative_groups.h>)
#ifndef HIP_INCLUDE_HIP_HIP_COMMON_H
#define HIP_INCLUDE_HIP_HIP_COMMON_H
#endif
#ifndef HIP_VERSION_H
#define HIP_VERSION_H
#endif
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_FUNCTIONS_H
#endif
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COMMON_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COMMON_H
#endif
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H
#endif
#ifndef HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H
#define HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H
#endif
#ifndef _GLIBCXX_BITSET
#define _GLIBCXX_BITSET 1
#endif
#ifndef _LIBCPP_BITSET
#define _LIBCPP_BITSET
#endif
#include <assert.h>
#include <hip/amd_detail/amd_hip_cooperative_groups.h>
#else
#error "rocjit: this hipRTC has no cooperative groups built in and the HIP headers (hip/amd_detail/amd_hip_cooperative_groups.h) are not installed; install them (Debian: libamdhip64-dev)"
#endif
#endif

#endif
