/*
 * conn.c - one connection to one Redis server, every operation under a deadline.
 *
 * hiredis (Debian's libhiredis-dev) encodes the commands and parses the replies; the
 * socket is this file's own, so that every step is bounded by the caller's deadline and
 * nothing can stop the application:
 *  - connect: non-blocking, polled until connect_ms (hiredis's blocking connect has no
 *    bound on some versions' address loops);
 *  - send: MSG_NOSIGNAL, so a server that died mid-request is an error, never a SIGPIPE
 *    that ends the application (hiredis writes with write(2));
 *  - receive: bounded by the operation's deadline, checked before every read and not
 *    only when the socket would block (a server that streams fast never waits, and must
 *    trip it all the same), and bounded in bytes (a value past RJ_CONN_MAX_REPLY is
 *    refused, never buffered whole);
 *  - parse: bounded in what the bytes make, not only in bytes: a four-byte ":1\r\n"
 *    becomes some 140 bytes of reply objects, and "*2000000000\r\n" asks for 16 GB of
 *    element slots at once.  Every object the parser would make is counted against
 *    RJ_CONN_MAX_OBJECTS per call and arrays nest at most RJ_CONN_MAX_DEPTH deep, both
 *    checked before the object is allocated (our own hiredis object functions).
 * Knows nothing of what is stored, of clusters or of retries: client.c and remote.c.
 * Not thread-safe: a connection is used by one thread at a time (client.c locks).
 */
#include "remote/conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/shared.h"
#include "base/trust.h"

/* The most bytes one operation may receive: the largest value (record.h) plus room. */
#define RJ_CONN_MAX_REPLY (((size_t)256 << 20) + ((size_t)1 << 20))
/* A string at least this long is received straight into a buffer of its own. */
#define DIRECT_MIN 2048
/* The most reply objects (strings, integers, nils, arrays) the replies of one call may
 * make: well above what rocjit asks for (a SCAN page of 1000 keys; CLUSTER SLOTS of a
 * cluster cut into every one of its 16384 slots, some 8 objects a range and 4 a
 * replica), far below what costs memory (about 140 bytes each: some 36 MB at most). */
#define RJ_CONN_MAX_OBJECTS ((size_t)1 << 18)
/* How deep arrays may nest in a reply: CLUSTER SLOTS, the deepest rocjit reads, has 3. */
#define RJ_CONN_MAX_DEPTH 4

void rj_reply_free(struct rj_reply *r);

#ifdef ROCJIT_HAVE_HIREDIS

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

struct rj_conn {
	int fd;
	redisReader *reader;
	size_t limit;        /* bytes one call may receive (rj_conn_limit) */
	size_t objects;      /* reply objects the parser made or was asked for this call */
	const char *refused; /* why the parser's last object was refused, or NULL */
	redisReplyObjectFunctions fns;         /* hiredis's own, each behind a count */
	const redisReplyObjectFunctions *made; /* hiredis's own */
	char where[300];     /* "127.0.0.1:6379", "/run/redis.sock": for messages */
};

void rj_conn_limit(struct rj_conn *c, size_t max_bytes)
{
	c->limit = max_bytes && max_bytes < RJ_CONN_MAX_REPLY ? max_bytes : RJ_CONN_MAX_REPLY;
}

int rj_conn_available(void)
{
	return 1;
}

/*
 * The parser's object functions: each counts the object it is about to make (an array's
 * declared slots must fit in what is left) and refuses past RJ_CONN_MAX_OBJECTS or
 * RJ_CONN_MAX_DEPTH by returning NULL, which the parser takes for out of memory: it stops
 * there, before allocating.  c->refused says which bound it was (read_parsed's message).
 * The reader's privdata is the connection (every task carries it).
 */
static int admit(const redisReadTask *task, size_t slots)
{
	struct rj_conn *c = task->privdata;
	int depth = 0;

	for (const redisReadTask *p = task->parent; p; p = p->parent)
		depth++;
	if (depth > RJ_CONN_MAX_DEPTH) {
		c->refused = "arrays nested deeper than rocjit ever asks for";
		return 0;
	}
	/* An array's slots are allocated at once, each to be filled by an object that is
	   counted when it comes: they must fit in what is left (so at most
	   RJ_CONN_MAX_DEPTH + 1 arrays under way hold unfilled slots, 2 MB each). */
	if (slots >= RJ_CONN_MAX_OBJECTS - c->objects) {
		c->refused = "more elements in one reply than rocjit ever asks for";
		return 0;
	}
	c->objects++;
	return 1;
}

