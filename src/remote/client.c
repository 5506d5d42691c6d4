/*
 * client.c - the Redis deployment a remote URL names, behind one call.
 *
 * Owns: the connections to its servers (one each, made at the first command that needs
 * it, credentials and database sent in the same round trip as that command), the slot
 * map of a Redis Cluster (CLUSTER SLOTS, read from any reachable seed or known node;
 * MOVED updates a slot and asks for a new map before the next command, ASK sends the one
 * command to the importing node after ASKING), and which failures open the breaker
 * (breaker.c): those the request path cannot do better against by retrying (no answer,
 * refused credentials, a server loading or a cluster down).
 *
 * Must not know what is stored (remote.c) nor speak to a socket itself (conn.c).  Not
 * thread-safe: the tier that owns a client locks around every call.
 */
#include "remote/client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/trust.h"
#include "remote/breaker.h"

_Static_assert(RJ_REDIS_OFF == RJ_BREAKER_OFF, "one code for an open breaker");

#define MAX_NODES 64
#define MAX_REDIRECTS 5
#define SLOTS 16384

struct node {
	char *host;              /* malloc'ed; "" for the unix socket of a unix:// URL */
	int port;
	struct rj_conn *conn;    /* NULL: not connected */
};

struct rj_redis {
	struct rj_remote_url url;
	char shown[600];         /* the URL without its password */
	char password_file[4096];
	int password_read;
	struct node nodes[MAX_NODES];
	int nnodes;
	/* Cluster: slot -> index + 1 into nodes (0: unknown), allocated with the first map
	   (a standalone client, the common case, is small: rocjit_open makes one); masters
	   in the map. */
	uint8_t *slot_node;
	int have_map, refresh_map, masters;
	double deadline;         /* rj_now_ms() by which the command under way ends (0: none) */
	struct rj_breaker breaker;
};

/* A command, whatever it meets on the way (redirections, a slot map read again from
 * several nodes, TRYAGAIN), costs at most this many of the URL's connect_timeout plus
 * timeout: every step gets what is left of it, at most its own timeout. */
#define COMMAND_BOUND 2

/* ---- CRC16 (XMODEM: polynomial 0x1021, initial 0), Redis Cluster's key hash ------------ */

static unsigned crc16(const unsigned char *p, size_t n)
{
	unsigned crc = 0;

	while (n--) {
		crc ^= (unsigned)*p++ << 8;
		for (int i = 0; i < 8; i++)
			crc = (crc & 0x8000) ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
	}
	return crc;
}

unsigned rj_redis_key_slot(const char *key, size_t len)
{
	const char *open = memchr(key, '{', len), *close;

	/* A hash tag: the bytes between the first '{' and the next '}', when not empty. */
	if (open) {
		close = memchr(open + 1, '}', len - (size_t)(open + 1 - key));
		if (close && close > open + 1)
			return crc16((const unsigned char *)open + 1, (size_t)(close - open - 1)) % SLOTS;
	}
	return crc16((const unsigned char *)key, len) % SLOTS;
}

/* ---- Opening, closing ----------------------------------------------------------------- */

int rj_redis_open(struct rj_redis **out, const struct rj_remote_url *u, const char *password_file,
		  int retry_ms)
{
	struct rj_redis *r = calloc(1, sizeof *r);

	*out = NULL;
	RJ_CHECK(!r, ROCJIT_ENOMEM, "out of memory opening the remote cache");
	r->url = *u; /* shown is made at its first use (rocjit_open's path has no printf) */
	if (password_file && !u->password[0])
		snprintf(r->password_file, sizeof r->password_file, "%s", password_file);
	rj_breaker_init(&r->breaker, retry_ms);
	if (u->kind != RJ_REMOTE_CLUSTER) {
		r->nodes[0].host = strdup(u->kind == RJ_REMOTE_TCP ? u->hosts[0].name : "");
		r->nodes[0].port = u->kind == RJ_REMOTE_TCP ? u->hosts[0].port : 0;
		r->nnodes = 1;
		if (!r->nodes[0].host) {
			explicit_bzero(r->url.password, sizeof r->url.password);
			free(r);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory opening the remote cache");
		}
	}
	r->masters = 1;
	*out = r;
	return 0;
}

