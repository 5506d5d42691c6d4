/*
 * redis_server.h - a real redis-server for a test (the remote tier, issue 15): started on
 * 127.0.0.1 at a free port and on a unix socket in the test's folder, with nothing saved
 * to disk, and ended with the test process (PR_SET_PDEATHSIG) whatever happens to it.
 */
#ifndef ROCJIT_TEST_REDIS_SERVER_H
#define ROCJIT_TEST_REDIS_SERVER_H

#include <stddef.h>
#include <sys/types.h>

struct rj_redis_server {
	pid_t pid;
	int port;
	char dir[4200];         /* its folder, in the test's */
	char sock[4300];        /* its unix socket */
};

/*
 * Starts one, with extra ("--requirepass", "x", ..., NULL; may be NULL) after rocjit's
 * settings, and waits (5 s at most) until it answers PING.  Skips the test (exit 77) when
 * redis-server is not installed (tools/install-deps.sh installs it); fails it when the
 * server does not come up.  name: a folder name for it in the test's folder.
 */
void rj_redis_start(struct rj_redis_server *s, const char *name, const char *const *extra);

/* Ends it (SIGTERM, then SIGKILL after 2 s) and waits for it.  Harmless when stopped. */
void rj_redis_stop(struct rj_redis_server *s);

/*
 * Sends one command (its words, NULL-terminated) over TCP in the Redis protocol and reads
 * one reply into reply (size bytes, NUL-terminated): a status or error line as it comes
 * ("+OK", "-ERR ..."), an integer as ":N", a bulk string's bytes, "(nil)".  0, or -1 when
 * no reply came within timeout_ms.
 */
int rj_redis_call(const struct rj_redis_server *s, int timeout_ms, char *reply, size_t size,
		  const char *const *words);

#endif
