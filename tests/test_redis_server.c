/*
 * test_redis_server.c - the tests' own redis-server (tests/redis_server.c), which the
 * remote tier's tests run against: it comes up on a free port and a unix socket, answers,
 * keeps nothing on disk, takes a password when asked, and is gone when stopped; paused it
 * answers nothing, killed nothing listens; a 3-master cluster comes up and redirects
 * (MOVED, ASK) as its helpers say; the servers that never answer do not.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "redis_server.h"
#include "harness.h"

static const char *call(const struct rj_redis_server *s, const char *const *words)
{
	static char reply[256];

	if (rj_redis_call(s, 1000, reply, sizeof reply, words) != 0)
		return "(no reply)";
	return reply;
}

TEST(server_comes_up_answers_and_is_gone_when_stopped)
{
	struct rj_redis_server s;
	struct stat st;

	rj_redis_start(&s, "redis", NULL);
	ASSERT(s.pid > 0 && s.port > 0);
	ASSERT_STR(call(&s, (const char *const[]){ "SET", "k", "value one", NULL }), "+OK");
	ASSERT_STR(call(&s, (const char *const[]){ "GET", "k", NULL }), "value one");
	ASSERT_STR(call(&s, (const char *const[]){ "GET", "missing", NULL }), "(nil)");
	ASSERT_STR(call(&s, (const char *const[]){ "DBSIZE", NULL }), ":1");
	ASSERT(stat(s.sock, &st) == 0 && S_ISSOCK(st.st_mode));
	rj_redis_stop(&s);
	ASSERT_INT(s.pid, 0);
	ASSERT_STR(call(&s, (const char *const[]){ "PING", NULL }), "(no reply)");
}

TEST(server_takes_a_password_when_asked)
{
	struct rj_redis_server s;

	rj_redis_start(&s, "redis-auth", (const char *const[]){ "--requirepass", "pw", NULL });
	ASSERT_CONTAINS(call(&s, (const char *const[]){ "GET", "k", NULL }), "NOAUTH");
	rj_redis_stop(&s);
}

TEST(stopped_server_answers_nothing_within_the_timeout)
{
	struct rj_redis_server s;
	char reply[64];

	rj_redis_start(&s, "redis-stopped", NULL);
	ASSERT_INT(kill(s.pid, SIGSTOP), 0);
	ASSERT_INT(rj_redis_call(&s, 200, reply, sizeof reply,
				 (const char *const[]){ "PING", NULL }),
		   -1);
	rj_redis_stop(&s); /* continues it, then ends it */
	ASSERT_INT(s.pid, 0);
}

/* --- the client's replies --- */

TEST(call_writes_an_array_one_element_a_line_and_authenticates_when_told)
{
	struct rj_redis_server s;

	rj_redis_start(&s, "redis-arrays", (const char *const[]){ "--requirepass", "pw", NULL });
	ASSERT_CONTAINS(call(&s, (const char *const[]){ "PING", NULL }), "NOAUTH");
	snprintf(s.password, sizeof s.password, "wrong");
	ASSERT_CONTAINS(call(&s, (const char *const[]){ "PING", NULL }), "-WRONGPASS");
	snprintf(s.password, sizeof s.password, "pw");
	ASSERT_STR(call(&s, (const char *const[]){ "PING", NULL }), "+PONG");
	ASSERT_STR(call(&s, (const char *const[]){ "RPUSH", "l", "a", "b c", "", "d", NULL }),
		   ":4");
	ASSERT_STR(call(&s, (const char *const[]){ "LRANGE", "l", "0", "-1", NULL }),
		   "a\nb c\n\nd");
	ASSERT_STR(call(&s, (const char *const[]){ "LRANGE", "none", "0", "-1", NULL }), "");
	/* Nested: [cursor, [keys]]; a small database is scanned whole at once. */
	ASSERT_STR(call(&s, (const char *const[]){ "SCAN", "0", NULL }), "0\nl");
	ASSERT_STR(call(&s, (const char *const[]){ "MGET", "l", "none", NULL }),
		   "(nil)\n(nil)"); /* MGET gives nil for a key of another type */
	rj_redis_stop(&s);
}