static void *count_string(const redisReadTask *task, char *str, size_t len)
{
	struct rj_conn *c = task->privdata;
	return admit(task, 0) ? c->made->createString(task, str, len) : NULL;
}

static void *count_array(const redisReadTask *task, int elements)
{
	struct rj_conn *c = task->privdata;
	return admit(task, elements > 0 ? (size_t)elements : 0) ?
		       c->made->createArray(task, elements) : NULL;
}

static void *count_integer(const redisReadTask *task, long long value)
{
	struct rj_conn *c = task->privdata;
	return admit(task, 0) ? c->made->createInteger(task, value) : NULL;
}

static void *count_nil(const redisReadTask *task)
{
	struct rj_conn *c = task->privdata;
	return admit(task, 0) ? c->made->createNil(task) : NULL;
}

/* Waits until fd is ready for events or the deadline (rj_now_ms) passes: 1 ready, 0 past
 * the deadline, -1 poll failed. */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		double left = deadline - rj_now_ms();
		int rc;

		if (left <= 0)
			return 0;
		rc = poll(&p, 1, left < 1 ? 1 : (int)left);
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

/* Connects socket fd to addr within deadline: 0, or -RJ_CONN_* with *err set. */
static int connect_within(int fd, const struct sockaddr *addr, socklen_t len, double deadline,
			  int *err)
{
	socklen_t elen = sizeof *err;
	int rc;

	if (connect(fd, addr, len) == 0)
		return 0;
	if (errno != EINPROGRESS && errno != EINTR && errno != EAGAIN) {
		*err = errno;
		return -RJ_CONN_DOWN;
	}
	rc = wait_fd(fd, POLLOUT, deadline);
	if (rc == 0) {
		*err = ETIMEDOUT;
		return -RJ_CONN_TIMEOUT;
	}
	if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &elen) != 0) {
		*err = errno;
		return -RJ_CONN_DOWN;
	}
	return *err ? -RJ_CONN_DOWN : 0;
}

static int new_socket(int family)
{
	return socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

/*
 * The trust rule (base/trust.h) for the socket path and its folder, before connecting:
 * whoever owns the socket file, or can replace it, chooses the server.  Only the owner
 * half applies to the socket itself (its mode says who may connect).
 *   - A socket of this user or root: its folder may be writable by all when it is sticky
 *     (/tmp: others may add names there, not replace ours).
 *   - A socket of another user U (a system service: Debian's redis-server runs as user
 *     redis, its socket in /run/redis): only in a folder of U's or root's that nobody
 *     else can write, sticky or not, since in /tmp any user could have made it.  U then
 *     counts as the server's own user (*service) for the check after the connection.
 * The server's uid is checked after the connection (rj_trust_check_peer): the process
 * serving must be this user, root or the socket's service user.
 */
static int check_socket_path(const char *path, uid_t *service)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');
	struct stat ds, ss;
	int have_dir;

	*service = (uid_t)-1;
	snprintf(dir, sizeof dir, "%.*s", slash && slash != path ? (int)(slash - path) : 1,
		 slash ? path : ".");
	have_dir = stat(dir, &ds) == 0;
	if (stat(path, &ss) == 0 && ss.st_uid != geteuid() && ss.st_uid != 0) {
		RJ_CHECK(!have_dir || (ds.st_uid != ss.st_uid && ds.st_uid != 0) ||
			 (ds.st_mode & (S_IWGRP | S_IWOTH)), ROCJIT_EIO,
			 "the remote cache's socket %s is owned by user %u, not by you (%u) or "
			 "root, in a folder %s: another user could have put it there, and "
			 "whoever serves it can put code on the GPU; use a server of your own, or "
			 "a service's socket in the service's own folder (as /run/redis)", path,
			 (unsigned)ss.st_uid, (unsigned)geteuid(), !have_dir ? "that cannot be "
			 "checked" : (ds.st_mode & (S_IWGRP | S_IWOTH)) ? "others can write" :
			 "of a third user");
		*service = ss.st_uid;
		return 0;
	}
	if (have_dir) {
		if (ds.st_mode & S_ISVTX)
			ds.st_mode &= ~(mode_t)(S_IWGRP | S_IWOTH);
		RJ_FORWARD(rj_trust_check_stat(&ds, dir, "the folder of the remote cache's socket",
					       0));
	}
	return 0;
}