void rj_redis_drop(struct rj_redis *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nnodes; i++) {
		rj_conn_close(r->nodes[i].conn);
		r->nodes[i].conn = NULL;
	}
	if (r->url.kind == RJ_REMOTE_CLUSTER)
		r->refresh_map = 1;
}

void rj_redis_close(struct rj_redis *r)
{
	if (!r)
		return;
	rj_redis_drop(r);
	rj_breaker_close(&r->breaker);
	for (int i = 0; i < r->nnodes; i++)
		free(r->nodes[i].host);
	free(r->slot_node);
	/* The password lives in this block: leave nothing behind in freed memory. */
	explicit_bzero(r->url.password, sizeof r->url.password);
	free(r);
}

int rj_redis_servers(const struct rj_redis *r)
{
	return r->masters;
}

/* The URL without its password, for messages. */
static const char *shown(struct rj_redis *r)
{
	if (!r->shown[0])
		rj_remote_url_show(&r->url, r->shown, sizeof r->shown);
	return r->shown;
}

/* ---- The breaker (breaker.c) ------------------------------------------------------------ */

void rj_redis_share_breaker(struct rj_redis *r, int dirfd)
{
	rj_breaker_share(&r->breaker, dirfd);
}

void rj_redis_trip(struct rj_redis *r, const char *why)
{
	rj_breaker_trip(&r->breaker, shown(r), why);
}

void rj_redis_set_quiet(struct rj_redis *r, int quiet)
{
	r->breaker.quiet = quiet;
}

void rj_redis_reset_breaker(struct rj_redis *r)
{
	r->breaker.off_why[0] = 0;
}

int rj_redis_is_off(struct rj_redis *r)
{
	return r->breaker.off_why[0] && rj_now_ms() < r->breaker.off_until;
}

const char *rj_redis_off_reason(const struct rj_redis *r)
{
	return r->breaker.off_why;
}

/* Records a failure as the thread's error, trips the breaker with it, returns code.  A
 * breaker found open (-RJ_REDIS_OFF: by another process of the node) is no new failure. */
static int fail(struct rj_redis *r, int code)
{
	if (code == -RJ_REDIS_OFF)
		return code;
	char why[768];

	snprintf(why, sizeof why, "%s", rocjit_last_error());
	rj_redis_trip(r, why);
	return rj_error_set(code, __FILE__, __LINE__, "remote cache %s: %s", shown(r), why);
}

/* ---- Connections ------------------------------------------------------------------------ */

static void node_where(const struct rj_redis *r, const struct node *n, char *out, size_t size)
{
	if (r->url.kind == RJ_REMOTE_UNIX)
		snprintf(out, size, "%s", r->url.path);
	else if (strchr(n->host, ':'))
		snprintf(out, size, "[%s]:%d", n->host, n->port);
	else
		snprintf(out, size, "%s:%d", n->host, n->port);
}

/* read_password's refusals, with its buffer cleared first. */
static int refuse_password(char *buf, size_t size, const char *file, const char *why)
{
	explicit_bzero(buf, size);
	RJ_FAIL(ROCJIT_EINVAL, "the password file %s (ROCJIT_REMOTE_PASSWORD_FILE) %s", file,
		why);
}

/*
 * The password: the URL's, else the first line of the password file (read once).  The
 * file is a secret that decides where code comes from, so it falls under the trust rule
 * (base/trust.h, RJ_TRUST_SECRET): a regular file, opened without blocking (a FIFO would
 * hold the tier's lock, and every thread of the application behind it, until someone
 * writes to it), owned by this user or root, readable and writable by nobody else.
 */
static int read_password(struct rj_redis *r)
{
	char buf[sizeof r->url.password + 2];
	ssize_t n;
	int fd;

	if (r->password_read || !r->password_file[0])
		return 0;
	fd = rj_trust_open(r->password_file, "the password file (ROCJIT_REMOTE_PASSWORD_FILE)",
			   RJ_TRUST_SECRET, NULL);
	if (fd < 0) {
		char why[1024];
		snprintf(why, sizeof why, "%s", rocjit_last_error());
		/* The rule's refusals say what to do; one that cannot open it, not yet. */
		RJ_FAIL(fd, "%s%s", why, strstr(why, "cannot open it") ? "; give a regular "
			"file of yours that only you can read (chmod 600)" : "");
	}
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	RJ_CHECK(n < 0, ROCJIT_EIO, "cannot read the password file %s: %s", r->password_file,
		 strerror(errno));
	buf[n] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	if (!buf[0] || strlen(buf) >= sizeof r->url.password)
		return refuse_password(buf, sizeof buf, r->password_file,
				       buf[0] ? "holds a password longer than 511 bytes" : "is empty");
	memcpy(r->url.password, buf, strlen(buf) + 1);
	explicit_bzero(buf, sizeof buf);
	r->password_read = 1;
	return 0;
}

