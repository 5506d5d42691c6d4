/*
 * ops.c - the operations of rocjit_ops.h: each checks its operands, builds its launch
 * shape and launches one kernel of kernels-src/ops/ (two for a split reduction) through
 * rocjit.  The kernel set itself - which kernel exists for which type - is decided here
 * once (the *_exists predicates), for the launches and for rocjit_ops_foreach_kernel.
 *
 * Kernels are fetched by name at every launch: after the first, that is rocjit's in-process
 * hit (a hash and a table lookup), so the handle keeps no table of its own and needs no lock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- The kernel set ---------------------------------------------------------------------- */

static const char *const unary_names[ROCJIT_NUM_UNARY_OPS] = {
	"neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "relu", "gelu", "gelu_erf",
	"silu", "sigmoid", "recip", "sqr", "floor", "ceil", "round", "sign",
};
static const char *const binary_names[ROCJIT_NUM_BINARY_OPS] = {
	"add", "sub", "mul", "div", "min", "max", "pow", "eq", "ne", "lt", "le", "gt", "ge",
};
static const char *const param_names[] = { "affine", "clamp", "elu", "powf" };
static const rocjit_dtype index_types[] = { ROCJIT_U8, ROCJIT_U32, ROCJIT_I64 };

const char *rocjit_unary_op_name(rocjit_unary_op op)
{
	return (unsigned int)op < ROCJIT_NUM_UNARY_OPS ? unary_names[op] : NULL;
}

const char *rocjit_binary_op_name(rocjit_binary_op op)
{
	return (unsigned int)op < ROCJIT_NUM_BINARY_OPS ? binary_names[op] : NULL;
}

static int unary_exists(rocjit_unary_op op, rocjit_dtype t)
{
	if (!ops_is_int(t))
		return 1;
	if (op == ROCJIT_SQR || op == ROCJIT_SIGN)
		return 1;
	return t == ROCJIT_I64 && (op == ROCJIT_NEG || op == ROCJIT_ABS || op == ROCJIT_RELU);
}

static int binary_exists(rocjit_binary_op op, rocjit_dtype t)
{
	return op != ROCJIT_POW || !ops_is_int(t);
}

/* affine and clamp (param 0, 1) for every type, elu and powf (2, 3) for floats. */
static int param_exists(int param, rocjit_dtype t)
{
	return param < 2 || !ops_is_int(t);
}

static const char *tn(rocjit_dtype t)
{
	return rocjit_dtype_name(t);
}

/* Calls fn(file, name) for each kernel of one file; the names as the launches build them. */
typedef int (*kernel_fn)(const char *file, const char *kernel, void *user);

static int each_unary(kernel_fn fn, void *user)
{
	char name[64];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
		for (int op = 0; op < ROCJIT_NUM_UNARY_OPS && !rc; op++) {
			if (!unary_exists(op, t))
				continue;
			snprintf(name, sizeof name, "unary_%s_%s", unary_names[op], tn(t));
			rc = fn("unary.hip", name, user);
		}
		for (int p = 0; p < 4 && !rc; p++) {
			if (!param_exists(p, t))
				continue;
			snprintf(name, sizeof name, "%s_%s", param_names[p], tn(t));
			rc = fn("unary.hip", name, user);
		}
	}
	return rc;
}

static int each_binary(kernel_fn fn, void *user)
{
	char name[64];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int op = 0; op < ROCJIT_NUM_BINARY_OPS && !rc; op++) {
			if (!binary_exists(op, t))
				continue;
			snprintf(name, sizeof name, "binary_%s_%s", binary_names[op], tn(t));
			rc = fn("binary.hip", name, user);
		}
	for (int c = 0; c < 3 && !rc; c++)
		for (int b = 1; b <= 8 && !rc; b *= 2) {
			snprintf(name, sizeof name, "where_%s_b%d", tn(index_types[c]), b);
			rc = fn("binary.hip", name, user);
		}
	return rc;
}

static int each_cast(kernel_fn fn, void *user)
{
	static const char *const bytes[] = { "copy", "copy2d", "fill" };
	char name[64];
	int rc = 0;

	for (int f = 0; f < ROCJIT_NUM_DTYPES && !rc; f++)
		for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
			if (f == t)
				continue;
			snprintf(name, sizeof name, "cast_%s_%s", tn(f), tn(t));
			rc = fn("cast.hip", name, user);
		}
	for (int k = 0; k < 3 && !rc; k++)
		for (int b = 1; b <= 8 && !rc; b *= 2) {
			snprintf(name, sizeof name, "%s_b%d", bytes[k], b);
			rc = fn("cast.hip", name, user);
		}
	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
		snprintf(name, sizeof name, "arange_%s", tn(t));
		rc = fn("cast.hip", name, user);
	}
	return rc;
}

