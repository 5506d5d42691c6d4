/*
 * arch_gates.c - saying which code a CUDA source's __CUDA_ARCH__ tests leave out on AMD.
 *
 * An AMD target implies no __CUDA_ARCH__: rocjit's CUDA dialect defines one value for
 * all of them (800, or the caller's -D__CUDA_ARCH__=N; devlib/cuda/rocjit_cuda_dialect.h
 * says why), and code behind `#if __CUDA_ARCH__ >= 890` is silently not compiled: with
 * Candle's kernels, 50 of 748 were missing on AMD and nothing said so.  This scan finds
 * each conditional whose branch a newer GPU would take and this value does not, and
 * writes one warning per branch, naming its line and the kernels defined in it.
 *
 * Textual, like the include scan (inputs.c): directives are read with comments dropped
 * and line splices joined; a condition is judged by its __CUDA_ARCH__ comparisons alone
 * (`defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900` counts as the comparison), at the
 * value in force and at a value above every GPU (9999).  A branch is reported when the
 * two disagree and the value in force leaves it out: the #if part of `>= 900`, the #else
 * part of `< 900`.  Other conditions are not judged.  Pure string work, no state.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/platform.h"

#define ARCH_DEFAULT 800 /* rocjit_cuda_dialect.h's */
#define ARCH_NEWEST 9999
#define MAX_NOTES 12

struct notes {
	char *s;
	size_t len, cap;
	int count, more;
};

static void addf(struct notes *n, const char *fmt, ...)
{
	va_list ap;
	char line[1024];
	int k;

	va_start(ap, fmt);
	k = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if ((size_t)k >= sizeof line)
		k = sizeof line - 1;
	if (n->len + (size_t)k + 1 > n->cap) {
		size_t cap = (n->len + (size_t)k + 1) * 2;
		char *s = realloc(n->s, cap);
		if (!s)
			return;
		n->s = s;
		n->cap = cap;
	}
	memcpy(n->s + n->len, line, (size_t)k + 1);
	n->len += (size_t)k;
}

/* One open conditional: whether the branch being read is left out by the value in force
 * (out), whether its #else is (else_out), where the reported branch starts and the
 * kernels found in it so far. */
struct frame {
	int out, else_out, parent_out;
	int line, if_line; /* where the reported branch starts; where its #if is */
	char cond[160], if_cond[160];
	char kernels[512];
	int nkernels;
};

/* The truth of the __CUDA_ARCH__ comparisons in expr at value v: 1, 0, or -1 when expr
 * holds none.  Comparisons are and-ed; what else expr says is not judged. */
static int judge(const char *expr, int v)
{
	const char *p = expr;
	int found = 0, all = 1;

	while ((p = strstr(p, "__CUDA_ARCH__")) != NULL) {
		const char *after = p + 13, *q;
		char op[3] = { 0 };
		long n;
		int left = 1, truth;

		/* "N op __CUDA_ARCH__": the number and operator before it. */
		for (q = p; q > expr && isspace((unsigned char)q[-1]); q--)
			;
		if (q > expr && strchr("<>=!", q[-1])) {
			const char *o = q - 1, *d;
			if (o > expr && strchr("<>=!", o[-1]))
				o--;
			memcpy(op, o, (size_t)(q - o));
			for (d = o; d > expr && isspace((unsigned char)d[-1]); d--)
				;
			while (d > expr && isdigit((unsigned char)d[-1]))
				d--;
			if (!isdigit((unsigned char)*d)) {
				p = after;
				continue;
			}
			n = strtol(d, NULL, 10);
			left = 0;
		} else {
			for (q = after; isspace((unsigned char)*q); q++)
				;
			if (!*q || !strchr("<>=!", *q) || (*q == '=' && q[1] != '=') ||
			    (*q == '!' && q[1] != '=')) {
				p = after;
				continue; /* defined(__CUDA_ARCH__), or not a comparison */
			}
			op[0] = *q++;
			if (*q == '=')
				op[1] = *q++;
			while (isspace((unsigned char)*q))
				q++;
			if (!isdigit((unsigned char)*q)) {
				p = after;
				continue;
			}
			n = strtol(q, NULL, 10);
		}
		{
			/* Written as "v op n": swap the operands of "n op v". */
			long a = left ? v : n, b = left ? n : v;
			if (strcmp(op, ">=") == 0)
				truth = a >= b;
			else if (strcmp(op, ">") == 0)
				truth = a > b;
			else if (strcmp(op, "<=") == 0)
				truth = a <= b;
			else if (strcmp(op, "<") == 0)
				truth = a < b;
			else if (strcmp(op, "==") == 0)
				truth = a == b;
			else
				truth = a != b;
		}
		found = 1;
		all = all && truth;
		p = after;
	}
	return found ? all : -1;
}

