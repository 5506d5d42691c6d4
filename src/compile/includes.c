/*
 * includes.c - the one scanner of include directives (rj_includes_scan, inputs.h): what
 * the compile's input check (inputs.c) and the key's reach (request/reach.c) both read.
 *
 * It reads a text as the preprocessor's directives see it: texts that need it (a byte
 * order mark, CR, splices, trigraphs, digraphs, raw string literals, digit separators) go
 * through a lexing copy first; plain ones, found so by memchr, are scanned in place.
 * Knows nothing of keys, headers or platforms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "compile/inputs.h"

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* p past blanks and comments within a line (after splices are joined). */
static const char *skip_blanks(const char *p, const char *end)
{
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
			p++;
		if (p + 1 >= end || p[0] != '/' || p[1] != '*')
			return p;
		for (p += 2; p < end && !(p + 1 < end && p[0] == '*' && p[1] == '/'); p++)
			;
		p = p < end ? p + 2 : end;
	}
}

/* p at an include's target (after its keyword): reports it to fn. */
static int target_at(struct rj_include *inc, const char *p, const char *end, int probe,
		     int (*fn)(void *, const struct rj_include *), void *user)
{
	const char *q;
	char close;

	p = skip_blanks(p, end);
	if (probe) {
		if (p == end || *p != '(')
			return 0; /* "#ifdef __has_include": a name, not a probe */
		p = skip_blanks(p + 1, end);
	}
	if (p == end || *p == '\n' || (probe && *p == ')'))
		return 0; /* nothing: the compiler says so itself */
	if (*p != '"' && *p != '<') {
		/* A name made by a macro: it could name anything. */
		inc->name = NULL;
		inc->len = 0;
		inc->quoted = 0;
		return fn(user, inc);
	}
	close = *p == '"' ? '"' : '>';
	for (q = p + 1; q < end && *q != close && *q != '\n'; q++)
		;
	if (q == end || *q != close)
		return 0;
	inc->name = p + 1;
	inc->len = (size_t)(q - p - 1);
	inc->quoted = close == '"';
	return fn(user, inc);
}

/*
 * The __has_include probes of the directive line from p: a probe is evaluated only in a
 * directive (#if, #elif, or a macro of #define that one expands), so only directive
 * lines are searched, comments and literals in them included (one probe too many costs
 * nothing).
 */
static int probes_in(struct rj_include *inc, const char *p, const char *end,
		     int (*fn)(void *, const struct rj_include *), void *user)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
	int rc = 0;

	for (eol = eol ? eol : end; rc == 0 && (q = memmem(p, (size_t)(eol - p), "__has_include",
							   13)) != NULL; p = q + 13) {
		const char *e = q + 13;
		if (!ident_char(q[-1])) {
			if (eol - e >= 5 && memcmp(e, "_next", 5) == 0)
				e += 5;
			if (e == eol || !ident_char(*e)) {
				snprintf(inc->what, sizeof inc->what, "%.*s", (int)(e - q), q);
				rc = target_at(inc, e, eol, 1, fn, user);
			}
		}
	}
	return rc;
}

/*
 * Translation phases 1 and 2 into out (len + 1 bytes): a UTF-8 byte order mark dropped, CR
 * LF and a lone CR read as LF, trigraphs replaced (taken whatever the -std: reading one the
 * compiler does not can only add an include), and a line splice removed: a backslash, then
 * blanks (clang takes them, with a warning), then a line break.  from[j] is the index in
 * text of out[j]: a raw string literal undoes these phases, and is read from text.
 */
static size_t phase12(const char *text, size_t len, char *out, size_t *from)
{
	static const char tri[] = "=#/\\'^([)]!|<{>}-~";
	size_t i = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0, n = 0;

	while (i < len) {
		char c = text[i];
		size_t k = 1, j;
		const char *t;

		if (c == '?' && i + 2 < len && text[i + 1] == '?' && text[i + 2] &&
		    (t = strchr(tri, text[i + 2])) != NULL && (t - tri) % 2 == 0)
			c = t[1], k = 3;
		else if (c == '\r')
			c = '\n', k = i + 1 < len && text[i + 1] == '\n' ? 2 : 1;
		if (c == '\\') {
			for (j = i + k; j < len && (text[j] == ' ' || text[j] == '\t' ||
						    text[j] == '\f' || text[j] == '\v');)
				j++;
			if (j < len && (text[j] == '\n' || text[j] == '\r')) {
				i = j + (text[j] == '\r' && j + 1 < len && text[j + 1] == '\n' ? 2 : 1);
				continue;
			}
		}
		from[n] = i;
		out[n++] = c;
		i += k;
	}
	out[n] = 0;
	return n;
}

