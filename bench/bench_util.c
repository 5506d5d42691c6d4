/* bench_util.c - see bench_util.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ftw.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bench_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *bench_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		bench_die("out of memory");
	return p;
}

char *bench_strdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		bench_die("out of memory");
	return d;
}

int64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double bench_ms_since(int64_t t0)
{
	return (double)(bench_now_ns() - t0) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return -1;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_run_self(const char *const *argv, char *t0s, size_t t0s_size, char *out,
		   size_t out_size)
{
	char scratch_buf[512];
	int fd[2], status;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fd) != 0)
		bench_die("pipe: %s", strerror(errno));
	snprintf(t0s, t0s_size, "%lld", (long long)bench_now_ns());
	pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fd[0]);
		if (dup2(fd[1], 1) < 0)
			_exit(127);
		close(fd[1]);
		/* exec takes writable strings: copies (the process is replaced or exits) */
		char *args[64];
		size_t n = 0;
		for (; argv[n] && n < 63; n++)
			args[n] = strdup(argv[n]);
		args[n] = NULL;
		execv("/proc/self/exe", args);
		fprintf(stderr, "%s: cannot run myself again: %s\n", bench_prog, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	while (len < out_size - 1 && (got = read(fd[0], out + len, out_size - 1 - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		len += (size_t)got;
	}
	out[len] = 0;
	/* A child with more to say than out holds must not block on a full pipe. */
	while ((got = read(fd[0], scratch_buf, sizeof scratch_buf)) > 0 ||
	       (got < 0 && errno == EINTR))
		;
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double bench_field(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *end = strchr(line, '\n');

	for (const char *p = line; *p && (!end || p < end); p++)
		if ((p == line || p[-1] == ' ') && !strncmp(p, key, n) && p[n] == '=')
			return strtod(p + n + 1, NULL);
	bench_die("no %s= in the child's line: %.200s", key, line);
}

static char scratch[1024];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "%s: cannot remove %s: %s\n", bench_prog, path, strerror(errno));
	return 0;
}

static void remove_scratch(void)
{
	if (scratch[0])
		nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *bench_scratch(const char *prefix)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof scratch, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
	if (!mkdtemp(scratch)) {
		scratch[0] = 0;
		bench_die("mkdtemp: %s", strerror(errno));
	}
	atexit(remove_scratch);
	return scratch;
}
