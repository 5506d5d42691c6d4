/*
 * conn.h - one connection to one Redis server, every operation under a deadline (see
 * conn.c).  The only file of rocjit that knows hiredis: built without it, every open
 * fails with ROCJIT_EUNSUPPORTED saying so.
 */
#ifndef ROCJIT_REMOTE_CONN_H
#define ROCJIT_REMOTE_CONN_H

#include <stddef.h>

/* A reply, as the server sent it.  Strings point into memory the reply owns (not
 * NUL-terminated: use len); valid until rj_reply_free of the top reply. */
enum rj_reply_type {
	RJ_REPLY_STRING = 1, /* a bulk string                  */
	RJ_REPLY_ARRAY,      /* n elements in elem             */
	RJ_REPLY_INTEGER,
	RJ_REPLY_NIL,
	RJ_REPLY_STATUS,     /* "+OK"                          */
	RJ_REPLY_ERROR,      /* "-ERR ...", "-MOVED ...", ...  */
};

struct rj_reply {
	enum rj_reply_type type;
	long long integer;
	const char *str;
	size_t len;
	size_t n;
	struct rj_reply *elem;
	void *owner;            /* the client library's reply (top level only) */
	void *shared;           /* or, for a string of some size read straight from the
	                           socket: its buffer (base/shared.h), str; whoever takes
	                           it sets this to NULL */
};

void rj_reply_free(struct rj_reply *r);
/* 1 when r is a status or error reply whose text starts with word ("OK", "MOVED"). */
int rj_reply_is(const struct rj_reply *r, enum rj_reply_type type, const char *word);

/* Why an operation failed (rj_conn_* return these, negated, after recording the message;
 * apart from the ROCJIT_E* codes, which they never leave the remote tier as). */
enum rj_conn_error {
	RJ_CONN_DOWN = 101,  /* could not connect: refused, unreachable, no such name      */
	RJ_CONN_TIMEOUT,     /* connect or operation past its deadline                     */
	RJ_CONN_IO,          /* the connection broke (reset, closed by the server)          */
	RJ_CONN_PROTOCOL,    /* the server's bytes are not the Redis protocol               */
	RJ_CONN_NOMEM,
	RJ_CONN_UNSUPPORTED, /* built without hiredis                                       */
	RJ_CONN_UNTRUSTED,   /* a unix socket another user owns, can replace or serves
	                        (base/trust.h): never connected, or left at once            */
};

struct rj_conn;

/*
 * Connects to host:port (TCP, with TCP_NODELAY) or, when path is not NULL, to the unix
 * socket path, within connect_ms.  A unix socket falls under the trust rule
 * (base/trust.h): owned by this user or root, in a folder only they can write (or a
 * sticky one), served by a process of this user or root (SO_PEERCRED); else
 * -RJ_CONN_UNTRUSTED with the rule's message, nothing sent.  Name resolution is the system's (getaddrinfo) and is
 * not bounded by connect_ms: give an address where that matters.  0, or -RJ_CONN_* with
 * rocjit_last_error() saying what failed and where ("connecting to 127.0.0.1:6379:
 * connection refused").
 */
int rj_conn_open(struct rj_conn **out, const char *host, int port, const char *path,
		 int connect_ms);

/*
 * Sends n commands at once (a pipeline: command i is argc[i] words argv[i][j] of
 * argvlen[i][j] bytes) and reads their n replies into replies[], all within timeout_ms
 * (checked before every read: a server that keeps sending never outlasts it).  The
 * replies are bounded in bytes (rj_conn_limit) and in what the parser makes of them:
 * 2^18 objects at most and arrays 4 deep, refused before they are allocated
 * (-RJ_CONN_PROTOCOL, saying which).  An error reply is a reply, not a failure.  0; or
 * -RJ_CONN_* and no reply (those read are freed): the connection is then unusable,
 * close it.
 */
int rj_conn_pipeline(struct rj_conn *c, size_t n, const int *argc, const char *const *const *argv,
		     const size_t *const *argvlen, struct rj_reply **replies, int timeout_ms);

/* One command: rj_conn_pipeline with n = 1. */
int rj_conn_call(struct rj_conn *c, int argc, const char *const *argv, const size_t *argvlen,
		 struct rj_reply **reply, int timeout_ms);

/* The most bytes the replies of one call may take (0: the largest value, 257 MiB, the
 * default).  A reply past it fails the call (-RJ_CONN_PROTOCOL). */
#define RJ_CONN_SMALL_REPLY ((size_t)4 << 20)
void rj_conn_limit(struct rj_conn *c, size_t max_bytes);

/* Closes the connection (NULL: nothing).  Sends nothing: safe in a fork child. */
void rj_conn_close(struct rj_conn *c);

/* 1 when this build can talk to Redis at all. */
int rj_conn_available(void);

#endif