/* --- pausing and killing --- */

/* connect()'s errno to 127.0.0.1:port within 1 s: 0 when it connected. */
static int tcp_connect_errno(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	ASSERT(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	err = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : errno;
	close(fd);
	return err;
}

static int unix_connect_errno(const char *path)
{
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	ASSERT(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	err = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : errno;
	close(fd);
	return err;
}

static double ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

TEST(paused_server_times_out_and_answers_once_resumed)
{
	struct rj_redis_server s;
	char reply[64];
	double t0;

	rj_redis_start(&s, "redis-paused", NULL);
	rj_redis_pause(&s);
	ASSERT_INT(tcp_connect_errno(s.port), 0); /* the kernel still connects */
	t0 = ms_now();
	ASSERT_INT(rj_redis_call(&s, 300, reply, sizeof reply,
				 (const char *const[]){ "PING", NULL }),
		   -1);
	ASSERT(ms_now() - t0 >= 290);
	rj_redis_resume(&s);
	ASSERT_STR(call(&s, (const char *const[]){ "PING", NULL }), "+PONG");
	rj_redis_pause(&s);
	t0 = ms_now();
	rj_redis_stop(&s); /* continues it, then ends it: promptly, not at the SIGKILL */
	ASSERT_INT(s.pid, 0);
	ASSERT(ms_now() - t0 < 1500);
	ASSERT_INT(tcp_connect_errno(s.port), ECONNREFUSED);
}

TEST(killed_server_leaves_nothing_listening)
{
	struct rj_redis_server s;

	rj_redis_start(&s, "redis-killed", NULL);
	ASSERT_INT(unix_connect_errno(s.sock), 0);
	rj_redis_kill9(&s);
	ASSERT_INT(s.pid, 0);
	ASSERT_INT(tcp_connect_errno(s.port), ECONNREFUSED);
	ASSERT_INT(unix_connect_errno(s.sock), ECONNREFUSED);
	ASSERT_STR(call(&s, (const char *const[]){ "PING", NULL }), "(no reply)");
	rj_redis_stop(&s); /* harmless */
	/* Paused, it dies all the same. */
	rj_redis_start(&s, "redis-killed-paused", NULL);
	rj_redis_pause(&s);
	rj_redis_kill9(&s);
	ASSERT_INT(tcp_connect_errno(s.port), ECONNREFUSED);
}

/* --- servers that never answer --- */

TEST(blackhole_connect_stays_in_progress)
{
	struct rj_redis_server s;
	struct sockaddr_in a;
	struct pollfd p;
	char reply[64];
	int port = 0, listener = rj_blackhole_listen(&port), fd, err = -1;
	socklen_t len = sizeof err;
	double t0;

	ASSERT(listener >= 0 && port > 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT(connect(fd, (struct sockaddr *)&a, sizeof a) == -1 && errno == EINPROGRESS);
	p.fd = fd;
	p.events = POLLOUT;
	p.revents = 0;
	ASSERT_INT(poll(&p, 1, 300), 0); /* not connected, not failed: still in progress */
	ASSERT(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
	ASSERT_INT(err, 0);
	close(fd);
	/* A client's command to it ends at its timeout, not before. */
	memset(&s, 0, sizeof s);
	s.port = port;
	t0 = ms_now();
	ASSERT_INT(rj_redis_call(&s, 300, reply, sizeof reply,
				 (const char *const[]){ "PING", NULL }),
		   -1);
	ASSERT(ms_now() - t0 >= 290);
	/* Two at once work too. */
	{
		int port2 = 0, listener2 = rj_blackhole_listen(&port2);
		s.port = port2;
		ASSERT(port2 != port);
		ASSERT_INT(rj_redis_call(&s, 200, reply, sizeof reply,
					 (const char *const[]){ "PING", NULL }),
			   -1);
		rj_blackhole_close(listener2);
	}
	rj_blackhole_close(listener);
	ASSERT_INT(tcp_connect_errno(port), ECONNREFUSED);
}

TEST(silent_server_accepts_and_never_replies)
{
	struct rj_redis_server s;
	char reply[64];
	int port = 0;
	pid_t pid = rj_silent_server_start(&port);
	double t0;

	ASSERT(pid > 0 && port > 0);
	ASSERT_INT(tcp_connect_errno(port), 0);
	memset(&s, 0, sizeof s);
	s.port = port;
	t0 = ms_now();
	ASSERT_INT(rj_redis_call(&s, 300, reply, sizeof reply,
				 (const char *const[]){ "PING", NULL }),
		   -1);
	ASSERT(ms_now() - t0 >= 290);
	rj_silent_server_stop(pid);
	ASSERT_INT(tcp_connect_errno(port), ECONNREFUSED);
}

/* --- the cluster --- */

/* "-MOVED <slot> 127.0.0.1:<port of node i>" (or -ASK). */
static const char *redirect(const char *kind, int slot, const struct rj_redis_cluster *c, int i)
{
	static char text[96];

	snprintf(text, sizeof text, "-%s %d 127.0.0.1:%d", kind, slot, c->node[i].port);
	return text;
}

TEST(cluster_comes_up_and_its_owner_serves_a_key)
{
	struct rj_redis_cluster c;
	double t0 = ms_now();
	int owner;

	rj_redis_cluster_start(&c, "cluster", NULL);
	printf("cluster up in %.0f ms, ports %d %d %d\n", ms_now() - t0, c.node[0].port,
	       c.node[1].port, c.node[2].port);
	for (int i = 0; i < 3; i++) {
		ASSERT(c.node[i].port > 10000 && c.node[i].port + 10000 <= 65535);
		ASSERT_CONTAINS(call(&c.node[i], (const char *const[]){ "CLUSTER", "INFO", NULL }),
				"cluster_state:ok");
	}
	/* Every slot has exactly one owner, and each node owns some. */
	{
		int owns[3] = { 0, 0, 0 };
		for (int slot = 0; slot < 16384; slot += 1024) {
			int o = rj_redis_cluster_node_of_slot(&c, slot);
			ASSERT(o >= 0 && o < 3);
			owns[o]++;
		}
		ASSERT(owns[0] && owns[1] && owns[2]);
	}
	ASSERT_INT(rj_redis_cluster_slot_of(&c, "foo"), 12182); /* the Redis manual's */
	owner = rj_redis_cluster_node_of_key(&c, "rocjit:key");
	ASSERT(owner >= 0);
	ASSERT_STR(call(&c.node[owner], (const char *const[]){ "SET", "rocjit:key", "v", NULL }),
		   "+OK");
	ASSERT_STR(call(&c.node[owner], (const char *const[]){ "GET", "rocjit:key", NULL }), "v");
	rj_redis_cluster_stop(&c);
	for (int i = 0; i < 3; i++)
		ASSERT_INT(tcp_connect_errno(c.node[i].port), ECONNREFUSED);
}

TEST(cluster_wrong_node_answers_moved_to_the_owner)
{
	struct rj_redis_cluster c;
	char key[32];
	int seen[3] = { 0, 0, 0 };

	rj_redis_cluster_start(&c, "cluster-moved", NULL);
	for (int k = 0; k < 12; k++) {
		int owner, slot;
		snprintf(key, sizeof key, "key:%d", k);
		owner = rj_redis_cluster_node_of_key(&c, key);
		slot = rj_redis_cluster_slot_of(&c, key);
		ASSERT(owner >= 0);
		seen[owner] = 1;
		for (int i = 0; i < 3; i++) {
			const char *got = call(&c.node[i], (const char *const[]){ "GET", key, NULL });
			ASSERT_STR(got, i == owner ? "(nil)" : redirect("MOVED", slot, &c, owner));
		}
	}
	ASSERT(seen[0] && seen[1] && seen[2]);
	rj_redis_cluster_stop(&c);
}

TEST(cluster_half_migrated_slot_answers_ask_and_moved_once_finished)
{
	struct rj_redis_cluster c;
	int from, to, third, slot;

	rj_redis_cluster_start(&c, "cluster-ask", NULL);
	slot = rj_redis_cluster_slot_of(&c, "{t}a");
	ASSERT_INT(rj_redis_cluster_slot_of(&c, "{t}b"), slot);
	from = rj_redis_cluster_node_of_slot(&c, slot);
	to = (from + 1) % 3;
	third = (from + 2) % 3;
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "SET", "{t}a", "A", NULL }), "+OK");
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "SET", "{t}b", "B", NULL }), "+OK");

	rj_redis_cluster_migrate_start(&c, slot, to, (const char *const[]){ "{t}a", NULL });
	/* The source sends a client on for the moved key, serves the one it still holds. */
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "GET", "{t}a", NULL }),
		   redirect("ASK", slot, &c, to));
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "GET", "{t}b", NULL }), "B");
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "GET", "{t}new", NULL }),
		   redirect("ASK", slot, &c, to));
	/* The destination holds it, but without ASKING sends a client back to the owner. */
	{
		char slot_text[16];
		snprintf(slot_text, sizeof slot_text, "%d", slot);
		ASSERT_STR(call(&c.node[to], (const char *const[]){ "CLUSTER", "COUNTKEYSINSLOT",
								     slot_text, NULL }),
			   ":1");
	}
	ASSERT_STR(call(&c.node[to], (const char *const[]){ "GET", "{t}a", NULL }),
		   redirect("MOVED", slot, &c, from));
	ASSERT_INT(rj_redis_cluster_node_of_key(&c, "{t}a"), from);

	rj_redis_cluster_migrate_finish(&c, slot, to);
	ASSERT_INT(rj_redis_cluster_node_of_key(&c, "{t}a"), to);
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "GET", "{t}a", NULL }),
		   redirect("MOVED", slot, &c, to));
	ASSERT_STR(call(&c.node[third], (const char *const[]){ "GET", "{t}b", NULL }),
		   redirect("MOVED", slot, &c, to));
	ASSERT_STR(call(&c.node[to], (const char *const[]){ "GET", "{t}a", NULL }), "A");
	ASSERT_STR(call(&c.node[to], (const char *const[]){ "GET", "{t}b", NULL }), "B");
	for (int i = 0; i < 3; i++)
		ASSERT_CONTAINS(call(&c.node[i], (const char *const[]){ "CLUSTER", "INFO", NULL }),
				"cluster_state:ok");
	rj_redis_cluster_stop(&c);
}

