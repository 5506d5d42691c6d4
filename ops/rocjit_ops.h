/*
 * rocjit_ops.h - the tensor operations a framework like Candle needs, as HIP source
 * compiled by rocjit at first use (kernels-src/ops/), launched on device buffers.
 *
 * A tensor is a strided view of device memory (rocjit_tensor): a device address, an
 * element type, up to ROCJIT_OPS_MAX_DIMS extents and a stride per extent, in elements.
 * Every operand of every operation may be any view - transposed, sliced, broadcast
 * (stride 0), negative strides - unless its description says "dense".  Nothing is ever
 * allocated: outputs are views the caller owns, and the one operation that can use scratch
 * memory (rocjit_ops_reduce) takes it from the caller.
 *
 * Launches are asynchronous on the caller's stream (a hipStream_t on AMD, a CUstream or
 * cudaStream_t on NVIDIA; NULL: the default stream), like rocjit_kernel_launch.  The first
 * use of an operation for a type compiles the file holding it (or reads it from rocjit's
 * cache); later uses cost a table lookup and the launch.
 *
 * Caveats
 *  - Outputs must not overlap inputs, except an output that is exactly the same view as an
 *    input of an elementwise operation (in-place x = f(x)).  An output with a 0 stride
 *    (several elements at one address) is refused.
 *  - Element counts and offsets are 64-bit; launches cover any count.
 *  - f16 and bf16 are computed in f32 and rounded to nearest-even once per result; f64 in
 *    f64; integer arithmetic wraps (two's complement), integer division by zero gives 0.
 *  - Conversions follow Rust's `as` (what Candle does on the CPU): float -> integer rounds
 *    toward zero and saturates, NaN gives 0; integer -> integer keeps the low bits
 *    (sign-extending i64 from u8/u32 is zero-extension); to f16/bf16/f32 from any type is one
 *    correctly rounded step (nearest, ties to even), never a double rounding.
 *  - Out-of-range indices: gather and index_select write 0 for them; scatter_add and
 *    index_add skip them.  Negative i64 indices are out of range.
 *  - The handle never changes after rocjit_ops_create (it holds only the rocjit context):
 *    any number of threads may call any operation at once.
 *
 * Errors: 0, or a negative ROCJIT_E* code of rocjit.h.  ROCJIT_EINVAL for shapes, types or
 * views an operation does not accept (rocjit_ops_last_error() says which operand and why),
 * ROCJIT_EUNSUPPORTED for a type the operation does not exist for, and whatever
 * rocjit_kernel_get / rocjit_kernel_launch return for the compile and the launch.
 */
#ifndef ROCJIT_OPS_H
#define ROCJIT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <rocjit.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCJIT_OPS_MAX_DIMS 6

/* Element types.  The values index tables: they never change. */
typedef enum rocjit_dtype {
	ROCJIT_F32 = 0,
	ROCJIT_F16 = 1,  /* IEEE binary16, stored as its 16 bits                          */
	ROCJIT_BF16 = 2, /* bfloat16 (the top half of an f32), stored as its 16 bits      */
	ROCJIT_F64 = 3,
	ROCJIT_U8 = 4,
	ROCJIT_U32 = 5,
	ROCJIT_I64 = 6
} rocjit_dtype;
#define ROCJIT_NUM_DTYPES 7

/* "f32", "f16", "bf16", "f64", "u8", "u32", "i64"; NULL for other values. */
const char *rocjit_dtype_name(rocjit_dtype dtype);
/* Bytes per element: 4, 2, 2, 8, 1, 4, 8; 0 for other values. */
size_t rocjit_dtype_size(rocjit_dtype dtype);

/*
 * A strided view.  Element (i0, .., i{ndim-1}) lives at
 *     (char *)data + (i0 * strides[0] + ... + i{ndim-1} * strides[ndim-1]) * element size.
 * ndim 0 is a scalar (one element).  Extents may be 0 (an empty tensor: operations on it
 * launch nothing and return 0).  Entries past ndim are ignored.
 */
typedef struct rocjit_tensor {
	void *data;                             /* device address of element (0, .., 0)   */
	rocjit_dtype dtype;
	int ndim;                               /* 0 .. ROCJIT_OPS_MAX_DIMS               */
	int64_t dims[ROCJIT_OPS_MAX_DIMS];      /* extents, outermost first, >= 0          */
	int64_t strides[ROCJIT_OPS_MAX_DIMS];   /* in elements; 0 broadcasts               */
} rocjit_tensor;