/* Whether out[0..o) ends in a raw string literal's prefix: R, u8R, uR, UR or LR, alone. */
static int raw_prefix(const char *out, size_t o)
{
	size_t k;

	if (o < 1 || out[o - 1] != 'R')
		return 0;
	k = o - 1;
	if (k >= 2 && out[k - 2] == 'u' && out[k - 1] == '8')
		k -= 2;
	else if (k >= 1 && (out[k - 1] == 'u' || out[k - 1] == 'U' || out[k - 1] == 'L'))
		k -= 1;
	return k == 0 || !ident_char(out[k - 1]);
}

/* The index in text past the raw string literal whose '"' is text[q] (its end: past
 * `)delimiter"`, or len when unterminated), or 0 when no delimiter and '(' follow. */
static size_t raw_end(const char *text, size_t len, size_t q)
{
	size_t d = q + 1, dl = 0;

	while (d + dl < len && dl <= 16 && !strchr(" ()\\\t\v\f\r\n\"", text[d + dl]))
		dl++;
	if (d + dl >= len || dl > 16 || text[d + dl] != '(')
		return 0;
	for (size_t i = d + dl + 1; i < len; i++)
		if (text[i] == ')' && i + dl + 1 < len && !memcmp(text + i + 1, text + d, dl) &&
		    text[i + dl + 1] == '"')
			return i + dl + 2;
	return len;
}

/* At in[i] a directive's '#' (after blanks at a line's start): the length of its
 * `#include <`, `#include_next <` or `#import <` up to and with the '<' (blanks allowed
 * between), else 0.  Its header name is copied as it is: "//" or "/x*" in it opens no
 * comment. */
static size_t angled_include(const char *in, size_t i, size_t n)
{
	size_t j = i + 1, w;

	while (j < n && (in[j] == ' ' || in[j] == '\t'))
		j++;
	for (w = j; w < n && ident_char(in[w]);)
		w++;
	if (!((w - j == 7 && !memcmp(in + j, "include", 7)) ||
	      (w - j == 12 && !memcmp(in + j, "include_next", 12)) ||
	      (w - j == 6 && !memcmp(in + j, "import", 6))))
		return 0;
	while (w < n && (in[w] == ' ' || in[w] == '\t'))
		w++;
	return w < n && in[w] == '<' ? w + 1 - i : 0;
}

/* The bytes lexed() looks at; the others are copied in runs. */
static const unsigned char special[256] = { ['/'] = 1, ['"'] = 1, ['\''] = 1, ['#'] = 1,
					    ['%'] = 1 };

/* Whether out[0..o) ends inside a preprocessing number (1'000: the quote is a digit
 * separator): its token, back over identifier characters, '.' and an exponent's sign,
 * starts with a digit or with '.' and a digit. */
static int in_number(const char *out, size_t o)
{
	size_t j = o;

	while (j > 0 && (ident_char(out[j - 1]) || out[j - 1] == '.' ||
			 ((out[j - 1] == '+' || out[j - 1] == '-') && j > 1 &&
			  strchr("eEpP", out[j - 2]))))
		j--;
	return j < o && ((out[j] >= '0' && out[j] <= '9') ||
			 (out[j] == '.' && j + 1 < o && out[j + 1] >= '0' && out[j + 1] <= '9'));
}

/* Whether only blanks (comments are blanks by now) stand between out's last line break
 * and its end: a '#' there starts a directive. */
static int at_line_start(const char *out, size_t o)
{
	while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\t' || out[o - 1] == '\f' ||
			 out[o - 1] == '\v'))
		o--;
	return o == 0 || out[o - 1] == '\n';
}

/*
 * The text as the preprocessor's directives see it, into a malloc'ed copy the scanner
 * reads: phases 1 and 2 (phase12), then comments made blanks (their line breaks kept), a
 * raw string literal made 'x's (its line breaks kept; phases 1 and 2 undone inside it, so
 * a splice or a quote in it ends nothing), a digit separator (1'000) made '_' (it opens no
 * character literal), the digraph %: made '#', and an angled include's name copied as is.
 * Ordinary literals are copied; the scanner skips them.  Reading what the compiler reads
 * is what keeps the key whole: every form the compiler takes as a directive is one here.
 */
