/*
 * test_launch_gpu.c - what a kernel needs at launch beyond grid and block, on a real
 * NVIDIA GPU: dynamic shared memory above 48 KB, module variables the host fills,
 * cooperative launches with a grid-wide barrier, occupancy and attributes equal to the
 * driver's own answers, the resources read from the code object equal to the driver's,
 * and the native handles launched through the CUDA driver directly.
 *
 * Skipped (exit 77) without a GPU, like the other GPU tests (cuda_rt.h).  The driver's
 * own calls that the answers are compared with are looked up in the same libcuda the
 * library uses.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* ---- Helpers ----------------------------------------------------------------------------- */

static rocjit_kernel *get(rocjit_ctx *ctx, const char *name, const char *source,
			  const char *kernel)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_kernel *k = NULL;
	int rc;

	p.source = source;
	p.name = name;
	rc = rocjit_kernel_get(&k, ctx, &p, kernel);
	if (rc != 0 || !k)
		rj_test_fail(__FILE__, __LINE__, "%s from %s: error %d (%s): %s\n%s", kernel, name,
			     rc, rocjit_strerror(rc), rocjit_last_error(), rocjit_last_log());
	return k;
}

static rocjit_dim3 dim1(unsigned int x)
{
	rocjit_dim3 d = { x, 1, 1 };
	return d;
}

#define OK(call)                                                                          \
	do {                                                                             \
		int rc_ = (call);                                                        \
		if (rc_ != 0)                                                            \
			rj_test_fail(__FILE__, __LINE__, "%s: error %d (%s): %s", #call, \
				     rc_, rocjit_strerror(rc_), rocjit_last_error());     \
	} while (0)

/* Asserts that call fails with code and that its message holds each of the strings. */
#define REFUSED(call, code, ...)                                                          \
	do {                                                                             \
		const char *want_[] = { __VA_ARGS__ };                                   \
		int rc_ = (call);                                                        \
		ASSERT_INT(rc_, (code));                                              \
		fprintf(stderr, "refused as expected: %s\n", rocjit_last_error());      \
		for (size_t i_ = 0; i_ < COUNT(want_); i_++)                             \
			ASSERT_CONTAINS(rocjit_last_error(), want_[i_]);                  \
	} while (0)

/* A CUDA driver function, from the library cu_rt loaded. */
static void *driver(const char *name)
{
	void *f = dlsym(cu.lib, name);

	if (!f)
		rj_test_fail(__FILE__, __LINE__, "the driver has no %s", name);
	return f;
}

/* ---- Dynamic shared memory above 48 KB ------------------------------------------------ */

/* Each block stages its 24576 floats (96 KB) in dynamic shared memory and writes them
 * back reversed and doubled: shared memory that is not all there cannot give this. */
static const char big_shared_src[] =
	"#include <hip/hip_runtime.h>\n"
	"extern \"C\" __global__ void reverse_chunk(const float *x, float *y, int chunk)\n"
	"{\n"
	"	extern __shared__ float stage[];\n"
	"	const float *in = x + (size_t)blockIdx.x * chunk;\n"
	"	for (int i = threadIdx.x; i < chunk; i += blockDim.x)\n"
	"		stage[i] = 2.0f * in[i];\n"
	"	__syncthreads();\n"
	"	for (int i = threadIdx.x; i < chunk; i += blockDim.x)\n"
	"		y[(size_t)blockIdx.x * chunk + i] = stage[chunk - 1 - i];\n"
	"}\n";

