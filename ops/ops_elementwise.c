/*
 * ops_elementwise.c - the elementwise operations of rocjit_ops.h: unary, the parameter ops
 * (affine, clamp, elu, powf), binary, where, cast, copy, copy2d, fill, arange.  Each checks
 * its operands (ops_layout.c), asks the kernel set whether its kernel exists for the type
 * (ops_kernels.c), builds the elementwise launch shape and launches one kernel through
 * ops_launch.c.
 *
 * Owns no state.  Beside ops_rows.c, above ops_launch.c, ops_kernels.c and ops_layout.c: it
 * uses nothing of ops_rows.c, and decides no kernel's existence itself.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_internal.h"

static const char *tn(rocjit_dtype t)
{
	return rocjit_dtype_name(t);
}

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
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_unary"));
	if ((unsigned int)op >= ROCJIT_NUM_UNARY_OPS)
		return ops_fail(ROCJIT_EINVAL, "unary: unknown op %d", (int)op);
	OPS_TRY(ew_prepare(&s, operands, 2, roles));
	OPS_TRY(ops_check_dtype(x, roles[0], y->dtype));
	if (!ops_unary_exists(op, x->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "unary %s does not exist for %s",
				rocjit_unary_op_name(op), tn(x->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_UNARY, rocjit_unary_op_name(op), ops_cxx_type(x->dtype));
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &x_data, &y_data };
	return ops_launch_ew(ops, stream, "unary.hip", name, s.n, args);
}

static int param_op(rocjit_ops *ops, void *stream, int param, const rocjit_tensor *x,
		    const rocjit_tensor *y, double p0, double p1)
{
	const char *roles[] = { ops_param_names[param], ops_param_names[param] };
	const rocjit_tensor *operands[] = { x, y };
	struct rj_ew s;
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, ops_param_names[param]));
	OPS_TRY(ew_prepare(&s, operands, 2, roles));
	OPS_TRY(ops_check_dtype(x, "x", y->dtype));
	if (!ops_param_exists(param, x->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "%s does not exist for %s (float types only)",
				ops_param_names[param], tn(x->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_PARAM, ops_param_names[param], ops_cxx_type(x->dtype));
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &x_data, &y_data, &p0, &p1 };
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
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_binary"));
	if ((unsigned int)op >= ROCJIT_NUM_BINARY_OPS)
		return ops_fail(ROCJIT_EINVAL, "binary: unknown op %d", (int)op);
	OPS_TRY(ew_prepare(&s, operands, 3, roles));
	OPS_TRY(ops_check_dtype(b, roles[1], a->dtype));
	OPS_TRY(ops_check_dtype(out, roles[2], op >= ROCJIT_EQ ? ROCJIT_U8 : a->dtype));
	if (!ops_binary_exists(op, a->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "binary %s does not exist for %s (float "
				"types only)", rocjit_binary_op_name(op), tn(a->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_BINARY, rocjit_binary_op_name(op),
		 ops_cxx_type(a->dtype));
	void *a_data = a->data, *b_data = b->data, *out_data = out->data;
	void *args[] = { &s, &a_data, &b_data, &out_data };
	return ops_launch_ew(ops, stream, "binary.hip", name, s.n, args);
}

int rocjit_ops_where(rocjit_ops *ops, void *stream, const rocjit_tensor *cond,
		     const rocjit_tensor *a, const rocjit_tensor *b, const rocjit_tensor *out)
{
	static const char *const roles[] = { "where cond", "where a", "where b", "where out" };
	const rocjit_tensor *operands[] = { cond, a, b, out };
	struct rj_ew s;
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_where"));
	OPS_TRY(ew_prepare(&s, operands, 4, roles));
	OPS_TRY(ops_check_index_type(cond, roles[0]));
	OPS_TRY(ops_check_dtype(a, roles[1], out->dtype));
	OPS_TRY(ops_check_dtype(b, roles[2], out->dtype));
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_WHERE, ops_cxx_type(cond->dtype),
		 ops_cxx_bytes(rocjit_dtype_size(out->dtype)));
	void *cond_data = cond->data, *a_data = a->data, *b_data = b->data;
	void *out_data = out->data;
	void *args[] = { &s, &cond_data, &a_data, &b_data, &out_data };
	return ops_launch_ew(ops, stream, "binary.hip", name, s.n, args);
}

int rocjit_ops_cast(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y)
{
	static const char *const roles[] = { "cast x", "cast y" };
	const rocjit_tensor *operands[] = { x, y };
	struct rj_ew s;
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_cast"));
	OPS_TRY(ew_prepare(&s, operands, 2, roles));
	if (s.n == 0)
		return 0;
	if (x->dtype == y->dtype)
		snprintf(name, sizeof name, OPS_K_BYTES, "copy", ops_cxx_bytes(rocjit_dtype_size(x->dtype)));
	else
		snprintf(name, sizeof name, OPS_K_CAST, ops_cxx_type(x->dtype), ops_cxx_type(y->dtype));
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &x_data, &y_data };
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
	char name[OPS_EXPR_MAX];

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
	snprintf(name, sizeof name, OPS_K_BYTES, "copy2d", ops_cxx_bytes(rocjit_dtype_size(dtype)));
	void *args[] = { &rows, &cols, &src_stride, &dst_stride, (void *)&src, &dst };
	return ops_launch_ew(ops, stream, "cast.hip", name, rows * cols, args);
}

int rocjit_ops_fill(rocjit_ops *ops, void *stream, const rocjit_tensor *y, const void *value)
{
	const rocjit_tensor *operands[] = { y };
	static const char *const roles[] = { "fill y" };
	struct rj_ew s;
	uint64_t bits = 0;
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_fill"));
	if (!value)
		return ops_fail(ROCJIT_EINVAL, "fill: NULL value");
	OPS_TRY(ew_prepare(&s, operands, 1, roles));
	if (s.n == 0)
		return 0;
	memcpy(&bits, value, rocjit_dtype_size(y->dtype)); /* little-endian host and GPU */
	snprintf(name, sizeof name, OPS_K_BYTES, "fill", ops_cxx_bytes(rocjit_dtype_size(y->dtype)));
	void *y_data = y->data;
	void *args[] = { &s, &y_data, &bits };
	return ops_launch_ew(ops, stream, "cast.hip", name, s.n, args);
}

int rocjit_ops_arange(rocjit_ops *ops, void *stream, const rocjit_tensor *y, double start,
		      double step)
{
	const rocjit_tensor *operands[] = { y };
	static const char *const roles[] = { "arange y" };
	struct rj_ew s;
	uint64_t a, b;
	char name[OPS_EXPR_MAX];

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
	snprintf(name, sizeof name, OPS_K_ARANGE, ops_cxx_type(y->dtype));
	void *y_data = y->data;
	void *args[] = { &s, &y_data, &a, &b };
	return ops_launch_ew(ops, stream, "cast.hip", name, s.n, args);
}