static int each_reduce(kernel_fn fn, void *user)
{
	static const char *const variants[] = { "rows", "final", "cols" };
	char name[64];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int op = 0; op < 5 && !rc; op++)
			for (int v = 0; v < 3 && !rc; v++) {
				snprintf(name, sizeof name, "reduce_%s_%s_%s", ops_reduce_kops[op],
					 variants[v], tn(t));
				rc = fn("reductions.hip", name, user);
			}
	return rc;
}

static int each_rows_sort_indexing(kernel_fn fn, void *user)
{
	static const char *const rows[] = { "softmax", "log_softmax", "layer_norm", "rms_norm" };
	char name[64];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int k = 0; k < 4 && !ops_is_int(t) && !rc; k++) {
			snprintf(name, sizeof name, "%s_%s", rows[k], tn(t));
			rc = fn("rows.hip", name, user);
		}
	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int desc = 0; desc < 2 && !rc; desc++) {
			snprintf(name, sizeof name, "argsort_%s_%s", desc ? "desc" : "asc", tn(t));
			rc = fn("sort.hip", name, user);
		}
	for (int i = 0; i < 3 && !rc; i++) {
		for (int b = 1; b <= 8 && !rc; b *= 2) {
			snprintf(name, sizeof name, "gather_%s_b%d", tn(index_types[i]), b);
			rc = fn("indexing.hip", name, user);
		}
		for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
			snprintf(name, sizeof name, "scatter_add_%s_%s", tn(index_types[i]), tn(t));
			rc = fn("indexing.hip", name, user);
		}
	}
	return rc;
}

int rocjit_ops_foreach_kernel(kernel_fn fn, void *user)
{
	int rc;

	if (!fn)
		return ops_fail(ROCJIT_EINVAL, "rocjit_ops_foreach_kernel: NULL callback");
	if ((rc = each_unary(fn, user)) || (rc = each_binary(fn, user)) ||
	    (rc = each_cast(fn, user)) || (rc = each_reduce(fn, user)) ||
	    (rc = each_rows_sort_indexing(fn, user)))
		return rc;
	return 0;
}

/* ---- Launching ------------------------------------------------------------------------- */

