/*
 * ops_rows.c - the operations that are not elementwise: reductions over a dimension, the
 * row operations along the last dimension (softmax, norms, argsort) and indexing.  Each
 * checks its operands (ops_layout.c), builds its launch shape (ops_internal.h) and
 * launches through ops_launch.c; the reductions' kernel names are the kernel set's
 * (ops_kernels.c).
 *
 * Owns no state.  Beside ops_elementwise.c, above ops_launch.c, ops_kernels.c and
 * ops_layout.c: it uses nothing of ops_elementwise.c.
 */
#include <stdio.h>
#include <string.h>

#include "ops_internal.h"

/* ---- Reductions ------------------------------------------------------------------------ */

/* Below this many outputs a reduction splits each output over several blocks (with a
 * workspace); each block then covers at least SPLIT_MIN elements. */
#define SPLIT_BLOCKS 2048
#define SPLIT_MIN 8192
/* At or above this many outputs, a strided reduced dim runs a thread per output; below
 * COLS_FULL outputs (fewer threads than an H100 holds) the reduced dim is split too, each
 * thread then covering at least COLS_SPLIT_MIN elements. */
#define COLS_MIN_OUTPUTS 1024
#define COLS_FULL 262144
#define COLS_SPLIT_MIN 64

enum { VARIANT_ROWS, VARIANT_COLS };

struct red_plan {
	struct rj_red s;
	int kop;          /* index into the kernel ops: sum min max argmin argmax */
	int variant;
	size_t ws_bytes;  /* workspace a split needs; 0: no split */
	int64_t splits;   /* the split it would use */
	int64_t chunk;    /* and the elements of the reduced dim per split */
};

/* Splits the reduced dim into about `want` (at most `most`) chunks, a multiple of align
 * elements each; no split when that leaves one. */
static void plan_split(struct red_plan *p, rocjit_dtype dtype, int64_t want, int64_t most,
		       int64_t align)
{
	size_t csize = dtype == ROCJIT_F64 || dtype == ROCJIT_I64 ? 8 : 4;
	int64_t len = p->s.len, splits = want < most ? want : most, chunk;

	if (splits > RJ_MAX_GRID)
		splits = RJ_MAX_GRID;
	chunk = (len + splits - 1) / splits;
	chunk = (chunk + align - 1) / align * align;
	splits = (len + chunk - 1) / chunk;
	if (splits > 1) {
		p->splits = splits;
		p->chunk = chunk;
		p->ws_bytes = (size_t)(p->s.nout * splits) * (csize + 4);
	}
}

