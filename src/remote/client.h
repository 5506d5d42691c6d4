/*
 * client.h - the Redis deployment a remote URL names, standalone or a cluster, behind one
 * call: a command for a key goes to the server that holds the key (see client.c).
 */
#ifndef ROCJIT_REMOTE_CLIENT_H
#define ROCJIT_REMOTE_CLIENT_H

#include <stddef.h>

#include "remote/conn.h"
#include "remote/url.h"

/* rj_redis_command's failures besides -RJ_CONN_*: */
enum {
	RJ_REDIS_OFF = 120,   /* not tried: the breaker is open after a failure (see client.c) */
	RJ_REDIS_AUTH,        /* the server refused the credentials (or wants some)            */
	RJ_REDIS_UNAVAILABLE, /* the server cannot serve now: loading, cluster down, a master
	                         that lost its link, too many redirections                   */
};

struct rj_redis;

/*
 * A client for u (copied).  Connects to nothing yet: the first command does.  The
 * password is u's, else the first line of password_file (may be NULL), read at the first
 * connection.  retry_ms: how long the breaker stays open after a failure.  0 or
 * ROCJIT_ENOMEM.  Not thread-safe: its user locks (remote.c).
 */
int rj_redis_open(struct rj_redis **out, const struct rj_remote_url *u, const char *password_file,
		  int retry_ms);
/* Closes every connection (sends nothing).  NULL: nothing. */
void rj_redis_close(struct rj_redis *r);
/* Drops every connection and the cluster map without a word to the servers: for a fork
 * child, whose sockets are its parent's too, and after a failure. */
void rj_redis_drop(struct rj_redis *r);

/*
 * Sends one command for key (the key its slot is computed from in a cluster; NULL: any
 * server) and reads its reply, within the URL's timeout; in a cluster it follows MOVED
 * and ASK redirections, to the cluster's members only (the URL's seeds and the slot
 * map's masters, the map read again once when a redirection names another: credentials
 * never go to an address a server merely names), and refreshes its slot map.  The whole
 * command, redirections and map reads included, ends within twice connect_timeout plus
 * timeout (-RJ_CONN_TIMEOUT, saying so).  The password file is read under the trust
 * rule (RJ_TRUST_SECRET: a regular file of this user or root, mode 0600, never waited
 * on).  On a fresh connection the
 * credentials and the database go first in the same round trip.  0 and *reply (an error
 * reply is a reply: "-OOM ...", "-READONLY ...", "-WRONGTYPE ..."), or a negative
 * -RJ_CONN_* / -RJ_REDIS_* code with rocjit_last_error() saying what failed at which
 * server.  A failure opens the breaker: the commands of the next retry_ms fail with
 * -RJ_REDIS_OFF at once, without touching the network.
 */
int rj_redis_command(struct rj_redis *r, const char *key, int argc, const char *const *argv,
		     const size_t *argvlen, struct rj_reply **reply);

/*
 * Shares the breaker with the node's other processes through a file in the folder dirfd
 * (the on-disk cache's, valid while the client is used; -1: not shared).  A process about
 * to connect first looks at the file: written by another process's failure less than
 * retry_ms ago, it fails at once with that failure (-RJ_REDIS_OFF), without paying a
 * timeout itself.  A failure writes the file; a connection that works removes it.
 */
void rj_redis_share_breaker(struct rj_redis *r, int dirfd);

/* quiet: a failure prints no warning (an administrative call reports it itself). */
void rj_redis_set_quiet(struct rj_redis *r, int quiet);

/* Closes the breaker: the next command is sent whatever the last failure was. */
void rj_redis_reset_breaker(struct rj_redis *r);

/* 1 when the breaker is open now (commands would fail with -RJ_REDIS_OFF). */
int rj_redis_is_off(struct rj_redis *r);
/* Why it opened (a message with the server and the reason), "" when it is closed. */
const char *rj_redis_off_reason(const struct rj_redis *r);
/* Opens the breaker as a failure would, with why: for an error the caller found in a
 * reply that means the server cannot serve (out of memory is not one). */
void rj_redis_trip(struct rj_redis *r, const char *why);

/*
 * Calls fn once for every server of the deployment (a cluster: each master of the slot
 * map; standalone: the one server) with a connection ready for commands and the
 * server's address for messages.  Stops at fn's first non-zero return and returns it;
 * a server that cannot be reached fails the walk (-RJ_CONN_*, -RJ_REDIS_*).
 */
int rj_redis_each_server(struct rj_redis *r,
			 int (*fn)(struct rj_conn *c, const char *where, void *user), void *user);

/* How many masters the last slot map named (a cluster), else 1. */
int rj_redis_servers(const struct rj_redis *r);

/* The cluster key slot of key (CRC16 of the key or of its {hash tag}, mod 16384). */
unsigned rj_redis_key_slot(const char *key, size_t len);

#endif
