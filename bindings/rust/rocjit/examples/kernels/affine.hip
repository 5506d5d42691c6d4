/*
 * affine.hip - y = x * mul + add, elementwise (Candle's "affine" op, contiguous case).
 *
 *   affine_f32(size_t n, const float *x, float *y, float mul, float add)
 *
 * 1-D launch, any grid and block (grid-stride loop); x and y may be the same buffer.
 */
#include "common.h"

extern "C" __global__ void affine_f32(size_t n, const float *x, float *y, float mul, float add)
{
	FOR_EACH_INDEX(i, n)
		y[i] = x[i] * mul + add;
}