/* Is this error reply the server refusing or wanting credentials? */
static int is_auth_error(const struct rj_reply *e)
{
	return rj_reply_is(e, RJ_REPLY_ERROR, "NOAUTH") ||
	       rj_reply_is(e, RJ_REPLY_ERROR, "WRONGPASS") ||
	       (e->type == RJ_REPLY_ERROR && e->len >= 4 && memcmp(e->str, "ERR ", 4) == 0 &&
		(memmem(e->str, e->len, "password", 8) || memmem(e->str, e->len, "AUTH", 4)));
}

/* ms, cut to what is left of the command's bound; 0 when nothing is left (the caller
 * fails with rj_redis_over). */
static int within(const struct rj_redis *r, int ms)
{
	double left;

	if (!r->deadline)
		return ms;
	left = r->deadline - rj_now_ms();
	return left < 1 ? 0 : left < ms ? (int)left : ms;
}

static int over(const struct rj_redis *r, const char *where)
{
	RJ_FAIL(-RJ_CONN_TIMEOUT, "%s: the command did not finish within %d ms (%d times "
		"connect_timeout=%d plus timeout=%d), redirections and slot maps included",
		where, COMMAND_BOUND * (r->url.connect_ms + r->url.timeout_ms), COMMAND_BOUND,
		r->url.connect_ms, r->url.timeout_ms);
}

/*
 * The most bytes a command's replies may take: a value (GETRANGE key 0 END: END + 1
 * bytes, its length line and the setup's small replies), else RJ_CONN_SMALL_REPLY, so
 * that a server cannot make this process hold a huge reply (an array of nils, say).
 */
static size_t reply_limit(int argc, const char *const *argv, const size_t *argvlen)
{
	char end[24];
	unsigned long long v;
	char *stop;

	if (argc != 4 || argvlen[0] != 8 || memcmp(argv[0], "GETRANGE", 8) != 0 ||
	    argvlen[3] == 0 || argvlen[3] >= sizeof end)
		return RJ_CONN_SMALL_REPLY;
	memcpy(end, argv[3], argvlen[3]);
	end[argvlen[3]] = 0;
	v = strtoull(end, &stop, 10);
	if (*stop || end[0] == '-' || v > ((size_t)256 << 20))
		return 0; /* the largest value conn.c takes */
	return (size_t)v + 1 + RJ_CONN_SMALL_REPLY;
}

/*
 * Sends the command to node i (after ASKING when asking), connecting first when needed:
 * a fresh connection sends AUTH and SELECT in the same round trip.  0 and *reply, or a
 * negative code with the message recorded (the connection is then dropped).
 */
