// CUDA toolkit headers that kernel code includes for device-side names (rocjit's fixture):
// math constants, complex numbers, vector types, cuda.h for the version.
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector_types.h>
#include <vector_functions.h>
#include <math_constants.h>
#include <cuComplex.h>

extern "C" __global__ void complex_mul_conj(const cuFloatComplex *a, const cuFloatComplex *b,
					    cuFloatComplex *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = cuCmulf(a[i], cuConjf(b[i]));
}

extern "C" __global__ void complex_div_abs_d(const cuDoubleComplex *a, const cuDoubleComplex *b,
					     double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = cuCabs(cuCdiv(a[i], b[i])) + cuCreal(cuCadd(a[i], make_cuDoubleComplex(0, 1)));
}

extern "C" __global__ void constants_and_vectors(float4 *out)
{
	float4 v = make_float4(CUDART_PI_F, CUDART_SQRT_HALF_F, CUDART_INF_F, (float)CUDA_VERSION);
	out[threadIdx.x] = v;
}