/* Reports frame f's branch when it is left out: the condition, and its kernels. */
static void report(struct notes *n, const char *file, const struct frame *f, int value)
{
	if (n->count >= MAX_NOTES) {
		n->more++;
		return;
	}
	n->count++;
	if (f->nkernels)
		addf(n, "rocjit: warning: %s:%d: `%s` leaves out kernel%s %s for AMD targets, where "
		     "__CUDA_ARCH__ is %d\n", file, f->line, f->cond, f->nkernels > 1 ? "s" : "",
		     f->kernels, value);
	else
		addf(n, "rocjit: warning: %s:%d: `%s` leaves out the code under it for AMD "
		     "targets, where __CUDA_ARCH__ is %d\n", file, f->line, f->cond, value);
}

/* The name of the kernel whose definition starts at "__global__" in p, into f. */
static void note_kernel(struct frame *f, const char *p)
{
	const char *q = p + 10;
	char name[128];

	for (;;) {
		const char *s, *e;
		while (*q && (isspace((unsigned char)*q) || *q == '*' || *q == '&'))
			q++;
		s = q;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == ':')
			q++;
		e = q;
		if (e == s)
			return;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '(') {
			if ((e - s == 17 && memcmp(s, "__launch_bounds__", 17) == 0) ||
			    (e - s == 13 && memcmp(s, "__attribute__", 13) == 0)) {
				int depth = 0;
				do {
					depth += *q == '(';
					depth -= *q == ')';
					q++;
				} while (*q && depth > 0);
				continue;
			}
			snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
			if (strlen(f->kernels) + strlen(name) + 3 < sizeof f->kernels) {
				if (f->nkernels)
					strcat(f->kernels, ", ");
				strcat(f->kernels, name);
			}
			f->nkernels++;
			return;
		}
	}
}

/* The text with comments blanked (newlines kept) and line splices joined; malloc'ed. */
static char *clean(const char *text)
{
	size_t len = strlen(text), n = 0;
	char *t = malloc(len + 1);

	if (!t)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\\' && text[i + 1] == '\n') {
			i++;
		} else if (text[i] == '/' && text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				i++;
			if (i < len)
				t[n++] = '\n';
		} else if (text[i] == '/' && text[i + 1] == '*') {
			for (i += 2; i < len && !(text[i] == '*' && text[i + 1] == '/'); i++)
				if (text[i] == '\n')
					t[n++] = '\n';
			i++;
			t[n++] = ' ';
		} else {
			t[n++] = text[i];
		}
	}
	t[n] = 0;
	return t;
}

#define DEPTH 64

/* "#" and the directive d into out[size], without trailing blanks (a comment after the
 * condition was blanked out). */
static void set_cond(char *out, size_t size, const char *d)
{
	size_t n;

	snprintf(out, size, "#%s", d);
	n = strlen(out);
	while (n > 1 && isspace((unsigned char)out[n - 1]))
		out[--n] = 0;
}