static int node_call(struct rj_redis *r, int i, int asking, int argc, const char *const *argv,
		     const size_t *argvlen, struct rj_reply **reply)
{
	struct node *n = &r->nodes[i];
	const char *auth[3], *sel[2], *ask[1] = { "ASKING" };
	size_t auth_len[3], sel_len[2], ask_len[1] = { 6 };
	const char *const *argvs[4];
	const size_t *lens[4];
	int argcs[4], fresh = 0, rc;
	size_t k = 0, setup;
	struct rj_reply *replies[4];
	char where[300], dbtext[16];

	node_where(r, n, where, sizeof where);
	if (!within(r, r->url.timeout_ms))
		return over(r, where);
	if (!n->conn) {
		if (rj_breaker_shared_off(&r->breaker, shown(r)))
			return rj_breaker_check(&r->breaker, shown(r));
		RJ_FORWARD(read_password(r));
		if (!within(r, r->url.connect_ms))
			return over(r, where);
		rc = rj_conn_open(&n->conn, n->host, n->port,
				  r->url.kind == RJ_REMOTE_UNIX ? r->url.path : NULL,
				  within(r, r->url.connect_ms));
		if (rc == -RJ_CONN_TIMEOUT && !within(r, 1))
			return over(r, where);
		if (rc < 0)
			return rc;
		fresh = 1;
	}
	if (fresh && r->url.password[0]) {
		int w = 0;
		auth[w] = "AUTH", auth_len[w++] = 4;
		if (r->url.user[0])
			auth[w] = r->url.user, auth_len[w++] = strlen(r->url.user);
		auth[w] = r->url.password, auth_len[w++] = strlen(r->url.password);
		argvs[k] = auth, lens[k] = auth_len, argcs[k++] = w;
	}
	if (fresh && r->url.db) {
		snprintf(dbtext, sizeof dbtext, "%d", r->url.db);
		sel[0] = "SELECT", sel_len[0] = 6, sel[1] = dbtext, sel_len[1] = strlen(dbtext);
		argvs[k] = sel, lens[k] = sel_len, argcs[k++] = 2;
	}
	if (asking)
		argvs[k] = ask, lens[k] = ask_len, argcs[k++] = 1;
	setup = k;
	argvs[k] = argv, lens[k] = argvlen, argcs[k++] = argc;
	rj_conn_limit(n->conn, reply_limit(argc, argv, argvlen));
	if (!within(r, r->url.timeout_ms)) {
		rj_conn_close(n->conn);
		n->conn = NULL;
		return over(r, where);
	}
	rc = rj_conn_pipeline(n->conn, k, argcs, argvs, lens, replies,
			      within(r, r->url.timeout_ms));
	if (rc < 0) {
		rj_conn_close(n->conn);
		n->conn = NULL;
		return rc == -RJ_CONN_TIMEOUT && !within(r, 1) ? over(r, where) : rc;
	}
	for (size_t j = 0; j < setup; j++) {
		struct rj_reply *e = replies[j];
		if (e->type != RJ_REPLY_ERROR)
			continue;
		rc = is_auth_error(e) ? -RJ_REDIS_AUTH : -RJ_REDIS_UNAVAILABLE;
		rj_error_set(rc, __FILE__, __LINE__, "%s %s: %.*s", where,
			     rc == -RJ_REDIS_AUTH ? "refused the credentials (check the URL's "
			     "user and password, or ROCJIT_REMOTE_PASSWORD_FILE)" :
			     "refused the connection's set-up", (int)(e->len > 200 ? 200 : e->len),
			     e->str);
		break;
	}
	for (size_t j = 0; j < setup; j++)
		rj_reply_free(replies[j]);
	if (rc < 0) {
		rj_reply_free(replies[setup]);
		rj_conn_close(n->conn);
		n->conn = NULL;
		return rc;
	}
	*reply = replies[setup];
	return 0;
}

/* ---- The cluster's slot map -------------------------------------------------------------- */

/* The index of host:port in nodes, added when new; -1 when the table is full. */
static int node_index(struct rj_redis *r, const char *host, size_t hlen, int port)
{
	for (int i = 0; i < r->nnodes; i++)
		if (r->nodes[i].port == port && strlen(r->nodes[i].host) == hlen &&
		    memcmp(r->nodes[i].host, host, hlen) == 0)
			return i;
	if (r->nnodes == MAX_NODES || hlen >= 256 || !(r->nodes[r->nnodes].host = malloc(hlen + 1)))
		return -1;
	memcpy(r->nodes[r->nnodes].host, host, hlen);
	r->nodes[r->nnodes].host[hlen] = 0;
	r->nodes[r->nnodes].port = port;
	r->nodes[r->nnodes].conn = NULL;
	return r->nnodes++;
}

/* The index of host:port among the nodes known (the URL's seeds, the slot maps' masters),
 * or -1: a name is never added here. */
static int known_node(const struct rj_redis *r, const char *host, int port)
{
	for (int i = 0; i < r->nnodes; i++)
		if (r->nodes[i].port == port && !strcmp(r->nodes[i].host, host))
			return i;
	return -1;
}

/*
 * "MOVED 3999 127.0.0.1:6381" into *slot, host[size] and *port: 0, or -1 when it is not
 * one.  An empty host (Redis 7's ":6381") is the host of the node asked.
 */
