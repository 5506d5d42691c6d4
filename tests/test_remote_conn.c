/*
 * test_remote_conn.c - one connection's replies (src/remote/conn.c), against a scripted
 * server: a thread on a unix socket that reads a command and answers with the bytes a
 * case gives, in the pieces and at the pace it gives.  A value of some size is received
 * straight into a buffer of its own; whatever a server sends, the reply is the one the
 * protocol says, or the call fails saying why, within its deadline, holding nothing.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/shared.h"
#include "remote/conn.h"
#include "harness.h"

__attribute__((constructor)) static void need_hiredis(void)
{
	if (!rj_conn_available()) {
		printf("SKIP: this rocjit was built without hiredis (libhiredis-dev): no "
		       "connection to test\n");
		exit(77);
	}
}

/* What the server sends after reading a command: pieces, each after a pause. */
struct piece {
	const char *bytes;
	size_t len;
	int pause_ms;
};

struct script {
	int listen_fd;
	const struct piece *pieces;
	size_t n;
	int close_after; /* close the connection after the last piece (else hold it open) */
	int done_fd;     /* held-open connections wait for this to read end-of-file */
};

static void *serve(void *arg)
{
	struct script *s = arg;
	int fd = accept(s->listen_fd, NULL, NULL);
	char cmd[4096];

	if (fd < 0)
		return NULL;
	/* One command ("*...\r\n" and its words): whatever came first is enough here. */
	if (read(fd, cmd, sizeof cmd) <= 0) {
		close(fd);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->pieces[i].pause_ms)
			usleep((useconds_t)s->pieces[i].pause_ms * 1000);
		for (size_t off = 0; off < s->pieces[i].len;) {
			ssize_t w = send(fd, s->pieces[i].bytes + off, s->pieces[i].len - off,
					 MSG_NOSIGNAL);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
	if (!s->close_after) {
		char c;
		while (read(s->done_fd, &c, 1) > 0)
			;
	}
	close(fd);
	return NULL;
}

struct served {
	pthread_t thread;
	struct script script;
	int done[2];
	char path[4400];
};

/* Starts the server thread with the pieces; the connection from rj_conn_open. */
static struct rj_conn *start(struct served *sv, const struct piece *pieces, size_t n,
			     int close_after)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct rj_conn *c = NULL;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sv->path, sizeof sv->path, "%s/s.sock", rj_test_dir);
	ASSERT(fd >= 0 && strlen(sv->path) < sizeof a.sun_path);
	memcpy(a.sun_path, sv->path, strlen(sv->path) + 1);
	unlink(sv->path);
	ASSERT(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4) == 0);
	ASSERT(pipe(sv->done) == 0);
	sv->script = (struct script){ fd, pieces, n, close_after, sv->done[0] };
	ASSERT(pthread_create(&sv->thread, NULL, serve, &sv->script) == 0);
	ASSERT_INT(rj_conn_open(&c, NULL, 0, sv->path, 2000), 0);
	return c;
}

static void stop(struct served *sv, struct rj_conn *c)
{
	rj_conn_close(c);
	close(sv->done[1]);
	pthread_join(sv->thread, NULL);
	close(sv->done[0]);
	close(sv->script.listen_fd);
}

static int get(struct rj_conn *c, struct rj_reply **reply, int timeout_ms)
{
	static const char *const argv[] = { "GETRANGE", "k", "0", "-1" };
	static const size_t len[] = { 8, 1, 1, 2 };

	return rj_conn_call(c, 4, argv, len, reply, timeout_ms);
}

/* "$<n>\r\n", n bytes of a pattern, "\r\n", malloc'ed; *size its length. */
static char *bulk(size_t n, size_t *size)
{
	char *b = malloc(n + 32);
	int h;

	ASSERT(b != NULL);
	h = snprintf(b, 32, "$%zu\r\n", n);
	for (size_t i = 0; i < n; i++)
		b[h + (int)i] = (char)('a' + i * 7 % 26);
	memcpy(b + h + n, "\r\n", 2);
	*size = (size_t)h + n + 2;
	return b;
}

