/*
 * env.c - how rocjit reads the values people write: switches and sizes, from the
 * environment and (through the public API) from the command line.
 *
 * Owns one parser per kind of value, so that every ROCJIT_* switch means the same thing
 * ("" and "0" are off everywhere) and every size refuses the same garbage (NaN, infinity,
 * hex, exponents, overflow).  Reads the environment only; knows nothing of what the
 * values are for.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/env.h"
#include "base/error.h"

/* Names of the switches already warned about, so each bad one is said once a process. */
#define WARNED_MAX 32
static char warned[WARNED_MAX][64];
static size_t nwarned;
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;

static int first_warning(const char *name)
{
	int first = 1;

	pthread_mutex_lock(&warned_lock);
	for (size_t i = 0; i < nwarned && first; i++)
		first = strncmp(warned[i], name, sizeof warned[i] - 1) != 0;
	if (first && nwarned < WARNED_MAX) {
		strncpy(warned[nwarned], name, sizeof warned[nwarned] - 1);
		nwarned++;
	}
	pthread_mutex_unlock(&warned_lock);
	return first;
}

int rj_parse_flag(const char *text)
{
	static const char *const on[] = { "1", "true", "yes", "on" };
	static const char *const off[] = { "", "0", "false", "no", "off" };

	if (!text)
		return 0;
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
		if (strcasecmp(text, on[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
		if (strcasecmp(text, off[i]) == 0)
			return 0;
	return -1;
}

/*
 * A value that is neither on nor off counts as off: every switch rocjit has loosens a
 * default (shares a cache, trusts a network file system, turns the cache off), so the
 * safe reading of a typo is the default, said once.
 */
ROCJIT_API int rocjit_env_flag(const char *name)
{
	const char *v = name ? getenv(name) : NULL;
	int on = rj_parse_flag(v);

	if (on >= 0)
		return on;
	if (first_warning(name))
		rj_log(RJ_LOG_WARN, "%s=%s is not a switch (1, true, yes, on / 0, false, no, off, "
		       "or empty): taken as off", name, v);
	return 0;
}

/*
 * Digits, an optional fraction, then an optional unit.  Written out rather than with
 * strtod, which also takes "nan", "inf", "0x10" and "1e9", none of which is a size
 * anybody means.
 */
ROCJIT_API int rocjit_parse_size(uint64_t *bytes, const char *text)
{
	static const char units[] = "KMGT";
	long double value = 0, scale = 1;
	const char *p = text, *u;
	int digits = 0;

	if (bytes)
		*bytes = 0;
	RJ_CHECK(!bytes || !text, ROCJIT_EINVAL, "rocjit_parse_size: NULL argument");
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		value = value * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			value += (*p - '0') * (scale /= 10);
	if (digits && *p && (u = strchr(units, toupper((unsigned char)*p))) != NULL) {
		for (const char *q = units; q <= u; q++)
			value *= 1024;
		p++;
		p += *p == 'i' || *p == 'I';
		p += *p == 'b' || *p == 'B';
	}
	RJ_CHECK(!digits || *p, ROCJIT_EINVAL,
		 "\"%s\" is not a size: write a number of bytes with an optional unit K, M, G "
		 "or T (powers of 1024), e.g. 4096, 500M, 1.5G", text);
	RJ_CHECK(value >= 18446744073709551616.0L, ROCJIT_EINVAL,
		 "\"%s\" is larger than any size (2^64 bytes)", text);
	*bytes = (uint64_t)value;
	return 0;
}

int rj_env_size(const char *name, uint64_t fallback, uint64_t *out)
{
	const char *v = getenv(name);

	*out = fallback;
	if (!v || !*v)
		return 0;
	if (rocjit_parse_size(out, v) == 0)
		return 1;
	*out = fallback;
	if (first_warning(name))
		rj_log(RJ_LOG_WARN, "%s: %s; the default applies", name, rocjit_last_error());
	return 0;
}

long rj_env_long(const char *name, long fallback, long min, long max)
{
	const char *v = getenv(name);
	long n = 0;
	const char *p = v;

	if (!v || !*v)
		return fallback;
	for (; *p >= '0' && *p <= '9' && n <= max; p++)
		n = n * 10 + (*p - '0');
	if (p != v && !*p && n <= max)
		return n < min ? min : n;
	if (first_warning(name))
		rj_log(RJ_LOG_WARN, "%s=%s is not a whole number from %ld to %ld: the default, "
		       "%ld, applies", name, v, min, max, fallback);
	return fallback;
}
