/*
 * url.h - where the remote tier is (ROCJIT_REMOTE, rocjit_options): the URL's
 * syntax, its options, and how it is shown without its password (see url.c).
 */
#ifndef ROCJIT_REMOTE_URL_H
#define ROCJIT_REMOTE_URL_H

#include <stddef.h>
#include <stdint.h>

/* Defaults: a remote cache is asked on the request path, so a server that does not answer
 * costs at most these (README, "The remote tier"). */
#define RJ_REMOTE_PORT 6379
#define RJ_REMOTE_CONNECT_MS 100
#define RJ_REMOTE_TIMEOUT_MS 1000
#define RJ_REMOTE_RETRY_MS 30000   /* after a failure, the server is left alone this long */
#define RJ_REMOTE_LEASE_MS 10000   /* a fleet compile lock lives this long unless renewed */
#define RJ_REMOTE_PREFIX "rocjit"
#define RJ_REMOTE_MAX_HOSTS 16

enum rj_remote_kind {
	RJ_REMOTE_TCP,     /* redis://[user[:password]@]host[:port][/db] */
	RJ_REMOTE_UNIX,    /* unix:///path/to/redis.sock */
	RJ_REMOTE_CLUSTER, /* redis-cluster://[user[:password]@]host:port[,host:port...] */
};

struct rj_remote_host {
	char name[256];    /* a name, an IPv4 address, or an IPv6 address without brackets */
	int port;
};

struct rj_remote_url {
	enum rj_remote_kind kind;
	struct rj_remote_host hosts[RJ_REMOTE_MAX_HOSTS]; /* TCP: 1; a cluster: its seeds */
	int nhosts;
	char path[108];         /* UNIX: the socket (sun_path's size) */
	char user[128];         /* empty: none (AUTH with the password alone) */
	char password[512];     /* empty: none */
	int db;                 /* SELECT; a cluster has only 0 */
	int readonly;           /* ?readonly: read, never write or lock */
	char prefix[64];        /* ?prefix=: keys are <prefix>:<format>:<key> */
	int64_t ttl_s;          /* ?ttl=: seconds a value lives; 0: until evicted */
	int connect_ms;         /* ?connect_timeout= */
	int timeout_ms;         /* ?timeout=: each operation */
	int retry_ms;           /* ?retry=: the breaker's period after a failure */
	int lease_ms;           /* ?lease=: a compile lock's lease, renewed at a third */
};

/*
 * Parses text into *out.  0, or ROCJIT_EINVAL with a message that names what is wrong and
 * shows the URL without its password.  User and password may be percent-encoded (a
 * password with '@', ':' or '/' must be).  Query options, after '?', separated by '&':
 * readonly, prefix=NAME, ttl=SECONDS, connect_timeout=MS, timeout=MS, retry=MS,
 * lease=MS, and for unix: db=N.
 */
int rj_remote_url_parse(const char *text, struct rj_remote_url *out);

/*
 * text as it may be shown: the password, if any, replaced by "***", and a user slot
 * without a password ("redis://secret@host") replaced whole.  Whatever text is, parsable
 * or not, nothing between the scheme's "//" and the last '@' that follows a ':' is ever
 * copied, nor anything between them when no ':' comes before that '@'.  out always ends
 * with a NUL.
 */
void rj_remote_url_redact(const char *text, char *out, size_t size);

/* The URL *u names, shown without its password (the same as rj_remote_url_redact of a
 * URL that parses to *u). */
void rj_remote_url_show(const struct rj_remote_url *u, char *out, size_t size);

#endif