TEST(shared_memory_above_48k_launches_once_raised_and_fails_clearly_before)
{
	enum { CHUNK = 24576, BLOCKS = 3 };
	const unsigned int bytes = CHUNK * sizeof(float);
	int chunk = CHUNK, value = 0;
	float *hx, *hy, *dx, *dy;
	void *args[] = { &dx, &dy, &chunk };
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	k = get(ctx, "big_shared.hip", big_shared_src, "reverse_chunk");
	hx = host_alloc(sizeof(float) * CHUNK * BLOCKS);
	hy = host_alloc(sizeof(float) * CHUNK * BLOCKS);
	for (int i = 0; i < CHUNK * BLOCKS; i++)
		hx[i] = (float)(i % 1000) - 500.0f;
	dx = dev_alloc(sizeof(float) * CHUNK * BLOCKS);
	dy = dev_alloc(sizeof(float) * CHUNK * BLOCKS);
	to_dev(dx, hx, sizeof(float) * CHUNK * BLOCKS);

	/* Before: rocjit's message, naming the kernel, the bytes and the way out. */
	OK(rocjit_kernel_attribute_get(&value, k, ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES));
	ASSERT(value < (int)bytes);
	REFUSED(rocjit_kernel_launch(k, dim1(BLOCKS), dim1(256), bytes, NULL, args),
		ROCJIT_EINVAL, "reverse_chunk", "98304", "ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES");
	/* Too many threads is named as well. */
	REFUSED(rocjit_kernel_launch(k, dim1(1), dim1(2048), 0, NULL, args), ROCJIT_EINVAL,
		"reverse_chunk", "2048", "threads per block");
	/* More than the device has: the limit is named, and nothing changes. */
	REFUSED(rocjit_kernel_attribute_set(k, ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES, 1 << 24),
		ROCJIT_EINVAL, "reverse_chunk", "at most");

	OK(rocjit_kernel_attribute_set(k, ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES, (int)bytes));
	OK(rocjit_kernel_attribute_get(&value, k, ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES));
	ASSERT_INT(value, (int)bytes);
	OK(rocjit_kernel_attribute_set(k, ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT, 100));
	OK(rocjit_kernel_launch(k, dim1(BLOCKS), dim1(256), bytes, NULL, args));
	sync_stream(NULL);
	from_dev(hy, dy, sizeof(float) * CHUNK * BLOCKS);
	for (int b = 0; b < BLOCKS; b++)
		for (int i = 0; i < CHUNK; i++)
			if (hy[b * CHUNK + i] != 2.0f * hx[b * CHUNK + CHUNK - 1 - i])
				rj_test_fail(__FILE__, __LINE__, "block %d element %d: %g, want %g",
					     b, i, hy[b * CHUNK + i],
					     2.0f * hx[b * CHUNK + CHUNK - 1 - i]);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	free(hx);
	free(hy);
	rocjit_close(ctx);
}

/* ---- Module variables ------------------------------------------------------------------ */

static const char globals_src[] =
	"#include <hip/hip_runtime.h>\n"
	"__constant__ float scale_table[64];\n"
	"__device__ unsigned int calls;\n"
	"extern \"C\" __global__ void scale_by_table(const float *x, float *y, int n)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		y[i] = x[i] * scale_table[i % 64];\n"
	"	if (threadIdx.x == 0)\n"
	"		atomicAdd(&calls, 1u);\n"
	"}\n";

static void check_scaled(const float *x, const float *y, const float *table, int n)
{
	for (int i = 0; i < n; i++)
		if (y[i] != x[i] * table[i % 64])
			rj_test_fail(__FILE__, __LINE__, "element %d: %g, want %g", i, y[i],
				     x[i] * table[i % 64]);
}

