// The host writes table through rocjit; the kernel scales it into scaled, which the host
// reads back through rocjit: no device memory of the test's own.
__constant__ float table[64];
__device__ float scaled[64];
extern "C" __global__ void scale_table(float a)
{
	scaled[threadIdx.x] = table[threadIdx.x] * a;
}
