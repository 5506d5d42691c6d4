/*
 * ops_kernels.c - the kernel set of kernels-src/ops/: the names of the ops, which kernel
 * exists for which type (the *_exists predicates), and rocjit_ops_foreach_kernel, which
 * lists every kernel the operations can launch, each a template instantiation named by
 * its name expression (the OPS_K_* formats of ops_internal.h).  Decided here once, for the
 * launches (ops_elementwise.c, ops_rows.c) and for the list, so the two cannot disagree.
 *
 * Owns no state: tables of constants.  Below the operations and beside ops_launch.c: it
 * launches nothing and checks no view; it uses only ops_layout.c.
 */
#include <stdio.h>

#include "ops_internal.h"

static const char *const unary_names[ROCJIT_NUM_UNARY_OPS] = {
	"neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "relu", "gelu", "gelu_erf",
	"silu", "sigmoid", "recip", "sqr", "floor", "ceil", "round", "sign",
};
static const char *const binary_names[ROCJIT_NUM_BINARY_OPS] = {
	"add", "sub", "mul", "div", "min", "max", "pow", "eq", "ne", "lt", "le", "gt", "ge",
};
static const rocjit_dtype index_types[] = { ROCJIT_U8, ROCJIT_U32, ROCJIT_I64 };

const char *const ops_param_names[OPS_NUM_PARAM_OPS] = { "affine", "clamp", "elu", "powf" };
const char *const ops_reduce_kops[5] = { "sum", "min", "max", "argmin", "argmax" };

const char *rocjit_unary_op_name(rocjit_unary_op op)
{
	return (unsigned int)op < ROCJIT_NUM_UNARY_OPS ? unary_names[op] : NULL;
}

const char *rocjit_binary_op_name(rocjit_binary_op op)
{
	return (unsigned int)op < ROCJIT_NUM_BINARY_OPS ? binary_names[op] : NULL;
}

int ops_unary_exists(rocjit_unary_op op, rocjit_dtype t)
{
	if (!ops_is_int(t))
		return 1;
	if (op == ROCJIT_SQR || op == ROCJIT_SIGN)
		return 1;
	return t == ROCJIT_I64 && (op == ROCJIT_NEG || op == ROCJIT_ABS || op == ROCJIT_RELU);
}

int ops_binary_exists(rocjit_binary_op op, rocjit_dtype t)
{
	return op != ROCJIT_POW || !ops_is_int(t);
}

/* affine and clamp (param 0, 1) for every type, elu and powf (2, 3) for floats. */
int ops_param_exists(int param, rocjit_dtype t)
{
	return param < 2 || !ops_is_int(t);
}

static const char *cx(rocjit_dtype t)
{
	return ops_cxx_type(t);
}

/* Calls fn(file, name) for each kernel of one file: the name expressions as the launches
 * build them (the OPS_K_* formats). */
typedef int (*kernel_fn)(const char *file, const char *kernel, void *user);

enum width_kind { W_BYTES, W_WHERE, W_GATHER };

/* The kernels that move elements by their width whatever their type, for B of 1, 2, 4
 * and 8 bytes: first<B> (W_BYTES: first is copy, copy2d or fill), where<first, B> or
 * gather<first, B> (first the index type). */
static int each_width(kernel_fn fn, void *user, const char *file, enum width_kind kind,
		      const char *first)
{
	char name[OPS_EXPR_MAX];
	int rc = 0;

	for (size_t b = 1; b <= 8 && !rc; b *= 2) {
		snprintf(name, sizeof name, kind == W_BYTES ? OPS_K_BYTES :
			 kind == W_WHERE ? OPS_K_WHERE : OPS_K_GATHER, first, ops_cxx_bytes(b));
		rc = fn(file, name, user);
	}
	return rc;
}

static int each_unary(kernel_fn fn, void *user)
{
	char name[OPS_EXPR_MAX];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
		for (int op = 0; op < ROCJIT_NUM_UNARY_OPS && !rc; op++) {
			if (!ops_unary_exists(op, t))
				continue;
			snprintf(name, sizeof name, OPS_K_UNARY, unary_names[op], cx(t));
			rc = fn("unary.hip", name, user);
		}
		for (int p = 0; p < OPS_NUM_PARAM_OPS && !rc; p++) {
			if (!ops_param_exists(p, t))
				continue;
			snprintf(name, sizeof name, OPS_K_PARAM, ops_param_names[p], cx(t));
			rc = fn("unary.hip", name, user);
		}
	}
	return rc;
}

static int each_binary(kernel_fn fn, void *user)
{
	char name[OPS_EXPR_MAX];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int op = 0; op < ROCJIT_NUM_BINARY_OPS && !rc; op++) {
			if (!ops_binary_exists(op, t))
				continue;
			snprintf(name, sizeof name, OPS_K_BINARY, binary_names[op], cx(t));
			rc = fn("binary.hip", name, user);
		}
	for (int c = 0; c < 3 && !rc; c++)
		rc = each_width(fn, user, "binary.hip", W_WHERE, cx(index_types[c]));
	return rc;
}

static int each_cast(kernel_fn fn, void *user)
{
	static const char *const bytes[] = { "copy", "copy2d", "fill" };
	char name[OPS_EXPR_MAX];
	int rc = 0;

	for (int f = 0; f < ROCJIT_NUM_DTYPES && !rc; f++)
		for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
			if (f == t)
				continue;
			snprintf(name, sizeof name, OPS_K_CAST, cx(f), cx(t));
			rc = fn("cast.hip", name, user);
		}
	for (int k = 0; k < 3 && !rc; k++)
		rc = each_width(fn, user, "cast.hip", W_BYTES, bytes[k]);
	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
		snprintf(name, sizeof name, OPS_K_ARANGE, cx(t));
		rc = fn("cast.hip", name, user);
	}
	return rc;
}

static int each_reduce(kernel_fn fn, void *user)
{
	static const char *const variants[] = { "rows", "final", "cols" };
	char name[OPS_EXPR_MAX];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int op = 0; op < 5 && !rc; op++)
			for (int v = 0; v < 3 && !rc; v++) {
				snprintf(name, sizeof name, OPS_K_REDUCE, variants[v],
					 ops_reduce_kops[op], cx(t));
				rc = fn("reductions.hip", name, user);
			}
	return rc;
}

static int each_rows_sort_indexing(kernel_fn fn, void *user)
{
	static const char *const rows[] = { "softmax", "log_softmax", "layer_norm", "rms_norm" };
	char name[OPS_EXPR_MAX];
	int rc = 0;

	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int k = 0; k < 4 && !ops_is_int(t) && !rc; k++) {
			snprintf(name, sizeof name, OPS_K_ROWS, rows[k], cx(t));
			rc = fn("rows.hip", name, user);
		}
	for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++)
		for (int desc = 0; desc < 2 && !rc; desc++) {
			snprintf(name, sizeof name, OPS_K_ARGSORT, desc ? "desc" : "asc", cx(t));
			rc = fn("sort.hip", name, user);
		}
	for (int i = 0; i < 3 && !rc; i++) {
		rc = each_width(fn, user, "indexing.hip", W_GATHER, cx(index_types[i]));
		for (int t = 0; t < ROCJIT_NUM_DTYPES && !rc; t++) {
			snprintf(name, sizeof name, OPS_K_SCATTER, cx(index_types[i]), cx(t));
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
