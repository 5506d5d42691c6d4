/*
 * test_remote_bounds.c - what a server sends is bounded in memory and in time (issue 27,
 * class 4): a reply's objects and nesting, a call's deadline against servers that stream
 * fast or drip slowly, the fleet lock a hostile node plants, the whole of `remote stats`,
 * redirections to hosts outside the cluster (no credentials go there), and the password
 * of a URL in messages and on the command line.
 *
 * The hostile servers are a small program here (serve_hostile): a forked child on
 * 127.0.0.1 that reads commands in the Redis protocol and answers each as its mode says.
 * Real redis-servers for the rest.  Every time bound is a multiple of the timeout set in
 * the URL, never a guess of the machine's speed.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "harness.h"
#include "redis_server.h"
#include "remote/client.h"
#include "remote/conn.h"
#include "remote/record.h"
#include "remote/remote.h"
#include "remote/url.h"

#define SECRET "hunter2-do-not-show"

__attribute__((constructor)) static void need_hiredis(void)
{
	if (!rj_conn_available()) {
		printf("SKIP: built without hiredis (libhiredis-dev): no remote tier to test\n");
		exit(77);
	}
}

static double now_ms(void)
{
	return rj_now_ms();
}

/* ---- The hostile server ------------------------------------------------------------- */

enum mode {
	HUGE_ARRAY,   /* any command: an array of 60 million integers, sent as fast as it goes */
	DEEP,         /* any command: arrays nested 6 deep around one integer */
	DRIP,         /* any command: a 100 KB string, one byte every 20 ms: each read in time */
	STREAM,       /* any command: an array of 200000 strings of 60 KB (12 GB), sent as fast
	                 as the socket takes them */
	ENDLESS_SCAN, /* SCAN: a cursor that never comes back to 0, after 10 ms; PING, INFO */
	REDIRECT,     /* a one-node cluster (CLUSTER SLOTS: itself) that answers every key
	                 with MOVED to the port given */
	RECORD,       /* writes every command's first word to the file given, answers +OK */
	PING_PONG,    /* one of a two-node cluster (CLUSTER SLOTS: this node and the one at
	                 the port given) that answers every key, after hostile_delay_ms, with
	                 MOVED to the other */
	BIG_VALUE,    /* any command: a string of 5 MB */
	WIDE_ARRAY,   /* any command: an array of 100000 integers (within the bound) */
};

/* PING_PONG's delay before each answer. */
static int hostile_delay_ms;

struct hostile {
	pid_t pid;
	int port;
};

static void send_text(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w <= 0)
			_exit(0);
		s += w;
		n -= (size_t)w;
	}
}

#define SEND(fd, lit) send_text(fd, lit, sizeof(lit) - 1)

/* Reads one command (an array of bulk strings) from fd into words[] (NUL-terminated in
 * buf, valid until the next call, which drops the *used bytes of this one): its word
 * count, or -1 at end of file. */
static int read_command(int fd, char *buf, size_t size, size_t *have, size_t *used,
			char **words, int max)
{
	memmove(buf, buf + *used, *have - *used);
	*have -= *used;
	*used = 0;
	for (;;) {
		char *p = buf, *end = buf + *have, *nl;
		int n, ok = 1;
		if (*have && (nl = memchr(p, '\n', (size_t)(end - p))) && *p == '*') {
			n = atoi(p + 1);
			p = nl + 1;
			for (int i = 0; i < n && ok; i++) {
				size_t len;
				if (p >= end || !(nl = memchr(p, '\n', (size_t)(end - p)))) {
					ok = 0;
					break;
				}
				len = (size_t)atol(p + 1);
				p = nl + 1;
				if ((size_t)(end - p) < len + 2) {
					ok = 0;
					break;
				}
				if (i < max)
					words[i] = p;
				p[len] = 0;
				p += len + 2;
			}
			if (ok) {
				*used = (size_t)(p - buf);
				return n < max ? n : max;
			}
		}
		ssize_t r = read(fd, buf + *have, size - *have);
		if (r <= 0)
			return -1;
		*have += (size_t)r;
	}
}

