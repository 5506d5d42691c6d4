// 256 floats of static shared memory (1024 bytes) and at most 128 threads a block: what
// the resource tests read back from the code object.
extern "C" __global__ void __launch_bounds__(128) tile_flip(const float *x, float *y)
{
	__shared__ float t[256];
	int i = threadIdx.x, base = blockIdx.x * 256;
	t[i] = x[base + i];
	t[i + 128] = x[base + i + 128];
	__syncthreads();
	y[base + i] = t[255 - i];
	y[base + i + 128] = t[127 - i];
}
