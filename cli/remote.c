/*
 * remote.c - `rocjit remote ping|stats` (is the fleet's Redis there, and what does it
 * hold) and `rocjit push` (put local entries there: a CI farm prewarms, then pushes).
 *
 * Owns nothing beyond those reports.  The tier is the one the library opens: --remote URL,
 * else $ROCJIT_REMOTE; its password never reaches the output (the library shows the URL
 * without it).  Uses the files below the commands, never another command's file or main.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_JSON = 1 };

static const struct cli_opt remote_opts[] = {
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

/* The context with the tier, or CLI_FAIL saying what to set. */
static int open_remote(rocjit_ctx **ctx, int need_cache, const char *cmd)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	int rc = cli_open(ctx, need_cache ? ROCJIT_OPEN_READONLY : ROCJIT_OPEN_NO_CACHE,
			  need_cache ? CLI_EXISTING : 0);

	if (rc != CLI_OK)
		return rc;
	rocjit_stats_get(&st, *ctx);
	if (st.remote_state == ROCJIT_REMOTE_NONE) {
		rocjit_close(*ctx);
		*ctx = NULL;
		return cli_fail("%s: no remote tier: set ROCJIT_REMOTE or give --remote URL "
				"(redis://host:port, unix:///path/to/redis.sock, "
				"redis-cluster://host:port,...)%s", cmd,
				(cli_global.remote && *cli_global.remote) ||
				(!cli_global.remote && rocjit_config_get("ROCJIT_REMOTE", NULL) &&
				 *rocjit_config_get("ROCJIT_REMOTE", NULL)) ?
				" (the warning above says why the one given is not used)" : "");
	}
	return CLI_OK;
}

static void info_json(struct cli_json *j, const rocjit_remote_info *in)
{
	cli_json_str(j, "url", in->url);
	cli_json_bool(j, "cluster", in->cluster);
	cli_json_bool(j, "readonly", in->readonly);
	cli_json_int(j, "servers", in->servers);
	cli_json_num(j, "latency_ms", in->latency_ms);
	cli_json_str(j, "server_version", in->server_version);
	cli_json_str(j, "maxmemory_policy", in->maxmemory_policy);
	cli_json_uint(j, "used_memory", in->used_memory);
	cli_json_uint(j, "maxmemory", in->maxmemory);
	if (in->keys_counted) {
		cli_json_uint(j, "entries", in->entries);
		cli_json_uint(j, "bytes", in->bytes);
		cli_json_uint(j, "locks", in->locks);
	}
}

/* What the tier wants of the server's eviction, said where it differs. */
static const char *policy_note(const rocjit_remote_info *in)
{
	if (!strcmp(in->maxmemory_policy, "allkeys-lru") ||
	    !strcmp(in->maxmemory_policy, "allkeys-lfu"))
		return "";
	if (!in->maxmemory)
		return " (no maxmemory: the values grow until the server's memory is full; set "
		       "maxmemory and maxmemory-policy allkeys-lru)";
	return " (the remote tier wants allkeys-lru: with this policy a full server refuses "
	       "new values)";
}

static void info_text(const rocjit_remote_info *in)
{
	char a[32], b[32];

	printf("remote:         %s%s%s\n", cli_text(in->url), in->cluster ? " (cluster)" : "",
	       in->readonly ? " (read-only)" : "");
	printf("servers:        %d answered; slowest PING %.3f ms\n", in->servers,
	       in->latency_ms);
	printf("redis:          %s, maxmemory-policy %s%s\n", cli_text(in->server_version),
	       cli_text(in->maxmemory_policy), policy_note(in));
	if (in->maxmemory)
		printf("memory:         %s used of %s\n",
		       cli_fmt_size(a, sizeof a, in->used_memory),
		       cli_fmt_size(b, sizeof b, in->maxmemory));
	else
		printf("memory:         %s used (no maxmemory)\n",
		       cli_fmt_size(a, sizeof a, in->used_memory));
	if (in->keys_counted)
		printf("entries:        %" PRIu64 " (%s), %" PRIu64 " compile lock%s held\n",
		       in->entries, cli_fmt_size(a, sizeof a, in->bytes), in->locks,
		       in->locks == 1 ? "" : "s");
}

