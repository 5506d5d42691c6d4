/*
 * redis_server.c - a real redis-server for a test, a 3-master cluster of them, and
 * servers that never answer (see redis_server.h).  The client side here speaks just
 * enough of the Redis protocol (RESP) for tests to set up and inspect a server without
 * rocjit's own client.  Every process started here dies with the test process
 * (PR_SET_PDEATHSIG), and every wait is bounded.
 */
#include "redis_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define CLUSTER_UP_MS 20000   /* creating a cluster and waiting for cluster_state:ok */
#define ADMIN_TIMEOUT_MS 5000 /* one set-up command (SETSLOT, MIGRATE, ...) */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A TCP socket bound to 127.0.0.1:port (0: the kernel's choice), its port in *bound; -1
 * when the port is taken. */
static int bind_loopback(int port, int *bound)
{
	struct sockaddr_in a = loopback(port);
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0) {
		*bound = ntohs(a.sin_port);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A port nothing listens on now (the kernel's choice for an ephemeral bind). */
static int free_port(void)
{
	int port = 0, fd = bind_loopback(0, &port);

	if (fd >= 0)
		close(fd);
	return port;
}

static int port_is_free(int port)
{
	int bound, fd = bind_loopback(port, &bound);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static unsigned next_random(void)
{
	static unsigned x;

	if (!x)
		x = (unsigned)getpid() * 2654435761u ^ (unsigned)(unsigned long long)now_ms() ^ 1u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/*
 * A port P for a cluster node where P and its cluster bus port P + 10000 are both free
 * now; 0 when none was found.  Both are taken below the kernel's ephemeral range when
 * there is room (10001..lo-10001 for P), so that no outgoing connection of a test running
 * beside this one gets either as its local port between this check and the server's bind;
 * another listener can still take one meanwhile, which the caller sees as the server
 * exiting, and it tries another.  Random, so that cluster tests run in parallel rarely
 * meet.
 */
static int cluster_port(void)
{
	int lo = 32768, hi = 60999, first = 10001, last;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");

	if (f) {
		if (fscanf(f, "%d %d", &lo, &hi) != 2)
			lo = 32768;
		fclose(f);
	}
	last = lo - 10000 - 1;
	if (last - first < 1000) { /* no room below the ephemeral range: anywhere then */
		first = 1025;
		last = 65535 - 10000;
	}
	for (int tries = 0; tries < 500; tries++) {
		int p = first + (int)(next_random() % (unsigned)(last - first + 1));
		if (port_is_free(p) && port_is_free(p + 10000))
			return p;
	}
	return 0;
}

static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char dir[4096], file[4400];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		if (n && n < sizeof dir) {
			memcpy(dir, p, n);
			dir[n] = 0;
			snprintf(file, sizeof file, "%s/%s", dir, prog);
			if (access(file, X_OK) == 0)
				return 1;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return 0;
}

/* Prints a (log) file to stderr, its first 8 KiB, for a failing test. */
static void print_file(const char *what, const char *path)
{
	char text[8192] = "(none)";
	FILE *f = fopen(path, "r");

	if (f) {
		text[fread(text, 1, sizeof text - 1, f)] = 0;
		fclose(f);
	}
	fprintf(stderr, "%s (%s):\n%s\n", what, path, text);
}

/*
 * Starts argv (argv[0] found on PATH) in a child that dies with this process (SIGKILL on
 * the death of the forking thread: call it from the test's main thread), stdin from
 * /dev/null, stdout and stderr to out (NULL: stdout to /dev/null, stderr inherited).
 */
static pid_t spawn(const char *const *argv, const char *out)
{
	pid_t parent = getpid(), pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : devnull;
		/* execvp's argv is not const, though it is not written. */
		char *const *av;

		prctl(PR_SET_PDEATHSIG, SIGKILL); /* ends with the test, whatever happens */
		if (getppid() != parent)
			_exit(127);
		if (devnull >= 0)
			dup2(devnull, 0);
		if (fd >= 0) {
			dup2(fd, 1);
			if (out)
				dup2(fd, 2);
		}
		memcpy(&av, &argv, sizeof av);
		execvp(argv[0], av);
		_exit(127);
	}
	return pid;
}

/* Waits until fd is ready for events, at most until deadline: 1, or 0. */
static int wait_fd(int fd, short events, double deadline)
{
	struct pollfd p = { fd, events, 0 };
	double left = deadline - now_ms();

	return left > 0 && poll(&p, 1, (int)left + 1) == 1 && (p.revents & events);
}

static int connect_tcp(int port, double deadline)
{
	struct sockaddr_in a = loopback(port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	socklen_t len = sizeof err;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 &&
	    (errno != EINPROGRESS || !wait_fd(fd, POLLOUT, deadline) ||
	     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The length or count in a "$N\r\n" or "*N\r\n" header (line: its type byte); -1 for
 * "-1" (nil).  Reads only up to the \r, which the caller has found. */
static long header_number(const char *line)
{
	long v = 0;
	int neg = line[1] == '-';

	for (const char *p = line + 1 + neg; *p >= '0' && *p <= '9' && v < 1L << 40; p++)
		v = v * 10 + (*p - '0');
	return neg ? -v : v;
}

/*
 * Where the reply starting at buf[at] ends (buf holds n bytes): the offset just past it,
 * 0 when more bytes are needed, -1 when it is malformed (or nested deeper than 8).
 */
static long reply_end(const char *buf, size_t n, size_t at, int depth)
{
	const char *crlf = at < n ? memmem(buf + at, n - at, "\r\n", 2) : NULL;
	long len, end;

	if (!crlf)
		return 0;
	end = (long)(crlf + 2 - buf);
	len = header_number(buf + at);
	switch (buf[at]) {
	case '+':
	case '-':
	case ':':
		return end;
	case '$':
		if (len < 0)
			return end;
		return (size_t)end + (size_t)len + 2 <= n ? end + len + 2 : 0;
	case '*':
		if (depth >= 8)
			return -1;
		for (long i = 0; i < len && end > 0; i++)
			end = reply_end(buf, n, (size_t)end, depth + 1);
		return end;
	default:
		return -1;
	}
}

struct text {
	char *p;
	size_t size, len; /* len < size: what fits, NUL-terminated */
	int started;      /* an element is written: the next needs a "\n" first */
};

static void put(struct text *t, const char *s, size_t n)
{
	size_t room = t->size - 1 - t->len;

	if (n > room)
		n = room;
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = 0;
}

/* Writes the (whole, checked by reply_end) reply at buf[at] as rj_redis_call says;
 * returns the offset just past it. */
static size_t render(const char *buf, size_t n, size_t at, struct text *t)
{
	const char *line = buf + at, *crlf = memmem(line, n - at, "\r\n", 2);
	size_t head = (size_t)(crlf - line);
	long len = header_number(line);

	if (line[0] == '*' && len >= 0) {
		at += head + 2;
		for (long i = 0; i < len; i++)
			at = render(buf, n, at, t);
		return at;
	}
	if (t->started)
		put(t, "\n", 1);
	t->started = 1;
	if ((line[0] == '$' || line[0] == '*') && len < 0) {
		put(t, "(nil)", 5);
		return at + head + 2;
	}
	if (line[0] == '$') {
		put(t, crlf + 2, (size_t)len);
		return at + head + 2 + (size_t)len + 2;
	}
	put(t, line, head);
	return at + head + 2;
}

/* Appends a command in RESP to buf (size bytes, len used): the new length, >= size when it
 * did not fit. */
static size_t encode(char *buf, size_t size, size_t len, const char *const *words)
{
	int argc = 0;

	while (words[argc])
		argc++;
	if (len < size)
		len += (size_t)snprintf(buf + len, size - len, "*%d\r\n", argc);
	for (int i = 0; i < argc && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "$%zu\r\n%s\r\n",
					strlen(words[i]), words[i]);
	return len;
}

int rj_redis_call(const struct rj_redis_server *s, int timeout_ms, char *reply, size_t size,
		  const char *const *words)
{
	double deadline = now_ms() + timeout_ms;
	char buf[65536];
	size_t n = 0, len = 0, at = 0;
	int fd, replies = s->password[0] ? 2 : 1;
	struct text t = { reply, size, 0, 0 };

	reply[0] = 0;
	if (s->password[0])
		len = encode(buf, sizeof buf, len,
			     (const char *const[]){ "AUTH", s->password, NULL });
	len = encode(buf, sizeof buf, len, words);
	if (len >= sizeof buf || (fd = connect_tcp(s->port, deadline)) < 0)
		return -1;
	for (size_t sent = 0; sent < len;) {
		ssize_t w = write(fd, buf + sent, len - sent);
		if (w > 0)
			sent += (size_t)w;
		else if (w < 0 && errno != EAGAIN && errno != EINTR)
			goto fail;
		else if (!wait_fd(fd, POLLOUT, deadline))
			goto fail;
	}
	/* The AUTH reply first when there is one: an error ends it, +OK is passed over. */
	for (int i = 0; i < replies; i++) {
		long end;
		while (!(end = reply_end(buf, n, at, 0))) {
			ssize_t r;
			if (n == sizeof buf || !wait_fd(fd, POLLIN, deadline) ||
			    (r = read(fd, buf + n, sizeof buf - n)) <= 0)
				goto fail;
			n += (size_t)r;
		}
		if (end < 0)
			goto fail;
		if (i + 1 == replies || buf[at] == '-') {
			render(buf, n, at, &t);
			break;
		}
		at = (size_t)end;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

/*
 * Runs redis-server for s (its port, dir and sock set) with rocjit's settings, then more
 * and extra (either may be NULL), its log in s->dir/server.log, and waits (5 s) until it
 * answers PING: 1.  0 when it ended meanwhile (its port was taken: the caller tries
 * another) or did not answer (it is stopped then).
 */
static int launch(struct rj_redis_server *s, const char *const *more, const char *const *extra)
{
	char port_text[16], log[4400], reply[64];
	const char *argv[96];
	double deadline = now_ms() + 5000;
	int argc = 0;

	snprintf(log, sizeof log, "%s/server.log", s->dir);
	snprintf(port_text, sizeof port_text, "%d", s->port);
	{
		const char *base[] = { "redis-server", "--port", port_text, "--bind",
				       "127.0.0.1", "--unixsocket", s->sock,
				       "--unixsocketperm", "700", "--dir", s->dir, "--save",
				       "", "--appendonly", "no", "--daemonize", "no",
				       "--protected-mode", "no", "--logfile", log };
		for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
			argv[argc++] = base[i];
	}
	for (int i = 0; more && more[i] && argc < 95; i++)
		argv[argc++] = more[i];
	for (int i = 0; extra && extra[i] && argc < 95; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	s->pid = spawn(argv, NULL);
	while (now_ms() < deadline) {
		int status;
		if (rj_redis_call(s, 200, reply, sizeof reply,
				  (const char *const[]){ "PING", NULL }) == 0 &&
		    (strcmp(reply, "+PONG") == 0 || strncmp(reply, "-NOAUTH", 7) == 0))
			return 1;
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			s->pid = 0;
			return 0;
		}
		usleep(20000);
	}
	rj_redis_stop(s);
	return 0;
}

/* Makes s's folder (rj_test_dir/name) and socket path. */
static void prepare(struct rj_redis_server *s, const char *dir)
{
	snprintf(s->dir, sizeof s->dir, "%s", dir);
	ASSERT(mkdir(s->dir, 0700) == 0 || errno == EEXIST);
	snprintf(s->sock, sizeof s->sock, "%s/redis.sock", s->dir);
	ASSERT(strlen(s->sock) < 108); /* sun_path */
}

static void fail_start(const struct rj_redis_server *s, const char *what)
{
	char log[4400];

	snprintf(log, sizeof log, "%s/server.log", s->dir);
	print_file("redis-server did not come up; its log", log);
	rj_test_fail(__FILE__, __LINE__, "%s started", what);
}

void rj_redis_start(struct rj_redis_server *s, const char *name, const char *const *extra)
{
	char dir[4200];

	memset(s, 0, sizeof s[0]);
	if (!on_path("redis-server"))
		rj_test_skip("redis-server is not installed (tools/install-deps.sh installs it)");
	snprintf(dir, sizeof dir, "%s/%s", rj_test_dir, name);
	prepare(s, dir);
	for (int tries = 0; tries < 5; tries++) {
		s->port = free_port();
		ASSERT(s->port > 0);
		if (launch(s, NULL, extra))
			return;
	}
	fail_start(s, "redis-server");
}

void rj_redis_stop(struct rj_redis_server *s)
{
	double deadline = now_ms() + 2000;
	int status;

	if (s->pid <= 0)
		return;
	kill(s->pid, SIGCONT); /* a paused one would not act on SIGTERM */
	kill(s->pid, SIGTERM);
	while (waitpid(s->pid, &status, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &status, 0);
			break;
		}
		usleep(10000);
	}
	s->pid = 0;
}

void rj_redis_pause(struct rj_redis_server *s)
{
	int status;

	ASSERT(s->pid > 0);
	ASSERT(kill(s->pid, SIGSTOP) == 0);
	/* The parent hears of the stop: once it has, the server runs no more. */
	ASSERT(waitpid(s->pid, &status, WUNTRACED) == s->pid);
	if (!WIFSTOPPED(status)) {
		s->pid = 0;
		ASSERT(!"redis-server was running when paused");
	}
}

void rj_redis_resume(struct rj_redis_server *s)
{
	ASSERT(s->pid > 0);
	ASSERT(kill(s->pid, SIGCONT) == 0);
}

void rj_redis_kill9(struct rj_redis_server *s)
{
	int status;

	ASSERT(s->pid > 0);
	kill(s->pid, SIGKILL); /* acts on a stopped process too */
	ASSERT(waitpid(s->pid, &status, 0) == s->pid);
	s->pid = 0;
}

/* --- the cluster --- */

/* Calls words on node i and fails the test unless the reply starts with want. */
static void admin(const struct rj_redis_cluster *c, int i, const char *want,
		  const char *const *words)
{
	char reply[512];

	if (rj_redis_call(&c->node[i], ADMIN_TIMEOUT_MS, reply, sizeof reply, words) != 0)
		rj_test_fail(__FILE__, __LINE__, "%s %s on node %d (port %d): no reply", words[0],
			     words[1] ? words[1] : "", i, c->node[i].port);
	if (strncmp(reply, want, strlen(want)) != 0)
		rj_test_fail(__FILE__, __LINE__, "%s %s on node %d (port %d): \"%s\", not %s",
			     words[0], words[1] ? words[1] : "", i, c->node[i].port, reply, want);
}

static void start_node(struct rj_redis_cluster *c, int i, const char *const *extra)
{
	struct rj_redis_server *s = &c->node[i];
	char dir[4300], conf[4400];
	const char *more[] = { "--cluster-enabled", "yes", "--cluster-config-file", conf,
			       "--cluster-node-timeout", "2000", NULL };

	snprintf(dir, sizeof dir, "%s/node%d", c->dir, i);
	prepare(s, dir);
	snprintf(s->password, sizeof s->password, "%s", c->password);
	snprintf(conf, sizeof conf, "%s/nodes.conf", s->dir);
	for (int tries = 0; tries < 5; tries++) {
		unlink(conf); /* a node that failed to bind may have written one */
		s->port = cluster_port();
		ASSERT(s->port > 0);
		if (launch(s, more, extra))
			return;
	}
	fail_start(s, "redis-server (cluster node)");
}

/* Whether every node's CLUSTER INFO says the cluster is whole (into info: the first
 * node's that does not). */
static int cluster_ok(const struct rj_redis_cluster *c, char *info, size_t size)
{
	for (int i = 0; i < 3; i++) {
		if (rj_redis_call(&c->node[i], 500, info, size,
				  (const char *const[]){ "CLUSTER", "INFO", NULL }) != 0 ||
		    !strstr(info, "cluster_state:ok") ||
		    !strstr(info, "cluster_slots_assigned:16384") ||
		    !strstr(info, "cluster_known_nodes:3"))
			return 0;
	}
	return 1;
}

static void fail_cluster(const struct rj_redis_cluster *c, const char *log, const char *info,
			 const char *why)
{
	print_file("redis-cli --cluster create said", log);
	fprintf(stderr, "CLUSTER INFO:\n%s\n", info);
	for (int i = 0; i < 3; i++) {
		char path[4400];
		snprintf(path, sizeof path, "%s/server.log", c->node[i].dir);
		print_file("a node's log", path);
	}
	rj_test_fail(__FILE__, __LINE__, "the cluster came up: %s", why);
}

void rj_redis_cluster_start(struct rj_redis_cluster *c, const char *name,
			    const char *const *extra)
{
	double deadline;
	char addr[3][32], log[4400], info[4096] = "";
	const char *argv[16];
	int argc = 0, status = 0;
	pid_t cli;

	memset(c, 0, sizeof c[0]);
	if (!on_path("redis-server") || !on_path("redis-cli"))
		rj_test_skip("redis-server or redis-cli is not installed "
			     "(tools/install-deps.sh installs them)");
	snprintf(c->dir, sizeof c->dir, "%s/%s", rj_test_dir, name);
	ASSERT(mkdir(c->dir, 0700) == 0 || errno == EEXIST);
	for (int i = 0; extra && extra[i]; i++)
		if (strcmp(extra[i], "--requirepass") == 0 && extra[i + 1])
			snprintf(c->password, sizeof c->password, "%s", extra[i + 1]);
	for (int i = 0; i < 3; i++)
		start_node(c, i, extra);

	deadline = now_ms() + CLUSTER_UP_MS;
	argv[argc++] = "redis-cli";
	argv[argc++] = "--cluster";
	argv[argc++] = "create";
	for (int i = 0; i < 3; i++) {
		snprintf(addr[i], sizeof addr[i], "127.0.0.1:%d", c->node[i].port);
		argv[argc++] = addr[i];
	}
	argv[argc++] = "--cluster-replicas";
	argv[argc++] = "0";
	argv[argc++] = "--cluster-yes";
	if (c->password[0]) {
		argv[argc++] = "-a";
		argv[argc++] = c->password;
		argv[argc++] = "--no-auth-warning";
	}
	argv[argc] = NULL;
	snprintf(log, sizeof log, "%s/create.log", c->dir);
	cli = spawn(argv, log);
	while (waitpid(cli, &status, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			kill(cli, SIGKILL);
			waitpid(cli, &status, 0);
			fail_cluster(c, log, info,
				     "redis-cli --cluster create did not end in time");
		}
		usleep(20000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_cluster(c, log, info, "redis-cli --cluster create failed");
	while (!cluster_ok(c, info, sizeof info)) {
		if (now_ms() > deadline)
			fail_cluster(c, log, info, "not every node says cluster_state:ok in time");
		usleep(20000);
	}
	for (int i = 0; i < 3; i++) {
		ASSERT(rj_redis_call(&c->node[i], ADMIN_TIMEOUT_MS, c->id[i], sizeof c->id[i],
				     (const char *const[]){ "CLUSTER", "MYID", NULL }) == 0);
		ASSERT(strlen(c->id[i]) == 40);
	}
}

void rj_redis_cluster_stop(struct rj_redis_cluster *c)
{
	for (int i = 0; i < 3; i++)
		rj_redis_stop(&c->node[i]);
}

int rj_redis_cluster_slot_of(const struct rj_redis_cluster *c, const char *key)
{
	char reply[64];

	for (int i = 0; i < 3; i++)
		if (c->node[i].pid > 0 &&
		    rj_redis_call(&c->node[i], ADMIN_TIMEOUT_MS, reply, sizeof reply,
				  (const char *const[]){ "CLUSTER", "KEYSLOT", key, NULL }) == 0 &&
		    reply[0] == ':')
			return atoi(reply + 1);
	rj_test_fail(__FILE__, __LINE__, "CLUSTER KEYSLOT %s: no node answered", key);
}

/* Whether node i's own line of CLUSTER NODES lists slot ("<a>" or "<a>-<b>" fields after
 * the eighth; "[<a>->-<id>]" marks a migration, not ownership). */
static int claims(const struct rj_redis_cluster *c, int i, int slot)
{
	char nodes[16384], *line, *save = NULL;

	if (c->node[i].pid <= 0 ||
	    rj_redis_call(&c->node[i], ADMIN_TIMEOUT_MS, nodes, sizeof nodes,
			  (const char *const[]){ "CLUSTER", "NODES", NULL }) != 0)
		return 0;
	for (line = strtok_r(nodes, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *field, *fsave = NULL;
		int n = 0, mine = 0;
		for (field = strtok_r(line, " ", &fsave); field;
		     field = strtok_r(NULL, " ", &fsave), n++) {
			if (n == 2)
				mine = strstr(field, "myself") != NULL;
			if (n >= 8 && mine && field[0] != '[') {
				char *dash = strchr(field, '-');
				int a = atoi(field), b = dash ? atoi(dash + 1) : a;
				if (a <= slot && slot <= b)
					return 1;
			}
		}
		if (mine)
			return 0;
	}
	return 0;
}

int rj_redis_cluster_node_of_slot(const struct rj_redis_cluster *c, int slot)
{
	int owner = -1, count = 0;

	for (int i = 0; i < 3; i++)
		if (claims(c, i, slot)) {
			owner = i;
			count++;
		}
	return count == 1 ? owner : -1;
}

int rj_redis_cluster_node_of_key(const struct rj_redis_cluster *c, const char *key)
{
	return rj_redis_cluster_node_of_slot(c, rj_redis_cluster_slot_of(c, key));
}

/* MIGRATEs keys (n of them, at most 100) from node `from` to node `to`. */
static void migrate_keys(const struct rj_redis_cluster *c, int from, int to,
			 const char *const *keys, int n)
{
	char port[16];
	const char *words[112];
	int w = 0;

	ASSERT(n <= 100);
	snprintf(port, sizeof port, "%d", c->node[to].port);
	words[w++] = "MIGRATE";
	words[w++] = "127.0.0.1";
	words[w++] = port;
	words[w++] = "";  /* the key: none, KEYS below */
	words[w++] = "0"; /* the database (the only one in a cluster) */
	words[w++] = "5000";
	if (c->password[0]) {
		words[w++] = "AUTH";
		words[w++] = c->password;
	}
	words[w++] = "KEYS";
	for (int i = 0; i < n; i++)
		words[w++] = keys[i];
	words[w] = NULL;
	admin(c, from, "+", words); /* +OK, or +NOKEY when none exists */
}

void rj_redis_cluster_migrate_start(struct rj_redis_cluster *c, int slot, int to,
				    const char *const *keys)
{
	char slot_text[16];
	int from = rj_redis_cluster_node_of_slot(c, slot), n = 0;

	ASSERT(0 <= slot && slot < 16384 && 0 <= to && to < 3);
	ASSERT(from >= 0 && from != to);
	snprintf(slot_text, sizeof slot_text, "%d", slot);
	/* The destination first, as the Redis manual orders it: at no time does the source
	 * redirect to a node that would not take the request. */
	admin(c, to, "+OK",
	      (const char *const[]){ "CLUSTER", "SETSLOT", slot_text, "IMPORTING", c->id[from],
				     NULL });
	admin(c, from, "+OK",
	      (const char *const[]){ "CLUSTER", "SETSLOT", slot_text, "MIGRATING", c->id[to],
				     NULL });
	while (keys && keys[n])
		n++;
	for (int i = 0; i < n; i += 100)
		migrate_keys(c, from, to, keys + i, n - i < 100 ? n - i : 100);
}

void rj_redis_cluster_migrate_finish(struct rj_redis_cluster *c, int slot, int to)
{
	char slot_text[16];
	int from = rj_redis_cluster_node_of_slot(c, slot);

	ASSERT(0 <= slot && slot < 16384 && 0 <= to && to < 3);
	ASSERT(from >= 0);
	snprintf(slot_text, sizeof slot_text, "%d", slot);
	/* The keys left, 50 at a time (GETKEYSINSLOT's array is one key a line). */
	for (int round = 0; from != to; round++) {
		char reply[16384], *save = NULL;
		const char *keys[50];
		int n = 0;
		ASSERT(round < 10000);
		ASSERT(rj_redis_call(&c->node[from], ADMIN_TIMEOUT_MS, reply, sizeof reply,
				     (const char *const[]){ "CLUSTER", "GETKEYSINSLOT", slot_text,
							    "50", NULL }) == 0);
		ASSERT(reply[0] != '-');
		for (char *k = strtok_r(reply, "\n", &save); k && n < 50;
		     k = strtok_r(NULL, "\n", &save))
			keys[n++] = k;
		if (!n)
			break;
		migrate_keys(c, from, to, keys, n);
	}
	/* The new owner first, then the old one (which must hold no key of it now), then the
	 * third node: every node's own word, rather than waiting for gossip. */
	admin(c, to, "+OK",
	      (const char *const[]){ "CLUSTER", "SETSLOT", slot_text, "NODE", c->id[to], NULL });
	if (from != to)
		admin(c, from, "+OK",
		      (const char *const[]){ "CLUSTER", "SETSLOT", slot_text, "NODE", c->id[to],
					     NULL });
	for (int i = 0; i < 3; i++)
		if (i != to && i != from)
			admin(c, i, "+OK",
			      (const char *const[]){ "CLUSTER", "SETSLOT", slot_text, "NODE",
						     c->id[to], NULL });
}

void rj_redis_cluster_move_slot(struct rj_redis_cluster *c, int slot, int to)
{
	rj_redis_cluster_migrate_start(c, slot, to, NULL);
	rj_redis_cluster_migrate_finish(c, slot, to);
}

/* --- servers that never answer --- */

/* The connections that fill blackholes' accept queues, by listener. */
static struct {
	int used, listener, fd;
} fills[64];

int rj_blackhole_listen(int *port)
{
	int fd = bind_loopback(0, port);

	ASSERT(fd >= 0);
	ASSERT(listen(fd, 0) == 0);
	for (int i = 0; i < 8; i++) {
		struct sockaddr_in a = loopback(*port);
		int conn = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		int err = 0, slot = 0;
		socklen_t len = sizeof err;

		ASSERT(conn >= 0);
		if (connect(conn, (struct sockaddr *)&a, sizeof a) != 0) {
			ASSERT(errno == EINPROGRESS);
			if (!wait_fd(conn, POLLOUT, now_ms() + 200)) {
				close(conn); /* its SYN went unanswered: the queue is full */
				return fd;
			}
			ASSERT(getsockopt(conn, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
			       err == 0);
		}
		/* Connected, so queued (or its last ACK dropped): keep it, never accepted. */
		while (slot < 64 && fills[slot].used)
			slot++;
		ASSERT(slot < 64);
		fills[slot].used = 1;
		fills[slot].listener = fd;
		fills[slot].fd = conn;
	}
	rj_test_fail(__FILE__, __LINE__, "a listen(fd, 0) socket took 8 connections unaccepted");
}

void rj_blackhole_close(int fd)
{
	for (int i = 0; i < 64; i++)
		if (fills[i].used && fills[i].listener == fd) {
			close(fills[i].fd);
			fills[i].used = 0;
		}
	close(fd);
}

/* The silent server's loop: accepts, reads and drops, and never writes; a connection is
 * closed only once its peer has closed it. */
static void __attribute__((noreturn)) serve_silently(int listener)
{
	struct pollfd p[256];
	nfds_t n = 1;
	char scratch[4096];

	p[0].fd = listener;
	p[0].events = POLLIN;
	for (;;) {
		if (poll(p, n, -1) < 0)
			continue;
		for (nfds_t i = n; i-- > 1;) {
			if (!p[i].revents)
				continue;
			if ((p[i].revents & POLLIN) && read(p[i].fd, scratch, sizeof scratch) > 0)
				continue;
			close(p[i].fd); /* the peer closed it (or it failed) */
			p[i] = p[--n];
		}
		if (p[0].revents & POLLIN) {
			int conn = accept(listener, NULL, NULL);
			if (conn >= 0 && n < 256) {
				p[n].fd = conn;
				p[n].events = POLLIN;
				p[n].revents = 0;
				n++;
			} /* past 256: left open, unread */
		}
	}
}

pid_t rj_silent_server_start(int *port)
{
	int fd = bind_loopback(0, port);
	pid_t parent = getpid(), pid;

	ASSERT(fd >= 0);
	ASSERT(listen(fd, 64) == 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* ends with the test, whatever happens */
		if (getppid() != parent)
			_exit(127);
		serve_silently(fd);
	}
	close(fd); /* the child listens: connections wait in the queue until it accepts */
	return pid;
}

void rj_silent_server_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
