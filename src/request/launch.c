/*
 * launch.c - the calls on a kernel rocjit served: launches (plain and cooperative), its
 * native handles, function attributes, occupancy, its module's variables, and its
 * resources as the code object records them.
 *
 * Each checks its arguments, then makes one call of the kernel's platform (platform.h).
 * rocjit_kernel_launch is on every application's hot path: it does what it always did,
 * one driver call, and only when the driver refuses does it ask the driver more, to say
 * what was wrong in terms of the kernel (too much dynamic shared memory, too many
 * threads, a cooperative grid too large) instead of the driver's "invalid argument".
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "codeobj/codeobj.h"
#include "request/context.h"

/* Whether the kernel can be used in this process; a message naming call if not. */
static int usable(const rocjit_kernel *k, const char *call)
{
	RJ_CHECK(!k, ROCJIT_EINVAL, "%s: kernel is NULL", call);
	RJ_CHECK(k->forks != atomic_load_explicit(&rj_forks, memory_order_relaxed), ROCJIT_EDEVICE,
		 "%s: %s was loaded before this process was forked: GPU runtimes cannot be "
		 "used across fork(); get kernels in the process that launches them", call,
		 k->name);
	return 0;
}

static int attribute(const rocjit_kernel *k, int attr, int *value)
{
	return k->platform->attribute(k->function, k->device, attr, value, 0);
}

/*
 * After the driver refused a launch (rc, its message recorded): finds out whether the
 * launch asked for more than the kernel allows and, if so, replaces the driver's message
 * with one that says so, and what to do, and returns ROCJIT_EINVAL.  Otherwise the
 * driver's error stands.  The questions are the driver's own figures, asked only now.
 */
static int explain(const rocjit_kernel *k, int rc, const char *call, rocjit_dim3 grid,
		   rocjit_dim3 block, unsigned int shared, int cooperative)
{
	unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
	unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
	int max_threads, max_dynamic, statics, device_max, per_sm, sms;
	char driver[512];

	if (rc != ROCJIT_EDEVICE)
		return rc;
	snprintf(driver, sizeof driver, "%s", rocjit_last_error());
	if (attribute(k, ROCJIT_ATTR_MAX_THREADS_PER_BLOCK, &max_threads) == 0 &&
	    threads > (unsigned long long)max_threads)
		RJ_FAIL(ROCJIT_EINVAL, "%s: %s takes at most %d threads per block (its launch "
			"bounds and registers allow no more); the launch asked for %llu "
			"(%ux%ux%u)", call, k->name, max_threads, threads, block.x, block.y,
			block.z);
	if (shared && attribute(k, ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES, &max_dynamic) == 0 &&
	    shared > (unsigned)max_dynamic) {
		if (attribute(k, ROCJIT_ATTR_SHARED_BYTES, &statics) != 0)
			statics = 0;
		if (k->platform->device_attribute(k->device, RJ_DEV_SHARED_MAX, &device_max) != 0)
			device_max = 0;
		if ((long long)shared + statics > device_max)
			RJ_FAIL(ROCJIT_EINVAL, "%s: %s asks for %u bytes of dynamic shared memory; "
				"device %d allows %d bytes per block, of which the kernel's static "
				"shared memory takes %d: at most %d dynamic", call, k->name,
				shared, k->device, device_max, statics, device_max - statics);
		RJ_FAIL(ROCJIT_EINVAL, "%s: %s asks for %u bytes of dynamic shared memory, more "
			"than its limit of %d: raise the limit first with "
			"rocjit_kernel_attribute_set(kernel, ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES, "
			"%u) (device %d allows up to %d)", call, k->name, shared, max_dynamic,
			shared, k->device, device_max - statics);
	}
	if (cooperative && threads &&
	    k->platform->occupancy(k->function, k->device, (unsigned)threads, shared,
				   &per_sm) == 0 &&
	    k->platform->device_attribute(k->device, RJ_DEV_MULTIPROCESSORS, &sms) == 0 &&
	    blocks > (unsigned long long)per_sm * (unsigned)sms)
		RJ_FAIL(ROCJIT_EINVAL, "%s: a grid of %llu blocks of %s is more than device %d "
			"holds at once: %d per multiprocessor (blocks of %llu threads, %u bytes "
			"of dynamic shared memory) x %d multiprocessors = %d; a cooperative "
			"launch needs every block resident: use at most %d blocks", call,
			blocks, k->name, k->device, per_sm, threads, shared, sms, per_sm * sms,
			per_sm * sms);
	RJ_FAIL(rc, "%s", driver);
}

/* The checks of both launches. */
static int launchable(const rocjit_kernel *k, const char *call, rocjit_dim3 grid,
		      rocjit_dim3 block)
{
	RJ_FORWARD(usable(k, call));
	RJ_CHECK(!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z,
		 ROCJIT_EINVAL, "%s: %s has a zero grid or block dimension", call, k->name);
	return 0;
}

