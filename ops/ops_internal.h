/*
 * ops_internal.h - what the files of rocjit_ops share.  They form layers, each using only
 * those below it:
 *     ops_elementwise.c  ops_rows.c     the operations (beside each other)
 *     ops_launch.c       ops_kernels.c  the handle and the launch; the kernel set
 *     ops_layout.c                      views, checks, errors, the launch shapes
 *
 * The rj_* structs are the host side of kernels-src/ops/rj_ops.h's launch shapes, passed
 * to the kernels BY VALUE: same members, same order, same sizes (asserted below).
 */
#ifndef ROCJIT_OPS_INTERNAL_H
#define ROCJIT_OPS_INTERNAL_H

#include <stdint.h>

#include "rocjit_ops.h"

#define RJ_MAX_DIMS 6
#define RJ_BLOCK 256       /* threads per block: rows, final, row ops (the kernels' contract) */
#define RJ_MAX_GRID 65535u /* blocks per launch dimension; kernels loop over the rest         */

struct rj_ew {
	int64_t n;
	int ndim;
	int contig;
	int64_t dims[RJ_MAX_DIMS];
	int64_t st[4][RJ_MAX_DIMS];
};

struct rj_red {
	int64_t nout;
	int64_t len;
	int64_t len_stride;
	int64_t chunk;
	int64_t splits;
	double scale;
	int ndim;
	int pad_;
	int64_t dims[RJ_MAX_DIMS];
	int64_t st[RJ_MAX_DIMS];
};

struct rj_rows {
	int64_t rows;
	int64_t cols;
	int64_t in_cs;
	int64_t out_cs;
	double eps;
	int ndim;
	int pad_;
	int64_t dims[RJ_MAX_DIMS];
	int64_t in_st[RJ_MAX_DIMS];
	int64_t out_st[RJ_MAX_DIMS];
	int64_t aux_cs;
	int64_t beta_cs;
};

struct rj_idx {
	int64_t n;
	int ndim;
	int dim;
	int64_t len;
	int64_t xlen;
	int64_t dims[RJ_MAX_DIMS];
	int64_t xs[RJ_MAX_DIMS];
	int64_t is[RJ_MAX_DIMS];
	int64_t os[RJ_MAX_DIMS];
};

_Static_assert(sizeof(struct rj_ew) == 256, "rj_ew layout");
_Static_assert(sizeof(struct rj_red) == 152, "rj_red layout");
_Static_assert(sizeof(struct rj_rows) == 208, "rj_rows layout");
_Static_assert(sizeof(struct rj_idx) == 224, "rj_idx layout");

/* ---- Errors (ops_layout.c) ------------------------------------------------------------ */

/* Records the calling thread's message and returns rc (a ROCJIT_E* code). */
int ops_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns rc; when it is an error, records "what: <rocjit's own detail>". */
int ops_forward(int rc, const char *what);

/* Returns from the calling function when rc is an error. */
#define OPS_TRY(expr)                      \
	do {                               \
		int ops_rc_ = (expr);      \
		if (ops_rc_ != 0)          \
			return ops_rc_;    \
	} while (0)

/* ---- Checks (ops_layout.c) --------------------------------------------------------------- */

/* t is a usable view (dtype, ndim, extents >= 0, data unless empty); role names it. */
int ops_check_view(const rocjit_tensor *t, const char *role);
/* As ops_check_view, and an output: no 0 stride along an extent > 1. */
int ops_check_out(const rocjit_tensor *t, const char *role);
/* t has out's ndim and extents (an elementwise operand). */
int ops_check_same_shape(const rocjit_tensor *t, const char *role, const rocjit_tensor *out);
/* t has dtype. */
int ops_check_dtype(const rocjit_tensor *t, const char *role, rocjit_dtype dtype);
/* t is dense row-major. */
int ops_is_dense(const rocjit_tensor *t);
/* 1 for u8, u32, i64; 0 for the float types. */
int ops_is_int(rocjit_dtype dtype);
/* The index type names accepted for ids and conditions: u8, u32, i64. */
int ops_check_index_type(const rocjit_tensor *t, const char *role);