/* A dense row-major view of data with the given extents. */
rocjit_tensor rocjit_tensor_dense(void *data, rocjit_dtype dtype, int ndim, const int64_t *dims);

/* Elements in t: the product of its extents (1 for a scalar). */
int64_t rocjit_tensor_numel(const rocjit_tensor *t);

/*
 * NumPy broadcasting: *out becomes t seen with ndim extents dims - t's extents aligned to
 * the right, missing leading ones and extents of 1 stretched with stride 0.
 * Returns 0, or ROCJIT_EINVAL when an extent of t is neither 1 nor the target's.
 */
int rocjit_tensor_broadcast(rocjit_tensor *out, const rocjit_tensor *t, int ndim,
			    const int64_t *dims);

/* ---- The handle ----------------------------------------------------------------------- */

typedef struct rocjit_ops rocjit_ops;

/*
 * Creates a handle launching through ctx (which must outlive it; its device is where the
 * kernels run).  The kernel sources are the ones embedded in this library (registered as
 * "unary.hip", "binary.hip", ... - with $ROCJIT_KERNEL_PATH they are read from a folder
 * instead, see rocjit_kernel_get_registered).
 * Returns 0, ROCJIT_EINVAL (NULL argument), ROCJIT_ENOMEM.
 */
int rocjit_ops_create(rocjit_ops **out, rocjit_ctx *ctx);

/* Frees the handle; NULL is a no-op.  Work already launched is not waited for. */
void rocjit_ops_destroy(rocjit_ops *ops);

/* The calling thread's detail of its latest failed rocjit_ops_* call. */
const char *rocjit_ops_last_error(void);

/* ---- Elementwise ------------------------------------------------------------------------ */
/*
 * All elementwise operations take operands of the output's ndim and extents (broadcast
 * inputs first with rocjit_tensor_broadcast).  Types, unless said otherwise: the inputs'
 * and the output's dtype are the same.
 */

typedef enum rocjit_unary_op {
	ROCJIT_NEG, ROCJIT_ABS, ROCJIT_EXP, ROCJIT_LOG, ROCJIT_SQRT, ROCJIT_SIN, ROCJIT_COS,
	ROCJIT_TANH, ROCJIT_RELU,
	ROCJIT_GELU,     /* tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))     */
	ROCJIT_GELU_ERF, /* 0.5 x (1 + erf(x / sqrt(2)))                                    */
	ROCJIT_SILU,     /* x / (1 + exp(-x))                                               */
	ROCJIT_SIGMOID, ROCJIT_RECIP, ROCJIT_SQR, ROCJIT_FLOOR, ROCJIT_CEIL,
	ROCJIT_ROUND,    /* half away from zero                                             */
	ROCJIT_SIGN      /* -1, 0 or 1 (NaN stays NaN)                                      */
} rocjit_unary_op;
#define ROCJIT_NUM_UNARY_OPS 19

/* "neg", "abs", ... (the kernel name part); NULL for other values. */
const char *rocjit_unary_op_name(rocjit_unary_op op);

/*
 * y = op(x).  Every op exists for f32, f16, bf16 and f64; for the integer types: sqr and
 * sign (u8, u32, i64), neg, abs and relu (i64 only).  Others: ROCJIT_EUNSUPPORTED.
 */
int rocjit_ops_unary(rocjit_ops *ops, void *stream, rocjit_unary_op op, const rocjit_tensor *x,
		     const rocjit_tensor *y);

/* y = x * mul + add.  Every type (integers: mul and add converted to the type first). */
int rocjit_ops_affine(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		      const rocjit_tensor *y, double mul, double add);
/* y = x > 0 ? x : alpha (exp(x) - 1).  Float types. */
int rocjit_ops_elu(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y,
		   double alpha);
/* y = pow(x, e).  Float types. */
int rocjit_ops_powf(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		    const rocjit_tensor *y, double e);
/* y = min(max(x, lo), hi).  Every type (integers: lo and hi converted to the type). */
int rocjit_ops_clamp(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		     const rocjit_tensor *y, double lo, double hi);

