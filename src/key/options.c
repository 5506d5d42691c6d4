/*
 * options.c - normalization of compiler options (see options.h for the rules).
 *
 * Owns the canonical form of options; knows nothing of keys or compilers.  Two option
 * lists that make the compiler produce the same code should normalize alike where that is
 * cheap to know (-O defaults, "-D N" spacing); anything else stays as given, because a
 * missed cache hit costs a compile while a wrong hit serves wrong code.
 */
#include "key/options.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* Appends a+b as one option. */
static int append(struct rj_opts *o, const char *a, size_t alen, const char *b, size_t blen)
{
	size_t need = alen + blen + 1;

	RJ_CHECK(alen + blen > RJ_OPTION_MAX, ROCJIT_EINVAL,
		 "compiler option \"%.40s...\" is longer than %d bytes", a, RJ_OPTION_MAX);
	RJ_CHECK(o->len + need > RJ_OPTIONS_TOTAL_MAX, ROCJIT_EINVAL,
		 "compiler options are longer than %d bytes in total", RJ_OPTIONS_TOTAL_MAX);
	if (o->len + need > o->cap) {
		size_t cap = (o->len + need) * 2;
		char *nb = malloc(cap);

		RJ_CHECK(!nb, ROCJIT_ENOMEM, "out of memory normalizing options");
		memcpy(nb, o->buf, o->len);
		if (o->buf != o->inline_buf)
			free(o->buf);
		o->buf = nb;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, a, alen);
	memcpy(o->buf + o->len + alen, b, blen);
	o->len += need;
	o->buf[o->len - 1] = 0;
	o->count++;
	return 0;
}

static void trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)(*s)[0])) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

static int has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(s, prefix, n) == 0;
}

static int is_target_option(const char *s, size_t len)
{
	static const char *const bad[] = { "--offload-arch", "--amdgpu-target",
					   "--gpu-architecture", "-arch", "-mcpu", "-march",
					   "--cuda-gpu-arch" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = strlen(bad[i]);
		if (has_prefix(s, len, bad[i]) && (len == n || s[n] == '=' || isspace((unsigned char)s[n])))
			return 1;
	}
	return 0;
}

/* Options whose value may come as a separate argument or after a space. */
static const char *joinable(const char *s, size_t len)
{
	static const char *const flags[] = { "-D", "-U", "-I" };
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (len == strlen(flags[i]) && memcmp(s, flags[i], len) == 0)
			return flags[i];
	return NULL;
}

/*
 * Options that make the compiler read files the key does not cover (issue 27): a folder
 * to search, a file to pre-include, a response file, a device library, a precompiled
 * header, a profile.  -I stays: the key holds a digest of what its folder holds
 * (request/search_dirs.c).  Matched as written, joined ("-isystem/x"), with "=" or with
 * the value as the next argument.
 */
static const char *const reads_files[] = {
	"-isystem", "-iquote", "-idirafter", "-imacros", "-iprefix", "-iwithprefix",
	"-iwithprefixbefore", "-isysroot", "--sysroot", "-cxx-isystem", "--include-path",
	"-include-pch", "-ivfsoverlay", "-Xclang", "-Xpreprocessor", "-Wp,", "-Xarch",
	"--rocm-path", "--hip-path", "--cuda-path", "-resource-dir", "--hip-device-lib-path",
	"--hip-device-lib", "-mlink-builtin-bitcode", "-mlink-bitcode-file", "--gcc-toolchain",
	"--gcc-install-dir", "-fmodule-file", "-fmodules-cache-path", "-fprebuilt-module-path",
	"-fprofile-use", "-fprofile-instr-use", "-fprofile-sample-use", "-fsanitize-ignorelist",
	"-fsanitize-blacklist", "--options-file", "-optf", "--use-pch", "--pch-dir",
	"--create-pch", "-pch", "--system-include", "-B", "-F", "--config", "--pre-include-pch",
};

/* An -include (or --pre-include) value: a header found like an include, so relative and
 * inside the headers (compile/inputs.c checks where it is found). */
static int check_pre_include(const char *opt, const char *v, size_t vlen)
{
	int escapes = 0;

	for (size_t k = 0; k + 1 < vlen; k++)
		if (v[k] == '.' && v[k + 1] == '.' && (k == 0 || v[k - 1] == '/') &&
		    (k + 2 == vlen || v[k + 2] == '/'))
			escapes = 1;
	RJ_CHECK(vlen && (v[0] == '/' || escapes), ROCJIT_EINVAL, "compiler option %s %.*s "
		 "names a file outside the registered headers: the compiler would read it from "
		 "disk, outside the cache key.  Register the header (rocjit_program.headers, or "
		 "a kernel folder) and pre-include it by its registered name", opt, (int)vlen, v);
	return 0;
}

/* 0, or ROCJIT_EINVAL for an option that reads files outside the key (see reads_files);
 * next: the argument after it, or NULL. */