static int reduce_plan(struct red_plan *p, rocjit_reduce_op op, const rocjit_tensor *x, int dim)
{
	static const int kop[ROCJIT_NUM_REDUCE_OPS] = { 0, 1, 2, 3, 4, 0 };
	struct rj_red *s = &p->s;
	int n = 0;

	memset(p, 0, sizeof *p);
	OPS_TRY(ops_check_view(x, "reduce x"));
	if ((unsigned int)op >= ROCJIT_NUM_REDUCE_OPS)
		return ops_fail(ROCJIT_EINVAL, "reduce: unknown op %d", (int)op);
	if (dim < 0 || dim >= x->ndim)
		return ops_fail(ROCJIT_EINVAL, "reduce: dim %d is outside 0..%d", dim, x->ndim - 1);
	if (op == ROCJIT_MEAN && ops_is_int(x->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "reduce: mean does not exist for %s (float "
				"types only; sum, then divide)", rocjit_dtype_name(x->dtype));
	p->kop = kop[op];
	s->len = x->dims[dim];
	s->len_stride = x->strides[dim];
	s->nout = 1;
	for (int d = 0; d < x->ndim; d++) {
		if (d == dim)
			continue;
		s->nout *= x->dims[d];
		if (x->dims[d] == 1)
			continue;
		if (n > 0 && s->st[n - 1] == x->strides[d] * x->dims[d]) {
			s->dims[n - 1] *= x->dims[d];
			s->st[n - 1] = x->strides[d];
			continue;
		}
		s->dims[n] = x->dims[d];
		s->st[n] = x->strides[d];
		n++;
	}
	s->ndim = n;
	if (s->len == 0 && s->nout > 0 && p->kop != 0)
		return ops_fail(ROCJIT_EINVAL, "reduce: %s over an empty dim %d has no value",
				ops_reduce_kops[p->kop], dim);
	if (p->kop >= 3 && s->len > 0xffffffffLL)
		return ops_fail(ROCJIT_EUNSUPPORTED, "reduce: %s over %lld elements: indices are "
				"u32", ops_reduce_kops[p->kop], (long long)s->len);
	s->scale = op == ROCJIT_MEAN ? 1.0 / (double)s->len : 1.0;
	s->chunk = s->len;
	s->splits = 1;
	p->variant = s->len_stride != 1 && s->len > 1 && s->nout >= COLS_MIN_OUTPUTS ?
			     VARIANT_COLS : VARIANT_ROWS;
	if (p->variant == VARIANT_ROWS && s->nout < SPLIT_BLOCKS && s->len >= 2 * SPLIT_MIN)
		plan_split(p, x->dtype, (SPLIT_BLOCKS + s->nout - 1) / s->nout, s->len / SPLIT_MIN,
			   RJ_BLOCK);
	if (p->variant == VARIANT_COLS && s->nout < COLS_FULL && s->len >= 2 * COLS_SPLIT_MIN)
		plan_split(p, x->dtype, (COLS_FULL + s->nout - 1) / s->nout,
			   s->len / COLS_SPLIT_MIN, 1);
	return 0;
}

size_t rocjit_ops_reduce_workspace(rocjit_reduce_op op, const rocjit_tensor *x, int dim)
{
	struct red_plan p;

	return reduce_plan(&p, op, x, dim) == 0 ? p.ws_bytes : 0;
}

/* y: dense, x's extents with dim kept as 1 or dropped. */
static int check_reduce_out(const rocjit_tensor *y, const rocjit_tensor *x, int dim,
			    rocjit_dtype dtype)
{
	int keep;

	OPS_TRY(ops_check_out(y, "reduce y"));
	OPS_TRY(ops_check_dtype(y, "reduce y", dtype));
	keep = y->ndim == x->ndim;
	if (!keep && y->ndim != x->ndim - 1)
		return ops_fail(ROCJIT_EINVAL, "reduce y: %d dims; x has %d (keep dim %d as 1, or "
				"drop it)", y->ndim, x->ndim, dim);
	for (int d = 0, e = 0; d < x->ndim; d++) {
		if (d == dim && !keep)
			continue;
		int64_t want = d == dim ? 1 : x->dims[d];
		if (y->dims[e] != want)
			return ops_fail(ROCJIT_EINVAL, "reduce y: extent %lld along dim %d, expected "
					"%lld", (long long)y->dims[e], e, (long long)want);
		e++;
	}
	if (!ops_is_dense(y))
		return ops_fail(ROCJIT_EINVAL, "reduce y: must be dense (row-major, no gaps)");
	return 0;
}

int rocjit_ops_reduce(rocjit_ops *ops, void *stream, rocjit_reduce_op op, const rocjit_tensor *x,
		      int dim, const rocjit_tensor *y, void *workspace, size_t workspace_size)
{
	static const char *const variants[] = { "rows", "cols" };
	struct red_plan p;
	const char *t;
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_reduce"));
	OPS_TRY(reduce_plan(&p, op, x, dim));
	OPS_TRY(check_reduce_out(y, x, dim, p.kop >= 3 ? ROCJIT_U32 : x->dtype));
	if (p.s.nout == 0)
		return 0;
	t = ops_cxx_type(x->dtype);
	if (p.ws_bytes && workspace && workspace_size >= p.ws_bytes) {
		p.s.splits = p.splits;
		p.s.chunk = p.chunk;
	} else {
		workspace = NULL;
	}
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &p.s, &x_data, &y_data, &workspace };
	snprintf(name, sizeof name, OPS_K_REDUCE, variants[p.variant], ops_reduce_kops[p.kop], t);
	rocjit_dim3 grid = { p.s.nout < RJ_MAX_GRID ? (unsigned int)p.s.nout : RJ_MAX_GRID,
			     (unsigned int)p.s.splits, 1 };
	if (p.variant == VARIANT_COLS)
		grid.x = ops_grid(p.s.nout, RJ_BLOCK);
	OPS_TRY(ops_launch(ops, stream, "reductions.hip", name, grid, ops_dim1(RJ_BLOCK), 0, args));
	grid.x = p.s.nout < RJ_MAX_GRID ? (unsigned int)p.s.nout : RJ_MAX_GRID;
	if (p.s.splits == 1)
		return 0;
	snprintf(name, sizeof name, OPS_K_REDUCE, "final", ops_reduce_kops[p.kop], t);
	grid.y = 1;
	return ops_launch(ops, stream, "reductions.hip", name, grid, ops_dim1(RJ_BLOCK), 0, args);
}