static void answer(int fd, enum mode mode, const char *arg, int port, char **w, int n)
{
	char text[512];

	if (!strcasecmp(w[0], "AUTH") || !strcasecmp(w[0], "SELECT") ||
	    !strcasecmp(w[0], "ASKING")) {
		SEND(fd, "+OK\r\n");
	} else if (!strcasecmp(w[0], "PING")) {
		SEND(fd, "+PONG\r\n");
	} else if (!strcasecmp(w[0], "INFO")) {
		SEND(fd, "$22\r\nredis_version:7.0.99\r\n\r\n");
	} else if (mode == REDIRECT && !strcasecmp(w[0], "CLUSTER")) {
		int len = snprintf(text, sizeof text, "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$9\r\n"
				   "127.0.0.1\r\n:%d\r\n$2\r\nid\r\n", port);
		send_text(fd, text, (size_t)len);
	} else if (mode == PING_PONG && !strcasecmp(w[0], "CLUSTER")) {
		int len = snprintf(text, sizeof text, "*2\r\n*3\r\n:0\r\n:8191\r\n*3\r\n$9\r\n"
				   "127.0.0.1\r\n:%d\r\n$1\r\na\r\n*3\r\n:8192\r\n:16383\r\n"
				   "*3\r\n$9\r\n127.0.0.1\r\n:%s\r\n$1\r\nb\r\n", port, arg);
		send_text(fd, text, (size_t)len);
	} else if (mode == PING_PONG) {
		int len = snprintf(text, sizeof text, "-MOVED 1234 127.0.0.1:%s\r\n", arg);
		usleep((useconds_t)hostile_delay_ms * 1000);
		send_text(fd, text, (size_t)len);
	} else if (mode == WIDE_ARRAY) {
		static char ints[400000];
		for (size_t i = 0; i < sizeof ints; i += 4)
			memcpy(ints + i, ":1\r\n", 4);
		SEND(fd, "*100000\r\n");
		send_text(fd, ints, sizeof ints);
	} else if (mode == BIG_VALUE) {
		static char bytes[5000000];
		SEND(fd, "$5000000\r\n");
		send_text(fd, bytes, sizeof bytes);
		SEND(fd, "\r\n");
	} else if (mode == REDIRECT) {
		int len = snprintf(text, sizeof text, "-MOVED 1234 127.0.0.1:%s\r\n", arg);
		send_text(fd, text, (size_t)len);
	} else if (mode == ENDLESS_SCAN) {
		usleep(10000);
		if (!strcasecmp(w[0], "SCAN"))
			SEND(fd, "*2\r\n$1\r\n7\r\n*1\r\n$15\r\nrocjit:1:x:lock\r\n");
		else
			SEND(fd, ":0\r\n");
	} else if (mode == HUGE_ARRAY) {
		static char ints[1 << 16];
		for (size_t i = 0; i < sizeof ints; i += 4)
			memcpy(ints + i, ":1\r\n", 4);
		SEND(fd, "*60000000\r\n");
		for (;;)
			send_text(fd, ints, sizeof ints);
	} else if (mode == DEEP) {
		SEND(fd, "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n");
	} else if (mode == DRIP) {
		SEND(fd, "$100000\r\n");
		for (;;) {
			usleep(20000);
			SEND(fd, "x");
		}
	} else if (mode == STREAM) {
		static char element[8 + 60000 + 2] = "$60000\r\n";
		memcpy(element + 8 + 60000, "\r\n", 2);
		SEND(fd, "*200000\r\n");
		for (;;)
			send_text(fd, element, sizeof element);
	} else if (mode == RECORD) {
		int f = open(arg, O_WRONLY | O_CREAT | O_APPEND, 0600);
		for (int i = 0; i < n && i < 1; i++)
			dprintf(f, "%s\n", w[i]);
		close(f);
		SEND(fd, "+OK\r\n");
	}
}

/* The child: serves each connection in a child of its own, until the test ends. */
static void serve_hostile(int lfd, enum mode mode, const char *arg, int port)
{
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		if (fork() == 0) {
			static char buf[1 << 16];
			char *w[8];
			size_t have = 0, used = 0;
			int n;
			while ((n = read_command(fd, buf, sizeof buf, &have, &used, w, 8)) > 0)
				answer(fd, mode, arg, port, w, n);
			_exit(0);
		}
		close(fd);
	}
}