int ops_launch(rocjit_ops *ops, void *stream, const char *file, const char *kernel,
		  rocjit_dim3 grid, rocjit_dim3 block, unsigned int shared, void **args)
{
	rocjit_kernel *k;
	char what[160];
	int rc;

	rc = rocjit_kernel_get_registered(&k, ops->ctx, file, kernel, NULL, 0);
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

/* A 1-D elementwise launch over s->n items: RJ_BLOCK threads, enough blocks. */
int ops_launch_ew(rocjit_ops *ops, void *stream, const char *file, const char *kernel,
		     int64_t n, void **args)
{
	return ops_launch(ops, stream, file, kernel, ops_dim1(ops_grid(n, RJ_BLOCK)),
			  ops_dim1(RJ_BLOCK), 0,
		      args);
}

int ops_check_handle(rocjit_ops *ops, const char *what)
{
	return ops ? 0 : ops_fail(ROCJIT_EINVAL, "%s: NULL handle", what);
}

/* ---- Elementwise ----------------------------------------------------------------------- */

/* The checks every elementwise operation shares: out is an output, every input has its
 * extents, and the shape for the launch. */
static int ew_prepare(struct rj_ew *s, const rocjit_tensor *const *operands, int nops,
		      const char *const *roles)
{
	const rocjit_tensor *out = operands[nops - 1];

	OPS_TRY(ops_check_out(out, roles[nops - 1]));
	for (int k = 0; k < nops - 1; k++)
		OPS_TRY(ops_check_same_shape(operands[k], roles[k], out));
	ops_ew_shape(s, operands, nops);
	return 0;
}

int rocjit_ops_unary(rocjit_ops *ops, void *stream, rocjit_unary_op op, const rocjit_tensor *x,
		     const rocjit_tensor *y)
{
	static const char *const roles[] = { "unary x", "unary y" };
	const rocjit_tensor *operands[] = { x, y };
	struct rj_ew s;
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_unary"));
	if ((unsigned int)op >= ROCJIT_NUM_UNARY_OPS)
		return ops_fail(ROCJIT_EINVAL, "unary: unknown op %d", (int)op);
	OPS_TRY(ew_prepare(&s, operands, 2, roles));
	OPS_TRY(ops_check_dtype(x, roles[0], y->dtype));
	if (!unary_exists(op, x->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "unary %s does not exist for %s",
				unary_names[op], tn(x->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, "unary_%s_%s", unary_names[op], tn(x->dtype));
	void *args[] = { &s, (void *)&x->data, (void *)&y->data };
	return ops_launch_ew(ops, stream, "unary.hip", name, s.n, args);
}

static int param_op(rocjit_ops *ops, void *stream, int param, const rocjit_tensor *x,
		    const rocjit_tensor *y, double p0, double p1)
{
	const char *roles[] = { param_names[param], param_names[param] };
	const rocjit_tensor *operands[] = { x, y };
	struct rj_ew s;
	char name[64];

	OPS_TRY(ops_check_handle(ops, param_names[param]));
	OPS_TRY(ew_prepare(&s, operands, 2, roles));
	OPS_TRY(ops_check_dtype(x, "x", y->dtype));
	if (!param_exists(param, x->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "%s does not exist for %s (float types only)",
				param_names[param], tn(x->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, "%s_%s", param_names[param], tn(x->dtype));
	void *args[] = { &s, (void *)&x->data, (void *)&y->data, &p0, &p1 };
	return ops_launch_ew(ops, stream, "unary.hip", name, s.n, args);
}

int rocjit_ops_affine(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		      const rocjit_tensor *y, double mul, double add)
{
	return param_op(ops, stream, 0, x, y, mul, add);
}

int rocjit_ops_clamp(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		     const rocjit_tensor *y, double lo, double hi)
{
	return param_op(ops, stream, 1, x, y, lo, hi);
}

int rocjit_ops_elu(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y,
		   double alpha)
{
	return param_op(ops, stream, 2, x, y, alpha, 0.0);
}

int rocjit_ops_powf(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		    const rocjit_tensor *y, double e)
{
	return param_op(ops, stream, 3, x, y, e, 0.0);
}

int rocjit_ops_binary(rocjit_ops *ops, void *stream, rocjit_binary_op op, const rocjit_tensor *a,
		      const rocjit_tensor *b, const rocjit_tensor *out)
{
	static const char *const roles[] = { "binary a", "binary b", "binary out" };
	const rocjit_tensor *operands[] = { a, b, out };
	struct rj_ew s;
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_binary"));
	if ((unsigned int)op >= ROCJIT_NUM_BINARY_OPS)
		return ops_fail(ROCJIT_EINVAL, "binary: unknown op %d", (int)op);
	OPS_TRY(ew_prepare(&s, operands, 3, roles));
	OPS_TRY(ops_check_dtype(b, roles[1], a->dtype));
	OPS_TRY(ops_check_dtype(out, roles[2], op >= ROCJIT_EQ ? ROCJIT_U8 : a->dtype));
	if (!binary_exists(op, a->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "binary %s does not exist for %s (float "
				"types only)", binary_names[op], tn(a->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, "binary_%s_%s", binary_names[op], tn(a->dtype));
	void *args[] = { &s, (void *)&a->data, (void *)&b->data, (void *)&out->data };
	return ops_launch_ew(ops, stream, "binary.hip", name, s.n, args);
}

int rocjit_ops_where(rocjit_ops *ops, void *stream, const rocjit_tensor *cond,
		     const rocjit_tensor *a, const rocjit_tensor *b, const rocjit_tensor *out)
{
	static const char *const roles[] = { "where cond", "where a", "where b", "where out" };
	const rocjit_tensor *operands[] = { cond, a, b, out };
	struct rj_ew s;
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_where"));
	OPS_TRY(ew_prepare(&s, operands, 4, roles));
	OPS_TRY(ops_check_index_type(cond, roles[0]));
	OPS_TRY(ops_check_dtype(a, roles[1], out->dtype));
	OPS_TRY(ops_check_dtype(b, roles[2], out->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, "where_%s_b%zu", tn(cond->dtype), rocjit_dtype_size(out->dtype));
	void *args[] = { &s, (void *)&cond->data, (void *)&a->data, (void *)&b->data,
			 (void *)&out->data };
	return ops_launch_ew(ops, stream, "binary.hip", name, s.n, args);
}

int rocjit_ops_cast(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y)
{
	static const char *const roles[] = { "cast x", "cast y" };
	const rocjit_tensor *operands[] = { x, y };
	struct rj_ew s;
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_cast"));
	OPS_TRY(ew_prepare(&s, operands, 2, roles));
	if (s.n == 0)
		return 0;
	if (x->dtype == y->dtype)
		snprintf(name, sizeof name, "copy_b%zu", rocjit_dtype_size(x->dtype));
	else
		snprintf(name, sizeof name, "cast_%s_%s", tn(x->dtype), tn(y->dtype));
	void *args[] = { &s, (void *)&x->data, (void *)&y->data };
	return ops_launch_ew(ops, stream, "cast.hip", name, s.n, args);
}

int rocjit_ops_copy(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y)
{
	OPS_TRY(ops_check_handle(ops, "rocjit_ops_copy"));
	OPS_TRY(ops_check_view(x, "copy x"));
	OPS_TRY(ops_check_view(y, "copy y"));
	OPS_TRY(ops_check_dtype(x, "copy x", y->dtype));
	return rocjit_ops_cast(ops, stream, x, y);
}

int rocjit_ops_copy2d(rocjit_ops *ops, void *stream, rocjit_dtype dtype, const void *src,
		      void *dst, int64_t rows, int64_t cols, int64_t src_stride,
		      int64_t dst_stride)
{
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_copy2d"));
	if ((unsigned int)dtype >= ROCJIT_NUM_DTYPES)
		return ops_fail(ROCJIT_EINVAL, "copy2d: unknown dtype %d", (int)dtype);
	if (rows < 0 || cols < 0 || src_stride < 0 || dst_stride < 0)
		return ops_fail(ROCJIT_EINVAL, "copy2d: negative rows, cols or stride");
	if (rows > 1 && dst_stride < cols)
		return ops_fail(ROCJIT_EINVAL, "copy2d: dst_stride %lld < cols %lld: the rows "
				"would overlap in dst", (long long)dst_stride, (long long)cols);
	if (rows == 0 || cols == 0)
		return 0;
	if (!src || !dst)
		return ops_fail(ROCJIT_EINVAL, "copy2d: NULL src or dst");
	snprintf(name, sizeof name, "copy2d_b%zu", rocjit_dtype_size(dtype));
	void *args[] = { &rows, &cols, &src_stride, &dst_stride, (void *)&src, &dst };
	return ops_launch_ew(ops, stream, "cast.hip", name, rows * cols, args);
}

int rocjit_ops_fill(rocjit_ops *ops, void *stream, const rocjit_tensor *y, const void *value)
{
	const rocjit_tensor *operands[] = { y };
	static const char *const roles[] = { "fill y" };
	struct rj_ew s;
	uint64_t bits = 0;
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_fill"));
	if (!value)
		return ops_fail(ROCJIT_EINVAL, "fill: NULL value");
	OPS_TRY(ew_prepare(&s, operands, 1, roles));
	if (s.n == 0)
		return 0;
	memcpy(&bits, value, rocjit_dtype_size(y->dtype)); /* little-endian host and GPU */
	snprintf(name, sizeof name, "fill_b%zu", rocjit_dtype_size(y->dtype));
	void *args[] = { &s, (void *)&y->data, &bits };
	return ops_launch_ew(ops, stream, "cast.hip", name, s.n, args);
}

int rocjit_ops_arange(rocjit_ops *ops, void *stream, const rocjit_tensor *y, double start,
		      double step)
{
	const rocjit_tensor *operands[] = { y };
	static const char *const roles[] = { "arange y" };
	struct rj_ew s;
	uint64_t a, b;
	char name[64];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_arange"));
	OPS_TRY(ew_prepare(&s, operands, 1, roles));
	if (ops_is_int(y->dtype)) {
		if (start != floor(start) || step != floor(step) || fabs(start) >= 0x1p53 ||
		    fabs(step) >= 0x1p53)
			return ops_fail(ROCJIT_EINVAL, "arange: %s needs integral start and step "
					"below 2^53 (got %g, %g)", tn(y->dtype), start, step);
		a = (uint64_t)(int64_t)start;
		b = (uint64_t)(int64_t)step;
	} else {
		memcpy(&a, &start, 8);
		memcpy(&b, &step, 8);
	}
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, "arange_%s", tn(y->dtype));
	void *args[] = { &s, (void *)&y->data, &a, &b };
	return ops_launch_ew(ops, stream, "cast.hip", name, s.n, args);
}

/* ---- Reductions, row operations and indexing: ops_rows.c ------------------------------ */
