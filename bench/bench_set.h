/*
 * bench_set.h - the rocjit_ops kernel set as the ops benchmarks walk it: its files in
 * rocjit_ops_foreach_kernel's order, each with its kernels (name expressions) and its
 * registered source's size.
 */
#ifndef ROCJIT_BENCH_SET_H
#define ROCJIT_BENCH_SET_H

#include <stddef.h>

#include <rocjit.h>

struct set_file {
	char *name;
	char **kernels; /* as rocjit_ops_foreach_kernel lists them */
	int nk, cap;
	size_t src_bytes;
	int src_lines;
};

extern struct set_file *files;
extern int nfiles, total_kernels;

/* Fills files[] from rocjit_ops_foreach_kernel; dies unless every file is registered. */
void load_set(void);

/*
 * The kernels are template instantiations, named by name expressions.  set_compile: the
 * code object of file i with kernel k alone (an application's entry for that op), or
 * with every kernel of the file (k < 0: the file's whole set in one compile), for target
 * (NULL: the context's).  set_kernel: kernel k of file i on the device, as rocjit_ops
 * fetches it.  Both return rocjit's code.
 */
int set_compile(const rocjit_code **code, rocjit_ctx *ctx, const char *target, int i, int k);
int set_kernel(rocjit_kernel **kernel, rocjit_ctx *ctx, int i, int k);

#endif
