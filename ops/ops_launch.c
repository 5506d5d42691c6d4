/*
 * ops_launch.c - the handle and the launch: rocjit_ops_create / rocjit_ops_destroy, the
 * NULL-handle check every operation starts with, and fetching a kernel of
 * kernels-src/ops/ by file and name from rocjit and launching it.
 *
 * Kernels are template instantiations, fetched by name expression at every launch, the
 * expression alone compiled at the first (rocjit_kernel_get_registered_v2).  After the
 * first, a launch's fetch is rocjit's per-thread memo (string comparisons), else its
 * in-process table, so the handle keeps no table of its own and needs no lock.
 *
 * Owns the handle (struct rocjit_ops, in ops_internal.h).  Below the operations
 * (ops_elementwise.c, ops_rows.c): it knows no operation, no kernel name and no launch
 * shape beyond a 1-D grid; it uses only ops_layout.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ops_internal.h"

int rocjit_ops_create(rocjit_ops **out, rocjit_ctx *ctx)
{
	if (!out || !ctx)
		return ops_fail(ROCJIT_EINVAL, "rocjit_ops_create: NULL argument");
	*out = calloc(1, sizeof **out);
	if (!*out)
		return ops_fail(ROCJIT_ENOMEM, "rocjit_ops_create: out of memory");
	(*out)->ctx = ctx;
	return 0;
}

void rocjit_ops_destroy(rocjit_ops *ops)
{
	free(ops);
}

int ops_check_handle(rocjit_ops *ops, const char *what)
{
	return ops ? 0 : ops_fail(ROCJIT_EINVAL, "%s: NULL handle", what);
}

int ops_launch(rocjit_ops *ops, void *stream, const char *file, const char *kernel,
	       rocjit_dim3 grid, rocjit_dim3 block, unsigned int shared, void **args)
{
	rocjit_registered_options o = ROCJIT_REGISTERED_OPTIONS_INIT;
	rocjit_kernel *k;
	char what[160];
	int rc;

	/* Exactly this instantiation: one small compile and entry per op and type. */
	o.name_expressions = &kernel;
	o.num_name_expressions = 1;
	rc = rocjit_kernel_get_registered_v2(&k, ops->ctx, file, kernel, &o);
	if (rc != 0) {
		snprintf(what, sizeof what, "%s in %s", kernel, file);
		return ops_forward(rc, what);
	}
	rc = rocjit_kernel_launch(k, grid, block, shared, stream, args);
	snprintf(what, sizeof what, "launching %s", kernel);
	return ops_forward(rc, what);
}

rocjit_dim3 ops_dim1(unsigned int x)
{
	rocjit_dim3 d = { x, 1, 1 };
	return d;
}

/* A 1-D elementwise launch over n items: RJ_BLOCK threads, enough blocks. */
int ops_launch_ew(rocjit_ops *ops, void *stream, const char *file, const char *kernel,
		  int64_t n, void **args)
{
	return ops_launch(ops, stream, file, kernel, ops_dim1(ops_grid(n, RJ_BLOCK)),
			  ops_dim1(RJ_BLOCK), 0, args);
}
