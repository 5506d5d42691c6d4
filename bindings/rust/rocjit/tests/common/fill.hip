#include <hip/hip_runtime.h>
#include "value"
template <typename T, int N>
__global__ void fill(T *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		x[i] = (T)VALUE;
}
