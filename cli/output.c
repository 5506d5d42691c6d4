/*
 * output.c - how the tool prints: a small streaming JSON writer (every command that prints
 * data has --json), the escaping of text that came from outside, and the human forms of
 * sizes, durations and times.
 *
 * Stored fields (names, options, targets, compiler ids) are data anyone who can write a
 * bundle or a cache file chose: printed raw, they could move the cursor, rewrite the
 * screen or the terminal's title, or hide text.  So every string that is not one of the
 * tool's own literals goes through one of two functions here: cli_text() for text on a
 * terminal, the JSON writer's string escaping for --json.  Both read UTF-8 with the same
 * decoder (cli_utf8_char): valid characters pass, control characters (C0, DEL, C1),
 * bidirectional overrides and line separators are escaped, and bytes that are not UTF-8
 * are escaped (text: \xHH) or replaced (JSON: \ufffd), so --json is valid UTF-8 JSON
 * whatever bytes a row holds.
 *
 * Owns the ring of escaped copies cli_text hands out, and no other state.  Uses alloc.c
 * and the library's escaping (src/base/text.c, compiled in) only: it prints what it is given and decides nothing about commands or the cache.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/base/text.h"
#include "cli.h"

void cli_json_init(struct cli_json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
}

size_t cli_utf8_char(const char *s, size_t n, uint32_t *cp)
{
	return rj_utf8_char(s, n, cp);
}

int cli_unsafe_char(uint32_t c)
{
	return rj_unsafe_char(c);
}

/* s[0..n) into out (TEXT_MAX(n) bytes) with every unsafe character or stray byte escaped
 * (lines: newlines and tabs kept); out's length.  The escaping is the library's
 * (base/text.c), so the tool and the library's messages show the same bytes alike. */
static size_t text_escape(char *out, const char *s, size_t n, int lines)
{
	return rj_text_escape(out, RJ_TEXT_MAX(n), s, n, lines ? RJ_TEXT_LINES : 0);
}

/* At most 4 bytes out per byte in: \xHH for one, \uHHHH for two or three. */
#define TEXT_MAX(n) RJ_TEXT_MAX(n)
#define TEXT_RING 16

static const char *ring_text(const char *s, int lines)
{
	static char *ring[TEXT_RING];
	static unsigned next;
	size_t n = s ? strlen(s) : 0;
	char *out = cli_alloc(TEXT_MAX(n));

	text_escape(out, s ? s : "", n, lines);
	free(ring[next % TEXT_RING]);
	ring[next++ % TEXT_RING] = out;
	return out;
}

const char *cli_text(const char *s)
{
	return ring_text(s, 0);
}

const char *cli_text_lines(const char *s)
{
	return ring_text(s, 1);
}

char *cli_vtext(const char *fmt, va_list ap)
{
	va_list again;
	char *raw, *out;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0) {
		va_end(again);
		return cli_strdup("(a message could not be formatted)");
	}
	raw = cli_alloc((size_t)n + 1);
	vsnprintf(raw, (size_t)n + 1, fmt, again);
	va_end(again);
	out = cli_alloc(TEXT_MAX((size_t)n));
	text_escape(out, raw, (size_t)n, 0);
	free(raw);
	return out;
}

static void escaped(FILE *f, const char *s, size_t n)
{
	size_t i = 0;

	fputc('"', f);
	while (i < n) {
		uint32_t c = 0;
		size_t len = cli_utf8_char(s + i, n - i, &c);
		if (!len) {
			fputs("\\ufffd", f); /* not UTF-8: one replacement per stray byte */
			i++;
			continue;
		}
		i += len;
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (cli_unsafe_char(c))
				fprintf(f, "\\u%04x", (unsigned)c);
			else
				fwrite(s + i - len, 1, len, f);
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
