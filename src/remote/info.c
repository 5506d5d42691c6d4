/*
 * info.c - what the servers of a remote tier say about themselves (rocjit remote
 * ping|stats): round trip, version, memory, eviction policy, and a SCAN of the tier's
 * keys.  An administrative walk, never on the request path; uses tier.c and client.c.
 *
 * Bounded in time as a whole, not only per command: a server that answers each command
 * in time can still keep a walk going for ever (a SCAN cursor that never comes back to
 * 0, a key count in the millions answered slowly).  The whole walk gets INFO_TIMEOUTS of
 * the URL's timeout; each command gets what is left of it, at most the timeout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "remote/remote_internal.h"

/* The whole walk's bound, in the URL's timeouts (20 s at the default 1 s). */
#define INFO_TIMEOUTS 20

struct info_walk {
	struct rj_remote *t;
	struct rj_remote_server_info *out;
	int with_keys, first;
	double deadline;        /* rj_now_ms() by which the walk ends */
};

/* The walk's bound passed: the message says so, not only which command it cut short. */
static int walk_over(const struct info_walk *w, const char *where)
{
	RJ_FAIL(-RJ_CONN_TIMEOUT, "%s: the servers did not answer everything within %d ms (%d "
		"times the URL's timeout=%d): stopped there", where,
		w->t->url.timeout_ms * INFO_TIMEOUTS, INFO_TIMEOUTS, w->t->url.timeout_ms);
}

/* One command of the walk, with the URL's timeout cut to what is left of the walk's. */
static int walk_call(const struct info_walk *w, struct rj_conn *c, const char *where, int argc,
		     const char *const *argv, const size_t *argvlen, struct rj_reply **reply)
{
	double left = w->deadline - rj_now_ms();
	int rc;

	*reply = NULL;
	if (left < 1)
		return walk_over(w, where);
	rc = rj_conn_call(c, argc, argv, argvlen, reply,
			  left < w->t->url.timeout_ms ? (int)left : w->t->url.timeout_ms);
	if (rc == -RJ_CONN_TIMEOUT && w->deadline - rj_now_ms() < 1)
		return walk_over(w, where);
	return rc;
}

/* The value of field in an INFO reply ("maxmemory_policy:allkeys-lru\r\n"), or "". */
static void info_field(const struct rj_reply *r, const char *field, char *out, size_t size)
{
	size_t fl = strlen(field);
	const char *p = r->str, *end = r->str + r->len;

	out[0] = 0;
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((eol ? eol : end) - p);
		if (n > fl && memcmp(p, field, fl) == 0 && p[fl] == ':') {
			size_t vl = n - fl - 1;
			if (vl && p[fl + 1 + vl - 1] == '\r')
				vl--;
			if (vl >= size)
				vl = size - 1;
			memcpy(out, p + fl + 1, vl);
			out[vl] = 0;
			return;
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* SCANs this tier's keys on one server, adding their count and sizes. */
static int count_keys(struct rj_conn *c, const char *where, struct info_walk *w)
{
	char cursor[32] = "0", match[96];
	int rounds = 0;

	snprintf(match, sizeof match, "%s:%d:*", w->t->url.prefix, RJ_RECORD_VERSION);
	do {
		const char *scan[6] = { "SCAN", cursor, "MATCH", match, "COUNT", "1000" };
		size_t scan_len[6];
		struct rj_reply *r = NULL, *keys;
		int rc;
		for (int i = 0; i < 6; i++)
			scan_len[i] = strlen(scan[i]);
		RJ_FORWARD(walk_call(w, c, where, 6, scan, scan_len, &r));
		if (r->type != RJ_REPLY_ARRAY || r->n != 2 || r->elem[0].type != RJ_REPLY_STRING ||
		    r->elem[1].type != RJ_REPLY_ARRAY || r->elem[0].len >= sizeof cursor) {
			rj_reply_free(r);
			RJ_FAIL(ROCJIT_EIO, "%s: SCAN answered something else than a cursor and keys",
				where);
		}
		memcpy(cursor, r->elem[0].str, r->elem[0].len);
		cursor[r->elem[0].len] = 0;
		keys = &r->elem[1];
		for (size_t i = 0; i < keys->n; i++) {
			const struct rj_reply *k = &keys->elem[i];
			const char *strlen_cmd[2] = { "STRLEN", k->str };
			size_t strlen_len[2] = { 6, k->len };
			struct rj_reply *len = NULL;
			if (k->len >= 5 && memcmp(k->str + k->len - 5, ":lock", 5) == 0) {
				w->out->locks++;
				continue;
			}
			if ((rc = walk_call(w, c, where, 2, strlen_cmd, strlen_len, &len)) < 0) {
				rj_reply_free(r);
				return rc;
			}
			if (len->type == RJ_REPLY_INTEGER) {
				w->out->entries++;
				w->out->bytes += (uint64_t)len->integer;
			}
			rj_reply_free(len);
		}
		rj_reply_free(r);
	} while (strcmp(cursor, "0") != 0 && ++rounds < 1000000);
	return 0;
}

static int info_one(struct rj_conn *c, const char *where, void *user)
{
	struct info_walk *w = user;
	static const char *const ping[] = { "PING" };
	static const size_t ping_len[] = { 4 };
	const char *info[2] = { "INFO", "all" };
	size_t info_len[2] = { 4, 3 };
	struct rj_reply *r = NULL;
	char value[64];
	double t0 = rj_now_ms(), ms;

	RJ_FORWARD(walk_call(w, c, where, 1, ping, ping_len, &r));
	ms = rj_now_ms() - t0;
	rj_reply_free(r);
	if (ms > w->out->latency_ms)
		w->out->latency_ms = ms;
	RJ_FORWARD(walk_call(w, c, where, 2, info, info_len, &r));
	if (r->type == RJ_REPLY_STRING) {
		if (w->first) {
			info_field(r, "redis_version", w->out->version, sizeof w->out->version);
			info_field(r, "maxmemory_policy", w->out->policy, sizeof w->out->policy);
		}
		info_field(r, "used_memory", value, sizeof value);
		w->out->used_memory += strtoull(value, NULL, 10);
		info_field(r, "maxmemory", value, sizeof value);
		w->out->maxmemory += strtoull(value, NULL, 10);
	}
	rj_reply_free(r);
	w->first = 0;
	if (w->with_keys)
		RJ_FORWARD(count_keys(c, where, w));
	return 0;
}

int rj_remote_server_info(struct rj_remote *t, int with_keys, struct rj_remote_server_info *out)
{
	struct info_walk w = { t, out, with_keys, 1,
			       rj_now_ms() + (double)t->url.timeout_ms * INFO_TIMEOUTS };
	int rc;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&t->mu);
	/* The caller reports a failure itself; the breaker is not consulted either: an
	   operator asking is told how the servers are now. */
	rj_redis_set_quiet(t->client, 1);
	rj_redis_reset_breaker(t->client);
	rc = rj_redis_each_server(t->client, info_one, &w);
	rj_redis_set_quiet(t->client, 0);
	out->servers = rj_redis_servers(t->client);
	pthread_mutex_unlock(&t->mu);
	out->keys_counted = with_keys && rc == 0;
	if (rc < 0)
		return rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "%s", rocjit_last_error());
	return 0;
}