/* `rocjit remote ping`: exit 0 when every server answers.  `rocjit remote stats`: that,
 * the tier's entries on the servers, and this cache's counters of its use. */
int cli_remote(int argc, char **argv)
{
	rocjit_remote_info in = { .version = ROCJIT_REMOTE_INFO_VERSION };
	rocjit_remote_counters c = { .version = ROCJIT_REMOTE_COUNTERS_VERSION };
	struct cli_parser p;
	const char *v, *sub = NULL;
	int id, rc = CLI_OK, json = 0, have_counters = 0, stats;
	rocjit_ctx *ctx = NULL;

	cli_parser_init(&p, "remote", argc, argv, remote_opts, 0);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: rc = -1; break;
		case CLI_ARG_ERROR: rc = CLI_USAGE; break;
		case CLI_ARG_POSITIONAL:
			if (!sub && (!strcmp(v, "ping") || !strcmp(v, "stats")))
				sub = v;
			else
				rc = cli_usage_error("remote", "unexpected argument '%s': give ping "
						     "or stats", v);
			break;
		case OPT_JSON: json = 1; break;
		}
	}
	if (rc == -1)
		return cli_help("remote");
	if (rc == CLI_OK && !sub)
		rc = cli_usage_error("remote", "give ping or stats");
	if (rc != CLI_OK)
		return rc;
	stats = !strcmp(sub, "stats");
	rc = open_remote(&ctx, 0, sub);
	if (rc != CLI_OK)
		return rc;
	id = rocjit_remote_info_get(&in, ctx, stats ? ROCJIT_REMOTE_INFO_KEYS : 0);
	if (id != 0) {
		rc = cli_fail("remote %s: %s (%s)", sub, cli_text(rocjit_last_error()),
			      rocjit_strerror(id));
		if (json) {
			struct cli_json j;
			cli_json_init(&j, stdout);
			cli_json_object(&j, NULL);
			cli_json_str(&j, "url", in.url);
			cli_json_bool(&j, "ok", 0);
			cli_json_str(&j, "error", rocjit_last_error());
			cli_json_end_object(&j);
			cli_json_finish(&j);
		}
		rocjit_close(ctx);
		return rc;
	}
	rocjit_close(ctx);
	ctx = NULL;
	if (stats) {
		/* This cache's counters, where there is a cache (none is created). */
		if (cli_open(&ctx, ROCJIT_OPEN_READONLY, CLI_EXISTING) == CLI_OK &&
		    rocjit_remote_counters_get(&c, ctx) == 0)
			have_counters = 1;
		rocjit_close(ctx);
	}
	if (json) {
		struct cli_json j;
		cli_json_init(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_bool(&j, "ok", 1);
		info_json(&j, &in);
		if (have_counters)
			cli_remote_counters_json(&j, "counters", &c);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else {
		info_text(&in);
		if (have_counters) {
			printf("this cache's use of it (since the last `rocjit stats --zero`):\n");
			cli_remote_counters_text(&c, "  ");
		}
	}
	return CLI_OK;
}

/* ---- push ----------------------------------------------------------------------------------- */

enum { OPT_FILTER = 1, OPT_PUSH_JSON = 10, OPT_DRY_RUN };

static const struct cli_opt push_opts[] = {
	CLI_FILTER_OPTS(OPT_FILTER),
	{ "json", 0, 0, OPT_PUSH_JSON },
	{ "dry-run", 'n', 0, OPT_DRY_RUN },
	{ NULL, 0, 0, 0 }
};

struct push_failures {
	struct cli_json *j;    /* --json: failures go in the "failed" array; else stderr */
	size_t n;
};

static void push_failed(const char *key, const char *reason, void *user)
{
	struct push_failures *f = user;

	f->n++;
	if (f->j) {
		cli_json_object(f->j, NULL);
		cli_json_str(f->j, "key", key);
		cli_json_str(f->j, "reason", reason);
		cli_json_end_object(f->j);
	} else {
		cli_warn("push: %s: %s", key, cli_text(reason));
	}
}

/* Pushes in batches, so that progress shows on a terminal. */
#define PUSH_BATCH 32

int cli_push(int argc, char **argv)
{
	struct cli_filter f;
	struct cli_parser p;
	struct cli_row *rows = NULL;
	struct cli_progress pr;
	struct push_failures fails = { NULL, 0 };
	struct cli_json j;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const char *v;
	size_t n = 0, todo, pushed = 0, present = 0, failed = 0;
	int id, rc = CLI_OK, json = 0, dry = 0;
	rocjit_ctx *ctx = NULL;
	double t0 = cli_now_ms();

	cli_filter_init(&f);
	cli_parser_init(&p, "push", argc, argv, push_opts, 0);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: rc = -1; break;
		case CLI_ARG_ERROR: rc = CLI_USAGE; break;
		case CLI_ARG_POSITIONAL:
			rc = cli_usage_error("push", "unexpected argument '%s'", v);
			break;
		case OPT_PUSH_JSON: json = 1; break;
		case OPT_DRY_RUN: dry = 1; break;
		default: rc = cli_filter_option(&f, "push", id - OPT_FILTER, v);
		}
	}
	if (rc == -1) {
		cli_filter_free(&f);
		return cli_help("push");
	}
	if (rc == CLI_OK)
		rc = open_remote(&ctx, 1, "push");
	if (rc == CLI_MISSING) {
		cli_no_cache_note();
		rc = CLI_OK;
		goto out;
	}
	if (rc == CLI_OK)
		rc = cli_rows_load(ctx, &f, &rows, &n);
	if (rc != CLI_OK)
		goto out;
	rocjit_stats_get(&st, ctx);
	if (json) {
		cli_json_init(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_str(&j, "url", st.remote_url);
		cli_json_bool(&j, "dry_run", dry);
		cli_json_uint(&j, "selected", n);
		cli_json_array(&j, "failed");
		fails.j = &j;
	}
	todo = dry ? 0 : n;
	if (dry && !json)
		printf("push: %zu entr%s would be pushed to %s\n", n, n == 1 ? "y" : "ies",
		       cli_text(st.remote_url));
	cli_progress_start(&pr, !json && todo > PUSH_BATCH, todo);
	for (size_t i = 0; i < todo; i += PUSH_BATCH) {
		const char *keys[PUSH_BATCH];
		size_t k = 0, a = 0, b = 0, c = 0;
		for (; k < PUSH_BATCH && i + k < todo; k++)
			keys[k] = rows[i + k].key;
		cli_progress_started(&pr, rows[i].source_name);
		id = rocjit_remote_push(ctx, keys, k, &a, &b, &c, push_failed, &fails);
		pushed += a, present += b, failed += c;
		cli_progress_finished(&pr, rows[i].source_name, c ? "FAILED" : "pushed",
				      cli_now_ms() - t0);
		if (id != 0 && id != ROCJIT_EIO) {
			rc = cli_fail("push: %s (%s)", cli_text(rocjit_last_error()),
				      rocjit_strerror(id));
			break;
		}
		if (id == ROCJIT_EIO && !c) {
			/* Nothing could be tried (no cache): said once, stops. */
			rc = cli_fail("push: %s", cli_text(rocjit_last_error()));
			break;
		}
	}
	cli_progress_end(&pr);
	if (failed && rc == CLI_OK)
		rc = CLI_FAIL;
	if (json) {
		cli_json_end_array(&j);
		cli_json_uint(&j, "pushed", pushed);
		cli_json_uint(&j, "present", present);
		cli_json_uint(&j, "failed_count", failed);
		cli_json_num(&j, "ms", cli_now_ms() - t0);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else if (!dry && (failed || !cli_global.quiet)) {
		printf("push: %zu pushed, %zu already there, %zu failed, to %s\n", pushed, present,
		       failed, cli_text(st.remote_url));
		if (failed)
			cli_warn("push: %zu entr%s could not be pushed (above, why); the rest were",
				 failed, failed == 1 ? "y" : "ies");
	}
out:
	cli_rows_free(rows, n);
	cli_filter_free(&f);
	rocjit_close(ctx);
	return rc;
}