static void scan(struct notes *n, const char *file, const char *text, int value)
{
	struct frame stack[DEPTH];
	int depth = 0, line = 0;
	char *t = clean(text), *p, *next;

	if (!t)
		return;
	for (p = t; p && *p; p = next) {
		char *d = p, *e;
		struct frame *f = depth ? &stack[depth - 1] : NULL;
		int out_now = f && (f->out || f->parent_out);

		next = strchr(p, '\n');
		if (next)
			*next++ = 0;
		line++;
		while (isspace((unsigned char)*d))
			d++;
		if (*d != '#') {
			char *g = p;
			struct frame *at = f;
			/* A kernel counts for the outermost branch left out that holds it. */
			for (int i = 0; out_now && i < depth; i++)
				if (stack[i].out) {
					at = &stack[i];
					break;
				}
			while (out_now && (g = strstr(g, "__global__")) != NULL) {
				note_kernel(at, g);
				g += 10;
			}
			continue;
		}
		for (d++; isspace((unsigned char)*d); d++)
			;
		for (e = d; isalpha((unsigned char)*e); e++)
			;
		if ((e - d == 2 && memcmp(d, "if", 2) == 0) || (e - d == 5 && memcmp(d, "ifdef", 5) == 0) ||
		    (e - d == 6 && memcmp(d, "ifndef", 6) == 0)) {
			struct frame *nf;
			int now, newest;

			if (depth == DEPTH)
				break; /* deeper than any real source: stop judging */
			nf = &stack[depth++];
			memset(nf, 0, sizeof *nf);
			nf->parent_out = out_now;
			now = e - d == 2 ? judge(e, value) : -1;
			newest = e - d == 2 ? judge(e, ARCH_NEWEST) : -1;
			nf->line = nf->if_line = line;
			set_cond(nf->cond, sizeof nf->cond, d);
			set_cond(nf->if_cond, sizeof nf->if_cond, d);
			if (!out_now && now == 0 && newest == 1)
				nf->out = 1;
			else if (!out_now && now == 1 && newest == 0)
				nf->else_out = 1;
		} else if ((e - d == 4 && (memcmp(d, "elif", 4) == 0 || memcmp(d, "else", 4) == 0)) ||
			   (e - d == 5 && memcmp(d, "endif", 5) == 0)) {
			int now, newest;

			if (!f)
				continue;
			if (f->out)
				report(n, file, f, value);
			if (e - d == 5) {
				depth--;
				continue;
			}
			f->out = 0;
			f->kernels[0] = 0;
			f->nkernels = 0;
			f->line = line;
			if (e - d == 4 && memcmp(d, "else", 4) == 0) {
				f->out = f->else_out;
				snprintf(f->cond, sizeof f->cond, "#else of line %d's %.120s", f->if_line,
					 f->if_cond);
				continue;
			}
			set_cond(f->cond, sizeof f->cond, d);
			set_cond(f->if_cond, sizeof f->if_cond, d);
			f->if_line = line;
			now = judge(e, value);
			newest = judge(e, ARCH_NEWEST);
			if (!f->parent_out && now == 0 && newest == 1)
				f->out = 1;
			else if (!f->parent_out && now == 1 && newest == 0)
				f->else_out = 1;
		}
	}
	free(t);
}

/* The value -D__CUDA_ARCH__=N gives (the last one), else the dialect's. */
static int arch_value(const struct rj_opts *options)
{
	int value = ARCH_DEFAULT;

	for (const char *o = rj_opts_next(options, NULL); o; o = rj_opts_next(options, o))
		if (strncmp(o, "-D__CUDA_ARCH__=", 16) == 0 && isdigit((unsigned char)o[16]))
			value = atoi(o + 16);
	return value;
}

char *rj_cuda_arch_notes(const struct rj_compile_req *req)
{
	struct notes n = { NULL, 0, 0, 0, 0 };
	int value = arch_value(req->options);

	scan(&n, req->name, req->source, value);
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];
		char *copy = h->length ? strndup(h->source, h->length) : NULL;

		scan(&n, h->name, copy ? copy : h->source, value);
		free(copy);
	}
	if (!n.count)
		return NULL;
	if (n.more)
		addf(&n, "rocjit: warning: ... and %d more such branch%s\n", n.more,
		     n.more > 1 ? "es" : "");
	addf(&n, "rocjit: note: an AMD target implies no __CUDA_ARCH__; -D__CUDA_ARCH__=N "
	     "chooses the value for this program (the code it turns on must compile for AMD: "
	     "inline PTX cannot)\n");
	return n.s;
}
