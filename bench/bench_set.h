/*
 * bench_set.h - the rocjit_ops kernel set as the ops benchmarks walk it: its files in
 * rocjit_ops_foreach_kernel's order, each with its kernels and its registered source's
 * size.
 */
#ifndef ROCJIT_BENCH_SET_H
#define ROCJIT_BENCH_SET_H

#include <stddef.h>

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

#endif
