/*
 * purge.c - `rocjit purge`: remove cache entries (all, by age, target, stale compiler, or
 * least recently used beyond a size) and give the space back to the file system.
 *
 * The entries to remove are chosen from a snapshot read first (the library's walk holds
 * the cache), then removed in one transaction (rocjit_cache_remove) and the database is
 * compacted (rocjit_cache_compact) so that the file really shrinks.
 *
 * Owns the snapshot of one run.  Uses the files below the commands (entries.c: the rows
 * and the filters list shares), never another command's file or main.c.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "../src/base/fsutil.h"

enum { OPT_FILTER = 1, OPT_ALL = 10, OPT_MAX_SIZE, OPT_DRY_RUN, OPT_VERBOSE, OPT_JSON };

static const struct cli_opt purge_opts[] = {
	CLI_FILTER_OPTS(OPT_FILTER),
	{ "all", 0, 0, OPT_ALL },
	{ "max-size", 0, 1, OPT_MAX_SIZE },
	{ "dry-run", 'n', 0, OPT_DRY_RUN },
	{ "verbose", 'v', 0, OPT_VERBOSE },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

struct purge {
	struct cli_filter filter;
	int all, dry_run, verbose, json, has_max;
	uint64_t max_size;
};

static int parse(struct purge *pg, int argc, char **argv)
{
	struct cli_parser p;
	const char *v;
	int id, rc = CLI_OK;

	cli_parser_init(&p, "purge", argc, argv, purge_opts, 0);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: return -1;
		case CLI_ARG_ERROR: return CLI_USAGE;
		case CLI_ARG_POSITIONAL:
			rc = cli_usage_error("purge", "unexpected argument '%s'", v);
			break;
		case OPT_ALL: pg->all = 1; break;
		case OPT_DRY_RUN: pg->dry_run = 1; break;
		case OPT_VERBOSE: pg->verbose = 1; break;
		case OPT_JSON: pg->json = 1; break;
		case OPT_MAX_SIZE:
			if (cli_parse_size(&pg->max_size, v) != 0)
				rc = cli_usage_error("purge", "--max-size %s: give a size like 2G, "
						     "500M, 64K or a number of bytes", v);
			pg->has_max = 1;
			break;
		default:
			rc = cli_filter_option(&pg->filter, "purge", id - OPT_FILTER, v);
		}
	}
	if (rc != CLI_OK)
		return rc;
	if (pg->all && (cli_filter_active(&pg->filter) || pg->has_max))
		return cli_usage_error("purge", "--all removes everything: give it alone, or "
				       "the criteria without --all");
	if (!pg->all && !pg->has_max && !cli_filter_active(&pg->filter))
		return cli_usage_error("purge", "say what to remove: --all, --older-than AGE, "
				       "--arch T, --compiler-version-other-than-current or "
				       "--max-size SIZE");
	return CLI_OK;
}

static int lru_cmp(const void *pa, const void *pb)
{
	const struct cli_row *a = *(struct cli_row *const *)pa, *b = *(struct cli_row *const *)pb;
	int64_t la = cli_row_last_use(a), lb = cli_row_last_use(b);

	if (la != lb)
		return la < lb ? -1 : 1;
	if (a->created != b->created)
		return a->created < b->created ? -1 : 1;
	return strcmp(a->key, b->key);
}

/*
 * The entries to remove.  Without --max-size: every selected one.  With it: selected
 * entries, least recently used first, until the code left is at most the size.
 */
static size_t choose(const struct purge *pg, struct cli_row *rows, size_t n,
		     const unsigned char *selected, struct cli_row ***out)
{
	struct cli_row **pick = cli_alloc((n ? n : 1) * sizeof *pick);
	uint64_t total = 0;
	size_t k = 0, m = 0;

	for (size_t i = 0; i < n; i++) {
		total += rows[i].size;
		if (selected[i])
			pick[k++] = &rows[i];
	}
	if (pg->has_max) {
		qsort(pick, k, sizeof *pick, lru_cmp);
		while (m < k && total > pg->max_size)
			total -= pick[m++]->size;
		k = m;
	}
	*out = pick;
	return k;
}

/*
 * --all also removes this user's precompiled headers (src/compile/pch.c: pch-<uid> in the
 * cache folder, files only, through the folder's descriptor); *n and *bytes: what went.
 */
static void purge_pch(size_t *n, uint64_t *bytes)
{
	char dir[4200], sub[64];
	struct dirent *e;
	int fd, at;
	DIR *d;

	*n = 0;
	*bytes = 0;
	cli_cache_dir(dir, sizeof dir);
	snprintf(sub, sizeof sub, "pch-%u", (unsigned)geteuid());
	if ((at = rj_fs_open_dir(AT_FDCWD, dir, 0)) < 0)
		return;
	fd = rj_fs_open_dir(at, sub, 1);
	close(at);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;

		if (len > 5 && !strcmp(e->d_name + len - 5, ".seen")) {
			unlinkat(dirfd(d), e->d_name, 0); /* a mark, not counted */
			continue;
		}
		if (len > 4 && !strcmp(e->d_name + len - 4, ".pch") &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && unlinkat(dirfd(d), e->d_name, 0) == 0) {
			(*n)++;
			*bytes += (uint64_t)st.st_size;
		}
	}
	closedir(d);
}