/* ---- Row operations --------------------------------------------------------------------- */

/* The rows of x and y (same extents, checked by the caller) along the last dim. */
static void rows_shape(struct rj_rows *s, const rocjit_tensor *x, const rocjit_tensor *y)
{
	int last = x->ndim - 1;

	memset(s, 0, sizeof *s);
	s->cols = last >= 0 ? x->dims[last] : 1;
	s->in_cs = last >= 0 ? x->strides[last] : 1;
	s->out_cs = last >= 0 ? y->strides[last] : 1;
	s->rows = 1;
	s->ndim = last > 0 ? last : 0;
	for (int d = 0; d < s->ndim; d++) {
		s->dims[d] = x->dims[d];
		s->in_st[d] = x->strides[d];
		s->out_st[d] = y->strides[d];
		s->rows *= x->dims[d];
	}
}

/* x, y: a float type, the same extents and type; y an output. */
static int rows_check(const rocjit_tensor *x, const rocjit_tensor *y, const char *what)
{
	OPS_TRY(ops_check_out(y, what));
	OPS_TRY(ops_check_same_shape(x, what, y));
	OPS_TRY(ops_check_dtype(x, what, y->dtype));
	if (ops_is_int(x->dtype))
		return ops_fail(ROCJIT_EUNSUPPORTED, "%s does not exist for %s (float types only)",
				what, rocjit_dtype_name(x->dtype));
	return 0;
}

static int launch_rows(rocjit_ops *ops, void *stream, const char *kernel,
		       const rocjit_tensor *x, const struct rj_rows *s, void **args)
{
	char name[OPS_EXPR_MAX];

	if (s->rows == 0 || s->cols == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_ROWS, kernel, ops_cxx_type(x->dtype));
	return ops_launch(ops, stream, "rows.hip", name,
			  ops_dim1(s->rows < RJ_MAX_GRID ? (unsigned int)s->rows : RJ_MAX_GRID),
			  ops_dim1(RJ_BLOCK), 0, args);
}

static int softmax(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y,
		   const char *kernel)
{
	struct rj_rows s;

	OPS_TRY(ops_check_handle(ops, kernel));
	OPS_TRY(rows_check(x, y, kernel));
	rows_shape(&s, x, y);
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &x_data, &y_data };
	return launch_rows(ops, stream, kernel, x, &s, args);
}

int rocjit_ops_softmax(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		       const rocjit_tensor *y)
{
	return softmax(ops, stream, x, y, "softmax");
}

int rocjit_ops_log_softmax(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			   const rocjit_tensor *y)
{
	return softmax(ops, stream, x, y, "log_softmax");
}

/* An optional per-column parameter: NULL, or 1-D of x's type and cols elements. */
static int check_param(const rocjit_tensor *p, const char *role, const rocjit_tensor *x,
		       int64_t cols)
{
	if (!p)
		return 0;
	OPS_TRY(ops_check_view(p, role));
	OPS_TRY(ops_check_dtype(p, role, x->dtype));
	if (p->ndim != 1 || p->dims[0] != cols)
		return ops_fail(ROCJIT_EINVAL, "%s: must be 1-D with %lld elements (x's last dim)",
				role, (long long)cols);
	return 0;
}

static int norm(rocjit_ops *ops, void *stream, const char *kernel, const rocjit_tensor *x,
		const rocjit_tensor *alpha, const rocjit_tensor *beta, const rocjit_tensor *y,
		double eps)
{
	struct rj_rows s;
	void *a, *b;

	OPS_TRY(ops_check_handle(ops, kernel));
	OPS_TRY(rows_check(x, y, kernel));
	if (!(eps >= 0))
		return ops_fail(ROCJIT_EINVAL, "%s: eps %g must be >= 0", kernel, eps);
	rows_shape(&s, x, y);
	OPS_TRY(check_param(alpha, "alpha", x, s.cols));
	OPS_TRY(check_param(beta, "beta", x, s.cols));
	s.eps = eps;
	s.aux_cs = alpha ? alpha->strides[0] : 0;
	s.beta_cs = beta ? beta->strides[0] : 0;
	a = alpha ? alpha->data : NULL;
	b = beta ? beta->data : NULL;
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &x_data, &a, &b, &y_data };
	return launch_rows(ops, stream, kernel, x, &s, args);
}