static int check_reads_files(const char *s, size_t len, const char *next)
{
	static const char *const pre[] = { "--pre-include", "-include" };

	RJ_CHECK(len && s[0] == '@', ROCJIT_EINVAL, "compiler option %.*s reads options from "
		 "a file, which the cache key does not cover: pass the options themselves",
		 (int)len, s);
	for (size_t k = 0; k < sizeof reads_files / sizeof reads_files[0]; k++) {
		size_t n = strlen(reads_files[k]);
		/* Short ones ("-B", "-F") only as written or joined to a path. */
		if (!has_prefix(s, len, reads_files[k]) ||
		    (n == 2 && len > 2 && s[2] != '/' && s[2] != '.' && s[2] != '='))
			continue;
		if (strcmp(reads_files[k], "-pch") == 0 && len != 4)
			continue;
		RJ_FAIL(ROCJIT_EINVAL, "compiler option \"%.*s\" makes the compiler read files "
			"(a folder, header, library or options file) that the cache key does not "
			"cover, so an edit to them would not be seen: register the headers instead "
			"(rocjit_program.headers, or a kernel folder), or use -I DIR, whose folder "
			"the key covers", (int)len, s);
	}
	for (size_t k = 0; k < 2; k++) {
		size_t n = strlen(pre[k]);
		const char *v;

		if (!has_prefix(s, len, pre[k]) || has_prefix(s, len, "-include-pch"))
			continue;
		if (len == n) {
			v = next ? next : "";
			return check_pre_include(pre[k], v, strlen(v));
		}
		v = s + n + (s[n] == '=' || s[n] == ' ');
		return check_pre_include(pre[k], v, len - (size_t)(v - s));
	}
	return 0;
}

static int is_opt_level(const char *s, size_t len)
{
	return len == 3 && s[0] == '-' && s[1] == 'O' && strchr("0123sz", s[2]) && s[2];
}

int rj_opts_normalize(struct rj_opts *o, const char *const *opts, size_t n)
{
	const char *olevel = "-O3";
	size_t i;
	int rc = 0;

	o->buf = o->inline_buf;
	o->cap = sizeof o->inline_buf;
	o->len = 0;
	o->count = 0;
	if (n && !opts)
		RJ_FAIL(ROCJIT_EINVAL, "num_options is %zu but options is NULL", n);
	for (i = 0; i < n && rc == 0; i++) {
		const char *s = opts[i], *flag;
		size_t len;

		if (!s) {
			rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__,
					  "compiler option %zu is NULL", i);
			break;
		}
		len = strlen(s);
		trim(&s, &len);
		if (len == 0)
			continue;
		if (is_target_option(s, len)) {
			rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__,
					  "compiler option \"%s\" names a target: pass the target "
					  "id as rocjit_options.target, ROCJIT_ARCH or the target "
					  "argument instead", opts[i]);
			break;
		}
		if (is_opt_level(s, len)) {
			olevel = s;
			continue;
		}
		if (len >= 2 && s[0] == '-' && s[1] == 'O') {
			rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__,
					  "unknown optimization level \"%s\": use -O0, -O1, -O2, "
					  "-O3, -Os or -Oz", opts[i]);
			break;
		}
		if ((rc = check_reads_files(s, len, i + 1 < n ? opts[i + 1] : NULL)) != 0)
			break;
		flag = joinable(s, len);
		if (flag) {
			/* "-D" "N=4": the value is the next argument. */
			const char *v = i + 1 < n ? opts[i + 1] : NULL;
			size_t vlen = v ? strlen(v) : 0;

			if (v)
				trim(&v, &vlen);
			if (!v || vlen == 0) {
				rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__,
						  "compiler option %s needs a value", flag);
				break;
			}
			i++;
			rc = append(o, flag, len, v, vlen);
			continue;
		}
		for (size_t k = 0; k < 3; k++) {
			/* "-D N=4" in one argument. */
			static const char *const flags[] = { "-D ", "-U ", "-I " };
			size_t fl = strlen(flags[k]);
			if (has_prefix(s, len, flags[k])) {
				const char *v = s + fl;
				size_t vlen = len - fl;
				trim(&v, &vlen);
				flag = flags[k];
				rc = append(o, flag, fl - 1, v, vlen);
				break;
			}
		}
		if (!flag)
			rc = append(o, s, len, "", 0);
	}
	if (rc == 0)
		rc = append(o, olevel, 3, "", 0);
	if (rc != 0)
		rj_opts_release(o);
	return rc;
}

void rj_opts_release(struct rj_opts *o)
{
	if (o->buf && o->buf != o->inline_buf)
		free(o->buf);
	o->buf = o->inline_buf;
	o->cap = sizeof o->inline_buf;
	o->len = 0;
	o->count = 0;
}

const char *rj_opts_next(const struct rj_opts *o, const char *cur)
{
	const char *next = cur ? cur + strlen(cur) + 1 : o->buf;
	return next < o->buf + o->len ? next : NULL;
}

char *rj_opts_join(const struct rj_opts *o)
{
	char *s = malloc(o->len + 1);

	if (!s)
		return NULL;
	memcpy(s, o->buf, o->len);
	for (size_t i = 0; i + 1 < o->len; i++)
		if (s[i] == 0)
			s[i] = ' ';
	s[o->len ? o->len - 1 : 0] = 0;
	return s;
}

const char *rj_opts_next_pre_include(const struct rj_opts *o, const char **cur)
{
	for (const char *opt = rj_opts_next(o, *cur), *v; opt; opt = rj_opts_next(o, opt)) {
		if (strcmp(opt, "-include") == 0 || strcmp(opt, "--pre-include") == 0)
			v = opt = rj_opts_next(o, opt);
		else if (strncmp(opt, "--pre-include=", 14) == 0)
			v = opt + 14;
		else if (strncmp(opt, "-include", 8) == 0 && strncmp(opt, "-include-", 9) != 0)
			v = opt + 8 + (opt[8] == '=');
		else
			continue;
		*cur = opt;
		if (v)
			return v;
		return NULL; /* "-include" last: nothing follows */
	}
	*cur = NULL;
	return NULL;
}
