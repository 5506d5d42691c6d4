/*
 * test_remote_cli.c - the rocjit tool's remote commands, run as real processes against a
 * real redis-server: `remote ping|stats`, `push`, `prewarm --push`, the remote part of
 * `stats`, their --json (parsed by python3), their failures, and the password, which no
 * output of any of them may hold.
 */
#include <unistd.h>

#include "harness.h"
#include "redis_server.h"
#include "remote/conn.h"

#define PASSWORD "cli-s3cr3t-pw"
#define MAX_ARGS 32

/* A build without hiredis has no remote tier: every test here skips, saying so. */
__attribute__((constructor)) static void need_the_tier(void)
{
	if (!rj_conn_available()) {
		printf("SKIP: this rocjit was built without hiredis (libhiredis-dev): no remote "
		       "tier to test\n");
		exit(77);
	}
}

static struct rj_redis_server server;
static char url[4400];

/* Runs `rocjit --cache <test cache> --remote <remote> args...` (remote NULL: no
 * --remote; a URL with credentials goes in ROCJIT_REMOTE instead, since the command line
 * refuses a password: cli_password_on_the_command_line_is_refused); its output (stdout and
 * stderr) in *out; the exit status.  No output ever holds the password. */
static int rocjit(const char *remote, char **out, const char *const *args)
{
	const char *argv[MAX_ARGS];
	char env_url[4500];
	const char *env[2] = { NULL, NULL };
	char *output = NULL;
	int n = 0, rc, first;

	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = rj_test_cache_dir;
	if (remote && strchr(remote, '@')) {
		snprintf(env_url, sizeof env_url, "ROCJIT_REMOTE=%s", remote);
		env[0] = env_url;
	} else if (remote) {
		argv[n++] = "--remote";
		argv[n++] = remote;
	}
	first = n;
	for (; *args && n < MAX_ARGS - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	rc = rj_test_run(argv, env, &output);
	printf("$ rocjit %s ...\n%s", argv[first], output ? output : "");
	ASSERT(output == NULL || strstr(output, PASSWORD) == NULL);
	if (out)
		*out = output;
	else
		free(output);
	return rc;
}

/* Whether text is one JSON document (python3's json module). */
static int is_json(const char *text)
{
	char path[4400];
	const char *argv[] = { "/usr/bin/python3", "-c",
			       "import json,sys; json.load(open(sys.argv[1]))", path, NULL };
	static const char *const env[] = { NULL };

	if (access("/usr/bin/python3", X_OK) != 0)
		return 1; /* no checker here: the other checks still hold */
	snprintf(path, sizeof path, "%s/doc.json", rj_test_dir);
	rj_test_write_file(path, text, strlen(text));
	return rj_test_run(argv, env, NULL) == 0;
}

/* Fills the test cache with n entries (variants of axpy for gfx90a), no remote tier. */
static void fill_cache(int n)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;

	o.cache_dir = rj_test_cache_dir;
	o.remote = "";
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	for (int i = 0; i < n; i++)
		rj_test_compile_variant(ctx, "gfx90a", "RJ_CLI_REMOTE", i);
	rocjit_close(ctx);
}

static void start(const char *const *extra, const char *userinfo)
{
	rj_redis_start(&server, "redis", extra);
	snprintf(url, sizeof url, "redis://%s127.0.0.1:%d", userinfo ? userinfo : "",
		 server.port);
}

TEST(ping_answers_and_says_what_the_server_is)
{
	static const char *const extra[] = { "--requirepass", PASSWORD, NULL };
	static const char *const ping[] = { "remote", "ping", NULL };
	static const char *const ping_json[] = { "remote", "ping", "--json", NULL };
	char *out;

	start(extra, ":" PASSWORD "@");
	ASSERT_INT(rocjit(url, &out, ping), 0);
	ASSERT_CONTAINS(out, "1 answered");
	ASSERT_CONTAINS(out, "7.");               /* the server's version */
	ASSERT_CONTAINS(out, "redis://:***@127.0.0.1");
	ASSERT_CONTAINS(out, "allkeys-lru");      /* the policy it wants, said */
	free(out);
	ASSERT_INT(rocjit(url, &out, ping_json), 0);
	ASSERT(is_json(out));
	ASSERT_CONTAINS(out, "\"ok\": true");
	free(out);
	/* A wrong password: exit 1, said, the password not shown. */
	snprintf(url, sizeof url, "redis://:wrong-" PASSWORD "@127.0.0.1:%d", server.port);
	ASSERT_INT(rocjit(url, &out, ping), 1);
	ASSERT_CONTAINS(out, "refused the credentials");
	free(out);
	ASSERT_INT(rocjit(url, &out, ping_json), 1);
	ASSERT(is_json(strchr(out, '{')));
	ASSERT_CONTAINS(out, "\"ok\": false");
	free(out);
	rj_redis_stop(&server);
}