int rocjit_ops_layer_norm(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			  const rocjit_tensor *alpha, const rocjit_tensor *beta,
			  const rocjit_tensor *y, double eps)
{
	return norm(ops, stream, "layer_norm", x, alpha, beta, y, eps);
}

int rocjit_ops_rms_norm(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			const rocjit_tensor *alpha, const rocjit_tensor *y, double eps)
{
	return norm(ops, stream, "rms_norm", x, alpha, NULL, y, eps);
}

int rocjit_ops_argsort(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		       const rocjit_tensor *y, int descending)
{
	struct rj_rows s;
	unsigned int pad = 1;
	char name[OPS_EXPR_MAX];

	OPS_TRY(ops_check_handle(ops, "rocjit_ops_argsort"));
	OPS_TRY(ops_check_out(y, "argsort y"));
	OPS_TRY(ops_check_same_shape(x, "argsort x", y));
	OPS_TRY(ops_check_dtype(y, "argsort y", ROCJIT_U32));
	rows_shape(&s, x, y);
	if (s.cols > ROCJIT_OPS_ARGSORT_MAX)
		return ops_fail(ROCJIT_EUNSUPPORTED, "argsort: rows of %lld elements; at most %d "
				"fit the shared-memory sort", (long long)s.cols,
				ROCJIT_OPS_ARGSORT_MAX);
	if (s.rows == 0 || s.cols == 0)
		return 0;
	while (pad < s.cols)
		pad <<= 1;
	snprintf(name, sizeof name, OPS_K_ARGSORT, descending ? "desc" : "asc",
		 ops_cxx_type(x->dtype));
	void *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &x_data, &y_data };
	return ops_launch(ops, stream, "sort.hip", name,
			  ops_dim1(s.rows < RJ_MAX_GRID ? (unsigned int)s.rows : RJ_MAX_GRID),
			  ops_dim1(pad < 1024 ? pad : 1024), pad * 4, args);
}

/* ---- Indexing -------------------------------------------------------------------------- */

/* a and b have the same extents except along dim (ra, rb name them). */
static int check_except_dim(const rocjit_tensor *a, const char *ra, const rocjit_tensor *b,
			    const char *rb, int dim)
{
	if (a->ndim != b->ndim)
		return ops_fail(ROCJIT_EINVAL, "%s has %d dims, %s %d", ra, a->ndim, rb, b->ndim);
	for (int d = 0; d < a->ndim; d++)
		if (d != dim && a->dims[d] != b->dims[d])
			return ops_fail(ROCJIT_EINVAL, "%s: extent %lld along dim %d, %s has %lld",
					ra, (long long)a->dims[d], d, rb, (long long)b->dims[d]);
	return 0;
}

/* ids: an index type; 1-D of len elements (select and index_add), or like `like`. */
static int check_ids(const rocjit_tensor *ids, int one_d, int64_t len, const rocjit_tensor *like,
		     const char *what)
{
	OPS_TRY(ops_check_view(ids, what));
	OPS_TRY(ops_check_index_type(ids, what));
	if (!one_d)
		return ops_check_same_shape(ids, what, like);
	if (ids->ndim != 1 || ids->dims[0] != len)
		return ops_fail(ROCJIT_EINVAL, "%s: must be 1-D with %lld indices", what,
				(long long)len);
	return 0;
}

/*
 * The checks gather and scatter share.  x is indexed along dim by ids; w is walked (the
 * work runs over its extents, and ids has its length along dim, or its shape); x_is_out
 * says which of the two is written (scatter's dst), the other is read.
 */
