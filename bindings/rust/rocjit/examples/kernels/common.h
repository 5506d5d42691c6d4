/*
 * common.h - what the example's kernels share.  A registered header: every registered
 * kernel can include it as "common.h", and it is part of their cache keys.
 */
#pragma once
#include <hip/hip_runtime.h>

/* A grid-stride loop over [0, n): any grid covers every element. */
#define FOR_EACH_INDEX(i, n)                                                              \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);           \
	     i += (size_t)blockDim.x * gridDim.x)
