/*
 * remote_nodes.c - a fleet's nodes for the tests (remote_nodes.h): contexts on their own
 * cache folders, node processes and their reports, values read and planted with rocjit's
 * own client.
 */
#include "remote_nodes.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote/client.h"
#include "remote/conn.h"
#include "remote/record.h"
#include "remote/url.h"

void rj_node_url(char *url, size_t size, const struct rj_redis_server *s, const char *query)
{
	snprintf(url, size, "redis://127.0.0.1:%d%s%s", s->port, query ? "?" : "",
		 query ? query : "");
}

rocjit_ctx *rj_node_open_with(const char *name, const char *url, const rocjit_options *o)
{
	rocjit_options opts = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;
	char dir[4400];

	if (o)
		opts = *o;
	snprintf(dir, sizeof dir, "%s/%s", rj_test_dir, name);
	opts.cache_dir = dir;
	opts.remote = url;
	ASSERT_INT(rocjit_open(&ctx, &opts), 0);
	return ctx;
}

rocjit_ctx *rj_node_open(const char *name, const char *url)
{
	return rj_node_open_with(name, url, NULL);
}

void rj_node_start_server(struct rj_redis_server *server, char *url, size_t size)
{
	if (!rj_conn_available())
		rj_test_skip("this rocjit was built without hiredis (libhiredis-dev): no remote "
			     "tier to test");
	rj_redis_start(server, "redis", NULL);
	rj_node_url(url, size, server, NULL);
}

void rj_node_keygen(const char *name, char secret[4400], char pub[256])
{
	ASSERT_INT(rocjit_keygen(name, rj_test_dir, pub, 256), 0);
	snprintf(secret, 4400, "%s/%s.secret", rj_test_dir, name);
}

void *rj_node_signed_value(const char *url, const char *hex, const char *signer,
			   struct rj_record *rec, size_t *size)
{
	char key[128];
	void *v;

	rj_node_value_key(key, sizeof key, hex);
	v = rj_node_fetch(url, key, size);
	ASSERT(v != NULL);
	ASSERT_INT(rj_record_decode(rec, v, *size), 0);
	ASSERT_INT(rec->sig_len, 64);
	ASSERT_INT(rec->signer_len, strlen(signer));
	ASSERT(memcmp(rec->signer, signer, rec->signer_len) == 0);
	return v;
}

rocjit_ctx *rj_node_open_signing(const char *name, const char *url, const char *key,
				 const char *trusted, int require, unsigned flags,
				 const char *bundles)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;

	o.signing_key = key ? key : "";
	o.trusted_keys = trusted ? trusted : "";
	o.require_signed = require;
	o.flags = flags;
	o.bundles = bundles;
	return rj_node_open_with(name, url ? url : "", &o);
}

void rj_node_value_key(char *out, size_t size, const char *key)
{
	snprintf(out, size, "rocjit:%d:%s", RJ_RECORD_VERSION, key);
}

/* One command of argc words (lengths len) about key on the server of url: its reply. */
static struct rj_reply *command(const char *url, const char *key, int argc, const char **argv,
				const size_t *len)
{
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;

	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 1000), 0);
	ASSERT_INT(rj_redis_command(r, key, argc, argv, len, &reply), 0);
	rj_redis_close(r);
	return reply;
}

void rj_node_plant(const char *url, const char *key, const void *bytes, size_t size)
{
	const char *argv[3] = { "SET", key, bytes };
	size_t len[3] = { 3, strlen(key), size };
	struct rj_reply *reply = command(url, key, 3, argv, len);

	ASSERT(reply->type == RJ_REPLY_STATUS);
	rj_reply_free(reply);
}

void *rj_node_fetch(const char *url, const char *key, size_t *size)
{
	const char *argv[2] = { "GET", key };
	size_t len[2] = { 3, strlen(key) };
	struct rj_reply *reply = command(url, key, 2, argv, len);
	char *out = NULL;

	if (reply->type == RJ_REPLY_STRING) {
		out = malloc(reply->len + 1);
		ASSERT(out != NULL);
		memcpy(out, reply->str, reply->len);
		out[reply->len] = 0;
		*size = reply->len;
	}
	rj_reply_free(reply);
	return out;
}

void rj_node_plant_swapped(const char *url, const char *key, const void *value, size_t size,
			   const void *code, size_t code_size)
{
	struct rj_record rec;
	void *re;
	size_t resize;

	ASSERT_INT(rj_record_decode(&rec, value, size), 0);
	rec.code = code;
	rec.code_size = code_size;
	ASSERT_INT(rj_record_encode(&re, &resize, &rec), 0);
	rj_node_plant(url, key, re, resize);
	free(re);
}

int rj_node_process(int (*fn)(int), int arg, const char *name, char **err)
{
	char path[4400];
	pid_t pid;
	int status = -1;

	snprintf(path, sizeof path, "%s/%s.err", rj_test_dir, name);
	fflush(NULL); /* nothing buffered here is written twice by the child */
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		_exit(fn(arg));
	}
	ASSERT(waitpid(pid, &status, 0) == pid);
	*err = rj_test_read_file(path, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void report_path(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s.report", rj_test_dir, name);
}

int rj_node_report_write(const char *name, int rc, const rocjit_code *c, rocjit_ctx *ctx)
{
	struct rj_node_report r;
	char path[4400];
	int fd, bad;

	memset(&r, 0, sizeof r);
	r.rc = rc;
	if (rc == 0 && c) {
		r.from_cache = c->from_cache;
		snprintf(r.key, sizeof r.key, "%s", c->key);
	} else {
		snprintf(r.error, sizeof r.error, "%s", rocjit_last_error());
	}
	r.stats.version = ROCJIT_STATS_VERSION;
	if (rocjit_stats_get(&r.stats, ctx) != 0)
		return 2;
	/* The child and the test are the same program: the struct's bytes are its report. */
	report_path(path, sizeof path, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 3;
	bad = write(fd, &r, sizeof r) != (ssize_t)sizeof r;
	return close(fd) != 0 || bad ? 4 : 0;
}

struct rj_node_report rj_node_report_read(const char *name)
{
	struct rj_node_report r;
	char path[4400], *bytes;
	size_t size = 0;

	report_path(path, sizeof path, name);
	bytes = rj_test_read_file(path, &size);
	ASSERT_INT(size, sizeof r);
	memcpy(&r, bytes, sizeof r);
	free(bytes);
	return r;
}
