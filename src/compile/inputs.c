/*
 * inputs.c - the rule that what a compiler reads is in the cache key, or refused (see
 * inputs.h for what was measured and what each case becomes).
 *
 * Owns the list of environment variables the compilers read that change code, and the
 * check of a request's includes that would reach outside the key (the includes read by
 * rj_includes_scan, includes.c).  The check runs at compile time only: a key whose compile was refused never
 * has an entry, so a hit needs no check.
 *
 * Knows nothing of keys or of the vendor APIs; the platforms call it before compiling.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "compile/inputs.h"

#define AMD (1 << ROCJIT_PLATFORM_AMD)
#define NVIDIA (1 << ROCJIT_PLATFORM_NVIDIA)

/*
 * The variables, and which platform's compiler reads them.  Measured: hipRTC 5.2 reads
 * CPATH and CPLUS_INCLUDE_PATH (a header there is found, unkeyed); the others are read
 * by the libraries (their names are in libamdhip64, comgr and libnvrtc) or by clang's
 * driver, and change the options or the device library a compile uses.
 */
static const struct {
	const char *name;
	int platforms;
	const char *what;
} vars[] = {
	{ "CPATH", AMD, "adds include folders" },
	{ "C_INCLUDE_PATH", AMD, "adds include folders" },
	{ "CPLUS_INCLUDE_PATH", AMD, "adds include folders" },
	{ "OBJC_INCLUDE_PATH", AMD, "adds include folders" },
	{ "OBJCPLUS_INCLUDE_PATH", AMD, "adds include folders" },
	{ "CCC_OVERRIDE_OPTIONS", AMD, "edits the compiler's options" },
	{ "HIPRTC_COMPILE_OPTIONS_APPEND", AMD, "adds compiler options" },
	{ "AMD_OCL_BUILD_OPTIONS", AMD, "replaces compiler options" },
	{ "AMD_OCL_BUILD_OPTIONS_APPEND", AMD, "adds compiler options" },
	{ "HIP_DEVICE_LIB_PATH", AMD, "chooses the device library" },
	{ "NVRTC_APPEND_FLAGS", NVIDIA, "adds compiler options" },
};

static int var_index(const char *entry, size_t name_len)
{
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (strlen(vars[i].name) == name_len && memcmp(vars[i].name, entry, name_len) == 0)
			return (int)i;
	return -1;
}

int rj_inputs_env_changes_code(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq && var_index(entry, (size_t)(eq - entry)) >= 0;
}

int rj_inputs_env_check(int platform)
{
	/* hipRTC pre-includes its runtime header with -include hiprtc_runtime.h, and clang's
	   driver then loads hiprtc_runtime.h.pch or .gch from the current folder when one is
	   there (found in issue 32): a precompiled header the key does not cover, which can
	   change the code or fail every compile. */
	static const char *const pch[] = { "hiprtc_runtime.h.pch", "hiprtc_runtime.h.gch" };
	struct stat st;

	for (size_t i = 0; platform == ROCJIT_PLATFORM_AMD && i < 2; i++)
		RJ_CHECK(lstat(pch[i], &st) == 0, ROCJIT_EINVAL,
			 "./%s is in the folder this process runs in: hipRTC would load it as its "
			 "runtime header's precompiled form, and it is not part of the cache key.  "
			 "Remove it, or run from another folder", pch[i]);
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i].name);

		if (!v || !*v || !(vars[i].platforms & (1 << platform)))
			continue;
		RJ_FAIL(ROCJIT_EINVAL, "%s is set (%s): the compiler would read it, and it is not "
			"part of the cache key.  Unset it for this process, or compile in workers "
			"(unset ROCJIT_COMPILE_INPROCESS), which run without it; pass the headers "
			"it adds as registered headers (rocjit_program.headers, a kernel folder) "
			"and options as compiler options", vars[i].name, vars[i].what);
	}
	return 0;
}

/* ---- The include scan ------------------------------------------------------------------ */

struct scan {
	const struct rj_compile_req *req;
	const struct rj_served *served;
	int platform;
	const char *file; /* the text's name: the source's or an in-memory header's */
};