static int index_check(rocjit_ops *ops, const char *what, const rocjit_tensor *x,
		       const char *rx, const rocjit_tensor *w, const char *rw, int x_is_out,
		       const rocjit_tensor *ids, int one_d, int dim)
{
	const rocjit_tensor *in = x_is_out ? w : x, *out = x_is_out ? x : w;

	OPS_TRY(ops_check_handle(ops, what));
	OPS_TRY(x_is_out ? ops_check_out(x, what) : ops_check_view(x, what));
	OPS_TRY(x_is_out ? ops_check_view(w, what) : ops_check_out(w, what));
	OPS_TRY(ops_check_dtype(in, what, out->dtype));
	if (dim < 0 || dim >= x->ndim)
		return ops_fail(ROCJIT_EINVAL, "%s: dim %d is outside 0..%d", what, dim,
				x->ndim - 1);
	OPS_TRY(check_except_dim(w, rw, x, rx, dim));
	return check_ids(ids, one_d, w->dims[dim], w, what);
}

/* The indexing shape: work over `over`'s extents; x the indexed tensor, o the other. */
static void idx_shape(struct rj_idx *s, const rocjit_tensor *over, const rocjit_tensor *x,
		      const rocjit_tensor *ids, int one_d, const rocjit_tensor *o, int dim)
{
	memset(s, 0, sizeof *s);
	s->ndim = over->ndim;
	s->dim = dim;
	s->xlen = x->dims[dim];
	for (int d = 0; d < s->ndim; d++) {
		s->dims[d] = over->dims[d];
		s->xs[d] = x->strides[d];
		s->os[d] = o->strides[d];
		s->is[d] = one_d ? (d == dim ? ids->strides[0] : 0) : ids->strides[d];
	}
}

static int gather(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *ids,
		  int dim, const rocjit_tensor *y, int one_d, const char *what)
{
	struct rj_idx s;
	char name[OPS_EXPR_MAX];

	OPS_TRY(index_check(ops, what, x, "x", y, "y", 0, ids, one_d, dim));
	idx_shape(&s, y, x, ids, one_d, y, dim);
	s.n = rocjit_tensor_numel(y);
	if (s.n == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_GATHER, ops_cxx_type(ids->dtype),
		 ops_cxx_bytes(rocjit_dtype_size(x->dtype)));
	void *ids_data = ids->data, *x_data = x->data, *y_data = y->data;
	void *args[] = { &s, &ids_data, &x_data, &y_data };
	return ops_launch_ew(ops, stream, "indexing.hip", name, s.n, args);
}

int rocjit_ops_index_select(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			    const rocjit_tensor *ids, int dim, const rocjit_tensor *y)
{
	return gather(ops, stream, x, ids, dim, y, 1, "index_select");
}

int rocjit_ops_gather(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		      const rocjit_tensor *ids, int dim, const rocjit_tensor *y)
{
	return gather(ops, stream, x, ids, dim, y, 0, "gather");
}

static int scatter(rocjit_ops *ops, void *stream, const rocjit_tensor *dst,
		   const rocjit_tensor *ids, const rocjit_tensor *src, int dim, int one_d,
		   const char *what)
{
	struct rj_idx s;
	rocjit_tensor over;
	char name[OPS_EXPR_MAX];

	OPS_TRY(index_check(ops, what, dst, "dst", src, "src", 1, ids, one_d, dim));
	over = *src;
	over.dims[dim] = 1;
	idx_shape(&s, &over, dst, ids, one_d, src, dim);
	s.len = src->dims[dim];
	s.n = rocjit_tensor_numel(&over);
	if (s.n == 0 || s.len == 0)
		return 0;
	snprintf(name, sizeof name, OPS_K_SCATTER, ops_cxx_type(ids->dtype),
		 ops_cxx_type(dst->dtype));
	void *ids_data = ids->data, *src_data = src->data, *dst_data = dst->data;
	void *args[] = { &s, &ids_data, &src_data, &dst_data };
	return ops_launch_ew(ops, stream, "indexing.hip", name, s.n, args);
}

int rocjit_ops_scatter_add(rocjit_ops *ops, void *stream, const rocjit_tensor *dst,
			   const rocjit_tensor *ids, const rocjit_tensor *src, int dim)
{
	return scatter(ops, stream, dst, ids, src, dim, 0, "scatter_add");
}

int rocjit_ops_index_add(rocjit_ops *ops, void *stream, const rocjit_tensor *dst,
			 const rocjit_tensor *ids, const rocjit_tensor *src, int dim)
{
	return scatter(ops, stream, dst, ids, src, dim, 1, "index_add");
}