/* A listening socket on 127.0.0.1: its descriptor, its port in *port. */
static int listen_tcp(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	ASSERT(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	ASSERT(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 16) == 0);
	ASSERT(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Starts a hostile server in mode on the socket fd (listen_tcp) at port (arg:
 * REDIRECT's and PING_PONG's other port, RECORD's file). */
static struct hostile hostile_serve(int fd, int port, enum mode mode, const char *arg)
{
	struct hostile h;

	h.port = port;
	h.pid = fork();
	ASSERT(h.pid >= 0);
	if (h.pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		serve_hostile(fd, mode, arg, h.port);
	}
	close(fd);
	return h;
}

static struct hostile hostile_start(enum mode mode, const char *arg)
{
	int port, fd = listen_tcp(&port);

	return hostile_serve(fd, port, mode, arg);
}

static void hostile_stop(struct hostile *h)
{
	kill(-h->pid, SIGKILL); /* it and its connections' children */
	kill(h->pid, SIGKILL);
	waitpid(h->pid, NULL, 0);
}

/* One GETRANGE (of end + 1 bytes at most) through a client of url: its result; the time
 * it took in *ms. */
static int getrange_upto(const char *url, const char *end, double *ms)
{
	const char *const argv[] = { "GETRANGE", "rocjit:1:k", "0", end };
	const size_t len[] = { 8, 10, 1, strlen(end) };
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;
	double t0;
	int rc;

	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 0), 0);
	rj_redis_set_quiet(r, 1);
	t0 = now_ms();
	rc = rj_redis_command(r, "rocjit:1:k", 4, argv, len, &reply);
	*ms = now_ms() - t0;
	rj_reply_free(reply);
	rj_redis_close(r);
	return rc;
}

static int getrange(const char *url, double *ms)
{
	return getrange_upto(url, "67108864", ms);
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* ---- Replies bounded in objects and nesting ------------------------------------------ */

TEST(huge_array_of_integers_is_refused_before_it_is_held)
{
	struct hostile h = hostile_start(HUGE_ARRAY, NULL);
	char url[128];
	long rss0 = max_rss_kb();
	double ms;

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=2000", h.port);
	ASSERT(getrange(url, &ms) == -RJ_CONN_PROTOCOL);
	ASSERT_CONTAINS(rocjit_last_error(), "more elements in one reply than rocjit ever asks");
	printf("refused in %.1f ms; max RSS grew by %ld KB\n", ms, max_rss_kb() - rss0);
	ASSERT(ms < 2000);
	ASSERT(max_rss_kb() - rss0 < 64 * 1024); /* not 8 GB: nothing of it was held */
	hostile_stop(&h);
}

TEST(array_within_the_bound_is_read_whole)
{
	static const char *const argv[] = { "SCAN", "0" };
	static const size_t len[] = { 4, 1 };
	struct hostile h = hostile_start(WIDE_ARRAY, NULL);
	struct rj_conn *c = NULL;
	struct rj_reply *reply = NULL;

	ASSERT_INT(rj_conn_open(&c, "127.0.0.1", h.port, NULL, 1000), 0);
	ASSERT_INT(rj_conn_call(c, 2, argv, len, &reply, 5000), 0);
	ASSERT(reply->type == RJ_REPLY_ARRAY && reply->n == 100000);
	ASSERT(reply->elem[99999].type == RJ_REPLY_INTEGER && reply->elem[99999].integer == 1);
	rj_reply_free(reply);
	rj_conn_close(c);
	hostile_stop(&h);
}

TEST(deeply_nested_arrays_are_refused)
{
	struct hostile h = hostile_start(DEEP, NULL);
	char url[128];
	double ms;

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=1000", h.port);
	ASSERT(getrange(url, &ms) == -RJ_CONN_PROTOCOL);
	ASSERT_CONTAINS(rocjit_last_error(), "nested deeper");
	hostile_stop(&h);
}

TEST(value_longer_than_the_range_asked_is_refused)
{
	struct hostile h = hostile_start(BIG_VALUE, NULL);
	char url[128];
	double ms;

	/* GETRANGE k 0 1000 has at most 1001 bytes: 5 MB is no answer to it. */
	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=2000", h.port);
	ASSERT(getrange_upto(url, "1000", &ms) == -RJ_CONN_PROTOCOL);
	ASSERT_CONTAINS(rocjit_last_error(), "sent more than");
	hostile_stop(&h);
}

/* ---- Deadlines: per call, not per read ------------------------------------------------ */

TEST(slow_drip_within_each_read_fails_at_the_call_deadline)
{
	struct hostile h = hostile_start(DRIP, NULL);
	char url[128];
	const int timeout = 300; /* each byte comes after 20 ms: no single read waits long */
	double ms;

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=%d", h.port, timeout);
	ASSERT(getrange(url, &ms) == -RJ_CONN_TIMEOUT);
	printf("gave up after %.1f ms (timeout %d ms)\n", ms, timeout);
	ASSERT(ms >= timeout * 0.9 && ms < 2 * timeout);
	hostile_stop(&h);
}

TEST(fast_endless_stream_fails_at_the_call_deadline)
{
	static const char *const argv[] = { "GETRANGE", "rocjit:1:k", "0", "-1" };
	static const size_t len[] = { 8, 10, 1, 2 };
	struct hostile h = hostile_start(STREAM, NULL);
	struct rj_conn *c = NULL;
	struct rj_reply *reply = NULL;
	const int timeout = 60; /* 12 GB take longer than that, however fast */
	double t0, ms;
	int rc;

	/* The connection's own deadline, with the largest limit a value has (257 MB): the
	   bytes keep coming, so no read ever has to wait. */
	ASSERT_INT(rj_conn_open(&c, "127.0.0.1", h.port, NULL, 1000), 0);
	rj_conn_limit(c, 0);
	t0 = now_ms();
	rc = rj_conn_call(c, 4, argv, len, &reply, timeout);
	ms = now_ms() - t0;
	printf("gave up after %.1f ms (timeout %d ms): %s\n", ms, timeout, rocjit_last_error());
	if (rc == -RJ_CONN_PROTOCOL && ms < timeout)
		rj_test_skip("this machine read 257 MB within %d ms: the byte bound came first",
			     timeout);
	ASSERT(rc == -RJ_CONN_TIMEOUT);
	ASSERT(reply == NULL);
	ASSERT(ms < 2 * timeout);
	rj_conn_close(c);
	hostile_stop(&h);
}

TEST(redirections_between_slow_members_stop_at_the_command_bound)
{
	struct hostile a, b;
	char url[256], port[16];
	const int connect = 100, timeout = 300, bound = 2 * (connect + timeout); /* client.c */
	int fa, fb, pa, pb;
	double ms;
	int rc;

	/* Two members that send each other's address, each after most of a timeout: six
	   redirections would take 1.5 s. */
	hostile_delay_ms = timeout * 5 / 6;
	fa = listen_tcp(&pa);
	fb = listen_tcp(&pb);
	snprintf(port, sizeof port, "%d", pb);
	a = hostile_serve(fa, pa, PING_PONG, port);
	snprintf(port, sizeof port, "%d", pa);
	b = hostile_serve(fb, pb, PING_PONG, port);
	snprintf(url, sizeof url, "redis-cluster://127.0.0.1:%d?connect_timeout=%d&timeout=%d",
		 pa, connect, timeout);
	rc = getrange(url, &ms);
	printf("gave up after %.1f ms (bound %d ms): %s\n", ms, bound, rocjit_last_error());
	ASSERT(rc == -RJ_CONN_TIMEOUT);
	ASSERT_CONTAINS(rocjit_last_error(), "did not finish within");
	ASSERT(ms < bound + timeout / 4);
	hostile_stop(&a);
	hostile_stop(&b);
}

/* ---- rocjit remote stats, bounded as a whole ------------------------------------------ */

TEST(remote_stats_of_a_scan_that_never_ends_stops_at_its_overall_bound)
{
	struct hostile h = hostile_start(ENDLESS_SCAN, NULL);
	struct rj_remote_server_info info;
	struct rj_remote *t;
	char url[128];
	const int timeout = 200, whole = 20 * timeout; /* info.c: INFO_TIMEOUTS */
	double t0, ms;

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=%d", h.port, timeout);
	ASSERT_INT(rj_remote_open(&t, url, "test"), 0);
	t0 = now_ms();
	ASSERT(rj_remote_server_info(t, 1, &info) == ROCJIT_EIO);
	ms = now_ms() - t0;
	printf("stopped after %.1f ms (bound %d ms): %s\n", ms, whole, rocjit_last_error());
	ASSERT_CONTAINS(rocjit_last_error(), "did not answer everything within");
	ASSERT(ms >= whole * 0.9 && ms < whole + 2 * timeout);
	rj_remote_close(t);
	hostile_stop(&h);
}

TEST(remote_stats_command_is_bounded_as_a_whole)
{
	struct hostile h = hostile_start(ENDLESS_SCAN, NULL);
	char url[128], *out = NULL;
	const int timeout = 200, whole = 20 * timeout;
	const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_dir, "--remote", url,
			       "remote", "stats", NULL };
	static const char *const env[] = { NULL };
	double t0, ms;

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=%d", h.port, timeout);
	t0 = now_ms();
	ASSERT_INT(rj_test_run(argv, env, &out), 1);
	ms = now_ms() - t0;
	printf("%s(%.1f ms)\n", out, ms);
	ASSERT_CONTAINS(out, "did not answer everything within");
	ASSERT(ms < 2 * whole);
	free(out);
	hostile_stop(&h);
}

/* ---- Redirections: only to the cluster's members ---------------------------------------- */

TEST(moved_to_a_host_outside_the_cluster_gets_no_credentials)
{
	char seen[4400], url[256];
	struct hostile foreign, node;
	char port[16];
	double ms;
	size_t size = 0;
	char *text;

	snprintf(seen, sizeof seen, "%s/foreign.log", rj_test_dir);
	foreign = hostile_start(RECORD, seen);
	snprintf(port, sizeof port, "%d", foreign.port);
	node = hostile_start(REDIRECT, port);
	snprintf(url, sizeof url, "redis-cluster://:" SECRET "@127.0.0.1:%d?timeout=1000",
		 node.port);
	ASSERT(getrange(url, &ms) == -RJ_REDIS_UNAVAILABLE);
	ASSERT_CONTAINS(rocjit_last_error(), "no member of the cluster");
	ASSERT(strstr(rocjit_last_error(), SECRET) == NULL);
	usleep(100000); /* anything sent there would be logged by now */
	text = access(seen, F_OK) == 0 ? rj_test_read_file(seen, &size) : NULL;
	ASSERT(text == NULL || strstr(text, "AUTH") == NULL);
	ASSERT(size == 0);
	free(text);
	hostile_stop(&node);
	hostile_stop(&foreign);
}

TEST(moved_within_a_real_cluster_is_still_followed)
{
	static const char *const extra[] = { "--requirepass", SECRET, NULL };
	struct rj_redis_cluster c;
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;
	char url[512], key[] = "rocjit:1:moved-key";
	const char *set[] = { "SET", key, "v" }, *get[] = { "GET", key };
	size_t set_len[] = { 3, strlen(key), 1 }, get_len[] = { 3, strlen(key) };
	int slot, owner;

	rj_redis_cluster_start(&c, "cluster", extra);
	snprintf(url, sizeof url, "redis-cluster://:" SECRET "@127.0.0.1:%d", c.node[0].port);
	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 0), 0);
	ASSERT_INT(rj_redis_command(r, key, 3, set, set_len, &reply), 0);
	rj_reply_free(reply);
	slot = rj_redis_cluster_slot_of(&c, key);
	owner = rj_redis_cluster_node_of_slot(&c, slot);
	rj_redis_cluster_move_slot(&c, slot, (owner + 1) % 3);
	ASSERT_INT(rj_redis_command(r, key, 2, get, get_len, &reply), 0);
	ASSERT(reply->type == RJ_REPLY_STRING && reply->len == 1 && reply->str[0] == 'v');
	rj_reply_free(reply);
	rj_redis_close(r);
	rj_redis_cluster_stop(&c);
}

