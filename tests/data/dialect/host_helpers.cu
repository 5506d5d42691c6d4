// Kernels beside unannotated host helpers (host_helpers.cuh; rocjit's fixture).
#include "host_helpers.cuh"

extern "C" __global__ void helpers_tile_scale(float *x, int n)
{
	constexpr int tile = tile_of(256);
	int i = blockIdx.x * tile + threadIdx.x;
	if (i < n)
		x[i] *= 2.0f;
}