TEST(cluster_with_a_password_moves_a_slot_with_its_keys)
{
	struct rj_redis_cluster c;
	struct rj_redis_server bare;
	char key[32];
	int from, to, slot;

	rj_redis_cluster_start(&c, "cluster-auth",
			       (const char *const[]){ "--requirepass", "s3cret", NULL });
	ASSERT_STR(c.password, "s3cret");
	ASSERT_STR(c.node[1].password, "s3cret");
	bare = c.node[0];
	bare.password[0] = 0;
	ASSERT_CONTAINS(call(&bare, (const char *const[]){ "GET", "x", NULL }), "NOAUTH");

	slot = rj_redis_cluster_slot_of(&c, "{m}0");
	from = rj_redis_cluster_node_of_slot(&c, slot);
	to = (from + 2) % 3;
	for (int k = 0; k < 120; k++) { /* more than one GETKEYSINSLOT round */
		snprintf(key, sizeof key, "{m}%d", k);
		ASSERT_STR(call(&c.node[from], (const char *const[]){ "SET", key, key, NULL }),
			   "+OK");
	}
	rj_redis_cluster_move_slot(&c, slot, to);
	ASSERT_INT(rj_redis_cluster_node_of_slot(&c, slot), to);
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "DBSIZE", NULL }), ":0");
	ASSERT_STR(call(&c.node[to], (const char *const[]){ "DBSIZE", NULL }), ":120");
	ASSERT_STR(call(&c.node[to], (const char *const[]){ "GET", "{m}119", NULL }), "{m}119");
	ASSERT_STR(call(&c.node[from], (const char *const[]){ "GET", "{m}7", NULL }),
		   redirect("MOVED", slot, &c, to));
	rj_redis_cluster_stop(&c);
}