/* ---- The fleet lock a hostile node plants ----------------------------------------------- */

static struct rj_remote_want want_of(int i)
{
	struct rj_remote_want w;

	memset(&w, 0, sizeof w);
	for (int b = 0; b < 16; b++)
		w.key.b[b] = (uint8_t)(0x30 + i * 16 + b);
	w.platform = "amd", w.target = "gfx90a", w.compiler = "none";
	return w;
}

static void plant_lock(const struct rj_redis_server *s, int i, const char *px)
{
	struct rj_remote_want w = want_of(i);
	char hex[33], lock[128], r[64];
	const char *words[] = { "SET", lock, "planted:1:x", "PX", px, NULL };

	rj_key_hex(&w.key, hex);
	snprintf(lock, sizeof lock, "rocjit:%d:%s:lock", RJ_RECORD_VERSION, hex);
	ASSERT_INT(rj_redis_call(s, 2000, r, sizeof r, words), 0);
	ASSERT_STR(r, "+OK");
}

TEST(planted_lock_with_an_hour_lease_is_not_waited_for)
{
	struct rj_redis_server s;
	struct rj_remote *t;
	struct rj_remote_lease *lease = NULL;
	struct rj_remote_value v;
	char url[256];
	const int timeout = 500, wait = 5000;

	rj_redis_start(&s, "redis", NULL);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=%d", s.port, timeout);
	ASSERT_INT(rj_remote_open(&t, url, "test"), 0);
	for (int i = 0; i < 3; i++)
		plant_lock(&s, i, "3600000");
	for (int i = 0; i < 3; i++) {
		struct rj_remote_want w = want_of(i);
		double t0 = now_ms();
		ASSERT_INT(rj_remote_claim(t, &w, wait, 0, &lease, &v), 0);
		ASSERT(lease == NULL);
		ASSERT(now_ms() - t0 < timeout); /* a few round trips, no wait */
	}
	rj_remote_close(t);
	rj_redis_stop(&s);
}

