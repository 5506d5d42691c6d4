// types_cuda_h.cu - kernels that include <cuda.h> for its version and its device-side
// types: a parameter struct of CUdeviceptr addresses, and a TMA kernel's tensor map
// passed by value (`const __grid_constant__ CUtensorMap`).  The toolkit's cuda.h is host
// code NVRTC refuses; rocjit serves a device-side one on every platform.
#include <cuda.h>
#include <cuda_runtime.h>

#ifndef __grid_constant__ // compilers before CUDA 11.7 and hipRTC
#define __grid_constant__
#endif

#if CUDA_VERSION < 11000
#error "CUDA_VERSION is missing or too old"
#endif
#if defined(__CUDACC_VER_MAJOR__) && !defined(__clang__) // NVRTC
static_assert(CUDA_VERSION == __CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10,
	      "CUDA_VERSION is the compiler's");
#endif
static_assert(sizeof(CUtensorMap) == 128 && alignof(CUtensorMap) == 64, "tensor map layout");
static_assert(sizeof(CUdeviceptr) == 8, "device address");

struct copy_args {
	CUdeviceptr src;
	CUdeviceptr dst;
	unsigned int n;
};

// dst[i] = 2 * src[i], both given as raw device addresses.
extern "C" __global__ void scale_by_address(const copy_args a)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	const float *src = reinterpret_cast<const float *>(a.src);
	float *dst = reinterpret_cast<float *>(a.dst);
	if (i < a.n)
		dst[i] = 2.0f * src[i];
}

// out[0..1] = the tensor map's first two words (a host encoder filled it); on sm_90 the
// map is prefetched first, as a TMA kernel does before its first bulk copy.
extern "C" __global__ void tensor_map_words(const __grid_constant__ CUtensorMap map,
					    cuuint64_t *out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__clang__)
	asm volatile("prefetch.tensormap [%0];" : : "l"(reinterpret_cast<cuuint64_t>(&map)) : "memory");
#endif
	if (threadIdx.x < 2)
		out[threadIdx.x] = map.opaque[threadIdx.x];
}
