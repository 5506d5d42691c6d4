/*
 * ops_layout.c - views and what is checked about them, the per-thread error message, and
 * the elementwise launch shape.
 *
 * Owns the per-thread error message.  The lowest file of rocjit_ops: it launches nothing
 * (ops_launch.c), names no kernel (ops_kernels.c) and uses no other file of ops/.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops_internal.h"

/* cxx: the kernels' storage type as the compiler prints it (rj_ops.h), for name
 * expressions that hipRTC's textual lookup matches. */
static const struct {
	const char *name;
	size_t size;
	const char *cxx;
} dtypes[ROCJIT_NUM_DTYPES] = {
	[ROCJIT_F32] = { "f32", 4, "float" },        [ROCJIT_F16] = { "f16", 2, "rj_f16" },
	[ROCJIT_BF16] = { "bf16", 2, "rj_bf16" },    [ROCJIT_F64] = { "f64", 8, "double" },
	[ROCJIT_U8] = { "u8", 1, "unsigned char" },  [ROCJIT_U32] = { "u32", 4, "unsigned int" },
	[ROCJIT_I64] = { "i64", 8, "long long" },
};

const char *ops_cxx_type(rocjit_dtype dtype)
{
	return (unsigned int)dtype < ROCJIT_NUM_DTYPES ? dtypes[dtype].cxx : NULL;
}

const char *ops_cxx_bytes(size_t bytes)
{
	switch (bytes) {
	case 1:
		return "unsigned char";
	case 2:
		return "unsigned short";
	case 4:
		return "unsigned int";
	case 8:
		return "unsigned long long";
	default:
		return NULL;
	}
}

const char *rocjit_dtype_name(rocjit_dtype dtype)
{
	return (unsigned int)dtype < ROCJIT_NUM_DTYPES ? dtypes[dtype].name : NULL;
}

size_t rocjit_dtype_size(rocjit_dtype dtype)
{
	return (unsigned int)dtype < ROCJIT_NUM_DTYPES ? dtypes[dtype].size : 0;
}

int ops_is_int(rocjit_dtype dtype)
{
	return dtype == ROCJIT_U8 || dtype == ROCJIT_U32 || dtype == ROCJIT_I64;
}

/* ---- Errors --------------------------------------------------------------------------- */

static _Thread_local char last_error[512];

const char *rocjit_ops_last_error(void)
{
	return last_error;
}

int ops_fail(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return rc;
}

int ops_forward(int rc, const char *what)
{
	if (rc != 0)
		ops_fail(rc, "%s: %s", what, rocjit_last_error());
	return rc;
}

/* ---- Views ---------------------------------------------------------------------------- */

rocjit_tensor rocjit_tensor_dense(void *data, rocjit_dtype dtype, int ndim, const int64_t *dims)
{
	rocjit_tensor t;
	int64_t stride = 1;

	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = dtype;
	t.ndim = ndim < 0 ? 0 : ndim > ROCJIT_OPS_MAX_DIMS ? ROCJIT_OPS_MAX_DIMS : ndim;
	for (int d = t.ndim - 1; d >= 0; d--) {
		t.dims[d] = dims[d];
		t.strides[d] = stride;
		stride *= dims[d] > 1 ? dims[d] : 1;
	}
	return t;
}

int64_t rocjit_tensor_numel(const rocjit_tensor *t)
{
	int64_t n = 1;

	for (int d = 0; d < t->ndim; d++)
		n *= t->dims[d];
	return n;
}

int rocjit_tensor_broadcast(rocjit_tensor *out, const rocjit_tensor *t, int ndim,
			    const int64_t *dims)
{
	rocjit_tensor r;

	if (!out || !t || ndim < 0 || ndim > ROCJIT_OPS_MAX_DIMS || t->ndim > ndim ||
	    t->ndim < 0)
		return ops_fail(ROCJIT_EINVAL, "broadcast: %d dims cannot become %d", t ? t->ndim : -1,
				ndim);
	memset(&r, 0, sizeof r);
	r.data = t->data;
	r.dtype = t->dtype;
	r.ndim = ndim;
	for (int d = ndim - 1, s = t->ndim - 1; d >= 0; d--, s--) {
		r.dims[d] = dims[d];
		if (s < 0 || (t->dims[s] == 1 && dims[d] != 1))
			r.strides[d] = 0;
		else if (t->dims[s] == dims[d])
			r.strides[d] = t->strides[s];
		else
			return ops_fail(ROCJIT_EINVAL, "broadcast: extent %lld of dim %d is neither "
					"1 nor the target's %lld", (long long)t->dims[s], s,
					(long long)dims[d]);
	}
	*out = r;
	return 0;
}

/* ---- Checks ------------------------------------------------------------------------------ */

