/*
 * entries.c - cache entries as the commands see them: copies that outlive the library's
 * callback, the filters purge and list share, sorting, and an entry's JSON form.
 *
 * Owns the copies it hands out (freed with cli_row_free, cli_rows_free).  The compiler
 * identities the stale-compiler filter compares with are asked from the library once per
 * platform.  Below the commands (purge, list, show, stats); it prints nothing but a
 * warning and a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_filter_init(struct cli_filter *f)
{
	memset(f, 0, sizeof *f);
	f->older_than = -1;
}

void cli_filter_free(struct cli_filter *f)
{
	cli_targets_free(&f->arch);
}

int cli_filter_active(const struct cli_filter *f)
{
	return f->older_than >= 0 || f->arch.n || f->stale_compiler;
}

int cli_filter_option(struct cli_filter *f, const char *cmd, int which, const char *value)
{
	switch (which) {
	case 0:
		if (cli_parse_age(&f->older_than, value) != 0)
			return cli_usage_error(cmd, "--older-than %s: give an age like 30d, 12h, "
					       "90m, 45s or 2w", value);
		return CLI_OK;
	case 1:
		return cli_targets_add(&f->arch, cmd, value);
	default:
		f->stale_compiler = 1;
		return CLI_OK;
	}
}

int64_t cli_row_last_use(const struct cli_row *r)
{
	return r->last_used > 0 ? r->last_used : r->created;
}

/* "gfx90a" selects every gfx90a variant; an id with features selects only itself. */
static int arch_match(const struct cli_targets *t, const char *target)
{
	if (!t->n)
		return 1;
	for (size_t i = 0; i < t->n; i++) {
		size_t n = strlen(t->ids[i]);
		if (strcmp(t->ids[i], target) == 0)
			return 1;
		if (!strchr(t->ids[i], ':') && strncmp(t->ids[i], target, n) == 0 &&
		    target[n] == ':')
			return 1;
	}
	return 0;
}

struct load_state {
	const struct cli_filter *filter;
	struct cli_row *rows;
	size_t n, cap;
	int64_t now;
	/* The installed compiler identity per platform ("" if unknown), and why unknown. */
	const char *current[3];
	char why[3][512];
	int warned[3];
};

static int platform_id(const char *name)
{
	if (strcmp(name, "amd") == 0)
		return ROCJIT_PLATFORM_AMD;
	if (strcmp(name, "nvidia") == 0)
		return ROCJIT_PLATFORM_NVIDIA;
	return 0;
}

/*
 * Asked before the walk, not from its callback: learning an identity may read the cache's
 * compiler memo, and the walk holds the cache.
 */
static void ask_compilers(struct load_state *s)
{
	for (int p = ROCJIT_PLATFORM_AMD; p <= ROCJIT_PLATFORM_NVIDIA; p++) {
		const char *id = NULL;
		if (rocjit_compiler_identity(&id, p) != 0 || !id) {
			snprintf(s->why[p], sizeof s->why[p], "%s", rocjit_last_error());
			id = "";
		}
		s->current[p] = id;
	}
}

/*
 * Whether an entry was made by another compiler than the installed one.  When a platform's
 * compiler cannot be loaded here, its entries are kept: nothing says they are stale (the
 * cache may be shared with machines that have it).
 */
static int stale(struct load_state *s, const rocjit_entry *e)
{
	int p = platform_id(e->platform);

	if (!p)
		return 0;
	if (!*s->current[p]) {
		if (!s->warned[p]++)
			cli_warn("cannot tell which %s entries are stale: %s; they are kept",
				 e->platform, s->why[p]);
		return 0;
	}
	return strcmp(s->current[p], e->compiler) != 0;
}

static int selected(struct load_state *s, const rocjit_entry *e)
{
	const struct cli_filter *f = s->filter;
	int64_t last = e->last_used > 0 ? e->last_used : e->created;

	if (!f)
		return 1;
	if (f->older_than >= 0 && s->now - last < f->older_than)
		return 0;
	if (!arch_match(&f->arch, e->target))
		return 0;
	if (f->stale_compiler && !stale(s, e))
		return 0;
	return 1;
}

void cli_row_from_entry(struct cli_row *r, const rocjit_entry *e)
{
	memcpy(r->key, e->key, sizeof r->key);
	r->key[32] = 0;
	r->platform = cli_strdup(e->platform);
	r->target = cli_strdup(e->target);
	r->compiler = cli_strdup(e->compiler);
	r->options = cli_strdup(e->options);
	r->source_name = cli_strdup(e->source_name);
	r->headers = cli_strdup(e->headers);
	r->kernels = cli_strdup(e->kernels);
	r->name_expressions = cli_strdup(e->name_expressions);
	r->size = e->size;
	r->hits = e->hits;
	r->created = e->created;
	r->last_used = e->last_used;
	r->compile_ms = e->compile_ms;
	memcpy(r->signer, e->signer, sizeof r->signer);
	r->signer[sizeof r->signer - 1] = 0;
	r->signature = e->signature;
}

