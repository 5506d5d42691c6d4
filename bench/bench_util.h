/*
 * bench_util.h - what the benchmark programs share: dying with a message, checked
 * allocation, a monotonic clock and medians.  Each program sets bench_prog to its name.
 */
#ifndef ROCJIT_BENCH_UTIL_H
#define ROCJIT_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The program's name, prefixed to bench_die's messages. */
extern const char *bench_prog;

/* Prints "<prog>: <message>" on stderr and exits 1. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* calloc and strdup that die instead of returning NULL. */
void *bench_calloc(size_t n, size_t size);
char *bench_strdup(const char *s);
/* CLOCK_MONOTONIC in nanoseconds, and the milliseconds since t0 of it. */
int64_t bench_now_ns(void);
double bench_ms_since(int64_t t0);
/* The median of v[0..n), which is sorted in place; -1 for n <= 0. */
double bench_median(double *v, int n);

/*
 * Runs this program again (/proc/self/exe) with argv, its stdout into out (NUL-terminated,
 * truncated to out_size - 1).  t0s receives CLOCK_MONOTONIC in ns just before the fork,
 * as text (argv may point at it, so the child reads the parent's start time).  Returns
 * the child's exit status, or -1 when it did not exit normally.
 */
int bench_run_self(const char *const *argv, char *t0s, size_t t0s_size, char *out,
		   size_t out_size);
/* The number after " key=" (or "key=" at the start) in the line starting at line; dies
 * when there is none. */
double bench_field(const char *line, const char *key);

/* Creates $TMPDIR/<prefix>-XXXXXX (else under /tmp), removed with its contents at exit -
 * failed runs too; returns its path.  Dies when it cannot. */
const char *bench_scratch(const char *prefix);

#endif
