// Kernels behind __CUDA_ARCH__ tests, as libraries gate sm_89/sm_90 paths (rocjit's
// fixture).  Nothing here is PTX: every branch compiles for AMD too.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
extern "C" __global__ void gate_sm89_scale(float *x) { x[threadIdx.x] *= 2.0f; }
#endif

#if __CUDA_ARCH__ < 900
__device__ inline float gate_pick(float v) { return v; }
#else
__device__ inline float gate_pick(float v) { return v + 1.0f; }
extern "C" __global__ void gate_sm90_only(const float *x, float *y)
{
	y[threadIdx.x] = gate_pick(x[threadIdx.x]);
}
#endif

extern "C" __global__ void gate_always(float *x) { x[threadIdx.x] = gate_pick(1.0f); }