/* prefix, then bulk(n), malloc'ed; *size its length. */
static char *after(const char *prefix, size_t n, size_t *size)
{
	size_t blen, plen = strlen(prefix);
	char *b = bulk(n, &blen), *all = malloc(plen + blen);

	ASSERT(all != NULL);
	memcpy(all, prefix, plen);
	memcpy(all + plen, b, blen);
	free(b);
	*size = plen + blen;
	return all;
}

static void assert_pattern(const struct rj_reply *r, size_t n)
{
	ASSERT_INT(r->type, RJ_REPLY_STRING);
	ASSERT_INT(r->len, n);
	for (size_t i = 0; i < n; i++)
		if (r->str[i] != (char)('a' + i * 7 % 26))
			rj_test_fail(__FILE__, __LINE__, "byte %zu differs", i);
}

TEST(value_in_many_pieces_arrives_whole)
{
	struct served sv;
	struct rj_reply *r = NULL;
	size_t size;
	char *b = bulk(70000, &size);
	/* The head whole, the body in uneven pieces, its end apart: read straight.  Then
	   the head cut after "$7": the parser takes it all. */
	const struct piece whole[] = { { b, 12, 0 }, { b + 12, 4000, 20 },
				       { b + 4012, size - 4014, 5 }, { b + size - 2, 1, 5 },
				       { b + size - 1, 1, 5 } };
	const struct piece cut[] = { { b, 2, 0 }, { b + 2, 9, 20 }, { b + 11, size - 11, 5 } };
	struct rj_conn *c = start(&sv, whole, 5, 0);

	ASSERT_INT(get(c, &r, 5000), 0);
	assert_pattern(r, 70000);
	ASSERT(r->shared != NULL);
	rj_reply_free(r);
	stop(&sv, c);
	c = start(&sv, cut, 3, 0);
	ASSERT_INT(get(c, &r, 5000), 0);
	assert_pattern(r, 70000);
	ASSERT(r->shared == NULL);
	rj_reply_free(r);
	stop(&sv, c);
	free(b);
}

TEST(value_sent_at_once_is_read_straight_and_can_be_taken)
{
	struct served sv;
	struct rj_reply *r = NULL;
	size_t size;
	char *b = bulk(16384, &size);
	const struct piece p[] = { { b, size, 0 } };
	struct rj_conn *c = start(&sv, p, 1, 0);
	void *taken;

	ASSERT_INT(get(c, &r, 5000), 0);
	assert_pattern(r, 16384);
	/* Read straight: the reply's buffer is a shared one, for the tier to take. */
	ASSERT(r->shared != NULL && r->str == r->shared);
	taken = r->shared;
	r->shared = NULL;
	rj_reply_free(r);
	stop(&sv, c);
	/* The buffer outlives the reply and the connection. */
	ASSERT(memcmp(taken, b + 8, 16384) == 0);
	rj_shared_unref(taken);
	free(b);
}

TEST(small_strings_and_every_other_reply_go_through_the_parser)
{
	static const char many[] = "$5\r\nhello\r\n";
	struct served sv;
	struct rj_reply *r = NULL;
	const struct piece p[] = { { many, sizeof many - 1, 0 } };
	struct rj_conn *c = start(&sv, p, 1, 0);

	ASSERT_INT(get(c, &r, 5000), 0);
	ASSERT_INT(r->type, RJ_REPLY_STRING);
	ASSERT_INT(r->len, 5);
	ASSERT(memcmp(r->str, "hello", 5) == 0);
	ASSERT(r->shared == NULL);
	rj_reply_free(r);
	stop(&sv, c);

	{
		static const char nil[] = "$-1\r\n", err[] = "-ERR wrong\r\n", num[] = ":42\r\n";
		const struct piece q[][1] = { { { nil, sizeof nil - 1, 0 } },
					      { { err, sizeof err - 1, 0 } },
					      { { num, sizeof num - 1, 0 } } };
		const enum rj_reply_type want[] = { RJ_REPLY_NIL, RJ_REPLY_ERROR,
						    RJ_REPLY_INTEGER };
		for (int i = 0; i < 3; i++) {
			c = start(&sv, q[i], 1, 0);
			ASSERT_INT(get(c, &r, 5000), 0);
			ASSERT_INT(r->type, want[i]);
			rj_reply_free(r);
			stop(&sv, c);
		}
	}
}

