/*
 * compile_log.c - making compiler diagnostics name the caller's files.
 *
 * comgr compiles from a temporary folder ($TMPDIR/comgr-XXXXXX) and its diagnostics name
 * input/CompileSource and include/<header>.  Editors and people need "axpy.hip:3:5".
 * Pure string work; no state.
 */
#include <stdlib.h>
#include <string.h>

#include "platform.h"

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
 * delimiter before it.  "<path>/comgr-XXXXXX/input/CompileSource" becomes source_name,
 * "<path>/comgr-XXXXXX/include/" disappears (the header's own name stays).
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