typedef enum rocjit_binary_op {
	ROCJIT_ADD, ROCJIT_SUB, ROCJIT_MUL, ROCJIT_DIV,
	ROCJIT_MIN, ROCJIT_MAX, /* a NaN operand gives NaN                               */
	ROCJIT_POW,             /* float types only                                      */
	ROCJIT_EQ, ROCJIT_NE, ROCJIT_LT, ROCJIT_LE, ROCJIT_GT, ROCJIT_GE /* out: u8 0 or 1 */
} rocjit_binary_op;
#define ROCJIT_NUM_BINARY_OPS 13

/* "add", ..., "ge"; NULL for other values. */
const char *rocjit_binary_op_name(rocjit_binary_op op);

/* out = a op b.  a and b of one type, every type; out of that type, u8 for comparisons. */
int rocjit_ops_binary(rocjit_ops *ops, void *stream, rocjit_binary_op op, const rocjit_tensor *a,
		      const rocjit_tensor *b, const rocjit_tensor *out);

/* out = cond != 0 ? a : b.  cond: u8, u32 or i64; a, b, out: one type, every type. */
int rocjit_ops_where(rocjit_ops *ops, void *stream, const rocjit_tensor *cond,
		     const rocjit_tensor *a, const rocjit_tensor *b, const rocjit_tensor *out);

/* y = x converted to y's type (any pair of types; the same type copies). */
int rocjit_ops_cast(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y);

/* y = x, same type, any views: a strided view made contiguous, or the reverse. */
int rocjit_ops_copy(rocjit_ops *ops, void *stream, const rocjit_tensor *x, const rocjit_tensor *y);

/*
 * Candle's copy2d: rows x cols elements of dtype, row r of src starting at element
 * r * src_stride, of dst at r * dst_stride (both in elements, >= 0).  The rows must not
 * overlap in dst.
 */
int rocjit_ops_copy2d(rocjit_ops *ops, void *stream, rocjit_dtype dtype, const void *src,
		      void *dst, int64_t rows, int64_t cols, int64_t src_stride,
		      int64_t dst_stride);

/* Every element of y = *value, one element of y's type in host memory (f16/bf16: its bits). */
int rocjit_ops_fill(rocjit_ops *ops, void *stream, const rocjit_tensor *y, const void *value);

/*
 * y[i] = start + i * step for the elements of y in row-major order (y: any view).  Float
 * types compute in f64 and round once; integer types need integral start and step
 * (|value| < 2^53) and compute in 64-bit integers, wrapping to the type.
 */
int rocjit_ops_arange(rocjit_ops *ops, void *stream, const rocjit_tensor *y, double start,
		      double step);

/* ---- Reductions and row operations ------------------------------------------------------ */

typedef enum rocjit_reduce_op {
	ROCJIT_SUM, ROCJIT_MIN_R, ROCJIT_MAX_R, ROCJIT_ARGMIN, ROCJIT_ARGMAX,
	ROCJIT_MEAN /* float types only */
} rocjit_reduce_op;
#define ROCJIT_NUM_REDUCE_OPS 6

/*
 * y = op of x over dimension dim.  y must be DENSE with x's extents except dim, either
 * keeping it as extent 1 or dropping it (both have the same elements in the same order).
 * y's type: x's for sum, min, max and mean; u32 indices (into dim) for argmin/argmax.
 * Every type.  Sums of f16/bf16/f32 accumulate in f32, f64 in f64, integers in their own
 * type (wrapping); the order is fixed, so results are reproducible run to run.
 * NaN: min, max, argmin and argmax return the first NaN they meet (as PyTorch does).
 * Ties: argmin/argmax return the lowest index.  An empty dim: sum 0, mean NaN, the others
 * ROCJIT_EINVAL.
 *
 * workspace: device memory of rocjit_ops_reduce_workspace(op, x, dim) bytes (0 when the
 * reduction has enough outputs to fill the GPU) lets a reduction with few outputs spread
 * over the whole GPU: one output of 64 Mi f32 runs as 2048 blocks and a second small
 * launch.  NULL (or too small) is allowed and correct but runs one block per output - on
 * an H100 the 64 Mi sum took 26 ms instead of 0.096 ms.  The workspace is in use until
 * the launched work completes.
 */