TEST(lock_that_never_delivers_costs_one_wait_not_one_per_key)
{
	struct rj_redis_server s;
	struct rj_remote *t;
	struct rj_remote_lease *lease = NULL;
	struct rj_remote_value v;
	struct rj_remote_counts n;
	char url[256];
	const int wait = 600;
	double t0, ms;

	/* Locks with an honest lease (the default 10 s), as a stuck node or someone
	   renewing them would leave: the first key waits, the others do not. */
	rj_redis_start(&s, "redis", NULL);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", s.port);
	ASSERT_INT(rj_remote_open(&t, url, "test"), 0);
	for (int i = 0; i < 4; i++)
		plant_lock(&s, i, "10000");
	t0 = now_ms();
	for (int i = 0; i < 4; i++) {
		struct rj_remote_want w = want_of(i);
		ASSERT_INT(rj_remote_claim(t, &w, wait, 0, &lease, &v), 0);
		ASSERT(lease == NULL);
	}
	ms = now_ms() - t0;
	rj_remote_counts_get(t, &n);
	printf("4 keys under stuck locks: %.1f ms (wait %d ms)\n", ms, wait);
	ASSERT(ms >= wait && ms < 2 * wait);
	ASSERT_INT(n.waits, 1);
	rj_remote_close(t);
	rj_redis_stop(&s);
}

