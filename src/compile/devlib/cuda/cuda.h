/*
 * cuda.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD).  The real one
 * declares the host driver API; kernel code includes it only for CUDA_VERSION (e.g. to pick
 * bf16/fp8 code paths).  This stand-in defines the version of the CUDA API level rocjit's
 * dialect headers provide (12.0) and nothing else.
 */
#ifndef ROCJIT_CUDA_H
#define ROCJIT_CUDA_H

#ifndef CUDA_VERSION
#define CUDA_VERSION 12000
#endif

#endif