TEST(constant_table_written_through_rocjit_is_what_the_kernel_reads)
{
	enum { N = 1000 };
	float table[64], hx[N], hy[N], *dx, *dy;
	unsigned int zero = 0, calls = 0;
	int n = N;
	void *args[] = { &dx, &dy, &n };
	void *address = NULL, *stream;
	size_t size = 0;
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	k = get(ctx, "globals.hip", globals_src, "scale_by_table");
	OK(rocjit_global_get(&address, &size, k, "scale_table"));
	ASSERT(address != NULL);
	ASSERT_INT((int)size, 64 * (int)sizeof(float));
	REFUSED(rocjit_global_get(&address, &size, k, "no_such_table"), ROCJIT_ENOTFOUND,
		"no_such_table", "scale_by_table", "the variables it has: ", "scale_table",
		"calls");
	REFUSED(rocjit_global_write(k, "scale_table", 200, table, 64, NULL), ROCJIT_EINVAL,
		"256 bytes");

	for (int i = 0; i < 64; i++)
		table[i] = 0.5f + (float)i;
	for (int i = 0; i < N; i++)
		hx[i] = (float)(i % 37) - 18.0f;
	dx = dev_alloc(sizeof hx);
	dy = dev_alloc(sizeof hy);
	to_dev(dx, hx, sizeof hx);
	OK(rocjit_global_write(k, "scale_table", 0, table, sizeof table, NULL));
	OK(rocjit_global_write(k, "calls", 0, &zero, sizeof zero, NULL));
	OK(rocjit_kernel_launch(k, dim1((N + 127) / 128), dim1(128), 0, NULL, args));
	sync_stream(NULL);
	from_dev(hy, dy, sizeof hy);
	check_scaled(hx, hy, table, N);
	OK(rocjit_global_read(&calls, k, "calls", 0, sizeof calls, NULL));
	ASSERT_INT((int)calls, (N + 127) / 128);

	/* On a stream, in order with the launch: the second half of the table rewritten. */
	CUDA(rt.cudaStreamCreate(&stream));
	for (int i = 32; i < 64; i++)
		table[i] = -2.0f * (float)i;
	OK(rocjit_global_write(k, "scale_table", 32 * sizeof(float), table + 32,
			       32 * sizeof(float), stream));
	OK(rocjit_kernel_launch(k, dim1((N + 127) / 128), dim1(128), 0, stream, args));
	OK(rocjit_global_read(&calls, k, "calls", 0, sizeof calls, stream));
	sync_stream(stream);
	from_dev(hy, dy, sizeof hy);
	check_scaled(hx, hy, table, N);
	ASSERT_INT((int)calls, 2 * ((N + 127) / 128));
	CUDA(rt.cudaStreamDestroy(stream));
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
}

/* CuPy's way to a variable in a namespace: compile with the name expression "&ns::scale"
 * and ask for it by that expression, with or without its "&". */
static const char namespaced_src[] =
	"#include <hip/hip_runtime.h>\n"
	"namespace ns { __constant__ float scale[4]; }\n"
	"template <typename T> __global__ void apply(const T *x, T *y, int n)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		y[i] = x[i] * ns::scale[i % 4];\n"
	"}\n";

TEST(a_namespaced_constant_is_found_by_its_name_expression_as_cupy_does)
{
	static const char *const exprs[] = { "&ns::scale", "apply<float>" };
	enum { N = 256 };
	float scale[4] = { 1.0f, -2.0f, 0.5f, 3.0f }, hx[N], hy[N], *dx, *dy;
	int n = N;
	void *args[] = { &dx, &dy, &n }, *a = NULL, *b = NULL, *c = NULL;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	size_t size = 0;
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	p.source = namespaced_src;
	p.name = "namespaced.hip";
	p.name_expressions = exprs;
	p.num_name_expressions = 2;
	OK(rocjit_kernel_get(&k, ctx, &p, "apply<float>"));
	OK(rocjit_global_get(&a, &size, k, "ns::scale"));
	ASSERT_INT(size, sizeof scale);
	OK(rocjit_global_get(&b, NULL, k, "&ns::scale"));
	OK(rocjit_global_get(&c, NULL, k, "_ZN2ns5scaleE"));
	ASSERT(a == b && b == c);
	REFUSED(rocjit_global_get(&a, NULL, k, "scale"), ROCJIT_ENOTFOUND, "\"&scale\"");

	for (int i = 0; i < N; i++)
		hx[i] = (float)(i - 100);
	dx = dev_alloc(sizeof hx);
	dy = dev_alloc(sizeof hy);
	to_dev(dx, hx, sizeof hx);
	OK(rocjit_global_write(k, "ns::scale", 0, scale, sizeof scale, NULL));
	OK(rocjit_kernel_launch(k, dim1(N / 64), dim1(64), 0, NULL, args));
	sync_stream(NULL);
	from_dev(hy, dy, sizeof hy);
	for (int i = 0; i < N; i++)
		ASSERT(hy[i] == hx[i] * scale[i % 4]);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
}

/* ---- Cooperative launch ----------------------------------------------------------------- */

/* Every thread writes its slot, the whole grid waits, then each reads its neighbour's
 * slot, written by another block: without a grid-wide barrier the reads race. */
