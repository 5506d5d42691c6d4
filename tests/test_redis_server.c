/*
 * test_redis_server.c - the tests' own redis-server (tests/redis_server.c), which the
 * remote tier's tests run against: it comes up on a free port and a unix socket, answers,
 * keeps nothing on disk, takes a password when asked, and is gone when stopped.
 */
#include <signal.h>
#include <sys/stat.h>
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
