/*
 * parse.c - the parsers of the values people write: switches, sizes, log levels, numbers.
 *
 * Pure functions with no message and no state: env.c gives them their messages for the
 * environment, config.c for the configuration files, so that a value means the same
 * wherever it is written.  Uses nothing of rocjit.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/error.h" /* the RJ_LOG_* levels only */
#include "base/parse.h"

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
 * Digits, an optional fraction, then an optional unit.  Written out rather than with
 * strtod, which also takes "nan", "inf", "0x10" and "1e9", none of which is a size
 * anybody means.
 */
int rj_parse_size_raw(const char *text, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	long double value = 0, scale = 1;
	const char *p = text, *u;
	int digits = 0;

	*bytes = 0;
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
	if (!digits || *p)
		return -1;
	if (value >= 18446744073709551616.0L)
		return -2;
	*bytes = (uint64_t)value;
	return 0;
}

/* rocjit's log has no error level: errors are returned to the caller, with their
 * message; the log carries warnings.  So "error" asks for what "warn" does.  The
 * numbers are the old spellings (0 off, 1 info, 2 debug). */
int rj_log_parse(const char *text)
{
	static const struct { const char *name; int level; } names[] = {
		{ "off", RJ_LOG_OFF },	   { "none", RJ_LOG_OFF },   { "quiet", RJ_LOG_OFF },
		{ "0", RJ_LOG_OFF },	   { "error", RJ_LOG_WARN }, { "warn", RJ_LOG_WARN },
		{ "warning", RJ_LOG_WARN }, { "info", RJ_LOG_INFO },  { "1", RJ_LOG_INFO },
		{ "debug", RJ_LOG_DEBUG }, { "2", RJ_LOG_DEBUG },
	};

	for (size_t i = 0; text && i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(text, names[i].name))
			return names[i].level;
	return -1;
}

int rj_parse_is_number(const char *text, int fraction)
{
	const char *p = text;
	int digits = 0;

	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (fraction && *p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	return digits && !*p && digits <= 18;
}
