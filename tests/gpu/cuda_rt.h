/*
 * cuda_rt.h - what the GPU test programs (test_gpu.c, test_ops.c) share: finding an NVIDIA
 * GPU through the driver (the test is skipped, exit 77, without one), the CUDA runtime's
 * buffers and streams, and a rocjit context on the GPU.
 *
 * The driver (libcuda.so.1) and the runtime (libcudart.so.13/.12) are loaded with dlopen:
 * building a GPU test needs no CUDA header or library.  Every helper fails the test (exit 1,
 * naming the call) on a CUDA error; none returns one.
 */
#ifndef ROCJIT_TEST_CUDA_RT_H
#define ROCJIT_TEST_CUDA_RT_H

#include <stddef.h>

#include "harness.h"

#define SKIP_RC 77

#define CU_ATTR_CC_MAJOR 75   /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define CU_ATTR_CC_MINOR 76
#define MEMCPY_H2D 1          /* cudaMemcpyHostToDevice */
#define MEMCPY_D2H 2          /* cudaMemcpyDeviceToHost */
#define STREAM_NON_BLOCKING 1 /* cudaStreamNonBlocking */
#define CUDA_NOT_READY 600    /* cudaErrorNotReady */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The driver: only to find a GPU and read its compute capability. */
struct rj_cuda_driver {
	void *lib;
	int (*cuInit)(unsigned int flags);
	int (*cuDeviceGetCount)(int *count);
	int (*cuDeviceGet)(int *device, int ordinal);
	int (*cuDeviceGetAttribute)(int *value, int attribute, int device);
};
extern struct rj_cuda_driver cu;

/* The runtime's calls as it declares them, with int for cudaError_t and enums, void * for
 * cudaStream_t.  Every member is set once gpu_require() returns. */
struct rj_cuda_runtime {
	void *lib;
	int (*cudaMalloc)(void **ptr, size_t size);
	int (*cudaFree)(void *ptr);
	int (*cudaMemcpy)(void *dst, const void *src, size_t size, int kind);
	int (*cudaMemset)(void *ptr, int value, size_t size);
	int (*cudaStreamCreate)(void **stream);
	int (*cudaStreamCreateWithFlags)(void **stream, unsigned int flags);
	int (*cudaStreamSynchronize)(void *stream);
	int (*cudaStreamQuery)(void *stream);
	int (*cudaStreamDestroy)(void *stream);
	int (*cudaLaunchHostFunc)(void *stream, void (*fn)(void *), void *data);
	int (*cudaDeviceSynchronize)(void);
	int (*cudaGetLastError)(void);
	int (*cudaGetDeviceCount)(int *count);
	int (*cudaSetDevice)(int device);
	int (*cudaGetDevice)(int *device);
	const char *(*cudaGetErrorString)(int error);
};
extern struct rj_cuda_runtime rt;

/* Fails the test on a CUDA runtime error, naming the call. */
#define CUDA(call)                                                                       \
	do {                                                                             \
		int rj_e_ = (call);                                                      \
		if (rj_e_ != 0)                                                          \
			rj_test_fail(__FILE__, __LINE__, "%s: CUDA error %d (%s)", #call, \
				     rj_e_, rt.cudaGetErrorString(rj_e_));                \
	} while (0)

/* Ends the test as skipped (exit 77).  Call it before the test writes into rj_test_dir. */
void skip(const char *why) __attribute__((noreturn));

/*
 * The first call of every GPU test: skips unless the driver loads and sees a GPU, then
 * loads the runtime.  With ROCJIT_TEST_REQUIRE_GPU=1 a missing GPU fails the test instead,
 * so that a broken driver cannot pass as a skip.
 */
void gpu_require(void);

/* A context on the NVIDIA device with this ordinal, caching in cache_dir (asserting). */
rocjit_ctx *gpu_open_at(const char *cache_dir, int device);
/* gpu_open_at(rj_test_cache_dir, 0). */
rocjit_ctx *gpu_open(void);

/* Waits for stream (NULL: the whole device) and fails on any error the kernels raised. */
void sync_stream(void *stream);

/* cudaMalloc of at least one byte. */
void *dev_alloc(size_t bytes);
void to_dev(void *dst, const void *src, size_t bytes);
void from_dev(void *dst, const void *src, size_t bytes);
/* malloc of at least one byte, asserting success. */
void *host_alloc(size_t bytes);

#endif
