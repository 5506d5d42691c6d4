/*
 * unary.hip - elementwise unary ops (Candle's "unary" module, contiguous case).
 *
 *   usqr_f32(size_t n, const float *x, float *y)    y = x * x
 *   urelu_f32(size_t n, const float *x, float *y)   y = max(x, 0)
 *
 * 1-D launch, any grid and block (grid-stride loop).
 */
#include "common.h"

extern "C" __global__ void usqr_f32(size_t n, const float *x, float *y)
{
	FOR_EACH_INDEX(i, n)
		y[i] = x[i] * x[i];
}

extern "C" __global__ void urelu_f32(size_t n, const float *x, float *y)
{
	FOR_EACH_INDEX(i, n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