/* As rocjit_kernel_launch has always been: the checks, then one platform call. */
ROCJIT_API int rocjit_kernel_launch(const rocjit_kernel *k, rocjit_dim3 grid,
				    rocjit_dim3 block, unsigned int shared_bytes, void *stream,
				    void **args)
{
	int rc;

	RJ_FORWARD(launchable(k, "rocjit_kernel_launch", grid, block));
	rc = k->platform->launch(k->function, k->device, grid, block, shared_bytes, stream, args);
	return rc ? explain(k, rc, "rocjit_kernel_launch", grid, block, shared_bytes, 0) : 0;
}

ROCJIT_API int rocjit_kernel_launch_cooperative(const rocjit_kernel *k, rocjit_dim3 grid,
						rocjit_dim3 block, unsigned int shared_bytes,
						void *stream, void **args)
{
	const char *call = "rocjit_kernel_launch_cooperative";
	int rc;

	RJ_FORWARD(launchable(k, call, grid, block));
	rc = k->platform->launch_cooperative(k->function, k->device, grid, block, shared_bytes,
					     stream, args);
	return rc ? explain(k, rc, call, grid, block, shared_bytes, 1) : 0;
}

/* ---- Native handles and attributes ---- */

ROCJIT_API int rocjit_kernel_native_get(rocjit_kernel_native *out, const rocjit_kernel *k)
{
	RJ_CHECK(!out || out->version == 0 || out->version > ROCJIT_KERNEL_NATIVE_VERSION,
		 ROCJIT_EINVAL, "rocjit_kernel_native_get: out is NULL or its version is not "
		 "set (rocjit_kernel_native_init)");
	RJ_FORWARD(usable(k, "rocjit_kernel_native_get"));
	out->platform = k->platform->id;
	out->device = k->device;
	out->function = k->function;
	out->module = k->slot->module;
	return 0;
}

/* Whether attr is one of ROCJIT_ATTR_* (7, the CUDA cache mode, is not offered). */
static int attribute_known(int attr)
{
	return attr >= ROCJIT_ATTR_MAX_THREADS_PER_BLOCK &&
	       attr <= ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT && attr != 7;
}

ROCJIT_API int rocjit_kernel_attribute_get(int *value, const rocjit_kernel *k, int attr)
{
	RJ_CHECK(!value, ROCJIT_EINVAL, "rocjit_kernel_attribute_get: value is NULL");
	RJ_FORWARD(usable(k, "rocjit_kernel_attribute_get"));
	RJ_CHECK(!attribute_known(attr), ROCJIT_EINVAL, "rocjit_kernel_attribute_get: %d is "
		 "not a ROCJIT_ATTR_* attribute", attr);
	return attribute(k, attr, value);
}

ROCJIT_API int rocjit_kernel_attribute_set(const rocjit_kernel *k, int attr, int value)
{
	int statics, device_max;

	RJ_FORWARD(usable(k, "rocjit_kernel_attribute_set"));
	RJ_CHECK(attr != ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES &&
		 attr != ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT, ROCJIT_EINVAL,
		 "rocjit_kernel_attribute_set: only ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES and "
		 "ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT can be set, not %d", attr);
	if (attr == ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT) {
		RJ_CHECK(value < -1 || value > 100, ROCJIT_EINVAL, "rocjit_kernel_attribute_set: "
			 "a shared-memory carveout is a percentage (0 to 100) or -1 (the "
			 "default), not %d", value);
	} else {
		RJ_CHECK(value < 0, ROCJIT_EINVAL, "rocjit_kernel_attribute_set: %d bytes of "
			 "dynamic shared memory", value);
		RJ_FORWARD(attribute(k, ROCJIT_ATTR_SHARED_BYTES, &statics));
		RJ_FORWARD(k->platform->device_attribute(k->device, RJ_DEV_SHARED_MAX,
							 &device_max));
		RJ_CHECK((long long)value + statics > device_max, ROCJIT_EINVAL,
			 "rocjit_kernel_attribute_set: %s cannot use %d bytes of dynamic shared "
			 "memory: device %d allows %d bytes per block, of which the kernel's "
			 "static shared memory takes %d: at most %d dynamic", k->name, value,
			 k->device, device_max, statics, device_max - statics);
	}
	return k->platform->attribute(k->function, k->device, attr, &value, 1);
}

/* ---- Occupancy ---- */

ROCJIT_API int rocjit_kernel_occupancy_get(int *blocks, const rocjit_kernel *k,
					   unsigned int block_threads, size_t shared)
{
	RJ_CHECK(!blocks, ROCJIT_EINVAL, "rocjit_kernel_occupancy_get: blocks is NULL");
	RJ_FORWARD(usable(k, "rocjit_kernel_occupancy_get"));
	RJ_CHECK(block_threads == 0 || block_threads > 65536, ROCJIT_EINVAL,
		 "rocjit_kernel_occupancy_get: a block of %u threads", block_threads);
	return k->platform->occupancy(k->function, k->device, block_threads, shared, blocks);
}

