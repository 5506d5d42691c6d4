/*
 * diagnostics.c - making compiler diagnostics name the caller's files.
 *
 * comgr compiles from a temporary folder ($TMPDIR/comgr-<random>) and its diagnostics name
 * input/CompileSource and include/<header>; NVRTC writes "axpy.hip(3): error".  Editors
 * and people need "axpy.hip:3:5: error".  Pure string work; no state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/platform.h"

struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static int path_char(char c)
{
	return c && c != ' ' && c != '\t' && c != '\n' && c != '\'' && c != '"' && c != '(' &&
	       c != ':';
}

/*
 * Finds each "comgr-" folder name inside a path; the path starts after the last
 * delimiter before it.  "<path>/comgr-<random>/input/CompileSource" (comgr 2.4) becomes
 * source_name; "<path>/comgr-<random>/input/" (comgr 2.6 names the input by the program's
 * name) and "<path>/comgr-<random>/include/" disappear (the name after them stays).
 */
char *rj_log_map_names(const char *log, const char *source_name)
{
	struct sbuf b = { NULL, 0, 0, 0 };
	const char *p = log, *hit;
	static const char input[] = "/input/CompileSource", include[] = "/include/";

	if (!source_name || !*source_name)
		source_name = "<source>";
	put(&b, "", 0);
	while ((hit = strstr(p, "comgr-")) != NULL) {
		const char *start = hit, *after = hit + 6;

		while (start > p && path_char(start[-1]))
			start--;
		while (*after && *after != '/' && path_char(*after))
			after++;
		if (strncmp(after, input, sizeof input - 1) == 0) {
			put(&b, p, (size_t)(start - p));
			put(&b, source_name, strlen(source_name));
			p = after + sizeof input - 1;
		} else if (strncmp(after, "/input/", 7) == 0) {
			/* Newer comgr (2.6) names the input by the program's own name. */
			put(&b, p, (size_t)(start - p));
			p = after + 7;
		} else if (strncmp(after, include, sizeof include - 1) == 0) {
			put(&b, p, (size_t)(start - p));
			p = after + sizeof include - 1;
		} else {
			put(&b, p, (size_t)(hit + 6 - p));
			p = hit + 6;
		}
	}
	put(&b, p, strlen(p));
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* Length of the line starting at p, without its newline. */
static size_t line_len(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? (size_t)(nl - p) : strlen(p);
}

/*
 * NVRTC prints "name(LINE): error: msg", then the source line indented by two spaces, then
 * a caret under the offending column.  Lines that do not have that shape pass unchanged.
 */
char *rj_log_map_nvrtc(const char *log)
{
	struct sbuf b = { NULL, 0, 0, 0 };
	const char *p = log;

	put(&b, "", 0);
	while (*p) {
		size_t len = line_len(p);
		const char *open = memchr(p, '(', len), *close = NULL, *next = p + len;
		char num[32];

		if (*next == '\n')
			next++;
		if (open)
			close = memchr(open, ')', len - (size_t)(open - p));
		if (open && close && close > open + 1 && close - open < 12 &&
		    strspn(open + 1, "0123456789") == (size_t)(close - open - 1) &&
		    strncmp(close, "): ", 3) == 0) {
			/* The caret line after the source line gives the column. */
			const char *src = next, *caret = *src ? src + line_len(src) : src;
			size_t col = 0;

			if (*caret == '\n') {
				const char *hat;
				caret++;
				hat = memchr(caret, '^', line_len(caret));
				if (hat && hat - caret >= 2 &&
				    strspn(caret, " \t") == (size_t)(hat - caret))
					col = (size_t)(hat - caret) - 1;
			}
			put(&b, p, (size_t)(open - p));
			put(&b, ":", 1);
			put(&b, open + 1, (size_t)(close - open - 1));
			if (col) {
				snprintf(num, sizeof num, ":%zu", col);
				put(&b, num, strlen(num));
			}
			put(&b, ":", 1);
			put(&b, close + 2, (size_t)(p + len - (close + 2)));
		} else {
			put(&b, p, len);
		}
		if (p[len] == '\n')
			put(&b, "\n", 1);
		p = next;
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