static int open_unix(const char *path, double deadline, int *fd_out, int *err)
{
	struct sockaddr_un a;
	uid_t service;
	int fd, rc;

	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof a.sun_path) {
		*err = ENAMETOOLONG;
		return -RJ_CONN_DOWN;
	}
	memcpy(a.sun_path, path, strlen(path));
	if (check_socket_path(path, &service) != 0)
		return -RJ_CONN_UNTRUSTED;
	fd = new_socket(AF_UNIX);
	if (fd < 0) {
		*err = errno;
		return -RJ_CONN_DOWN;
	}
	rc = connect_within(fd, (const struct sockaddr *)&a, sizeof a, deadline, err);
	if (rc == -RJ_CONN_DOWN && *err == EAGAIN)
		rc = -RJ_CONN_TIMEOUT; /* the server's backlog is full: it does not accept */
	if (rc == 0 && rj_trust_check_peer(fd, path, "the remote cache's socket", service) != 0)
		rc = -RJ_CONN_UNTRUSTED;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

/* Options of a connected TCP socket: small requests answered at once, so no Nagle
 * delay; keep-alive finds a peer that vanished. */
static void tcp_options(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
}

/* host as a numeric address: 1 and *a filled, else 0.  The resolver's first call in a
 * process costs a quarter of a millisecond (it reads its configuration) even for
 * "127.0.0.1". */
static int numeric_address(const char *host, int port, struct sockaddr_storage *a,
			   socklen_t *len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)a;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)a;

	memset(a, 0, sizeof *a);
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof *v4;
		return 1;
	}
	if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof *v6;
		return 1;
	}
	return 0;
}

/* Tries each address of host:port in turn until one connects or the deadline passes. */
static int open_tcp(const char *host, int port, double deadline, int *fd_out, int *err,
		    const char **gai)
{
	struct addrinfo hints, *list = NULL;
	struct sockaddr_storage numeric;
	socklen_t numeric_len;
	char service[16];
	int rc = -RJ_CONN_DOWN, grc;

	if (numeric_address(host, port, &numeric, &numeric_len)) {
		int fd = new_socket(numeric.ss_family);
		if (fd < 0) {
			*err = errno;
			return rc;
		}
		rc = connect_within(fd, (const struct sockaddr *)&numeric, numeric_len, deadline,
				    err);
		if (rc < 0) {
			close(fd);
			return rc;
		}
		tcp_options(fd);
		*fd_out = fd;
		return 0;
	}

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(service, sizeof service, "%d", port);
	grc = getaddrinfo(host, service, &hints, &list);
	if (grc != 0) {
		*gai = gai_strerror(grc);
		return -RJ_CONN_DOWN;
	}
	*err = ECONNREFUSED;
	for (struct addrinfo *a = list; a; a = a->ai_next) {
		int fd = new_socket(a->ai_family);
		if (fd < 0) {
			*err = errno;
			continue;
		}
		rc = connect_within(fd, a->ai_addr, a->ai_addrlen, deadline, err);
		if (rc == 0) {
			tcp_options(fd);
			*fd_out = fd;
			break;
		}
		close(fd);
		if (rc == -RJ_CONN_TIMEOUT)
			break;
	}
	freeaddrinfo(list);
	return rc;
}

int rj_conn_open(struct rj_conn **out, const char *host, int port, const char *path,
		 int connect_ms)
{
	double deadline = rj_now_ms() + connect_ms;
	struct rj_conn *c;
	const char *gai = NULL;
	int fd = -1, err = 0, rc;
	char where[300];

	*out = NULL;
	if (path)
		snprintf(where, sizeof where, "%s", path);
	else if (strchr(host, ':'))
		snprintf(where, sizeof where, "[%s]:%d", host, port);
	else
		snprintf(where, sizeof where, "%s:%d", host, port);
	rc = path ? open_unix(path, deadline, &fd, &err)
		  : open_tcp(host, port, deadline, &fd, &err, &gai);
	if (rc == -RJ_CONN_TIMEOUT)
		RJ_FAIL(rc, "connecting to %s: no answer within %d ms", where, connect_ms);
	if (rc == -RJ_CONN_UNTRUSTED)
		return rc; /* the trust rule's message says what and why */
	if (rc < 0)
		RJ_FAIL(rc, "connecting to %s: %s", where, gai ? gai : strerror(err));
	c = calloc(1, sizeof *c);
	if (c)
		c->reader = redisReaderCreate();
	if (!c || !c->reader) {
		free(c);
		close(fd);
		RJ_FAIL(-RJ_CONN_NOMEM, "out of memory connecting to %s", where);
	}
	c->fd = fd;
	c->limit = RJ_CONN_MAX_REPLY;
	c->made = c->reader->fn;
	c->fns = *c->made;
	c->fns.createString = count_string;
	c->fns.createArray = count_array;
	c->fns.createInteger = count_integer;
	c->fns.createNil = count_nil;
	c->reader->fn = &c->fns;
	c->reader->privdata = c;
	memcpy(c->where, where, sizeof where);
	*out = c;
	return 0;
}

