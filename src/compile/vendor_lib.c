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
