/*
 * mma.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD): a refusal.
 *
 * nvcuda::wmma (warp matrix multiply-accumulate) drives NVIDIA's tensor cores; its fragment
 * layouts are NVIDIA's and hipRTC has no counterpart built in (AMD's is the rocWMMA
 * library, a different API over the MFMA/WMMA instructions).  A stand-in that emulated it
 * with scalar loops would compile and run orders of magnitude slower than the code's
 * author intended, so the header stops the compile with one message naming itself, and
 * makes it fatal: hipRTC would otherwise go on and bury it under an error for every wmma
 * use that follows.
 */
#ifndef ROCJIT_CUDA_MMA_H
#define ROCJIT_CUDA_MMA_H

#pragma clang diagnostic fatal "-W#warnings"
#warning "rocjit: <mma.h> (nvcuda::wmma, tensor-core matrix multiply) is not available for AMD GPUs: hipRTC has no WMMA (AMD's counterpart is rocWMMA). Keep the WMMA path for NVIDIA and give AMD a fallback: guard it with #ifndef ROCJIT_CUDA_DIALECT (rocjit defines it for CUDA source compiled for AMD)"

#endif
