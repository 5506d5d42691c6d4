/* sub/offset.hip - y = x + offset; includes both registered headers. */
#include <hip/hip_runtime.h>
#include "common.h"
#include "sub/util.h"

extern "C" __global__ void offset_f32(int n, float offset, const float *x, float *y)
{
	int i = global_index();

	if (i < n)
		y[i] = add_offset(x[i], offset);
}