void rj_conn_close(struct rj_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	redisReaderFree(c->reader);
	free(c);
}

/* Copies hiredis's reply tree into ours (strings stay in hiredis's memory). */
static int convert(struct rj_reply *to, const redisReply *from)
{
	memset(to, 0, sizeof *to);
	switch (from->type) {
	case REDIS_REPLY_STRING: to->type = RJ_REPLY_STRING; break;
	case REDIS_REPLY_ARRAY: to->type = RJ_REPLY_ARRAY; break;
	case REDIS_REPLY_INTEGER: to->type = RJ_REPLY_INTEGER; break;
	case REDIS_REPLY_NIL: to->type = RJ_REPLY_NIL; break;
	case REDIS_REPLY_STATUS: to->type = RJ_REPLY_STATUS; break;
	case REDIS_REPLY_ERROR: to->type = RJ_REPLY_ERROR; break;
	default: return -1;
	}
	to->integer = from->integer;
	to->str = from->str;
	to->len = from->str ? from->len : 0;
	if (from->type != REDIS_REPLY_ARRAY || !from->elements)
		return 0;
	to->elem = calloc(from->elements, sizeof *to->elem);
	if (!to->elem)
		return -1;
	to->n = from->elements;
	for (size_t i = 0; i < from->elements; i++)
		if (convert(&to->elem[i], from->element[i]) != 0)
			return -1;
	return 0;
}

static void free_tree(struct rj_reply *r)
{
	for (size_t i = 0; i < r->n; i++)
		free_tree(&r->elem[i]);
	free(r->elem);
}

void rj_reply_free(struct rj_reply *r)
{
	if (!r)
		return;
	free_tree(r);
	if (r->owner)
		freeReplyObject(r->owner);
	rj_shared_unref(r->shared);
	free(r);
}

/* Sends len bytes of buf by the deadline. */
static int send_all(struct rj_conn *c, const char *buf, size_t len, double deadline,
		    int timeout_ms)
{
	while (len) {
		ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			RJ_FAIL(-RJ_CONN_IO, "sending to %s: %s", c->where, strerror(errno));
		if (wait_fd(c->fd, POLLOUT, deadline) <= 0)
			RJ_FAIL(-RJ_CONN_TIMEOUT, "sending to %s: no progress within %d ms",
				c->where, timeout_ms);
	}
	return 0;
}

/* Counts n bytes received into *got against the connection's limit. */
static int count_received(struct rj_conn *c, size_t *got, size_t n)
{
	*got += n;
	if (*got > c->limit)
		RJ_FAIL(-RJ_CONN_PROTOCOL, "%s sent more than %zu bytes for one request",
			c->where, c->limit);
	return 0;
}

/* Some bytes from the socket into buf[size] by the deadline: their count, or <0. */
static ssize_t receive(struct rj_conn *c, void *buf, size_t size, double deadline,
		       int timeout_ms)
{
	for (;;) {
		ssize_t n;
		/* Before every read: bytes that keep coming never make recv wait. */
		if (rj_now_ms() >= deadline)
			RJ_FAIL(-RJ_CONN_TIMEOUT, "%s did not finish its reply within %d ms",
				c->where, timeout_ms);
		n = recv(c->fd, buf, size, 0);
		if (n > 0)
			return n;
		if (n == 0)
			RJ_FAIL(-RJ_CONN_IO, "%s closed the connection", c->where);
		if (errno != EAGAIN && errno != EINTR)
			RJ_FAIL(-RJ_CONN_IO, "reading from %s: %s", c->where, strerror(errno));
		if (wait_fd(c->fd, POLLIN, deadline) <= 0)
			RJ_FAIL(-RJ_CONN_TIMEOUT, "%s did not answer within %d ms", c->where,
				timeout_ms);
	}
}