static char *lexed(const char *text, size_t len, size_t *out_len)
{
	int p12 = (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) || memchr(text, '\r', len) ||
		  memchr(text, '\\', len) || memmem(text, len, "??", 2);
	char *buf = p12 ? malloc(len + 1) : NULL, *out = malloc(len + 1);
	size_t *from = p12 ? malloc((len + 1) * sizeof *from) : NULL, n = len, o = 0, i = 0;
	const char *in = text;

	if (!out || (p12 && (!buf || !from))) {
		free(buf);
		free(out);
		free(from);
		return NULL;
	}
	if (p12) /* else text is its own phase 2, from[i] == i */
		n = phase12(text, len, buf, from), in = buf;
	while (i < n) {
		size_t k, end;
		char c;

		/* Most bytes are copied as they are, in runs. */
		for (k = i; k < n && !special[(unsigned char)in[k]]; k++)
			;
		memcpy(out + o, in + i, k - i);
		o += k - i;
		if ((i = k) >= n)
			break;
		c = in[i];
		if (c == '/' && i + 1 < n && in[i + 1] == '*') {
			const char *q = i + 2 < n ? memmem(in + i + 2, n - i - 2, "*/", 2) : NULL;
			size_t stop = q ? (size_t)(q - in) + 2 : n;

			out[o++] = ' ';
			for (; i < stop; i++)
				if (in[i] == '\n')
					out[o++] = '\n';
		} else if (c == '/' && i + 1 < n && in[i + 1] == '/') {
			while (i < n && in[i] != '\n')
				i++;
		} else if (c == '"' && raw_prefix(out, o) &&
			   (end = raw_end(text, len, from ? from[i] : i))) {
			for (size_t t = from ? from[i] : i; t < end; t++)
				if (text[t] == '\n' ||
				    (text[t] == '\r' && (t + 1 == end || text[t + 1] != '\n')))
					out[o++] = '\n';
				else if (text[t] != '\r')
					out[o++] = 'x';
			while (i < n && (from ? from[i] : i) < end)
				i++;
		} else if (c == '\'' && i + 1 < n && ident_char(in[i + 1]) && in_number(out, o)) {
			out[o++] = '_'; /* a digit separator */
			i++;
		} else if (c == '"' || c == '\'') {
			out[o++] = in[i++];
			while (i < n && in[i] != '\n' && in[i] != c) {
				if (in[i] == '\\' && i + 1 < n && in[i + 1] != '\n')
					out[o++] = in[i++];
				out[o++] = in[i++];
			}
			if (i < n && in[i] == c)
				out[o++] = in[i++];
		} else if ((c == '#' || (c == '%' && i + 1 < n && in[i + 1] == ':')) &&
			   at_line_start(out, o)) {
			if (c == '%')
				i++; /* the digraph %: is '#' */
			out[o++] = '#';
			if ((k = angled_include(in, i, n)) != 0) {
				/* Its name as it is: "//" in <a//b.h> opens no comment. */
				for (i++, k--; k--;)
					out[o++] = in[i++];
				while (i < n && in[i] != '\n' && in[i] != '>')
					out[o++] = in[i++];
			} else {
				i++;
			}
		} else {
			out[o++] = in[i++];
		}
	}
	out[o] = 0;
	free(buf);
	free(from);
	*out_len = o;
	return out;
}

/* p past the block comment opening at p ("/x*"), its line breaks counted into *line. */
static const char *past_comment(const char *p, const char *end, int *line)
{
	const char *q = p + 2 < end ? memmem(p + 2, (size_t)(end - p - 2), "*/", 2) : NULL;
	const char *stop = q ? q + 2 : end;

	for (const char *nl = p; (nl = memchr(nl, '\n', (size_t)(stop - nl))) != NULL; nl++)
		(*line)++;
	return stop;
}

/*
 * p past the code of a line, at its line break (or the end): what matters there is a
 * comment, which may span lines and hide what follows, and a literal, in which "/x*" opens
 * none.  A line without '/' has no comment: it is skipped by memchr alone, which keeps
 * the scan of a request's texts (request/reach.c, on a program's hit path) cheap.
 */