/* ---- The password: never on the command line, never shown --------------------------------- */

TEST(user_slot_alone_is_masked_wherever_a_url_is_shown)
{
	struct rj_remote_url u;
	struct rj_remote *t;
	char out[256];

	rj_remote_url_redact("redis://" SECRET "@h:1/2", out, sizeof out);
	ASSERT_STR(out, "redis://***@h:1/2");
	ASSERT_INT(rj_remote_url_parse("redis://" SECRET "@h:1", &u), 0);
	rj_remote_url_show(&u, out, sizeof out);
	ASSERT_STR(out, "redis://***@h:1");
	/* A URL that does not parse, and the tier's own URL. */
	ASSERT(rj_remote_open(&t, "redis://" SECRET "@h:99999", "test") == ROCJIT_EINVAL);
	ASSERT(strstr(rocjit_last_error(), SECRET) == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "redis://***@h:99999");
	ASSERT_INT(rj_remote_open(&t, "redis://" SECRET "@127.0.0.1:1", "test"), 0);
	ASSERT_STR(rj_remote_shown(t), "redis://***@127.0.0.1:1");
	rj_remote_close(t);
}

TEST(password_in_a_command_line_url_is_refused)
{
	char url[128], *out = NULL;
	const char *argv[] = { ROCJIT_TEST_CLI, "--remote", url, "remote", "ping", NULL };
	static const char *const env[] = { NULL };

	snprintf(url, sizeof url, "redis://alice:%s@127.0.0.1:1", SECRET);
	ASSERT_INT(rj_test_run(argv, env, &out), 2);
	ASSERT_CONTAINS(out, "ROCJIT_REMOTE_PASSWORD_FILE");
	ASSERT(strstr(out, SECRET) == NULL);
	free(out);
	snprintf(url, sizeof url, "redis://:%s@127.0.0.1:1", SECRET);
	ASSERT_INT(rj_test_run(argv, env, &out), 2);
	free(out);
	/* A user alone is no password: it goes on, and is masked. */
	snprintf(url, sizeof url, "redis://%s@127.0.0.1:1", SECRET);
	ASSERT_INT(rj_test_run(argv, env, &out), 1);
	ASSERT(strstr(out, SECRET) == NULL);
	free(out);
}
