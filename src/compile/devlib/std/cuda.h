/*
 * cuda.h as rocjit serves it on every platform.  The toolkit's cuda.h declares the host
 * driver API (cuInit, cuLaunchKernel ...) as unannotated functions, which NVRTC refuses
 * ("host functions are not allowed in JIT mode"), and AMD has no toolkit; yet kernel
 * files include it: for CUDA_VERSION (to pick bf16/fp8 code paths) and for the few driver
 * types device code names - a CUdeviceptr in a parameter struct, a
 * `const __grid_constant__ CUtensorMap` parameter of a TMA kernel.  This stand-in gives
 * those and nothing host.  On NVIDIA it is found before the toolkit's file: NVRTC searches
 * its in-memory headers ahead of the -I folders.
 *
 * CUDA_VERSION is the compiler's CUDA version (major * 1000 + minor * 10, as cuda.h writes
 * it): NVRTC's own, 12.0 on AMD (the API level rocjit's CUDA dialect provides: its prelude
 * defines __CUDACC_VER_MAJOR__ 12).  The types are the toolkit's, byte for byte: a
 * CUtensorMap built on the host by cuTensorMapEncodeTiled is passed as is (no AMD GPU has
 * TMA: there the map is only bytes).
 */
#ifndef ROCJIT_DEVLIB_CUDA_H
#define ROCJIT_DEVLIB_CUDA_H

#include <stdint.h>

#if !defined(CUDA_VERSION) && defined(__CUDACC_VER_MAJOR__)
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#endif

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

/* Device addresses are 64-bit on every platform rocjit compiles for. */
typedef unsigned long long CUdeviceptr_v2;
typedef CUdeviceptr_v2 CUdeviceptr;

/* The tensor map TMA instructions read: 128 opaque bytes, 64-byte aligned. */
#define CU_TENSOR_MAP_NUM_QWORDS 16
typedef struct CUtensorMap_st {
	alignas(64) cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS];
} CUtensorMap;

#endif
