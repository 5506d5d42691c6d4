/*
 * stats.c - `rocjit stats`: what the cache holds (per target, per compiler version) and
 * how well it serves and what failed (the counters every process adds to, since the last
 * --zero, which zeroes them all).
 *
 * Owns nothing beyond one report.  Uses the files below the commands, never another
 * command's file or main.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_ZERO = 1, OPT_JSON };

static const struct cli_opt stats_opts[] = {
	{ "zero", 'z', 0, OPT_ZERO },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

/* Entries and bytes per distinct value of one field. */
struct group {
	const char *name;
	uint64_t entries, bytes;
};

static size_t group_add(struct group **g, size_t n, const char *name, uint64_t bytes)
{
	size_t i;

	for (i = 0; i < n && strcmp((*g)[i].name, name) != 0; i++)
		;
	if (i == n) {
		*g = cli_realloc(*g, (n + 1) * sizeof **g);
		(*g)[n].name = name;
		(*g)[n].entries = 0;
		(*g)[n].bytes = 0;
		n++;
	}
	(*g)[i].entries++;
	(*g)[i].bytes += bytes;
	return n;
}

static void groups_json(struct cli_json *j, const char *key, const struct group *g, size_t n)
{
	cli_json_array(j, key);
	for (size_t i = 0; i < n; i++) {
		cli_json_object(j, NULL);
		cli_json_str(j, "name", g[i].name);
		cli_json_uint(j, "entries", g[i].entries);
		cli_json_uint(j, "bytes", g[i].bytes);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

static void groups_text(const char *title, const struct group *g, size_t n)
{
	char size[32];

	printf("%s\n", title);
	if (!n)
		printf("  (none)\n");
	for (size_t i = 0; i < n; i++)
		printf("  %-40s %6" PRIu64 " %-7s %10s\n", cli_text(g[i].name), g[i].entries,
		       g[i].entries == 1 ? "entry" : "entries",
		       cli_fmt_size(size, sizeof size, g[i].bytes));
}

/* The size limit the library keeps (cache_maxsize: the environment, the cache, the
 * files), in words. */
static const char *limits_text(char *buf, size_t size, uint64_t max_bytes)
{
	char s[32];

	if (!max_bytes)
		return "no size limit (cache_maxsize 0; `rocjit config` says where it is set); "
		       "trim with `rocjit purge`";
	snprintf(buf, size, "%s of code (cache_maxsize; `rocjit config` says where it is set): "
		 "least recently used entries go beyond it", cli_fmt_size(s, sizeof s, max_bytes));
	return buf;
}

/* The remote tier's counters (kept in the cache by every process that used one) and the
 * tier configured now; nothing when neither exists. */
static void remote_text(const rocjit_stats *st, const rocjit_remote_counters *rc)
{
	if (st->remote_state == ROCJIT_REMOTE_NONE && !rc->hits && !rc->misses && !rc->puts &&
	    !rc->errors)
		return;
	printf("remote tier:    %s\n", st->remote_url[0] ? cli_text(st->remote_url) :
	       "(none configured now: ROCJIT_REMOTE)");
	cli_remote_counters_text(rc, "  ");
}

int cli_stats(int argc, char **argv)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_remote_counters rcnt = { .version = ROCJIT_REMOTE_COUNTERS_VERSION };
	rocjit_counters c = ROCJIT_COUNTERS_INIT;
	char lim[160];
	struct cli_row *rows = NULL;
	struct group *targets = NULL, *compilers = NULL;
	size_t n = 0, nt = 0, nc = 0;
	uint64_t bytes = 0;
	unsigned int on;
	int id, rc, zero, json;
	rocjit_ctx *ctx = NULL;
	double ratio;
	char a[32], b[32], d[64];

	rc = cli_parse_switches(&on, "stats", argc, argv, stats_opts);
	zero = !!(on & 1u << OPT_ZERO);
	json = !!(on & 1u << OPT_JSON);
	if (rc == -1)
		return cli_help("stats");
	if (rc == CLI_OK)
		rc = cli_open(&ctx, zero ? 0 : ROCJIT_OPEN_READONLY, CLI_EXISTING);
	if (rc == CLI_MISSING) {
		cli_no_cache_note();
		if (json) {
			struct cli_json j;
			cli_json_init(&j, stdout);
			cli_json_object(&j, NULL);
			cli_json_null(&j, "cache_path");
			cli_json_bool(&j, "exists", 0);
			cli_json_uint(&j, "entries", 0);
			cli_json_uint(&j, "bytes", 0);
			cli_json_end_object(&j);
			cli_json_finish(&j);
		}
		return CLI_OK;
	}
	if (rc == CLI_OK && zero) {
		id = rocjit_cache_zero(ctx);
		if (id != 0)
			rc = cli_fail("cannot zero the counters: %s (%s)", rocjit_last_error(),
				      rocjit_strerror(id));
		else if (!json)
			printf("statistics zeroed\n");
	}
	if (rc == CLI_OK && (id = rocjit_counters_get(&c, ctx)) != 0)
		rc = cli_fail("cannot read the counters: %s (%s)", rocjit_last_error(),
			      rocjit_strerror(id));
	if (rc == CLI_OK && (id = rocjit_remote_counters_get(&rcnt, ctx)) != 0)
		rc = cli_fail("cannot read the remote counters: %s (%s)", rocjit_last_error(),
			      rocjit_strerror(id));
	if (rc == CLI_OK)
		rc = cli_rows_load(ctx, NULL, &rows, &n);
	if (rc != CLI_OK || (zero && !json))
		goto out;
	rocjit_stats_get(&st, ctx);
	for (size_t i = 0; i < n; i++) {
		bytes += rows[i].size;
		nt = group_add(&targets, nt, rows[i].target, rows[i].size);
		nc = group_add(&compilers, nc, rows[i].compiler, rows[i].size);
	}
	ratio = c.disk_hits + c.misses ? (double)c.disk_hits / (double)(c.disk_hits + c.misses)
				       : 0;
	if (json) {
		struct cli_json j;
		cli_json_init(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_str(&j, "cache_path", st.cache_path);
		cli_json_bool(&j, "exists", 1);
		cli_json_uint(&j, "file_bytes", cli_cache_file_bytes(st.cache_path));
		cli_json_uint(&j, "entries", n);
		cli_json_uint(&j, "bytes", bytes);
		groups_json(&j, "targets", targets, nt);
		groups_json(&j, "compilers", compilers, nc);
		cli_json_object(&j, "counters");
		cli_json_int(&j, "since", c.since);
		cli_json_uint(&j, "disk_hits", c.disk_hits);
		cli_json_uint(&j, "misses", c.misses);
		cli_json_uint(&j, "compiles", c.compiles);
		cli_json_num(&j, "hit_ratio", ratio);
		cli_json_num(&j, "compile_ms", c.compile_ms);
		cli_json_num(&j, "saved_ms", c.saved_ms);
		cli_json_uint(&j, "compile_errors", c.compile_errors);
		cli_json_uint(&j, "evictions", c.evictions);
		cli_json_uint(&j, "signature_rejects", c.signature_rejects);
		cli_json_uint(&j, "remote_errors", c.remote_errors);
		cli_json_end_object(&j);
		cli_remote_counters_json(&j, "remote", &rcnt);
		if (st.remote_url[0])
			cli_json_str(&j, "remote_url", st.remote_url);
		else
			cli_json_null(&j, "remote_url");
		cli_json_object(&j, "limits");
		if (st.max_bytes)
			cli_json_uint(&j, "max_size", st.max_bytes);
		else
			cli_json_null(&j, "max_size");
		cli_json_str(&j, "note", limits_text(lim, sizeof lim, st.max_bytes));
		cli_json_end_object(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
		goto out;
	}
	printf("cache:          %s (%s on disk)\n", cli_text(st.cache_path),
	       cli_fmt_size(a, sizeof a, cli_cache_file_bytes(st.cache_path)));
	printf("limits:         %s\n", limits_text(lim, sizeof lim, st.max_bytes));
	printf("entries:        %zu (%s of code)\n", n, cli_fmt_size(b, sizeof b, bytes));
	printf("counters since: %s\n", cli_fmt_time(d, sizeof d, c.since));
	printf("  disk hits:    %" PRIu64 "\n", c.disk_hits);
	printf("  misses:       %" PRIu64 "\n", c.misses);
	printf("  compiles:     %" PRIu64 " (%s)\n", c.compiles,
	       cli_fmt_ms(a, sizeof a, c.compile_ms));
	if (c.disk_hits + c.misses)
		printf("  hit ratio:    %.1f %%\n", 100 * ratio);
	else
		printf("  hit ratio:    - (no look-ups yet)\n");
	printf("  time saved:   %s of compiling the hits did not spend again\n",
	       cli_fmt_ms(b, sizeof b, c.saved_ms));
	printf("  evictions:    %" PRIu64 " (least recently used entries, for the size limit)\n",
	       c.evictions);
	printf("  failures:     %" PRIu64 " compile error%s, %" PRIu64 " signature reject%s, %"
	       PRIu64 " remote error%s\n", c.compile_errors, c.compile_errors == 1 ? "" : "s",
	       c.signature_rejects, c.signature_rejects == 1 ? "" : "s", c.remote_errors,
	       c.remote_errors == 1 ? "" : "s");
	remote_text(&st, &rcnt);
	groups_text("per target:", targets, nt);
	groups_text("per compiler:", compilers, nc);
out:
	free(targets);
	free(compilers);
	cli_rows_free(rows, n);
	rocjit_close(ctx);
	return rc;
}