/*
 * The folders hipRTC 5.2 searches by itself (its -v list on Debian 12: the C++ library's,
 * /usr/local/include, the multiarch folder, /usr/include; CPATH's are cut off with the
 * environment).  Checked for every include no keyed header answers: a header found there
 * would be read unkeyed.  HIP's own installed headers (hip/...) are the compiler's: the
 * headers rocjit serves reach them, and they change with the compiler's identity.
 */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH "unknown"
#endif
static const char *const amd_system_dirs[] = { "/usr/local/include", "/usr/include/" MULTIARCH,
					       "/usr/include" };

/* Whether dir is one of the request's -I folders, whose contents the key holds
 * (request/search_dirs.c). */
static int keyed_folder(const struct scan *s, const char *dir)
{
	struct stat a, b;

	if (stat(dir, &a) != 0)
		return 0;
	for (const char *o = rj_opts_next(s->req->options, NULL); o;
	     o = rj_opts_next(s->req->options, o))
		if (strncmp(o, "-I", 2) == 0 && o[2] && stat(o + 2, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 1;
	return 0;
}

/* A file (or anything) at dir/name: its path in out, 1; else 0. */
static int found_in(char *out, size_t size, const char *dir, const char *name)
{
	struct stat st;
	int n = snprintf(out, size, "%s/%s", dir, name);

	return n > 0 && (size_t)n < size && stat(out, &st) == 0;
}

/* Whether name is found in one of the C++ library's folders (/usr/include/c++/<N>, and
 * the multiarch one), its path in out. */
static int found_in_cxx(char *out, size_t size, const char *name)
{
	static const char *const roots[] = { "/usr/include/c++", "/usr/include/" MULTIARCH "/c++" };
	int found = 0;

	for (size_t i = 0; i < 2 && !found; i++) {
		DIR *d = opendir(roots[i]);
		struct dirent *e;
		char dir[512];

		while (d && !found && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(dir, sizeof dir, "%s/%s", roots[i], e->d_name);
			found = found_in(out, size, dir, name);
		}
		if (d)
			closedir(d);
	}
	return found;
}

static int keyed(const struct scan *s, const char *name)
{
	for (size_t i = 0; i < s->req->num_headers; i++)
		if (strcmp(s->req->headers[i].name, name) == 0)
			return 1;
	for (size_t i = 0; s->served && i < s->served->n; i++)
		if (strcmp(s->served->files[i]->name, name) == 0)
			return 1;
	return 0;
}

int rj_include_join(char *out, size_t size, const char *dir, size_t dlen, const char *path,
		    size_t plen)
{
	char buf[4096];
	size_t n = 0, blen = dlen + (dlen ? 1 : 0) + plen;

	if (blen >= sizeof buf)
		return -1;
	memcpy(buf, dir, dlen);
	if (dlen)
		buf[dlen] = '/';
	memcpy(buf + dlen + (dlen ? 1 : 0), path, plen);
	buf[blen] = 0;
	for (char *c = buf, *end; *c; c = *end ? end + 1 : end) {
		size_t clen;

		end = strchr(c, '/');
		if (!end)
			end = c + strlen(c);
		clen = (size_t)(end - c);
		if (clen == 0 || (clen == 1 && c[0] == '.'))
			continue;
		if (clen == 2 && c[0] == '.' && c[1] == '.') {
			if (n == 0)
				return -1; /* above the root */
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--; /* the slash */
			continue;
		}
		if (n + 1 + clen >= size)
			return -1;
		if (n > 0)
			out[n++] = '/';
		memcpy(out + n, c, clen);
		n += clen;
	}
	out[n] = 0;
	return n ? 0 : -1;
}

static int has_dotdot(const char *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (p[i] == '.' && p[i + 1] == '.' && (i == 0 || p[i - 1] == '/') &&
		    (i + 2 == len || p[i + 2] == '/'))
			return 1;
	return 0;
}

#define REFUSE(s, line, what, fmt, ...)                                                      \
	RJ_FAIL(ROCJIT_EINVAL, "%s:%d: %s " fmt ": the compiler would read it from disk, "    \
		"outside the cache key (an edit would not be seen, and one key would mean "   \
		"other code on another machine).  Register the header instead "               \
		"(rocjit_program.headers, or a kernel folder: rocjit_add_kernels, "           \
		"rocjit_register_headers) and include it by its registered name",            \
		(s)->file, (line), (what), __VA_ARGS__)

/* Checks one include's target (quoted: "..."; else <...>). */
static int check_target(const struct scan *s, int line, const char *what, const char *t,
			size_t len, int quoted)
{
	char name[4096], norm[4096];
	const char *slash = strrchr(s->file, '/');
	size_t dlen = slash ? (size_t)(slash - s->file) : 0;

	if (len == 0 || len >= sizeof name)
		return 0; /* the compiler refuses it itself */
	memcpy(name, t, len);
	name[len] = 0;
	if (keyed(s, name))
		return 0; /* an in-memory header of that very name: found first */
	if (name[0] == '/')
		REFUSE(s, line, what, "%c%s%c names an absolute path", quoted ? '"' : '<', name,
		       quoted ? '"' : '>');
	if (quoted && dlen && rj_include_join(norm, sizeof norm, s->file, dlen, t, len) == 0 &&
	    keyed(s, norm))
		return 0;
	if (rj_include_join(norm, sizeof norm, "", 0, t, len) == 0 && keyed(s, norm))
		return 0;
	if (has_dotdot(t, len))
		REFUSE(s, line, what, "%c%s%c leaves the registered headers (\"..\")",
		       quoted ? '"' : '<', name, quoted ? '"' : '>');
	/* NVRTC looks for a quoted include in the including file's folder, as named: relative
	   to the working directory (measured, NVRTC 13). */
	if (quoted && s->platform == ROCJIT_PLATFORM_NVIDIA) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%.*s", dlen ? (int)dlen : 1, dlen ? s->file : ".");
		if (found_in(norm, sizeof norm, dir, name) && !keyed_folder(s, dir))
			REFUSE(s, line, what, "\"%s\" is found at %s, in the folder of %s", name,
			       norm, s->file);
	}
	if (s->platform == ROCJIT_PLATFORM_AMD && strncmp(name, "hip/", 4) != 0) {
		for (size_t i = 0; i < sizeof amd_system_dirs / sizeof amd_system_dirs[0]; i++)
			if (found_in(norm, sizeof norm, amd_system_dirs[i], name))
				REFUSE(s, line, what, "%c%s%c is found at %s, a system folder",
				       quoted ? '"' : '<', name, quoted ? '"' : '>', norm);
		if (found_in_cxx(norm, sizeof norm, name))
			REFUSE(s, line, what, "%c%s%c is found at %s, a system folder",
			       quoted ? '"' : '<', name, quoted ? '"' : '>', norm);
	}
	return 0; /* not ours: a keyed -I folder's, the compiler's own, or not found */
}

/* rj_includes_scan's callback for rj_inputs_check: each include checked. */
static int check_include(void *user, const struct rj_include *inc)
{
	const struct scan *s = user;

	if (!inc->name)
		RJ_FAIL(ROCJIT_EINVAL, "%s:%d: %s with a name made by a macro cannot be checked "
			"to stay inside the cache key: write the header's name (a registered "
			"header, rocjit_program.headers or a kernel folder)", s->file, inc->line,
			inc->what);
	return check_target(s, inc->line, inc->what, inc->name, inc->len, inc->quoted);
}

static int scan_text(struct scan *s, const char *text, size_t len)
{
	return rj_includes_scan(text, len, check_include, s);
}

int rj_inputs_check(const struct rj_compile_req *req, const struct rj_served *served,
		    int platform)
{
	struct scan s = { req, served, platform, req->name };

	/* A pre-included header is found as an include is (options.c refused the rest). */
	s.file = "(the compiler options)";
	for (const char *o = NULL, *v; (v = rj_opts_next_pre_include(req->options, &o)) != NULL;)
		RJ_FORWARD(check_target(&s, 0, "-include", v, strlen(v), 1));
	s.file = req->name;
	RJ_FORWARD(scan_text(&s, req->source, strlen(req->source)));
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];

		s.file = h->name;
		RJ_FORWARD(scan_text(&s, h->source, h->length ? h->length : strlen(h->source)));
	}
	return 0;
}