static void print_row(const char *what, const struct cli_row *r, int64_t now)
{
	char size[32], ago[32];

	printf("%s %.12s  %-24s %10s  %-14s %s\n", what, r->key, cli_text(r->target),
	       cli_fmt_size(size, sizeof size, r->size), cli_fmt_ago(ago, sizeof ago,
								      cli_row_last_use(r), now),
	       cli_text(r->source_name));
}

static void report(const struct purge *pg, struct cli_row **gone, size_t k, uint64_t bytes,
		   uint64_t before, uint64_t after, size_t total, size_t pch, uint64_t pch_bytes)
{
	char a[32], b[32], c[32], d[32];
	int64_t now = cli_now_s();

	if (pg->json) {
		struct cli_json j;
		cli_json_init(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_bool(&j, "dry_run", pg->dry_run);
		cli_json_uint(&j, "entries_before", total);
		cli_json_uint(&j, "removed", k);
		cli_json_uint(&j, "removed_bytes", bytes);
		cli_json_uint(&j, "file_bytes_before", before);
		cli_json_uint(&j, "file_bytes_after", after);
		cli_json_uint(&j, "precompiled_headers_removed", pch);
		cli_json_uint(&j, "precompiled_header_bytes_removed", pch_bytes);
		cli_json_array(&j, "entries");
		for (size_t i = 0; i < k; i++)
			cli_row_json(&j, gone[i]);
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
		return;
	}
	if (pg->dry_run || pg->verbose)
		for (size_t i = 0; i < k; i++)
			print_row(pg->dry_run ? "would remove" : "removed", gone[i], now);
	if (cli_global.quiet && !pg->dry_run)
		return;
	if (pg->dry_run)
		printf("purge --dry-run: %zu of %zu entries (%s of code) would be removed; "
		       "nothing was changed\n", k, total, cli_fmt_size(a, sizeof a, bytes));
	else
	{
		char more[96] = "";
		if (pch)
			snprintf(more, sizeof more, "; and %zu precompiled headers (%s)", pch,
				 cli_fmt_size(d, sizeof d, pch_bytes));
		printf("purge: removed %zu of %zu entries (%s of code); cache file %s -> %s%s\n",
		       k, total, cli_fmt_size(a, sizeof a, bytes), cli_fmt_size(b, sizeof b, before),
		       cli_fmt_size(c, sizeof c, after), more);
	}
}

int cli_purge(int argc, char **argv)
{
	struct purge pg = { 0 };
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	struct cli_row *rows = NULL, *sel = NULL, **gone = NULL;
	unsigned char *selected = NULL;
	size_t n = 0, nsel = 0, k = 0, npch = 0;
	uint64_t bytes = 0, before = 0, after = 0, pch_bytes = 0;
	rocjit_ctx *ctx = NULL;
	int rc;

	cli_filter_init(&pg.filter);
	rc = parse(&pg, argc, argv);
	if (rc == -1) {
		cli_filter_free(&pg.filter);
		return cli_help("purge");
	}
	if (rc == CLI_OK)
		rc = cli_open(&ctx, pg.dry_run ? ROCJIT_OPEN_READONLY : 0, CLI_EXISTING);
	if (rc == CLI_MISSING) {
		cli_no_cache_note();
		report(&pg, NULL, 0, 0, 0, 0, 0, 0, 0); /* nothing to remove */
		rc = CLI_OK;
		goto out;
	}
	/* Everything (for the size and the count), then what the criteria select. */
	if (rc == CLI_OK)
		rc = cli_rows_load(ctx, NULL, &rows, &n);
	if (rc == CLI_OK && !pg.all)
		rc = cli_rows_load(ctx, &pg.filter, &sel, &nsel);
	if (rc == CLI_OK) {
		selected = cli_alloc(n ? n : 1);
		for (size_t i = 0, s = 0; i < n; i++) {
			/* Both lists are in key order. */
			while (!pg.all && s < nsel && strcmp(sel[s].key, rows[i].key) < 0)
				s++;
			selected[i] = pg.all || (s < nsel && !strcmp(sel[s].key, rows[i].key));
		}
		k = choose(&pg, rows, n, selected, &gone);
		for (size_t i = 0; i < k; i++)
			bytes += gone[i]->size;
		rocjit_stats_get(&st, ctx);
		before = after = cli_cache_file_bytes(st.cache_path);
	}
	if (rc == CLI_OK && !pg.dry_run && k > 0) {
		const char **keys = cli_alloc(k * sizeof *keys);
		size_t removed = 0;
		int e;
		for (size_t i = 0; i < k; i++)
			keys[i] = gone[i]->key;
		e = rocjit_cache_remove(ctx, keys, k, &removed);
		free(keys);
		if (e != 0)
			rc = cli_fail("cannot remove the entries: %s (%s); nothing was removed; "
				      "`rocjit verify` checks the cache", rocjit_last_error(),
				      rocjit_strerror(e));
		else if ((e = rocjit_cache_compact(ctx)) != 0)
			cli_warn("the entries are gone but the file was not compacted: %s; run "
				 "purge again when no application uses the cache",
				 rocjit_last_error());
		after = cli_cache_file_bytes(st.cache_path);
	}
	if (rc == CLI_OK && pg.all && !pg.dry_run)
		purge_pch(&npch, &pch_bytes);
	if (rc == CLI_OK)
		report(&pg, gone, k, bytes, before, after, n, npch, pch_bytes);
out:
	free(gone);
	free(selected);
	cli_rows_free(rows, n);
	cli_rows_free(sel, nsel);
	cli_filter_free(&pg.filter);
	rocjit_close(ctx);
	return rc;
}
