/*
 * output.c - how the tool prints: a small streaming JSON writer (every command that prints
 * data has --json) and the human forms of sizes, durations and times.
 *
 * JSON strings are escaped per RFC 8259; bytes >= 0x80 pass through (the cache holds UTF-8
 * text).  Owns no state beyond the writer the caller passes in.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "cli.h"

void cli_json_init(struct cli_json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
}

static void escaped(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

/* The separator, indentation and key before a value. */
static void member(struct cli_json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->count[j->depth]++ ? ",\n" : "\n", j->f);
		fprintf(j->f, "%*s", 2 * j->depth, "");
	}
	if (key) {
		escaped(j->f, key, strlen(key));
		fputs(": ", j->f);
	}
}

static void open_(struct cli_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < (int)(sizeof j->count / sizeof j->count[0]))
		j->depth++;
	j->count[j->depth] = 0;
}

static void close_(struct cli_json *j, char c)
{
	int had = j->count[j->depth];

	j->depth--;
	if (had)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void cli_json_object(struct cli_json *j, const char *key)
{
	open_(j, key, '{');
}

void cli_json_array(struct cli_json *j, const char *key)
{
	open_(j, key, '[');
}

void cli_json_end_object(struct cli_json *j)
{
	close_(j, '}');
}

void cli_json_end_array(struct cli_json *j)
{
	close_(j, ']');
}

void cli_json_strn(struct cli_json *j, const char *key, const char *value, size_t len)
{
	member(j, key);
	escaped(j->f, value, len);
}

void cli_json_str(struct cli_json *j, const char *key, const char *value)
{
	if (!value) {
		cli_json_null(j, key);
		return;
	}
	cli_json_strn(j, key, value, strlen(value));
}

void cli_json_int(struct cli_json *j, const char *key, int64_t value)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, value);
}

void cli_json_uint(struct cli_json *j, const char *key, uint64_t value)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void cli_json_num(struct cli_json *j, const char *key, double value)
{
	member(j, key);
	if (isfinite(value))
		fprintf(j->f, "%.3f", value);
	else
		fputs("null", j->f);
}

void cli_json_bool(struct cli_json *j, const char *key, int value)
{
	member(j, key);
	fputs(value ? "true" : "false", j->f);
}

void cli_json_null(struct cli_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void cli_json_list(struct cli_json *j, const char *key, const char *csv, char sep)
{
	const char *s = csv ? csv : "";

	cli_json_array(j, key);
	while (*s) {
		const char *e = strchr(s, sep);
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n)
			cli_json_strn(j, NULL, s, n);
		s += n;
		if (*s)
			s++;
	}
	cli_json_end_array(j);
}

void cli_json_finish(struct cli_json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}

const char *cli_fmt_size(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

const char *cli_fmt_ms(char *buf, size_t size, double ms)
{
	double s = ms / 1e3;

	if (s < 1)
		snprintf(buf, size, "%.0f ms", ms);
	else if (s < 60)
		snprintf(buf, size, "%.2f s", s);
	else if (s < 3600)
		snprintf(buf, size, "%d min %d s", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, size, "%d h %d min", (int)(s / 3600), (int)fmod(s / 60, 60));
	return buf;
}

const char *cli_fmt_ago(char *buf, size_t size, int64_t t, int64_t now)
{
	int64_t d = now - t;

	if (t <= 0)
		snprintf(buf, size, "never");
	else if (d < 60)
		snprintf(buf, size, "just now");
	else if (d < 3600)
		snprintf(buf, size, "%" PRId64 " min ago", d / 60);
	else if (d < 86400)
		snprintf(buf, size, "%" PRId64 " h ago", d / 3600);
	else
		snprintf(buf, size, "%" PRId64 " d ago", d / 86400);
	return buf;
}

const char *cli_fmt_time(char *buf, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "-");
	return buf;
}
