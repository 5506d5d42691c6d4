/*
 * common.h - a registered header shared by the test kernels (tests/data/kernels): every
 * registered source gets it as an in-memory header, and it is part of their keys.
 */
#pragma once

#define TEST_BLOCK 256

__device__ static inline int global_index(void)
{
	return (int)(blockIdx.x * blockDim.x + threadIdx.x);
}