/* The decimal length from text to end (digits only, at most 18): 1 and *len, else 0. */
static int bulk_length(const char *text, const char *end, size_t *len)
{
	size_t v = 0;

	if (text == end || end - text > 18)
		return 0;
	for (; text < end; text++) {
		if (*text < '0' || *text > '9')
			return 0;
		v = v * 10 + (size_t)(*text - '0');
	}
	*len = v;
	return 1;
}

/*
 * The start of a reply while the parser holds nothing of one: a string of DIRECT_MIN
 * bytes or more ("$<len>\r\n", its bytes, "\r\n": a value) is received straight into a
 * shared buffer of its size (base/shared.h) - one copy, from the socket, and no large
 * buffer on the stack.  1 and *out such a reply; 0 when the reply is another (the bytes
 * received are the parser's now); <0 failed, with the message.
 */
static int read_direct(struct rj_conn *c, struct rj_reply **out, double deadline,
		       int timeout_ms, size_t *got)
{
	char head[64], *nl;
	size_t have, hlen, len;
	ssize_t n = receive(c, head, sizeof head, deadline, timeout_ms);
	char *buf;

	if (n < 0)
		return (int)n;
	have = (size_t)n;
	RJ_FORWARD(count_received(c, got, have));
	nl = head[0] == '$' ? memchr(head, '\n', have) : NULL;
	if (!nl || nl[-1] != '\r' || !bulk_length(head + 1, nl - 1, &len) || len < DIRECT_MIN) {
		if (redisReaderFeed(c->reader, head, have) != REDIS_OK)
			RJ_FAIL(-RJ_CONN_NOMEM, "out of memory reading from %s", c->where);
		return 0;
	}
	hlen = (size_t)(nl + 1 - head);
	/* All of it counted before any of it is held: the string and its "\r\n". */
	RJ_CHECK(len > c->limit, -RJ_CONN_PROTOCOL, "%s sent more than %zu bytes for one "
		 "request", c->where, c->limit);
	RJ_FORWARD(count_received(c, got, hlen + len + 2 - have));
	buf = rj_shared_alloc(len + 2);
	RJ_CHECK(!buf, -RJ_CONN_NOMEM, "out of memory reading from %s", c->where);
	have -= hlen; /* < len: DIRECT_MIN is past the head's size */
	memcpy(buf, nl + 1, have);
	while (have < len + 2) {
		n = receive(c, buf + have, len + 2 - have, deadline, timeout_ms);
		if (n < 0) {
			rj_shared_unref(buf);
			return (int)n;
		}
		have += (size_t)n;
	}
	if (buf[len] != '\r' || buf[len + 1] != '\n') {
		rj_shared_unref(buf);
		RJ_FAIL(-RJ_CONN_PROTOCOL, "%s does not speak the Redis protocol (a string "
			"longer than it said)", c->where);
	}
	*out = calloc(1, sizeof **out);
	if (!*out) {
		rj_shared_unref(buf);
		RJ_FAIL(-RJ_CONN_NOMEM, "out of memory reading from %s", c->where);
	}
	(*out)->type = RJ_REPLY_STRING;
	(*out)->str = buf;
	(*out)->len = len;
	(*out)->shared = buf;
	return 1;
}

/* Reads one reply by the deadline through the parser, received bytes counted in *got. */
static int read_parsed(struct rj_conn *c, struct rj_reply **out, double deadline,
		       int timeout_ms, size_t *got)
{
	void *raw = NULL;
	char buf[65536];

	for (;;) {
		ssize_t n;
		if (redisReaderGetReply(c->reader, &raw) != REDIS_OK) {
			RJ_CHECK(c->refused, -RJ_CONN_PROTOCOL, "%s sent a reply refused unread: "
				 "%s (at most %zu objects, arrays %d deep)", c->where, c->refused,
				 (size_t)RJ_CONN_MAX_OBJECTS, RJ_CONN_MAX_DEPTH);
			RJ_FAIL(-RJ_CONN_PROTOCOL, "%s does not speak the Redis protocol (%s)",
				c->where, c->reader->errstr[0] ? c->reader->errstr : "bad reply");
		}
		if (raw)
			break;
		n = receive(c, buf, sizeof buf, deadline, timeout_ms);
		if (n < 0)
			return (int)n;
		RJ_FORWARD(count_received(c, got, (size_t)n));
		if (redisReaderFeed(c->reader, buf, (size_t)n) != REDIS_OK)
			RJ_FAIL(-RJ_CONN_NOMEM, "out of memory reading from %s", c->where);
	}
	*out = calloc(1, sizeof **out);
	if (!*out || convert(*out, raw) != 0) {
		if (*out)
			free_tree(*out);
		free(*out);
		*out = NULL;
		freeReplyObject(raw);
		RJ_FAIL(-RJ_CONN_NOMEM, "out of memory reading from %s", c->where);
	}
	(*out)->owner = raw;
	return 0;
}

