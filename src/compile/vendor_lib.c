/*
 * vendor_lib.c - loading vendor libraries once, finding them, and reading a compiler's
 * program log: the parts the AMD and NVIDIA platforms share (vendor_lib.h).
 *
 * Owns no library handle and no vendor state: the platforms keep theirs.  Must not know
 * any vendor's API beyond the program-log pair both compilers have.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/vendor_lib.h"

/*
 * pthread_once makes every other caller wait for the first load and then see what it
 * wrote (rc, error), so both are read without a lock.
 */
int rj_vendor_load_ready(struct rj_vendor_load *l, void (*load)(void))
{
	pthread_once(&l->once, load);
	RJ_CHECK(l->rc, l->rc, "%s", l->error);
	return 0;
}

void rj_vendor_load_fail(struct rj_vendor_load *l, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->error, sizeof l->error, fmt, ap);
	va_end(ap);
	l->rc = code;
}

void *rj_vendor_open(const char *dir, size_t dirlen, const char *const *names)
{
	char path[4096];

	for (; *names; names++) {
		const char *file = *names;
		void *h;

		if (dir) {
			int n = snprintf(path, sizeof path, "%.*s/%s", (int)dirlen, dir, *names);
			if (n < 0 || (size_t)n >= sizeof path)
				continue;
			file = path;
		}
		if ((h = dlopen(file, RTLD_NOW | RTLD_LOCAL)))
			return h;
	}
	return NULL;
}

void *rj_vendor_sym(void *handle, const char *name)
{
	return handle ? dlsym(handle, name) : NULL;
}

const char *rj_vendor_file(void *symbol)
{
	Dl_info info;

	if (!symbol || !dladdr(symbol, &info))
		return NULL;
	return info.dli_fname;
}

char *rj_vendor_program_log(rj_vendor_program prog, int (*size)(rj_vendor_program, size_t *),
			    int (*get)(rj_vendor_program, char *))
{
	size_t n = 0;
	char *log;

	if (size(prog, &n) != 0)
		n = 0;
	log = calloc(1, n + 1);
	if (log && n && get(prog, log) != 0)
		log[0] = 0;
	return log;
}

int rj_vendor_add_names(rj_vendor_program prog, int (*add)(rj_vendor_program, const char *),
			const char *const *exprs, size_t n, const char *source_name)
{
	RJ_CHECK(n && !add, ROCJIT_ECOMPILE, "%s: this compiler has no name expressions "
		 "(AddNameExpression and GetLoweredName): declare the kernels extern \"C\", or "
		 "instantiate them explicitly and ask for their mangled names", source_name);
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(add(prog, exprs[i]) != 0, ROCJIT_ECOMPILE,
			 "%s: the compiler refused the name expression \"%s\": give a kernel "
			 "template instantiation such as \"k<float, 4>\"", source_name, exprs[i]);
	return 0;
}

void rj_vendor_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int rj_vendor_lowered_names(char ***out, rj_vendor_program prog,
			    int (*lower)(rj_vendor_program, const char *, const char **),
			    const char *const *exprs, size_t n, const char *source_name,
			    const char *fix)
{
	char **names;

	*out = NULL;
	if (!n)
		return 0;
	names = calloc(n, sizeof *names);
	RJ_CHECK(!names, ROCJIT_ENOMEM, "out of memory compiling %s", source_name);
	for (size_t i = 0; i < n; i++) {
		const char *lowered = NULL;
		if (lower(prog, exprs[i], &lowered) != 0 || !lowered || !*lowered) {
			rj_vendor_names_free(names, n);
			RJ_FAIL(ROCJIT_ECOMPILE, "%s compiled, but the compiler cannot lower the "
				"name expression \"%s\" (no kernel instantiation matches it): %s",
				source_name, exprs[i], fix);
		}
		names[i] = strdup(lowered);
		if (!names[i]) {
			rj_vendor_names_free(names, n);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", source_name);
		}
	}
	*out = names;
	return 0;
}

char *rj_vendor_log_error(char *log, const char *source_name)
{
	const char *msg = rocjit_last_error();
	size_t old = log ? strlen(log) : 0;
	size_t len = old + strlen(source_name) + strlen(msg) + 16;
	char *n = realloc(log, len);

	if (!n)
		return log;
	snprintf(n + old, len - old, "%s%s: error: %s\n", old && n[old - 1] != '\n' ? "\n" : "",
		 source_name, msg);
	return n;
}