static const char coop_src[] =
	"#include <cooperative_groups.h>\n"
	"namespace cg = cooperative_groups;\n"
	"extern \"C\" __global__ void rotate_after_sync(unsigned int *a, unsigned int *b,\n"
	"                                               unsigned int rounds)\n"
	"{\n"
	"	cg::grid_group grid = cg::this_grid();\n"
	"	unsigned long long n = grid.size(), i = grid.thread_rank();\n"
	"	for (unsigned int r = 0; r < rounds; r++) {\n"
	"		a[i] = (unsigned int)i * 7u + r;\n"
	"		grid.sync();\n"
	"		b[(size_t)r * n + i] = a[(i + blockDim.x) % n];\n"
	"		grid.sync();\n"
	"	}\n"
	"}\n";

TEST(cooperative_launch_synchronizes_the_whole_grid)
{
	enum { BLOCK = 256, ROUNDS = 4 };
	unsigned int rounds = ROUNDS, *da, *db, *hb;
	void *args[] = { &da, &db, &rounds };
	int per_sm = 0, sms = 0, dev = 0;
	unsigned int blocks;
	size_t n;
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	k = get(ctx, "coop.cu", coop_src, "rotate_after_sync");
	OK(rocjit_kernel_occupancy_get(&per_sm, k, BLOCK, 0));
	ASSERT(per_sm > 0);
	CUDA(cu.cuDeviceGet(&dev, 0));
	CUDA(cu.cuDeviceGetAttribute(&sms, 16 /* MULTIPROCESSOR_COUNT */, dev));
	blocks = (unsigned int)(per_sm * sms);
	n = (size_t)blocks * BLOCK;
	da = dev_alloc(n * sizeof *da);
	db = dev_alloc(n * ROUNDS * sizeof *db);
	hb = host_alloc(n * ROUNDS * sizeof *hb);

	/* A grid that cannot be resident at once is refused, naming the most it takes. */
	REFUSED(rocjit_kernel_launch_cooperative(k, dim1(blocks + 1), dim1(BLOCK), 0, NULL, args),
		ROCJIT_EINVAL, "rotate_after_sync", "at most");

	OK(rocjit_kernel_launch_cooperative(k, dim1(blocks), dim1(BLOCK), 0, NULL, args));
	sync_stream(NULL);
	from_dev(hb, db, n * ROUNDS * sizeof *hb);
	for (unsigned int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < n; i++) {
			unsigned int want = (unsigned int)((i + BLOCK) % n) * 7u + r;

			if (hb[r * n + i] != want)
				rj_test_fail(__FILE__, __LINE__, "round %u thread %zu of %zu: %u, "
					     "want %u", r, i, n, hb[r * n + i], want);
		}
	CUDA(rt.cudaFree(da));
	CUDA(rt.cudaFree(db));
	free(hb);
	rocjit_close(ctx);
}

/* ---- Occupancy, attributes, resources, native handles ---------------------------------- */

/* Uses static shared memory and enough registers that occupancy depends on both. */
static const char occupancy_src[] =
	"#include <hip/hip_runtime.h>\n"
	"extern \"C\" __global__ void __launch_bounds__(512)\n"
	"smooth(const float *x, float *y, int n)\n"
	"{\n"
	"	__shared__ float tile[512 + 2];\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	tile[threadIdx.x + 1] = i < n ? x[i] : 0.0f;\n"
	"	if (threadIdx.x == 0)\n"
	"		tile[0] = i > 0 && i - 1 < n ? x[i - 1] : 0.0f;\n"
	"	if (threadIdx.x == blockDim.x - 1)\n"
	"		tile[blockDim.x + 1] = i + 1 < n ? x[i + 1] : 0.0f;\n"
	"	__syncthreads();\n"
	"	if (i < n)\n"
	"		y[i] = 0.25f * tile[threadIdx.x] + 0.5f * tile[threadIdx.x + 1] +\n"
	"		       0.25f * tile[threadIdx.x + 2];\n"
	"}\n";

/* The smooth kernel and its native handles, with the primary context current on this
 * thread for the driver calls the tests compare with. */
static rocjit_kernel *smooth_native(rocjit_ctx *ctx, rocjit_kernel_native *native)
{
	rocjit_kernel *k = get(ctx, "smooth.hip", occupancy_src, "smooth");

	OK(rocjit_kernel_native_init(native, ROCJIT_KERNEL_NATIVE_VERSION));
	OK(rocjit_kernel_native_get(native, k));
	ASSERT_INT(native->platform, ROCJIT_PLATFORM_NVIDIA);
	ASSERT(native->function != NULL && native->module != NULL);
	ASSERT_INT(native->device, 0);
	CUDA(rt.cudaSetDevice(0));
	CUDA(rt.cudaDeviceSynchronize());
	return k;
}

