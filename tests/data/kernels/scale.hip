/* scale.hip - y = a * x; includes the registered header common.h. */
#include <hip/hip_runtime.h>
#include "common.h"

extern "C" __global__ void scale_f32(int n, float a, const float *x, float *y)
{
	int i = global_index();

	if (i < n)
		y[i] = a * x[i];
}
