/*
 * vector_functions.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD):
 * the vector types (float4, int2, uchar4 ... and dim3) and their make_* functions are
 * built into hipRTC, as CUDA kernel files expect them after this include.
 */
#ifndef ROCJIT_CUDA_VECTOR_FUNCTIONS_H
#define ROCJIT_CUDA_VECTOR_FUNCTIONS_H
#endif
