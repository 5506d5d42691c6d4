/*
 * fuzz_options.c - the options normalizer (options.c) on any list of options.
 *
 * The input, split at every '\n' and NUL, is an argv-style list of at most 64 options, each
 * in a heap buffer of exactly its size (for the sanitizers).  rj_opts_normalize refuses it
 * with ROCJIT_EINVAL (leaving the result empty and released), or gives a list that keeps
 * the rules options.h states:
 *  - count >= 1 and the packed buffer holds exactly count non-empty options, none with
 *    white space at either end, none longer than RJ_OPTION_MAX;
 *  - the last option is an -O level: the last one given, or "-O3"; no other option starts
 *    with "-O";
 *  - no option is a bare "-D", "-U", "-I" nor "-D ", "-U ", "-I " with a value (those are
 *    joined), and none is a target option (--offload-arch, -arch, -mcpu, ...);
 *  - rj_opts_join gives the options separated by single spaces;
 *  - normalizing the normalized options again gives them back unchanged.
 */
#include <ctype.h>
#include <string.h>

#include "base/error.h"
#include "fuzz.h"
#include "key/options.h"

#define MAX_OPTIONS 64

/* As options.c's target-option rule: a target flag alone, or followed by '=' or space. */
static int is_target_option(const char *s)
{
	static const char *const bad[] = { "--offload-arch", "--amdgpu-target",
					   "--gpu-architecture", "-arch", "-mcpu", "-march",
					   "--cuda-gpu-arch" };
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = strlen(bad[i]);

		if (strncmp(s, bad[i], n) == 0 &&
		    (s[n] == 0 || s[n] == '=' || isspace((unsigned char)s[n])))
			return 1;
	}
	return 0;
}

static int is_opt_level(const char *s)
{
	return strlen(s) == 3 && s[0] == '-' && s[1] == 'O' && strchr("0123sz", s[2]);
}

/* Whether s, trimmed of white space, is the -O level `level`. */
static int trims_to(const char *s, const char *level)
{
	size_t len = strlen(s);

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return len == 3 && memcmp(s, level, 3) == 0;
}

/* Checks o against the rules above; opts[0..n) is what it was normalized from. */
static void check_result(const struct rj_opts *o, const char *const *opts, size_t n)
{
	const char *cur, *last = NULL;
	size_t seen = 0, bytes = 0, i;
	char *joined, *w;
	int given = 0;

	FUZZ_CHECK(o->count >= 1);
	FUZZ_CHECK(o->len <= o->cap);
	for (cur = rj_opts_next(o, NULL); cur; cur = rj_opts_next(o, cur)) {
		size_t len = strlen(cur);

		FUZZ_CHECK(len > 0 && len <= RJ_OPTION_MAX);
		FUZZ_CHECK(!isspace((unsigned char)cur[0]) && !isspace((unsigned char)cur[len - 1]));
		FUZZ_CHECK(!is_target_option(cur));
		FUZZ_CHECK(strcmp(cur, "-D") && strcmp(cur, "-U") && strcmp(cur, "-I"));
		FUZZ_CHECK(strncmp(cur, "-D ", 3) && strncmp(cur, "-U ", 3) &&
			   strncmp(cur, "-I ", 3));
		if (last)
			FUZZ_CHECK(strncmp(last, "-O", 2) != 0);
		last = cur;
		seen++;
		bytes += len + 1;
	}
	FUZZ_CHECK(seen == o->count && bytes == o->len);
	FUZZ_CHECK(is_opt_level(last));
	for (i = 0; i < n; i++)
		given |= trims_to(opts[i], last);
	FUZZ_CHECK(given || strcmp(last, "-O3") == 0);

	joined = rj_opts_join(o);
	FUZZ_CHECK(joined);
	FUZZ_CHECK(strlen(joined) + 1 == o->len);
	for (cur = rj_opts_next(o, NULL), w = joined; cur; cur = rj_opts_next(o, cur)) {
		size_t len = strlen(cur);

		FUZZ_CHECK(strncmp(w, cur, len) == 0);
		w += len;
		FUZZ_CHECK(*w == (rj_opts_next(o, cur) ? ' ' : 0));
		if (*w)
			w++;
	}
	free(joined);
}

/* Normalizing the normalized options again must change nothing. */
static void check_idempotent(const struct rj_opts *o)
{
	const char *again[MAX_OPTIONS + 1];
	struct rj_opts o2;
	const char *cur;
	size_t n = 0;

	FUZZ_CHECK(o->count <= MAX_OPTIONS + 1);
	for (cur = rj_opts_next(o, NULL); cur; cur = rj_opts_next(o, cur))
		again[n++] = cur;
	FUZZ_CHECK(rj_opts_normalize(&o2, again, n) == 0);
	FUZZ_CHECK(o2.count == o->count && o2.len == o->len);
	FUZZ_CHECK(memcmp(o2.buf, o->buf, o->len) == 0);
	rj_opts_release(&o2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *opts[MAX_OPTIONS];
	struct rj_opts o;
	size_t n = 0, start = 0, i;
	int rc;

	/* Split at '\n' and NUL: n options, the last running to the end of the input. */
	for (i = 0; i <= size && n < MAX_OPTIONS; i++) {
		if (i < size && data[i] != '\n' && data[i] != 0)
			continue;
		opts[n] = malloc(i - start + 1);
		FUZZ_CHECK(opts[n]);
		memcpy(opts[n], data + start, i - start);
		opts[n][i - start] = 0;
		n++;
		start = i + 1;
	}
	rc = rj_opts_normalize(&o, (const char *const *)opts, n);
	if (rc == 0) {
		check_result(&o, (const char *const *)opts, n);
		check_idempotent(&o);
	} else {
		FUZZ_CHECK(rc == ROCJIT_EINVAL || rc == ROCJIT_ENOMEM);
		FUZZ_CHECK(rocjit_last_error()[0] != 0);
		FUZZ_CHECK(o.buf == o.inline_buf && o.len == 0 && o.count == 0);
	}
	rj_opts_release(&o);
	rj_opts_release(&o); /* releasing twice is harmless */
	for (i = 0; i < n; i++)
		free(opts[i]);
	return 0;
}
