/*
 * inputs.c - the rule that what a compiler reads is in the cache key, or refused (see
 * inputs.h for what was measured and what each case becomes).
 *
 * Owns the list of environment variables the compilers read that change code, the scanner
 * of include directives (rj_includes_scan: textual but preprocessor-aware where it
 * matters, see inputs.h), and the check of a request's includes that would reach outside
 * the key.  The check runs at compile time only: a key whose compile was refused never
 * has an entry, so a hit needs no check.
 *
 * Knows nothing of keys or of the vendor APIs; the platforms call it before compiling.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "compile/inputs.h"

#define AMD (1 << ROCJIT_PLATFORM_AMD)
#define NVIDIA (1 << ROCJIT_PLATFORM_NVIDIA)

/*
 * The variables, and which platform's compiler reads them.  Measured: hipRTC 5.2 reads
 * CPATH and CPLUS_INCLUDE_PATH (a header there is found, unkeyed); the others are read
 * by the libraries (their names are in libamdhip64, comgr and libnvrtc) or by clang's
 * driver, and change the options or the device library a compile uses.
 */
static const struct {
	const char *name;
	int platforms;
	const char *what;
} vars[] = {
	{ "CPATH", AMD, "adds include folders" },
	{ "C_INCLUDE_PATH", AMD, "adds include folders" },
	{ "CPLUS_INCLUDE_PATH", AMD, "adds include folders" },
	{ "OBJC_INCLUDE_PATH", AMD, "adds include folders" },
	{ "OBJCPLUS_INCLUDE_PATH", AMD, "adds include folders" },
	{ "CCC_OVERRIDE_OPTIONS", AMD, "edits the compiler's options" },
	{ "HIPRTC_COMPILE_OPTIONS_APPEND", AMD, "adds compiler options" },
	{ "AMD_OCL_BUILD_OPTIONS", AMD, "replaces compiler options" },
	{ "AMD_OCL_BUILD_OPTIONS_APPEND", AMD, "adds compiler options" },
	{ "HIP_DEVICE_LIB_PATH", AMD, "chooses the device library" },
	{ "NVRTC_APPEND_FLAGS", NVIDIA, "adds compiler options" },
};

static int var_index(const char *entry, size_t name_len)
{
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (strlen(vars[i].name) == name_len && memcmp(vars[i].name, entry, name_len) == 0)
			return (int)i;
	return -1;
}

int rj_inputs_env_changes_code(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq && var_index(entry, (size_t)(eq - entry)) >= 0;
}

int rj_inputs_env_check(int platform)
{
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i].name);

		if (!v || !*v || !(vars[i].platforms & (1 << platform)))
			continue;
		RJ_FAIL(ROCJIT_EINVAL, "%s is set (%s): the compiler would read it, and it is not "
			"part of the cache key.  Unset it for this process, or compile in workers "
			"(unset ROCJIT_COMPILE_INPROCESS), which run without it; pass the headers "
			"it adds as registered headers (rocjit_program.headers, a kernel folder) "
			"and options as compiler options", vars[i].name, vars[i].what);
	}
	return 0;
}

/* ---- The include scan ------------------------------------------------------------------ */

struct scan {
	const struct rj_compile_req *req;
	const struct rj_served *served;
	int platform;
	const char *file; /* the text's name: the source's or an in-memory header's */
};

/*
 * The folders hipRTC 5.2 searches by itself (its -v list on Debian 12: the C++ library's,
 * /usr/local/include, the multiarch folder, /usr/include; CPATH's are cut off with the
 * environment).  Checked for every include no keyed header answers: a header found there
 * would be read unkeyed.  HIP's own installed headers (hip/...) are the compiler's: the
 * headers rocjit serves reach them, and they change with the compiler's identity.
 */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH "unknown"
#endif
static const char *const amd_system_dirs[] = { "/usr/local/include", "/usr/include/" MULTIARCH,
					       "/usr/include" };