/* The kernels' template arguments (ops_layout.c), as the compiler prints them: a dtype's
 * storage type ("float", "rj_f16", "unsigned char"), and the unsigned type of an element
 * of 1, 2, 4 or 8 bytes ("unsigned short") for the kernels that only move bytes.  NULL
 * for anything else. */
const char *ops_cxx_type(rocjit_dtype dtype);
const char *ops_cxx_bytes(size_t bytes);

/* ---- Launch shapes (ops_layout.c) ----------------------------------------------------- */

/* The elementwise shape of out with its nops operands (operand nops-1 is out): extents of
 * 1 dropped, neighbouring extents merged where every operand allows, contig set when all
 * are then dense. */
void ops_ew_shape(struct rj_ew *s, const rocjit_tensor *const *operands, int nops);

/* Blocks for n work items of `block` threads each, capped at RJ_MAX_GRID. */
unsigned int ops_grid(int64_t n, unsigned int block);

/* ---- The kernel set (ops_kernels.c) ---------------------------------------------------- */

#define OPS_NUM_PARAM_OPS 4

/*
 * The kernels' name expressions (the .hip files of kernels-src/ops): every kernel is a
 * template instantiation, compiled on its own at its first use.  The launches and
 * rocjit_ops_foreach_kernel build the names from these formats, so they cannot
 * disagree; the arguments are ops_cxx_type / ops_cxx_bytes spellings and the op names.
 */
#define OPS_EXPR_MAX 96
#define OPS_K_UNARY "unary<rj_op_%s, %s>"       /* unary op, type                     */
#define OPS_K_PARAM "unary_param<rj_op_%s, %s>" /* ops_param_names[], type            */
#define OPS_K_BINARY "binary<rj_bop_%s, %s>"    /* binary op, type                    */
#define OPS_K_WHERE "where<%s, %s>"             /* condition type, element bytes      */
#define OPS_K_CAST "cast<%s, %s>"               /* from, to                           */
#define OPS_K_BYTES "%s<%s>"                    /* copy copy2d fill, element bytes    */
#define OPS_K_ARANGE "arange<%s>"               /* type                               */
#define OPS_K_REDUCE "reduce_%s<rj_r_%s, %s>"   /* rows final cols, ops_reduce_kops[],
                                                   type                               */
#define OPS_K_ROWS "%s<%s>"                     /* softmax log_softmax layer_norm
                                                   rms_norm, type                     */
#define OPS_K_ARGSORT "argsort_%s<%s>"          /* asc desc, type                     */
#define OPS_K_GATHER "gather<%s, %s>"           /* index type, element bytes          */
#define OPS_K_SCATTER "scatter_add<%s, %s>"     /* index type, type                   */

/* Whether the kernel of an op exists for a type: what the launches refuse with
 * ROCJIT_EUNSUPPORTED and what rocjit_ops_foreach_kernel leaves out. */
int ops_unary_exists(rocjit_unary_op op, rocjit_dtype t);
int ops_binary_exists(rocjit_binary_op op, rocjit_dtype t);
int ops_param_exists(int param, rocjit_dtype t);
/* The parameter ops' kernel names: affine clamp elu powf (param 0..3). */
extern const char *const ops_param_names[OPS_NUM_PARAM_OPS];
/* The reductions' kernel names: sum min max argmin argmax (the mean runs sum's). */
extern const char *const ops_reduce_kops[5];

/* ---- The handle and launches (ops_launch.c) ---------------------------------------------- */

struct rocjit_ops {
	rocjit_ctx *ctx;
};

/* ops is not NULL (what names the call). */
int ops_check_handle(rocjit_ops *ops, const char *what);
rocjit_dim3 ops_dim1(unsigned int x);
/* Fetches kernel (a name expression, OPS_K_*) of file from rocjit - that one template
 * instantiation, compiled or cached on first use - and launches it. */
int ops_launch(rocjit_ops *ops, void *stream, const char *file, const char *kernel,
	       rocjit_dim3 grid, rocjit_dim3 block, unsigned int shared, void **args);
/* ops_launch for n work items: RJ_BLOCK threads per block, ops_grid(n) blocks. */
int ops_launch_ew(rocjit_ops *ops, void *stream, const char *file, const char *kernel,
		  int64_t n, void **args);

#endif