static const char *past_code(const char *p, const char *end, int *line)
{
	for (;;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		if (!memchr(p, '/', (size_t)(eol - p)))
			return eol;
		while (p < eol) {
			if (*p == '"' || *p == '\'') {
				char q = *p++;
				while (p < eol && *p != q)
					p += *p == '\\' && p + 1 < eol ? 2 : 1;
				p = p < eol ? p + 1 : eol;
			} else if (*p == '/' && p + 1 < eol && p[1] == '/') {
				return eol;
			} else if (*p == '/' && p + 1 < eol && p[1] == '*') {
				p = past_comment(p, end, line);
				if (p > eol)
					break; /* the comment ended on a later line: go on there */
			} else {
				p++;
			}
		}
		if (p <= eol)
			return eol;
	}
}

/* p past blanks and block comments at a line's start (a comment is a blank, even one of
 * several lines): at the line's first token, its line break, or the end. */
static const char *past_blanks(const char *p, const char *end, int *line)
{
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
			p++;
		if (p + 1 >= end || p[0] != '/' || p[1] != '*')
			return p;
		p = past_comment(p, end, line);
	}
}

static int hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Whether text (up to end) has byte c at a place keep accepts. */
static int has(const char *t, const char *end, char c,
	       int (*keep)(const char *t, const char *p, const char *end))
{
	for (const char *p = t; p < end && (p = memchr(p, c, (size_t)(end - p))); p++)
		if (keep(t, p, end))
			return 1;
	return 0;
}

static int trigraph(const char *t, const char *p, const char *end)
{
	return (void)t, p + 1 < end && p[1] == '?';
}

static int digraph(const char *t, const char *p, const char *end)
{
	return (void)t, p + 1 < end && p[1] == ':';
}

static int raw_quote(const char *t, const char *p, const char *end)
{
	return (void)end, p > t && p[-1] == 'R';
}

static int separator(const char *t, const char *p, const char *end)
{
	return p > t && hex_digit(p[-1]) && p + 1 < end && ident_char(p[1]);
}

/*
 * Whether lexed() would leave text as the scanner reads it: no byte order mark, CR, splice,
 * trigraph, digraph, raw string literal or digit separator can be in it.  Most kernel
 * texts are plain, found so by memchr (a program's texts are scanned at each request,
 * request/reach.c), and are scanned in place.  A backslash anywhere (a string's escape)
 * and a quote between a hex digit and a letter (he'd, u8'a') send a text to lexed() too:
 * it is slower, never wrong.
 */
static int plain_text(const char *t, size_t len)
{
	const char *end = t + len;

	return !(len >= 3 && !memcmp(t, "\xef\xbb\xbf", 3)) && !memchr(t, '\r', len) &&
	       !memchr(t, '\\', len) && !has(t, end, '?', trigraph) &&
	       !has(t, end, '%', digraph) && !has(t, end, '"', raw_quote) &&
	       !has(t, end, '\'', separator);
}

int rj_includes_scan(const char *text, size_t len,
		     int (*fn)(void *user, const struct rj_include *inc), void *user)
{
	size_t n = len;
	int plain = plain_text(text, len);
	char *t = plain ? NULL : lexed(text, len, &n);
	const char *p, *end;
	int line = 1, rc = 0;
	struct rj_include inc;

	RJ_CHECK(!plain && !t, ROCJIT_ENOMEM, "out of memory reading the include directives "
		 "of a %zu-byte text", len);
	p = plain ? text : t;
	end = p + n;
	while (p < end && rc == 0) {
		/* A line's start: blanks and comments, then a directive or code. */
		p = past_blanks(p, end, &line);
		if (p < end && *p == '#') {
			const char *d = skip_blanks(p + 1, end), *e;

			for (e = d; e < end && ident_char(*e); e++)
				;
			inc.line = line;
			if ((e - d == 7 && memcmp(d, "include", 7) == 0) ||
			    (e - d == 12 && memcmp(d, "include_next", 12) == 0) ||
			    (e - d == 6 && memcmp(d, "import", 6) == 0)) {
				snprintf(inc.what, sizeof inc.what, "#%.*s", (int)(e - d), d);
				rc = target_at(&inc, e, end, 0, fn, user);
				/* The rest of the directive is its target. */
				e = memchr(e, '\n', (size_t)(end - e));
				p = e ? e : end;
				continue;
			}
			rc = probes_in(&inc, e, end, fn, user);
			p = e;
		}
		if (p < end && *p != '\n')
			p = past_code(p, end, &line);
		if (p < end) {
			line++;
			p++;
		}
	}
	free(t);
	return rc;
}