ROCJIT_API int rocjit_kernel_block_size_get(int *block_threads, int *min_grid_blocks,
					    const rocjit_kernel *k, size_t shared,
					    unsigned int limit)
{
	int grid = 0;

	RJ_CHECK(!block_threads, ROCJIT_EINVAL, "rocjit_kernel_block_size_get: block_threads "
		 "is NULL");
	RJ_FORWARD(usable(k, "rocjit_kernel_block_size_get"));
	RJ_CHECK(limit > 65536, ROCJIT_EINVAL, "rocjit_kernel_block_size_get: a limit of %u "
		 "threads", limit);
	RJ_FORWARD(k->platform->block_size(k->function, k->device, shared, limit, block_threads,
					   &grid));
	if (min_grid_blocks)
		*min_grid_blocks = grid;
	return 0;
}

/* ---- Module variables ---- */

/*
 * A variable by its symbol, or by a name expression the program was compiled with (CuPy's
 * name_expressions=["&ns::table"]), as given or without its "&": the lowered name.
 */
static int global_find(void **address, size_t *size, const rocjit_kernel *k, const char *name,
		       const char *call)
{
	const char *lowered = NULL;
	char amp[1024];
	int rc;

	RJ_FORWARD(usable(k, call));
	RJ_CHECK(!name || !*name, ROCJIT_EINVAL, "%s: name is NULL or empty", call);
	rc = k->platform->global_get(k->slot->module, k->device, name, address, size);
	if (rc == ROCJIT_ENOTFOUND && k->slot->names) {
		lowered = rj_names_lowered(k->slot->names, name);
		if (!lowered && snprintf(amp, sizeof amp, "&%s", name) < (int)sizeof amp)
			lowered = rj_names_lowered(k->slot->names, amp);
		if (lowered)
			rc = k->platform->global_get(k->slot->module, k->device, lowered, address,
						     size);
	}
	if (rc == ROCJIT_ENOTFOUND) {
		char vars[512];

		if (rj_codeobj_variables(k->slot->code.data, k->slot->code.size, vars,
					 sizeof vars) != 0)
			vars[0] = 0;
		RJ_FAIL(ROCJIT_ENOTFOUND, "%s: the module of %s has no __device__ or "
			"__constant__ variable named \"%s\"%s%s%s; %s%s (a variable the kernels "
			"do not use may be left out; one inside a namespace, or a static class "
			"member, has a mangled name: declare it extern \"C\", or compile with the "
			"name expression \"&%s\")", call, k->name, name,
			lowered ? " (lowered: " : "", lowered ? lowered : "", lowered ? ")" : "",
			vars[0] ? "the variables it has: " : "it has no variables", vars, name);
	}
	return rc;
}

ROCJIT_API int rocjit_global_get(void **address, size_t *size, const rocjit_kernel *k,
				 const char *name)
{
	void *a = NULL;
	size_t n = 0;

	RJ_FORWARD(global_find(&a, &n, k, name, "rocjit_global_get"));
	if (address)
		*address = a;
	if (size)
		*size = n;
	return 0;
}

/* Copies between the host and the variable: from src when it is given, else into dst. */
static int global_copy(const char *call, const rocjit_kernel *k, const char *name,
		       size_t offset, void *dst, const void *src, size_t bytes, void *stream)
{
	void *a;
	size_t n;

	RJ_FORWARD(global_find(&a, &n, k, name, call));
	RJ_CHECK(offset > n || bytes > n - offset, ROCJIT_EINVAL, "%s: %zu bytes at offset %zu "
		 "do not fit in %s, which has %zu bytes", call, bytes, offset, name, n);
	if (bytes == 0)
		return 0;
	a = (char *)a + offset;
	return src ? k->platform->copy(k->device, a, src, bytes, 1, stream)
		   : k->platform->copy(k->device, dst, a, bytes, 0, stream);
}

ROCJIT_API int rocjit_global_write(const rocjit_kernel *k, const char *name, size_t offset,
				   const void *src, size_t bytes, void *stream)
{
	RJ_CHECK(!src && bytes, ROCJIT_EINVAL, "rocjit_global_write: src is NULL");
	return global_copy("rocjit_global_write", k, name, offset, NULL, src, bytes, stream);
}

ROCJIT_API int rocjit_global_read(void *dst, const rocjit_kernel *k, const char *name,
				  size_t offset, size_t bytes, void *stream)
{
	RJ_CHECK(!dst && bytes, ROCJIT_EINVAL, "rocjit_global_read: dst is NULL");
	return global_copy("rocjit_global_read", k, name, offset, dst, NULL, bytes, stream);
}

/* ---- Resources ---- */

ROCJIT_API int rocjit_kernel_resources_get(rocjit_kernel_resources *out,
					   const rocjit_kernel *k)
{
	RJ_CHECK(!k, ROCJIT_EINVAL, "rocjit_kernel_resources_get: kernel is NULL");
	return rocjit_codeobj_resources_get(out, k->slot->code.data, k->slot->code.size,
					    k->name);
}