int ops_check_view(const rocjit_tensor *t, const char *role)
{
	if (!t)
		return ops_fail(ROCJIT_EINVAL, "%s: NULL tensor", role);
	if ((unsigned int)t->dtype >= ROCJIT_NUM_DTYPES)
		return ops_fail(ROCJIT_EINVAL, "%s: unknown dtype %d", role, (int)t->dtype);
	if (t->ndim < 0 || t->ndim > ROCJIT_OPS_MAX_DIMS)
		return ops_fail(ROCJIT_EINVAL, "%s: ndim %d is outside 0..%d", role, t->ndim,
				ROCJIT_OPS_MAX_DIMS);
	for (int d = 0; d < t->ndim; d++)
		if (t->dims[d] < 0)
			return ops_fail(ROCJIT_EINVAL, "%s: extent %lld of dim %d is negative", role,
					(long long)t->dims[d], d);
	if (!t->data && rocjit_tensor_numel(t) > 0)
		return ops_fail(ROCJIT_EINVAL, "%s: NULL data for %lld elements", role,
				(long long)rocjit_tensor_numel(t));
	return 0;
}

int ops_check_out(const rocjit_tensor *t, const char *role)
{
	OPS_TRY(ops_check_view(t, role));
	for (int d = 0; d < t->ndim; d++)
		if (t->dims[d] > 1 && t->strides[d] == 0)
			return ops_fail(ROCJIT_EINVAL, "%s: stride 0 along dim %d (extent %lld) "
					"would write several elements to one address", role, d,
					(long long)t->dims[d]);
	return 0;
}

int ops_check_same_shape(const rocjit_tensor *t, const char *role, const rocjit_tensor *out)
{
	OPS_TRY(ops_check_view(t, role));
	if (t->ndim != out->ndim)
		return ops_fail(ROCJIT_EINVAL, "%s: %d dims, the output has %d (broadcast it "
				"first: rocjit_tensor_broadcast)", role, t->ndim, out->ndim);
	for (int d = 0; d < t->ndim; d++)
		if (t->dims[d] != out->dims[d])
			return ops_fail(ROCJIT_EINVAL, "%s: extent %lld along dim %d, the output's "
					"is %lld", role, (long long)t->dims[d], d,
					(long long)out->dims[d]);
	return 0;
}

int ops_check_dtype(const rocjit_tensor *t, const char *role, rocjit_dtype dtype)
{
	if (t->dtype != dtype)
		return ops_fail(ROCJIT_EINVAL, "%s: dtype %s, expected %s", role,
				rocjit_dtype_name(t->dtype), rocjit_dtype_name(dtype));
	return 0;
}

int ops_check_index_type(const rocjit_tensor *t, const char *role)
{
	if (!ops_is_int(t->dtype))
		return ops_fail(ROCJIT_EINVAL, "%s: dtype %s; indices are u8, u32 or i64", role,
				rocjit_dtype_name(t->dtype));
	return 0;
}

int ops_is_dense(const rocjit_tensor *t)
{
	int64_t expect = 1;

	for (int d = t->ndim - 1; d >= 0; d--) {
		if (t->dims[d] != 1 && t->strides[d] != expect)
			return 0;
		expect *= t->dims[d];
	}
	return 1;
}

/* ---- The elementwise shape ------------------------------------------------------------- */

void ops_ew_shape(struct rj_ew *s, const rocjit_tensor *const *operands, int nops)
{
	const rocjit_tensor *out = operands[nops - 1];
	int n = 0;

	memset(s, 0, sizeof *s);
	s->n = rocjit_tensor_numel(out);
	/* Outermost first; an extent of 1 never moves an offset, so it is dropped. */
	for (int d = 0; d < out->ndim; d++) {
		if (out->dims[d] == 1)
			continue;
		int merge = n > 0;
		/* dims n-1 and d merge when stepping n-1 equals stepping d dims[d] times. */
		for (int k = 0; merge && k < nops; k++)
			merge = s->st[k][n - 1] == operands[k]->strides[d] * out->dims[d];
		if (merge) {
			s->dims[n - 1] *= out->dims[d];
			for (int k = 0; k < nops; k++)
				s->st[k][n - 1] = operands[k]->strides[d];
			continue;
		}
		s->dims[n] = out->dims[d];
		for (int k = 0; k < nops; k++)
			s->st[k][n] = operands[k]->strides[d];
		n++;
	}
	s->ndim = n;
	s->contig = 1;
	for (int k = 0; k < nops; k++)
		if (n > 1 || (n == 1 && s->st[k][0] != 1))
			s->contig = 0;
}

unsigned int ops_grid(int64_t n, unsigned int block)
{
	int64_t blocks = (n + block - 1) / block;

	if (blocks < 1)
		return 1;
	return blocks > RJ_MAX_GRID ? RJ_MAX_GRID : (unsigned int)blocks;
}