const char *cli_signature_name(int signature)
{
	static const char *const names[] = { "none", "unchecked", "trusted", "untrusted", "bad" };

	return signature >= 0 && signature <= ROCJIT_SIGNATURE_BAD ? names[signature]
								   : "unknown";
}

const char *cli_signature_text(char *buf, size_t size, const char *signer, int signature)
{
	switch (signature) {
	case ROCJIT_SIGNATURE_NONE:
		snprintf(buf, size, "none (unsigned)");
		break;
	case ROCJIT_SIGNATURE_UNCHECKED:
		snprintf(buf, size, "by %s, a trusted key's name (not checked: `rocjit show` "
			 "or `rocjit verify` checks it)", cli_text(signer));
		break;
	case ROCJIT_SIGNATURE_TRUSTED:
		snprintf(buf, size, "trusted (signed by %s, checked)", cli_text(signer));
		break;
	case ROCJIT_SIGNATURE_UNTRUSTED:
		snprintf(buf, size, "untrusted (signed by %s, a key not in ROCJIT_TRUSTED_KEYS)",
			 cli_text(signer));
		break;
	default:
		snprintf(buf, size, "BAD (in the name of %s, but it does not hold: the code or "
			 "its key changed after signing; `rocjit verify --fix` removes it)",
			 cli_text(signer));
	}
	return buf;
}

static int collect(const rocjit_entry *e, void *user)
{
	struct load_state *s = user;
	struct cli_row *r;

	if (!selected(s, e))
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->rows = cli_realloc(s->rows, s->cap * sizeof *s->rows);
	}
	r = &s->rows[s->n++];
	cli_row_from_entry(r, e);
	return 0;
}

int cli_rows_load(rocjit_ctx *ctx, const struct cli_filter *f, struct cli_row **rows,
		  size_t *n)
{
	struct load_state s = { .filter = f, .now = cli_now_s() };
	int rc;

	if (f && f->stale_compiler)
		ask_compilers(&s);
	rc = rocjit_cache_foreach(ctx, collect, &s);

	if (rc != 0) {
		cli_rows_free(s.rows, s.n);
		*rows = NULL;
		*n = 0;
		return cli_fail("cannot read the cache: %s (%s); `rocjit verify` checks it",
				rocjit_last_error(), rocjit_strerror(rc));
	}
	*rows = s.rows;
	*n = s.n;
	return CLI_OK;
}

void cli_row_free(struct cli_row *r)
{
	free(r->platform);
	free(r->target);
	free(r->compiler);
	free(r->options);
	free(r->source_name);
	free(r->headers);
	free(r->kernels);
	free(r->name_expressions);
}

void cli_rows_free(struct cli_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cli_row_free(&rows[i]);
	free(rows);
}

const char cli_sort_fields[] = "key, target, size, last-used, created, hits, source";

static int sort_field;
static int sort_sign;

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

static int row_cmp(const void *pa, const void *pb)
{
	const struct cli_row *a = pa, *b = pb;
	int c = 0;

	switch (sort_field) {
	case 1: c = strcmp(a->target, b->target); break;
	case 2: c = CMP(a->size, b->size); break;
	case 3: c = CMP(cli_row_last_use(a), cli_row_last_use(b)); break;
	case 4: c = CMP(a->created, b->created); break;
	case 5: c = CMP(a->hits, b->hits); break;
	case 6: c = strcmp(a->source_name, b->source_name); break;
	default: break;
	}
	if (c == 0)
		c = strcmp(a->key, b->key);
	return sort_sign * c;
}

int cli_rows_sort(struct cli_row *rows, size_t n, const char *field, int reverse)
{
	static const char *const names[] = { "key",	"target", "size",  "last-used",
					     "created", "hits",	  "source" };
	int which = -1;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(field, names[i]) == 0)
			which = (int)i;
	if (which < 0)
		return -1;
	/* qsort has no user pointer; one sort at a time in this single-threaded tool. */
	sort_field = which;
	sort_sign = reverse ? -1 : 1;
	if (n > 1)
		qsort(rows, n, sizeof *rows, row_cmp);
	return 0;
}

void cli_row_json(struct cli_json *j, const struct cli_row *r)
{
	cli_json_object(j, NULL);
	cli_json_str(j, "key", r->key);
	cli_json_str(j, "platform", r->platform);
	cli_json_str(j, "target", r->target);
	cli_json_str(j, "compiler", r->compiler);
	cli_json_str(j, "options", r->options);
	cli_json_str(j, "source", r->source_name);
	cli_json_list(j, "headers", r->headers, ' ');
	cli_json_list(j, "kernels", r->kernels, ',');
	cli_json_uint(j, "size", r->size);
	cli_json_int(j, "created", r->created);
	cli_json_int(j, "last_used", r->last_used);
	cli_json_uint(j, "hits", r->hits);
	cli_json_num(j, "compile_ms", r->compile_ms);
	cli_json_str(j, "signer", r->signer);
	cli_json_str(j, "signature", cli_signature_name(r->signature));
	cli_json_end_object(j);
}