TEST(ping_of_a_dead_server_or_none_fails_saying_what_to_do)
{
	static const char *const ping[] = { "remote", "ping", NULL };
	static const char *const bad_url[] = { "remote", "ping", NULL };
	char *out;

	ASSERT_INT(rocjit("redis://127.0.0.1:1", &out, ping), 1);
	ASSERT_CONTAINS(out, "connecting to 127.0.0.1:1");
	ASSERT(strstr(out, "warning") == NULL); /* said once, as the failure */
	free(out);
	ASSERT_INT(rocjit("", &out, ping), 1);
	ASSERT_CONTAINS(out, "set ROCJIT_REMOTE or give --remote URL");
	free(out);
	ASSERT_INT(rocjit("redis://u:" PASSWORD "@host:0", &out, bad_url), 1);
	ASSERT_CONTAINS(out, "redis://u:***@host:0");
	free(out);
	{
		static const char *const wrong[] = { "remote", "pong", NULL };
		ASSERT_INT(rocjit("redis://127.0.0.1:1", NULL, wrong), 2);
	}
}

TEST(push_puts_every_entry_once_and_stats_counts_them)
{
	static const char *const push[] = { "push", NULL };
	static const char *const push_json[] = { "push", "--json", NULL };
	static const char *const dry[] = { "push", "--dry-run", NULL };
	static const char *const rstats[] = { "remote", "stats", "--json", NULL };
	char *out;

	start(NULL, NULL);
	fill_cache(3);
	ASSERT_INT(rocjit(url, &out, dry), 0);
	ASSERT_CONTAINS(out, "3 entries would be pushed");
	free(out);
	ASSERT_INT(rocjit(url, &out, push), 0);
	ASSERT_CONTAINS(out, "3 pushed, 0 already there, 0 failed");
	free(out);
	ASSERT_INT(rocjit(url, &out, push_json), 0);
	ASSERT(is_json(out));
	ASSERT_CONTAINS(out, "\"pushed\": 0");
	ASSERT_CONTAINS(out, "\"present\": 3");
	free(out);
	ASSERT_INT(rocjit(url, &out, rstats), 0);
	ASSERT(is_json(out));
	ASSERT_CONTAINS(out, "\"entries\": 3");
	ASSERT_CONTAINS(out, "\"locks\": 0");
	free(out);
	/* A read-only tier pushes nothing, and says why. */
	{
		char ro[4500];
		snprintf(ro, sizeof ro, "%s?readonly", url);
		ASSERT_INT(rocjit(ro, &out, push), 1);
		ASSERT_CONTAINS(out, "read-only");
		free(out);
	}
	rj_redis_stop(&server);
}

TEST(prewarm_push_puts_cached_and_compiled_entries)
{
	char kernels[4400], *out;
	const char *args[] = { "prewarm", "--arch", "gfx90a", "--no-progress", "--push",
			       kernels, NULL };
	const char *json[] = { "prewarm", "--arch", "gfx90a", "--no-progress", "--push",
			       "--json", kernels, NULL };
	static const char *const stats[] = { "stats", "--json", NULL };

	snprintf(kernels, sizeof kernels, "%s/axpy.hip", ROCJIT_TEST_KERNELS);
	/* Without a tier, --push is a usage error. */
	ASSERT_INT(rocjit("", &out, args), 2);
	ASSERT_CONTAINS(out, "none is configured");
	free(out);
	start(NULL, NULL);
	ASSERT_INT(rocjit(url, &out, args), 0);
	ASSERT_CONTAINS(out, "push: 0 pushed, 1 already there, 0 failed"); /* put at compile */
	free(out);
	ASSERT_INT(rocjit(url, &out, json), 0);
	ASSERT(is_json(out));
	ASSERT_CONTAINS(out, "\"present\": 1");
	free(out);
	/* A new cache gets it from the server; stats shows the remote hit. */
	{
		char other[4400];
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", other, "--remote", url,
				       "compile", kernels, "--arch", "gfx90a", NULL };
		static const char *const env[] = { NULL };
		snprintf(other, sizeof other, "%s/other", rj_test_dir);
		ASSERT_INT(rj_test_run(argv, env, &out), 0);
		ASSERT_CONTAINS(out, "served from the cache");
		free(out);
		argv[5] = "stats", argv[6] = "--json", argv[7] = NULL;
		ASSERT_INT(rj_test_run(argv, env, &out), 0);
		ASSERT(is_json(out));
		ASSERT_CONTAINS(out, "\"remote\"");
		ASSERT_CONTAINS(out, "\"hits\": 1");
		free(out);
	}
	ASSERT_INT(rocjit(url, &out, stats), 0);
	ASSERT(is_json(out));
	free(out);
	rj_redis_stop(&server);
}