/* Whether dir is one of the request's -I folders, whose contents the key holds
 * (request/search_dirs.c). */
static int keyed_folder(const struct scan *s, const char *dir)
{
	struct stat a, b;

	if (stat(dir, &a) != 0)
		return 0;
	for (const char *o = rj_opts_next(s->req->options, NULL); o;
	     o = rj_opts_next(s->req->options, o))
		if (strncmp(o, "-I", 2) == 0 && o[2] && stat(o + 2, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 1;
	return 0;
}

/* A file (or anything) at dir/name: its path in out, 1; else 0. */
static int found_in(char *out, size_t size, const char *dir, const char *name)
{
	struct stat st;
	int n = snprintf(out, size, "%s/%s", dir, name);

	return n > 0 && (size_t)n < size && stat(out, &st) == 0;
}

/* Whether name is found in one of the C++ library's folders (/usr/include/c++/<N>, and
 * the multiarch one), its path in out. */
static int found_in_cxx(char *out, size_t size, const char *name)
{
	static const char *const roots[] = { "/usr/include/c++", "/usr/include/" MULTIARCH "/c++" };
	int found = 0;

	for (size_t i = 0; i < 2 && !found; i++) {
		DIR *d = opendir(roots[i]);
		struct dirent *e;
		char dir[512];

		while (d && !found && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(dir, sizeof dir, "%s/%s", roots[i], e->d_name);
			found = found_in(out, size, dir, name);
		}
		if (d)
			closedir(d);
	}
	return found;
}

static int keyed(const struct scan *s, const char *name)
{
	for (size_t i = 0; i < s->req->num_headers; i++)
		if (strcmp(s->req->headers[i].name, name) == 0)
			return 1;
	for (size_t i = 0; s->served && i < s->served->n; i++)
		if (strcmp(s->served->files[i]->name, name) == 0)
			return 1;
	return 0;
}

int rj_include_join(char *out, size_t size, const char *dir, size_t dlen, const char *path,
		    size_t plen)
{
	char buf[4096];
	size_t n = 0, blen = dlen + (dlen ? 1 : 0) + plen;

	if (blen >= sizeof buf)
		return -1;
	memcpy(buf, dir, dlen);
	if (dlen)
		buf[dlen] = '/';
	memcpy(buf + dlen + (dlen ? 1 : 0), path, plen);
	buf[blen] = 0;
	for (char *c = buf, *end; *c; c = *end ? end + 1 : end) {
		size_t clen;

		end = strchr(c, '/');
		if (!end)
			end = c + strlen(c);
		clen = (size_t)(end - c);
		if (clen == 0 || (clen == 1 && c[0] == '.'))
			continue;
		if (clen == 2 && c[0] == '.' && c[1] == '.') {
			if (n == 0)
				return -1; /* above the root */
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--; /* the slash */
			continue;
		}
		if (n + 1 + clen >= size)
			return -1;
		if (n > 0)
			out[n++] = '/';
		memcpy(out + n, c, clen);
		n += clen;
	}
	out[n] = 0;
	return n ? 0 : -1;
}

static int has_dotdot(const char *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (p[i] == '.' && p[i + 1] == '.' && (i == 0 || p[i - 1] == '/') &&
		    (i + 2 == len || p[i + 2] == '/'))
			return 1;
	return 0;
}

#define REFUSE(s, line, what, fmt, ...)                                                      \
	RJ_FAIL(ROCJIT_EINVAL, "%s:%d: %s " fmt ": the compiler would read it from disk, "    \
		"outside the cache key (an edit would not be seen, and one key would mean "   \
		"other code on another machine).  Register the header instead "               \
		"(rocjit_program.headers, or a kernel folder: rocjit_add_kernels, "           \
		"rocjit_register_headers) and include it by its registered name",            \
		(s)->file, (line), (what), __VA_ARGS__)

/* Checks one include's target (quoted: "..."; else <...>). */
static int check_target(const struct scan *s, int line, const char *what, const char *t,
			size_t len, int quoted)
{
	char name[4096], norm[4096];
	const char *slash = strrchr(s->file, '/');
	size_t dlen = slash ? (size_t)(slash - s->file) : 0;

	if (len == 0 || len >= sizeof name)
		return 0; /* the compiler refuses it itself */
	memcpy(name, t, len);
	name[len] = 0;
	if (keyed(s, name))
		return 0; /* an in-memory header of that very name: found first */
	if (name[0] == '/')
		REFUSE(s, line, what, "%c%s%c names an absolute path", quoted ? '"' : '<', name,
		       quoted ? '"' : '>');
	if (quoted && dlen && rj_include_join(norm, sizeof norm, s->file, dlen, t, len) == 0 &&
	    keyed(s, norm))
		return 0;
	if (rj_include_join(norm, sizeof norm, "", 0, t, len) == 0 && keyed(s, norm))
		return 0;
	if (has_dotdot(t, len))
		REFUSE(s, line, what, "%c%s%c leaves the registered headers (\"..\")",
		       quoted ? '"' : '<', name, quoted ? '"' : '>');
	/* NVRTC looks for a quoted include in the including file's folder, as named: relative
	   to the working directory (measured, NVRTC 13). */
	if (quoted && s->platform == ROCJIT_PLATFORM_NVIDIA) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%.*s", dlen ? (int)dlen : 1, dlen ? s->file : ".");
		if (found_in(norm, sizeof norm, dir, name) && !keyed_folder(s, dir))
			REFUSE(s, line, what, "\"%s\" is found at %s, in the folder of %s", name,
			       norm, s->file);
	}
	if (s->platform == ROCJIT_PLATFORM_AMD && strncmp(name, "hip/", 4) != 0) {
		for (size_t i = 0; i < sizeof amd_system_dirs / sizeof amd_system_dirs[0]; i++)
			if (found_in(norm, sizeof norm, amd_system_dirs[i], name))
				REFUSE(s, line, what, "%c%s%c is found at %s, a system folder",
				       quoted ? '"' : '<', name, quoted ? '"' : '>', norm);
		if (found_in_cxx(norm, sizeof norm, name))
			REFUSE(s, line, what, "%c%s%c is found at %s, a system folder",
			       quoted ? '"' : '<', name, quoted ? '"' : '>', norm);
	}
	return 0; /* not ours: a keyed -I folder's, the compiler's own, or not found */
}

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

/* rj_includes_scan's callback for rj_inputs_check: each include checked. */
static int check_include(void *user, const struct rj_include *inc)
{
	const struct scan *s = user;

	if (!inc->name)
		RJ_FAIL(ROCJIT_EINVAL, "%s:%d: %s with a name made by a macro cannot be checked "
			"to stay inside the cache key: write the header's name (a registered "
			"header, rocjit_program.headers or a kernel folder)", s->file, inc->line,
			inc->what);
	return check_target(s, inc->line, inc->what, inc->name, inc->len, inc->quoted);
}

static int scan_text(struct scan *s, const char *text, size_t len)
{
	return rj_includes_scan(text, len, check_include, s);
}

int rj_inputs_check(const struct rj_compile_req *req, const struct rj_served *served,
		    int platform)
{
	struct scan s = { req, served, platform, req->name };

	/* A pre-included header is found as an include is (options.c refused the rest). */
	s.file = "(the compiler options)";
	for (const char *o = NULL, *v; (v = rj_opts_next_pre_include(req->options, &o)) != NULL;)
		RJ_FORWARD(check_target(&s, 0, "-include", v, strlen(v), 1));
	s.file = req->name;
	RJ_FORWARD(scan_text(&s, req->source, strlen(req->source)));
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];

		s.file = h->name;
		RJ_FORWARD(scan_text(&s, h->source, h->length ? h->length : strlen(h->source)));
	}
	return 0;
}