static int redirect_target(const struct rj_redis *r, const struct rj_reply *e, unsigned *slot,
			   int asked, char *host, size_t size, int *port)
{
	char buf[300];
	const char *sp, *colon;
	size_t n = e->len < sizeof buf - 1 ? e->len : sizeof buf - 1;
	long p;

	memcpy(buf, e->str, n);
	buf[n] = 0;
	sp = strchr(buf, ' ');
	if (!sp)
		return -1;
	*slot = (unsigned)strtoul(sp + 1, NULL, 10) % SLOTS;
	sp = strchr(sp + 1, ' ');
	colon = sp ? strrchr(sp, ':') : NULL;
	if (!colon)
		return -1;
	p = strtol(colon + 1, NULL, 10);
	if (p <= 0 || p > 65535 || (size_t)(colon - sp - 1) >= size)
		return -1;
	*port = (int)p;
	if (colon == sp + 1)
		snprintf(host, size, "%s", r->nodes[asked].host);
	else
		snprintf(host, size, "%.*s", (int)(colon - sp - 1), sp + 1);
	return 0;
}

/* Reads CLUSTER SLOTS's reply into the map; the node asked is nodes[asked]. */
static int take_map(struct rj_redis *r, const struct rj_reply *m, int asked)
{
	uint8_t seen[MAX_NODES] = { 0 };
	size_t covered = 0;

	if (m->type != RJ_REPLY_ARRAY || m->n == 0)
		return -1;
	if (!r->slot_node && !(r->slot_node = malloc(SLOTS)))
		return -1;
	memset(r->slot_node, 0, SLOTS);
	r->masters = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct rj_reply *e = &m->elem[i], *master;
		const char *host;
		size_t hlen;
		int idx;

		if (e->type != RJ_REPLY_ARRAY || e->n < 3 || e->elem[0].type != RJ_REPLY_INTEGER ||
		    e->elem[1].type != RJ_REPLY_INTEGER || e->elem[2].type != RJ_REPLY_ARRAY)
			return -1;
		master = &e->elem[2];
		if (master->n < 2 || master->elem[0].type != RJ_REPLY_STRING ||
		    master->elem[1].type != RJ_REPLY_INTEGER)
			return -1;
		host = master->elem[0].str;
		hlen = master->elem[0].len;
		if (hlen == 0 || (hlen == 1 && host[0] == '?')) {
			/* Redis 7: the endpoint is unknown or the one we asked. */
			host = r->nodes[asked].host;
			hlen = strlen(host);
		}
		if (master->elem[1].integer <= 0 || master->elem[1].integer > 65535)
			return -1;
		idx = node_index(r, host, hlen, (int)master->elem[1].integer);
		if (idx < 0)
			return -1;
		if (!seen[idx]++)
			r->masters++;
		if (e->elem[0].integer < 0 || e->elem[1].integer >= SLOTS ||
		    e->elem[0].integer > e->elem[1].integer || covered >= SLOTS)
			return -1; /* not a slot range, or more ranges than there are slots */
		for (long long s = e->elem[0].integer; s <= e->elem[1].integer; s++) {
			r->slot_node[s] = (uint8_t)(idx + 1);
			covered++;
		}
	}
	if (covered < SLOTS)
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: the cluster serves %zu of %d slots",
		       shown(r), covered, SLOTS);
	return 0;
}

/* Reads the slot map from the first node or seed that answers CLUSTER SLOTS. */
static int load_map(struct rj_redis *r)
{
	static const char *const cmd[] = { "CLUSTER", "SLOTS" };
	static const size_t len[] = { 7, 5 };
	char last[512] = "";
	int nknown;

	for (int i = 0; i < r->url.nhosts; i++)
		node_index(r, r->url.hosts[i].name, strlen(r->url.hosts[i].name),
			   r->url.hosts[i].port);
	nknown = r->nnodes;
	for (int i = 0; i < nknown; i++) {
		struct rj_reply *m = NULL;
		int rc = node_call(r, i, 0, 2, cmd, len, &m);
		if (rc == -RJ_REDIS_AUTH || rc == -RJ_REDIS_OFF)
			return rc;
		if (rc < 0) {
			snprintf(last, sizeof last, "%s", rocjit_last_error());
			continue;
		}
		if (m->type == RJ_REPLY_ERROR) {
			snprintf(last, sizeof last, "%.*s", (int)(m->len > 300 ? 300 : m->len), m->str);
			if (is_auth_error(m)) {
				rj_reply_free(m);
				RJ_FAIL(-RJ_REDIS_AUTH, "the cluster wants credentials: %s (give them "
					"in the URL or ROCJIT_REMOTE_PASSWORD_FILE)", last);
			}
		} else if (take_map(r, m, i) == 0) {
			rj_reply_free(m);
			r->have_map = 1;
			r->refresh_map = 0;
			return 0;
		} else {
			snprintf(last, sizeof last, "its CLUSTER SLOTS reply is not a slot map");
		}
		rj_reply_free(m);
	}
	RJ_FAIL(-RJ_REDIS_UNAVAILABLE, "no node of the cluster gave its slot map (last: %s)%s",
		last[0] ? last : "no node known",
		strstr(last, "cluster support disabled") ? ": this server is no cluster, use "
		"redis:// instead of redis-cluster://" : "");
}