int rocjit_ops_reduce(rocjit_ops *ops, void *stream, rocjit_reduce_op op, const rocjit_tensor *x,
		      int dim, const rocjit_tensor *y, void *workspace, size_t workspace_size);
size_t rocjit_ops_reduce_workspace(rocjit_reduce_op op, const rocjit_tensor *x, int dim);

/*
 * Operations along the last dimension, row by row (x and y: any views of the same extents
 * and float type).  softmax(x)_j = exp(x_j - max) / sum exp(x_k - max);
 * log_softmax = x_j - max - log(sum exp(x_k - max)).
 */
int rocjit_ops_softmax(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		       const rocjit_tensor *y);
int rocjit_ops_log_softmax(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			   const rocjit_tensor *y);

/*
 * layer_norm: y = (x - mean) / sqrt(var + eps) * alpha + beta, var the biased variance.
 * rms_norm:   y = x / sqrt(mean(x^2) + eps) * alpha.
 * alpha, beta: NULL (1 and 0) or 1-D views of x's type with the extent of x's last dim.
 */
int rocjit_ops_layer_norm(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			  const rocjit_tensor *alpha, const rocjit_tensor *beta,
			  const rocjit_tensor *y, double eps);
int rocjit_ops_rms_norm(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			const rocjit_tensor *alpha, const rocjit_tensor *y, double eps);

/*
 * Indices into the last dimension that sort each row (ascending, or descending when
 * descending != 0); y: u32 of x's extents.  Equal values keep their order (stable); NaN
 * sorts after every number ascending, before them descending.  Every type.  Rows of up to
 * ROCJIT_OPS_ARGSORT_MAX elements (a bitonic sort in shared memory); longer: EUNSUPPORTED.
 */
#define ROCJIT_OPS_ARGSORT_MAX 8192
int rocjit_ops_argsort(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		       const rocjit_tensor *y, int descending);

/* ---- Indexing ----------------------------------------------------------------------------- */
/* ids: u8, u32 or i64; values: every type. */

/* y = x with dim picked by the 1-D ids: y[.., j, ..] = x[.., ids[j], ..]; y's extent along
 * dim is ids' length, the others are x's. */
int rocjit_ops_index_select(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
			    const rocjit_tensor *ids, int dim, const rocjit_tensor *y);

/* y[i] = x[i with i_dim replaced by ids[i]]; ids and y have the same extents, which equal
 * x's except along dim. */
int rocjit_ops_gather(rocjit_ops *ops, void *stream, const rocjit_tensor *x,
		      const rocjit_tensor *ids, int dim, const rocjit_tensor *y);

/* dst[i with i_dim replaced by ids[i]] += src[i]; ids and src have the same extents, which
 * equal dst's except along dim.  Deterministic (no atomics). */
int rocjit_ops_scatter_add(rocjit_ops *ops, void *stream, const rocjit_tensor *dst,
			   const rocjit_tensor *ids, const rocjit_tensor *src, int dim);

/* dst[.., ids[j], ..] += src[.., j, ..]; ids 1-D with src's extent along dim, the other
 * extents of src equal dst's.  Deterministic (no atomics). */
int rocjit_ops_index_add(rocjit_ops *ops, void *stream, const rocjit_tensor *dst,
			 const rocjit_tensor *ids, const rocjit_tensor *src, int dim);

/* ---- The kernel set ----------------------------------------------------------------------- */

/*
 * Calls fn for every (file, kernel) this library can launch, file by file in a fixed
 * order; stops at and returns fn's first non-zero return.  Each kernel is a template
 * instantiation, named by its name expression ("unary<rj_op_neg, float>",
 * "cast<rj_f16, unsigned char>"), and a launch compiles that instantiation alone at its
 * first use: rocjit_kernel_get_registered_v2(&k, ctx, file, kernel, o) with
 * o.name_expressions = { kernel }.  To prewarm, export or bundle the whole set, compile
 * each listed (file, kernel) the same way (rocjit_compile_registered_v2 with that one
 * expression): those are the entries the launches look up.  A file compiled whole,
 * without expressions, holds no kernel.  The strings are valid during the call only.
 */
int rocjit_ops_foreach_kernel(int (*fn)(const char *file, const char *kernel, void *user),
			      void *user);

#ifdef __cplusplus
}
#endif
#endif
