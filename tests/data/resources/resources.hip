// resources.hip - kernels written to use known resources (tests/test_resources.c reads
// them from the code object and compares with llvm-readelf and ptxas; tests/gpu/hip57.sh
// compiles them for gfx942 and gfx1100): 4 KB of static shared memory, a launch bound of
// 256, a live set too large for the registers (spills), and recursion (a dynamic stack).
extern "C" __global__ void tile(const float *x, float *y)
{
	__shared__ float t[1024];
	t[threadIdx.x] = x[threadIdx.x];
	__syncthreads();
	y[threadIdx.x] = t[1023 - threadIdx.x];
}
extern "C" __global__ void __launch_bounds__(256)
bounded(float *y, int n, double a, char c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * (float)a + c;
}
#define N 160
extern "C" __global__ void __launch_bounds__(1024) spill(const float *x, float *y)
{
	float v[N], s = 0;
#pragma unroll
	for (int i = 0; i < N; i++) v[i] = x[threadIdx.x + i * 1024];
#pragma unroll
	for (int i = 0; i < N; i++) s += v[i] * v[N - 1 - i];
#pragma unroll
	for (int i = 0; i < N; i++) y[threadIdx.x + i * 1024] = v[i] * s;
}
__device__ __attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
extern "C" __global__ void recur(int *y)
{
	y[threadIdx.x] = fib(y[threadIdx.x]);
}
