/*
 * hip/hip_runtime.h for CuPy in bench/cold_bench.py (issue 32) - NOT rocjit's header.
 *
 * The op set's shared header (kernels-src/ops/rj_ops.h) includes <hip/hip_runtime.h>
 * itself, so stripping that line from the .hip files (as bench/cupy_baseline.py does) is
 * not enough: CuPy's NVRTC stops at "cannot open source file".  This folder, given to
 * CuPy as one more -I, is the smallest stand-in that lets the files compile unchanged:
 * rj_ops.h picks CUDA's half conversions under __HIP_PLATFORM_NVIDIA__, and nothing else
 * in the op set uses a HIP spelling.  rocjit serves its own, larger preamble
 * (src/compile/devlib/nvidia/hip/hip_runtime.h), which also includes cuda_bf16.h and
 * <type_traits>: CuPy here compiles LESS header text than rocjit does, never more.
 */
#pragma once
#include <cuda_fp16.h>

#define __HIP_PLATFORM_NVIDIA__ 1