/* Reads one reply by the deadline, received bytes counted in *got: a value straight
 * into its own buffer when the parser holds nothing (read_direct), else parsed. */
static int read_reply(struct rj_conn *c, struct rj_reply **out, double deadline,
		      int timeout_ms, size_t *got)
{
	if (c->reader->pos == c->reader->len && c->reader->ridx == -1) {
		int rc = read_direct(c, out, deadline, timeout_ms, got);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	return read_parsed(c, out, deadline, timeout_ms, got);
}

int rj_conn_pipeline(struct rj_conn *c, size_t n, const int *argc, const char *const *const *argv,
		     const size_t *const *argvlen, struct rj_reply **replies, int timeout_ms)
{
	double deadline = rj_now_ms() + timeout_ms;
	size_t got = 0, i;
	int rc = 0;

	for (i = 0; i < n; i++)
		replies[i] = NULL;
	c->objects = 0;
	c->refused = NULL;
	for (i = 0; i < n && rc == 0; i++) {
		char *cmd = NULL;
		/* hiredis takes char ** for what it only reads. */
		int len = redisFormatCommandArgv(&cmd, argc[i], (const char **)(uintptr_t)argv[i],
						 argvlen[i]);
		if (len < 0)
			RJ_FAIL(-RJ_CONN_NOMEM, "out of memory sending to %s", c->where);
		rc = send_all(c, cmd, (size_t)len, deadline, timeout_ms);
		explicit_bzero(cmd, (size_t)len); /* it may hold AUTH's password */
		redisFreeCommand(cmd);
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = read_reply(c, &replies[i], deadline, timeout_ms, &got);
	if (rc != 0)
		for (i = 0; i < n; i++) {
			rj_reply_free(replies[i]);
			replies[i] = NULL;
		}
	return rc;
}

#else /* !ROCJIT_HAVE_HIREDIS: the tier is unavailable, and says so. */

struct rj_conn {
	int unused;
};

void rj_conn_limit(struct rj_conn *c, size_t max_bytes)
{
	(void)c, (void)max_bytes;
}

int rj_conn_available(void)
{
	return 0;
}

int rj_conn_open(struct rj_conn **out, const char *host, int port, const char *path,
		 int connect_ms)
{
	(void)host, (void)port, (void)path, (void)connect_ms;
	*out = NULL;
	RJ_FAIL(-RJ_CONN_UNSUPPORTED, "this rocjit was built without hiredis, so the remote "
		"tier is unavailable: rebuild it with libhiredis-dev installed");
}

int rj_conn_pipeline(struct rj_conn *c, size_t n, const int *argc, const char *const *const *argv,
		     const size_t *const *argvlen, struct rj_reply **replies, int timeout_ms)
{
	(void)c, (void)argc, (void)argv, (void)argvlen, (void)timeout_ms;
	for (size_t i = 0; i < n; i++)
		replies[i] = NULL;
	RJ_FAIL(-RJ_CONN_UNSUPPORTED, "this rocjit was built without hiredis");
}

void rj_conn_close(struct rj_conn *c)
{
	(void)c;
}

void rj_reply_free(struct rj_reply *r)
{
	(void)r;
}

#endif

int rj_conn_call(struct rj_conn *c, int argc, const char *const *argv, const size_t *argvlen,
		 struct rj_reply **reply, int timeout_ms)
{
	return rj_conn_pipeline(c, 1, &argc, &argv, &argvlen, reply, timeout_ms);
}

int rj_reply_is(const struct rj_reply *r, enum rj_reply_type type, const char *word)
{
	size_t n = strlen(word);

	return r && r->type == type && r->len >= n && memcmp(r->str, word, n) == 0 &&
	       (r->len == n || r->str[n] == ' ');
}
