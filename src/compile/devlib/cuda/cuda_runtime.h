/*
 * cuda_runtime.h (and cuda_runtime_api.h, device_launch_parameters.h) as rocjit serves them
 * to CUDA-dialect sources compiled by hipRTC (AMD).  In device code nvcc's cuda_runtime.h
 * contributes the built-in variables, vector types and device functions, which hipRTC
 * builds in already; what remains is the version macro and the half/bf16 types that kernel
 * files often reach through it.
 */
#ifndef ROCJIT_CUDA_RUNTIME_H
#define ROCJIT_CUDA_RUNTIME_H

#include "rocjit_cuda_dialect.h"
#include "cuda.h"

#ifndef CUDART_VERSION
#define CUDART_VERSION CUDA_VERSION
#endif

#include "cuda_fp16.h"

#endif
