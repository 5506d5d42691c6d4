/*
 * env.c - how rocjit reads the values people write: switches and sizes, from the
 * environment and the configuration files (config.c) and, through the public API, from
 * the command line; and the public calls on the settings (rocjit_config_*).
 *
 * Owns the accessor every reader of a setting uses (rj_config), and one reader per kind
 * of value (parse.c parses), so that every ROCJIT_* switch means the same thing
 * ("" and "0" are off everywhere) and every size refuses the same garbage (NaN, infinity,
 * hex, exponents, overflow).  Reads a setting through config.c (the environment, then
 * the configuration files); knows nothing of what the values are for.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/env.h"
#include "base/error.h"
#include "base/parse.h"

/*
 * A value that is neither on nor off counts as off: every switch rocjit has loosens a
 * default (shares a cache, trusts a network file system, turns the cache off), so the
 * safe reading of a typo is the default, said once.
 */
ROCJIT_API int rocjit_env_flag(const char *name)
{
	const char *v = rj_config(name, NULL);
	int on = rj_parse_flag(v);

	if (on >= 0)
		return on;
	rj_warn_once(name, "%s=%s is not a switch (1, true, yes, on / 0, false, no, off, "
		       "or empty): taken as off", name, v);
	return 0;
}

ROCJIT_API int rocjit_parse_size(uint64_t *bytes, const char *text)
{
	uint64_t n = 0;
	int rc;

	if (bytes)
		*bytes = 0;
	RJ_CHECK(!bytes || !text, ROCJIT_EINVAL, "rocjit_parse_size: NULL argument");
	rc = rj_parse_size_raw(text, &n);
	RJ_CHECK(rc == -1, ROCJIT_EINVAL,
		 "\"%s\" is not a size: write a number of bytes with an optional unit K, M, G "
		 "or T (powers of 1024), e.g. 4096, 500M, 1.5G", text);
	RJ_CHECK(rc == -2, ROCJIT_EINVAL, "\"%s\" is larger than any size (2^64 bytes)", text);
	*bytes = n;
	return 0;
}

int rj_env_size(const char *name, uint64_t fallback, uint64_t *out)
{
	const char *v = rj_config(name, NULL);

	*out = fallback;
	if (!v || !*v)
		return 0;
	if (rocjit_parse_size(out, v) == 0)
		return 1;
	*out = fallback;
	rj_warn_once(name, "%s: %s; the default applies", name, rocjit_last_error());
	return 0;
}

long rj_env_long(const char *name, long fallback, long min, long max)
{
	const char *v = rj_config(name, NULL);
	long n = 0;
	const char *p = v;

	if (!v || !*v)
		return fallback;
	for (; *p >= '0' && *p <= '9' && n <= max; p++)
		n = n * 10 + (*p - '0');
	if (p != v && !*p && n <= max)
		return n < min ? min : n;
	rj_warn_once(name, "%s=%s is not a whole number from %ld to %ld: the default, "
		       "%ld, applies", name, v, min, max, fallback);
	return fallback;
}

/* ---- Settings (config.c holds the table and the files) ------------------------------------ */

/*
 * Warns of each setting the environment gives a value its parser refuses, with the first
 * read of any setting: a process that never comes to read ROCJIT_WORKERS=many (`rocjit
 * stats`) says so too.  rj_warn_once keeps the reader's own warning from repeating it:
 * a reader that warns of a bad value keys its warning by the variable's name.
 */
static void check_environment(void)
{
	const rocjit_setting *s;
	char why[600];

	for (size_t i = 0; (s = rocjit_setting_at(i)); i++) {
		const char *v = getenv(s->env), *then;
		size_t skip;

		if (!v || !*v || rj_config_check(s, v, 0, why, sizeof why) == 0)
			continue;
		skip = strlen(s->name) + strlen(v) + 5; /* past `name: "v" ` */
		/* What applies instead: the default, but where a typo must not loosen a
		   check (signing.c: the strictest). */
		then = strcmp(s->env, "ROCJIT_REQUIRE_SIGNED") ? "the default applies"
							       : "taking all, the strictest";
		if (strstr(why, "control character")) /* the value is not written out */
			rj_warn_once(s->env, "%s holds a control character, which no path has; "
				       "%s", s->env, then);
		else if (strlen(why) > skip && !strncmp(why + skip, "is ", 3))
			rj_warn_once(s->env, "%s=%s %s; %s", s->env, v, why + skip, then);
		else
			rj_warn_once(s->env, "%s=%s: %s; %s", s->env, v, why, then);
	}
}

/*
 * The one accessor (config.h).  The first reader says the warnings reading the files
 * made, once a process: config.c cannot, being below the log.
 */
static atomic_int said;

void rj_config_warnings_said(void)
{
	atomic_store_explicit(&said, 1, memory_order_release);
}

const char *rj_config(const char *name, int *from)
{
	const char *v = rj_config_lookup(name, from), *w;

	if (!atomic_load_explicit(&said, memory_order_acquire) && !atomic_exchange(&said, 1)) {
		for (int i = 0; (w = rj_config_warning(i)); i++)
			rj_log(RJ_LOG_WARN, "%s", w);
		check_environment();
	}
	return v;
}

ROCJIT_API const char *rocjit_config_get(const char *name, const char **source)
{
	int from;
	const char *v = rj_config(name, &from);

	if (source)
		*source = from == RJ_FROM_ENV ? "environment" :
			  from == RJ_FROM_DEFAULT ? "default" : rj_config_file_of(from);
	return v;
}

ROCJIT_API int rocjit_config_check(const char *name, const char *value)
{
	const rocjit_setting *s = rj_config_find(name, NULL);
	char why[600];

	RJ_CHECK(!s, ROCJIT_EINVAL, "\"%s\" is no rocjit setting: `rocjit config` lists them",
		 name ? name : "(null)");
	RJ_CHECK(!value, ROCJIT_EINVAL, "%s: no value", s->name);
	RJ_CHECK(rj_config_check(s, value, 1, why, sizeof why) != 0, ROCJIT_EINVAL, "%s", why);
	return 0;
}

ROCJIT_API int rocjit_config_file(char *out, size_t size, int which)
{
	RJ_CHECK(!out || !size || (which != ROCJIT_CONFIG_USER && which != ROCJIT_CONFIG_SYSTEM),
		 ROCJIT_EINVAL, "rocjit_config_file: bad argument");
	RJ_CHECK(rj_config_path(out, size, which) != 0, ROCJIT_ENOTFOUND,
		 "no user configuration file: neither XDG_CONFIG_HOME nor HOME is an absolute "
		 "path (or the path is too long)");
	return 0;
}

ROCJIT_API int rocjit_config_write(const char *name, const char *value)
{
	const rocjit_setting *s = rj_config_find(name, NULL);
	char why[600];

	RJ_CHECK(!s, ROCJIT_EINVAL, "\"%s\" is no rocjit setting: `rocjit config` lists them",
		 name ? name : "(null)");
	RJ_CHECK(!strcmp(s->name, "config"), ROCJIT_EINVAL, "%s is read from the environment "
		 "only: no file can name another file", s->env);
	if (value)
		RJ_FORWARD(rocjit_config_check(name, value));
	RJ_CHECK(rj_config_write_user(s, value, why, sizeof why) != 0, ROCJIT_EIO, "%s; not "
		 "changed", why);
	return 0;
}