TEST(occupancy_attributes_and_resources_equal_the_drivers_own)
{
	static const unsigned int blocks[] = { 32, 64, 128, 256, 500, 512 };
	static const size_t shared[] = { 0, 1024, 16384, 40000 };
	static const int attrs[] = { ROCJIT_ATTR_MAX_THREADS_PER_BLOCK, ROCJIT_ATTR_SHARED_BYTES,
				     ROCJIT_ATTR_CONST_BYTES, ROCJIT_ATTR_LOCAL_BYTES,
				     ROCJIT_ATTR_NUM_REGS, ROCJIT_ATTR_PTX_VERSION,
				     ROCJIT_ATTR_BINARY_VERSION,
				     ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES };
	int (*occupancy)(int *, void *, int, size_t);
	int (*best)(int *, int *, void *, void *, size_t, int);
	int (*attribute)(int *, int, void *);
	rocjit_kernel_native native;
	rocjit_kernel_resources res;
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	k = smooth_native(ctx, &native);
	*(void **)&occupancy = driver("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	*(void **)&best = driver("cuOccupancyMaxPotentialBlockSize");
	*(void **)&attribute = driver("cuFuncGetAttribute");

	for (size_t b = 0; b < COUNT(blocks); b++)
		for (size_t s = 0; s < COUNT(shared); s++) {
			int ours = -1, theirs = -2;

			OK(rocjit_kernel_occupancy_get(&ours, k, blocks[b], shared[s]));
			CUDA(occupancy(&theirs, native.function, (int)blocks[b], shared[s]));
			if (ours != theirs)
				rj_test_fail(__FILE__, __LINE__, "block %u shared %zu: %d blocks, "
					     "the driver says %d", blocks[b], shared[s], ours,
					     theirs);
		}
	for (size_t s = 0; s < COUNT(shared); s++) {
		int block = 0, grid = 0, dblock = 0, dgrid = 0;

		OK(rocjit_kernel_block_size_get(&block, &grid, k, shared[s], 0));
		CUDA(best(&dgrid, &dblock, native.function, NULL, shared[s], 0));
		ASSERT_INT(block, dblock);
		ASSERT_INT(grid, dgrid);
		ASSERT(block <= 512); /* the launch bounds */
		OK(rocjit_kernel_block_size_get(&block, NULL, k, shared[s], 96));
		CUDA(best(&dgrid, &dblock, native.function, NULL, shared[s], 96));
		ASSERT_INT(block, dblock);
	}
	for (size_t a = 0; a < COUNT(attrs); a++) {
		int ours = -1, theirs = -2;

		OK(rocjit_kernel_attribute_get(&ours, k, attrs[a]));
		CUDA(attribute(&theirs, attrs[a], native.function));
		ASSERT_INT(ours, theirs);
	}
	REFUSED(rocjit_kernel_attribute_get(&(int){ 0 }, k, 7), ROCJIT_EINVAL, "ROCJIT_ATTR");
	REFUSED(rocjit_kernel_attribute_set(k, ROCJIT_ATTR_NUM_REGS, 1), ROCJIT_EINVAL,
		"can be set");

	/* What the code object says, read without the driver, is what the driver says. */
	OK(rocjit_kernel_resources_init(&res, ROCJIT_KERNEL_RESOURCES_VERSION));
	OK(rocjit_kernel_resources_get(&res, k));
	{
		int regs, statics, local, max_threads;

		CUDA(attribute(&regs, ROCJIT_ATTR_NUM_REGS, native.function));
		CUDA(attribute(&statics, ROCJIT_ATTR_SHARED_BYTES, native.function));
		CUDA(attribute(&local, ROCJIT_ATTR_LOCAL_BYTES, native.function));
		CUDA(attribute(&max_threads, ROCJIT_ATTR_MAX_THREADS_PER_BLOCK, native.function));
		fprintf(stderr, "resources: %u registers, %llu B shared, %llu B scratch, max %u "
			    "threads; driver: %d, %d, %d, %d\n", res.registers,
			    (unsigned long long)res.shared_bytes,
			    (unsigned long long)res.scratch_bytes, res.max_threads, regs,
			    statics, local, max_threads);
		ASSERT_INT((int)res.registers, regs);
		ASSERT_INT((int)res.shared_bytes, statics);
		ASSERT_INT((int)res.scratch_bytes, local);
		ASSERT_INT((int)res.max_threads, 512);
		ASSERT_INT((int)res.wavefront, 32);
	}
	rocjit_close(ctx);
}

TEST(native_handle_launched_through_the_driver_matches_rocjit_launch)
{
	enum { N = 5000 };
	int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
		      unsigned, void *, void **, void **);
	int (*function_get)(void **, void *, const char *);
	float hx[N], ours[N], theirs[N], *dx, *dy;
	int n = N;
	void *args[] = { &dx, &dy, &n }, *f = NULL;
	rocjit_kernel_native native;
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	k = smooth_native(ctx, &native);
	*(void **)&launch = driver("cuLaunchKernel");
	*(void **)&function_get = driver("cuModuleGetFunction");
	/* The module holds the function under its name. */
	CUDA(function_get(&f, native.module, "smooth"));
	ASSERT(f == native.function);

	for (int i = 0; i < N; i++)
		hx[i] = (float)((i * 37) % 101) - 50.0f;
	dx = dev_alloc(sizeof hx);
	dy = dev_alloc(sizeof ours);
	to_dev(dx, hx, sizeof hx);
	OK(rocjit_kernel_launch(k, dim1((N + 255) / 256), dim1(256), 0, NULL, args));
	sync_stream(NULL);
	from_dev(ours, dy, sizeof ours);
	CUDA(rt.cudaMemset(dy, 0, sizeof theirs));
	CUDA(launch(native.function, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	sync_stream(NULL);
	from_dev(theirs, dy, sizeof theirs);
	ASSERT(memcmp(ours, theirs, sizeof ours) == 0);
	for (int i = 1; i < N - 1; i++)
		ASSERT(ours[i] == 0.25f * hx[i - 1] + 0.5f * hx[i] + 0.25f * hx[i + 1]);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
}

/* The fixture tests/data/resources/resources.hip, found beside the dialect fixtures
 * ($ROCJIT_TEST_DIALECT_DIR, which tests/gpu/run.sh sets where the repository is). */
static char *resources_fixture(void)
{
	const char *dir = getenv("ROCJIT_TEST_DIALECT_DIR");
	char path[4096];

	snprintf(path, sizeof path, "%s/../resources/resources.hip",
		 dir && *dir ? dir : ROCJIT_TEST_DIALECT_DIR);
	return rj_test_read_file(path, NULL);
}

TEST(resources_of_spilling_and_shared_kernels_equal_the_drivers_attributes)
{
	static const char *const names[] = { "tile", "bounded", "spill" };
	char *source = resources_fixture();
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	for (size_t i = 0; i < COUNT(names); i++) {
		rocjit_kernel *k = get(ctx, "resources.hip", source, names[i]);
		rocjit_kernel_resources r;
		int regs, statics, local;

		OK(rocjit_kernel_resources_init(&r, ROCJIT_KERNEL_RESOURCES_VERSION));
		OK(rocjit_kernel_resources_get(&r, k));
		OK(rocjit_kernel_attribute_get(&regs, k, ROCJIT_ATTR_NUM_REGS));
		OK(rocjit_kernel_attribute_get(&statics, k, ROCJIT_ATTR_SHARED_BYTES));
		OK(rocjit_kernel_attribute_get(&local, k, ROCJIT_ATTR_LOCAL_BYTES));
		fprintf(stderr, "%s: code object %u registers, %llu B shared, %llu B scratch; "
			"driver %d, %d, %d\n", names[i], r.registers,
			(unsigned long long)r.shared_bytes, (unsigned long long)r.scratch_bytes,
			regs, statics, local);
		ASSERT_INT(r.registers, regs);
		ASSERT_INT(r.shared_bytes, statics);
		ASSERT_INT(r.scratch_bytes, local);
	}
	free(source);
	rocjit_close(ctx);
}