/* The node for key: the map's, else any known one (it will redirect). */
static int pick(struct rj_redis *r, const char *key)
{
	if (r->url.kind != RJ_REMOTE_CLUSTER || !r->slot_node)
		return 0;
	if (key) {
		int idx = r->slot_node[rj_redis_key_slot(key, strlen(key))];
		if (idx)
			return idx - 1;
	}
	for (int s = 0; s < SLOTS; s++)
		if (r->slot_node[s])
			return r->slot_node[s] - 1;
	return 0;
}

/* ---- Commands ------------------------------------------------------------------------------ */

/* rj_redis_command's body, under the command's bound (r->deadline). */
static int command(struct rj_redis *r, const char *key, int argc, const char *const *argv,
		   const size_t *argvlen, struct rj_reply **reply)
{
	int asking = 0, reloaded = 0, idx, rc;

	if (r->url.kind == RJ_REMOTE_CLUSTER && (!r->have_map || r->refresh_map) &&
	    (rc = load_map(r)) < 0)
		return fail(r, rc);
	idx = pick(r, key);
	for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
		struct rj_reply *e = NULL;
		unsigned slot;
		int to;

		rc = node_call(r, idx, asking, argc, argv, argvlen, &e);
		if (rc < 0) {
			if (r->url.kind == RJ_REMOTE_CLUSTER)
				r->refresh_map = 1;
			return fail(r, rc);
		}
		asking = 0;
		if (e->type != RJ_REPLY_ERROR) {
			rj_breaker_succeeded(&r->breaker, shown(r));
			*reply = e;
			return 0;
		}
		if (r->url.kind == RJ_REMOTE_CLUSTER && (rj_reply_is(e, RJ_REPLY_ERROR, "MOVED") ||
							  rj_reply_is(e, RJ_REPLY_ERROR, "ASK"))) {
			/* Only a cluster is followed: a plain server's credentials never go to
			   a host it names. */
			int moved = rj_reply_is(e, RJ_REPLY_ERROR, "MOVED"), port = 0, bad;
			char host[256], from[300];
			bad = redirect_target(r, e, &slot, idx, host, sizeof host, &port);
			rj_reply_free(e);
			if (bad) {
				rj_error_set(-RJ_REDIS_UNAVAILABLE, __FILE__, __LINE__, "a redirection "
					     "names a node this client cannot follow");
				return fail(r, -RJ_REDIS_UNAVAILABLE);
			}
			/* Credentials go only to the cluster's members: the seeds the URL
			   names and the masters of a slot map.  A node the map does not know
			   (added since) makes the map read again from them, once a command. */
			to = known_node(r, host, port);
			if (to < 0 && !reloaded) {
				reloaded = 1;
				if ((rc = load_map(r)) < 0)
					return fail(r, rc);
				to = known_node(r, host, port);
			}
			if (to < 0) {
				node_where(r, &r->nodes[idx], from, sizeof from);
				rj_error_set(-RJ_REDIS_UNAVAILABLE, __FILE__, __LINE__, "%s redirected "
					     "a command to %s%s%s:%d, which is no member of the cluster "
					     "(neither a seed of the URL nor in its slot map): not "
					     "followed, so that no credentials go there; check the "
					     "cluster's nodes (CLUSTER NODES)", from,
					     strchr(host, ':') ? "[" : "", host,
					     strchr(host, ':') ? "]" : "", port);
				return fail(r, -RJ_REDIS_UNAVAILABLE);
			}
			if (moved && r->slot_node) {
				/* Follow it now; read the whole map again before the next command. */
				r->slot_node[slot] = (uint8_t)(to + 1);
				r->refresh_map = 1;
			}
			asking = !moved;
			idx = to;
			continue;
		}
		if (rj_reply_is(e, RJ_REPLY_ERROR, "TRYAGAIN")) {
			/* A slot mid-migration with the keys split: it settles in milliseconds. */
			rj_reply_free(e);
			usleep(20000);
			continue;
		}
		if (is_auth_error(e) || rj_reply_is(e, RJ_REPLY_ERROR, "LOADING") ||
		    rj_reply_is(e, RJ_REPLY_ERROR, "MASTERDOWN") ||
		    rj_reply_is(e, RJ_REPLY_ERROR, "CLUSTERDOWN") ||
		    rj_reply_is(e, RJ_REPLY_ERROR, "BUSY")) {
			rc = is_auth_error(e) ? -RJ_REDIS_AUTH : -RJ_REDIS_UNAVAILABLE;
			rj_error_set(rc, __FILE__, __LINE__, "%s%.*s", rc == -RJ_REDIS_AUTH ?
				     "the server wants credentials (give them in the URL or "
				     "ROCJIT_REMOTE_PASSWORD_FILE): " : "the server cannot serve: ",
				     (int)(e->len > 300 ? 300 : e->len), e->str);
			rj_reply_free(e);
			return fail(r, rc);
		}
		rj_breaker_succeeded(&r->breaker, shown(r));
		*reply = e;
		return 0;
	}
	rj_error_set(-RJ_REDIS_UNAVAILABLE, __FILE__, __LINE__, "more than %d redirections for "
		     "one key: the cluster is being resharded", MAX_REDIRECTS);
	return fail(r, -RJ_REDIS_UNAVAILABLE);
}

