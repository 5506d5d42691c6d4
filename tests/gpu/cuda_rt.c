/*
 * cuda_rt.c - the CUDA driver and runtime for the GPU tests (cuda_rt.h): loaded with
 * dlopen, so that building a test needs nothing from CUDA.
 */
#include "cuda_rt.h"

#include <dlfcn.h>
#include <unistd.h>

struct rj_cuda_driver cu;
struct rj_cuda_runtime rt;

#define LOAD(lib, s, name) (*(void **)&(s).name = dlsym((lib), #name))

/* Ends the test as skipped.  The harness's temporary folder is still empty here. */
void skip(const char *why)
{
	printf("SKIP: %s\n", why);
	fflush(stdout);
	rmdir(rj_test_dir);
	exit(SKIP_RC);
}

static void load_runtime(void)
{
	static const char *const names[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so",
					     "/usr/local/cuda/lib64/libcudart.so.13",
					     "/usr/local/cuda/lib64/libcudart.so.12",
					     "/usr/local/cuda/lib64/libcudart.so", NULL };

	for (size_t i = 0; names[i] && !rt.lib; i++)
		rt.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!rt.lib)
		rj_test_fail(__FILE__, __LINE__, "a GPU is present but the CUDA runtime "
			     "(libcudart.so.13/.12) could not be loaded: %s", dlerror());
	LOAD(rt.lib, rt, cudaMalloc);
	LOAD(rt.lib, rt, cudaFree);
	LOAD(rt.lib, rt, cudaMemcpy);
	LOAD(rt.lib, rt, cudaMemset);
	LOAD(rt.lib, rt, cudaStreamCreate);
	LOAD(rt.lib, rt, cudaStreamCreateWithFlags);
	LOAD(rt.lib, rt, cudaStreamSynchronize);
	LOAD(rt.lib, rt, cudaStreamQuery);
	LOAD(rt.lib, rt, cudaStreamDestroy);
	LOAD(rt.lib, rt, cudaLaunchHostFunc);
	LOAD(rt.lib, rt, cudaDeviceSynchronize);
	LOAD(rt.lib, rt, cudaGetLastError);
	LOAD(rt.lib, rt, cudaGetDeviceCount);
	LOAD(rt.lib, rt, cudaSetDevice);
	LOAD(rt.lib, rt, cudaGetDevice);
	LOAD(rt.lib, rt, cudaGetErrorString);
	if (!rt.cudaMalloc || !rt.cudaFree || !rt.cudaMemcpy || !rt.cudaMemset ||
	    !rt.cudaStreamCreate || !rt.cudaStreamCreateWithFlags ||
	    !rt.cudaStreamSynchronize || !rt.cudaStreamQuery || !rt.cudaStreamDestroy ||
	    !rt.cudaLaunchHostFunc || !rt.cudaDeviceSynchronize || !rt.cudaGetLastError ||
	    !rt.cudaGetDeviceCount || !rt.cudaSetDevice || !rt.cudaGetDevice ||
	    !rt.cudaGetErrorString)
		rj_test_fail(__FILE__, __LINE__, "the CUDA runtime lacks a symbol this test uses");
}

/*
 * The first call of every test: skips (exit 77) unless the driver loads and sees a GPU,
 * then loads the runtime.  cuInit in the parent is harmless to the children the cache
 * test starts: they exec a fresh image.
 */
void gpu_require(void)
{
	const char *require = getenv("ROCJIT_TEST_REQUIRE_GPU");
	int n = 0, rc = -1;

	cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (cu.lib) {
		LOAD(cu.lib, cu, cuInit);
		LOAD(cu.lib, cu, cuDeviceGetCount);
		LOAD(cu.lib, cu, cuDeviceGet);
		LOAD(cu.lib, cu, cuDeviceGetAttribute);
	}
	if (cu.cuInit && cu.cuDeviceGetCount && cu.cuDeviceGet && cu.cuDeviceGetAttribute &&
	    (rc = cu.cuInit(0)) == 0)
		rc = cu.cuDeviceGetCount(&n);
	if (rc != 0 || n < 1) {
		if (require && strcmp(require, "1") == 0)
			rj_test_fail(__FILE__, __LINE__, "no NVIDIA GPU (libcuda.so.1 %s, cuInit/"
				     "cuDeviceGetCount gave %d, %d devices) but "
				     "ROCJIT_TEST_REQUIRE_GPU=1", cu.lib ? "loaded" : "missing",
				     rc, n);
		skip("no NVIDIA GPU (cuInit/cuDeviceGetCount)");
	}
	load_runtime();
}

rocjit_ctx *gpu_open_at(const char *cache_dir, int device)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;

	o.cache_dir = cache_dir;
	o.platform = ROCJIT_PLATFORM_NVIDIA;
	o.device = device;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

rocjit_ctx *gpu_open(void)
{
	return gpu_open_at(rj_test_cache_dir, 0);
}

/* Waits for stream (NULL: the whole device) and fails on any error the kernels raised. */
void sync_stream(void *stream)
{
	if (stream)
		CUDA(rt.cudaStreamSynchronize(stream));
	else
		CUDA(rt.cudaDeviceSynchronize());
	CUDA(rt.cudaGetLastError());
}

void *dev_alloc(size_t bytes)
{
	void *p = NULL;

	CUDA(rt.cudaMalloc(&p, bytes ? bytes : 1));
	return p;
}

void to_dev(void *dst, const void *src, size_t bytes)
{
	CUDA(rt.cudaMemcpy(dst, src, bytes, MEMCPY_H2D));
}

void from_dev(void *dst, const void *src, size_t bytes)
{
	CUDA(rt.cudaMemcpy(dst, src, bytes, MEMCPY_D2H));
}

void *host_alloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	ASSERT(p != NULL);
	return p;
}