TEST(array_holding_a_large_string_is_parsed_whole)
{
	struct served sv;
	struct rj_reply *r = NULL;
	size_t size;
	char *all = after("*2\r\n:7\r\n", 9000, &size);
	const struct piece p[] = { { all, size, 0 } };
	struct rj_conn *c = start(&sv, p, 1, 0);

	ASSERT_INT(get(c, &r, 5000), 0);
	ASSERT_INT(r->type, RJ_REPLY_ARRAY);
	ASSERT_INT(r->n, 2);
	ASSERT_INT(r->elem[0].integer, 7);
	assert_pattern(&r->elem[1], 9000);
	rj_reply_free(r);
	stop(&sv, c);
	free(all);
}

TEST(pipelined_replies_after_a_status_are_each_read)
{
	struct served sv;
	struct rj_reply *rs[2] = { NULL, NULL };
	size_t size;
	/* "+OK" and the value in one write: the value's head is read with the status. */
	char *all = after("+OK\r\n", 5000, &size);
	const struct piece p[] = { { all, size, 0 } };
	static const char *const auth[] = { "AUTH", "pw" };
	static const char *const getr[] = { "GETRANGE", "k", "0", "-1" };
	static const size_t auth_len[] = { 4, 2 }, get_len[] = { 8, 1, 1, 2 };
	const char *const *argv[2] = { auth, getr };
	const size_t *lens[2] = { auth_len, get_len };
	const int argc[2] = { 2, 4 };
	struct rj_conn *c = start(&sv, p, 1, 0);

	ASSERT_INT(rj_conn_pipeline(c, 2, argc, argv, lens, rs, 5000), 0);
	ASSERT_INT(rs[0]->type, RJ_REPLY_STATUS);
	assert_pattern(rs[1], 5000);
	rj_reply_free(rs[0]);
	rj_reply_free(rs[1]);
	stop(&sv, c);
	free(all);
}

/* A GETRANGE the scripted server answers with p[np] fails as want_rc, its message
 * holding why, and no reply; the milliseconds it took. */
static double fails(const struct piece *p, size_t np, int close_after, int timeout_ms,
		    int want_rc, const char *why)
{
	struct served sv;
	struct rj_reply *r = NULL;
	struct rj_conn *c = start(&sv, p, np, close_after);
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_INT(get(c, &r, timeout_ms), want_rc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT(r == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), why);
	stop(&sv, c);
	return (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

TEST(value_longer_than_it_said_or_cut_short_fails_saying_so)
{
	size_t size;
	char *b = bulk(100000, &size);
	/* Its last two bytes not "\r\n"; then the connection closed mid-value. */
	const struct piece longer[] = { { b, size - 2, 0 }, { "XY", 2, 0 } };
	const struct piece cut[] = { { b, 5000, 0 } };

	fails(longer, 2, 0, 5000, -RJ_CONN_PROTOCOL, "longer than it said");
	fails(cut, 1, 1, 5000, -RJ_CONN_IO, "closed the connection");
	free(b);
}

TEST(stalled_value_times_out_within_the_deadline)
{
	size_t size;
	char *b = bulk(50000, &size);
	const struct piece p[] = { { b, 20000, 0 } };
	double ms = fails(p, 1, 0, 300, -RJ_CONN_TIMEOUT, "did not answer within 300 ms");

	ASSERT(ms >= 250 && ms < 3000);
	free(b);
}

TEST(value_past_the_limit_is_refused_before_it_is_held)
{
	/* A head that announces 200 MB, and only that: refused from the head alone (the
	   connection's limit for a value is 257 MiB; 4 MiB for other replies, as here). */
	static const char head[] = "$200000000\r\nabc";
	const struct piece p[] = { { head, sizeof head - 1, 0 } };
	struct served sv;
	struct rj_reply *r = NULL;
	struct rj_conn *c = start(&sv, p, 1, 0);

	rj_conn_limit(c, RJ_CONN_SMALL_REPLY);
	ASSERT_INT(get(c, &r, 5000), -RJ_CONN_PROTOCOL);
	ASSERT(r == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "sent more than");
	stop(&sv, c);
}