int rj_redis_command(struct rj_redis *r, const char *key, int argc, const char *const *argv,
		     const size_t *argvlen, struct rj_reply **reply)
{
	int rc;

	*reply = NULL;
	RJ_FORWARD(rj_breaker_check(&r->breaker, shown(r)));
	r->deadline = rj_now_ms() +
		      (double)COMMAND_BOUND * (r->url.connect_ms + r->url.timeout_ms);
	rc = command(r, key, argc, argv, argvlen, reply);
	r->deadline = 0;
	return rc;
}

int rj_redis_each_server(struct rj_redis *r,
			 int (*fn)(struct rj_conn *c, const char *where, void *user), void *user)
{
	static const char *const ping[] = { "PING" };
	static const size_t ping_len[] = { 4 };
	uint8_t done[MAX_NODES] = { 0 };
	int rc;

	RJ_FORWARD(rj_breaker_check(&r->breaker, shown(r)));
	if (r->url.kind == RJ_REMOTE_CLUSTER && (!r->have_map || r->refresh_map)) {
		/* The map is read under a command's bound; each server below costs at most
		   its connection and a PING before fn, which bounds the rest (info.c). */
		r->deadline = rj_now_ms() +
			      (double)COMMAND_BOUND * (r->url.connect_ms + r->url.timeout_ms);
		rc = load_map(r);
		r->deadline = 0;
		if (rc < 0)
			return fail(r, rc);
	}
	for (int s = 0; s < (r->url.kind == RJ_REMOTE_CLUSTER ? SLOTS : 1); s++) {
		int i = r->url.kind == RJ_REMOTE_CLUSTER ? r->slot_node[s] - 1 : 0;
		char where[300];
		if (i < 0 || done[i]++)
			continue;
		if (!r->nodes[i].conn) {
			/* Connect, with the credentials, by a PING. */
			struct rj_reply *p = NULL;
			rc = node_call(r, i, 0, 1, ping, ping_len, &p);
			if (rc < 0)
				return fail(r, rc);
			rj_reply_free(p);
		}
		node_where(r, &r->nodes[i], where, sizeof where);
		rc = fn(r->nodes[i].conn, where, user);
		if (rc < 0) {
			/* A reply may be left unread on it: no later command may read it. */
			rj_conn_close(r->nodes[i].conn);
			r->nodes[i].conn = NULL;
		}
		if (rc)
			return rc;
	}
	rj_breaker_succeeded(&r->breaker, shown(r));
	return 0;
}
