/*
 * redis_server.c - a real redis-server for a test (see redis_server.h).  The client side
 * here speaks just enough of the Redis protocol (RESP) for tests to set up and inspect a
 * server without rocjit's own client.
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

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A port nothing listens on now (the kernel's choice for an ephemeral bind). */
static int free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
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

/* Waits until fd is ready for events, at most until deadline: 1, or 0. */
static int wait_fd(int fd, short events, double deadline)
{
	struct pollfd p = { fd, events, 0 };
	double left = deadline - now_ms();

	return left > 0 && poll(&p, 1, (int)left + 1) == 1 && (p.revents & events);
}

static int connect_tcp(int port, double deadline)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	socklen_t len = sizeof err;

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 &&
	    (errno != EINPROGRESS || !wait_fd(fd, POLLOUT, deadline) ||
	     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads until buf (used bytes *n) holds one whole reply: its length, 0 when more is
 * needed, -1 when malformed. */
static long whole_reply(const char *buf, size_t n)
{
	const char *crlf = memmem(buf, n, "\r\n", 2);
	long len;

	if (!crlf)
		return 0;
	if (buf[0] != '$')
		return (long)(crlf + 2 - buf);
	len = strtol(buf + 1, NULL, 10);
	if (len < 0)
		return (long)(crlf + 2 - buf);
	return (size_t)(crlf + 2 - buf) + (size_t)len + 2 <= n ? (long)(crlf + 2 - buf) + len + 2
							       : 0;
}

int rj_redis_call(const struct rj_redis_server *s, int timeout_ms, char *reply, size_t size,
		  const char *const *words)
{
	double deadline = now_ms() + timeout_ms;
	char buf[65536];
	size_t n = 0, len;
	long whole = 0;
	int fd, argc = 0;

	reply[0] = 0;
	while (words[argc])
		argc++;
	len = (size_t)snprintf(buf, sizeof buf, "*%d\r\n", argc);
	for (int i = 0; i < argc && len < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "$%zu\r\n%s\r\n",
					strlen(words[i]), words[i]);
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
	while (!(whole = whole_reply(buf, n))) {
		ssize_t r;
		if (n == sizeof buf || !wait_fd(fd, POLLIN, deadline) ||
		    (r = read(fd, buf + n, sizeof buf - n)) <= 0)
			goto fail;
		n += (size_t)r;
	}
	close(fd);
	if (whole < 0)
		return -1;
	if (buf[0] == '$') {
		const char *body = memchr(buf, '\n', n) + 1;
		long blen = strtol(buf + 1, NULL, 10);
		if (blen < 0)
			snprintf(reply, size, "(nil)");
		else
			snprintf(reply, size, "%.*s", (int)blen, body);
	} else {
		snprintf(reply, size, "%.*s", (int)(whole - 2), buf);
	}
	return 0;
fail:
	close(fd);
	return -1;
}

void rj_redis_start(struct rj_redis_server *s, const char *name, const char *const *extra)
{
	char port_text[16], log[4400], reply[64];
	const char *argv[64];
	int argc;

	memset(s, 0, sizeof s[0]);
	if (!on_path("redis-server"))
		rj_test_skip("redis-server is not installed (tools/install-deps.sh installs it)");
	snprintf(s->dir, sizeof s->dir, "%s/%s", rj_test_dir, name);
	ASSERT(mkdir(s->dir, 0700) == 0 || errno == EEXIST);
	snprintf(s->sock, sizeof s->sock, "%s/redis.sock", s->dir);
	ASSERT(strlen(s->sock) < 108); /* sun_path */
	snprintf(log, sizeof log, "%s/server.log", s->dir);
	for (int tries = 0; tries < 5; tries++) {
		double deadline = now_ms() + 5000;
		pid_t parent = getpid();

		s->port = free_port();
		ASSERT(s->port > 0);
		snprintf(port_text, sizeof port_text, "%d", s->port);
		argc = 0;
		{
			const char *base[] = { "redis-server", "--port", port_text, "--bind",
					       "127.0.0.1", "--unixsocket", s->sock,
					       "--unixsocketperm", "700", "--dir", s->dir, "--save",
					       "", "--appendonly", "no", "--daemonize", "no",
					       "--protected-mode", "no", "--logfile", log };
			for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
				argv[argc++] = base[i];
		}
		for (int i = 0; extra && extra[i] && argc < 63; i++)
			argv[argc++] = extra[i];
		argv[argc] = NULL;
		s->pid = fork();
		ASSERT(s->pid >= 0);
		if (s->pid == 0) {
			int devnull = open("/dev/null", O_RDWR);
			prctl(PR_SET_PDEATHSIG, SIGKILL); /* ends with the test, whatever happens */
			if (getppid() != parent)
				_exit(127);
			if (devnull >= 0) {
				dup2(devnull, 0);
				dup2(devnull, 1);
			}
			{
				/* execvp's argv is not const, though it is not written. */
				char *const *av;
				const char **words = argv;
				memcpy(&av, &words, sizeof av);
				execvp("redis-server", av);
			}
			_exit(127);
		}
		while (now_ms() < deadline) {
			int status;
			if (rj_redis_call(s, 200, reply, sizeof reply,
					  (const char *const[]){ "PING", NULL }) == 0 &&
			    (strcmp(reply, "+PONG") == 0 || strncmp(reply, "-NOAUTH", 7) == 0))
				return;
			if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
				s->pid = 0; /* it ended: the port was taken meanwhile, try another */
				break;
			}
			usleep(20000);
		}
		rj_redis_stop(s);
	}
	{
		char text[4096] = "(none)";
		FILE *f = fopen(log, "r");
		if (f) {
			text[fread(text, 1, sizeof text - 1, f)] = 0;
			fclose(f);
		}
		fprintf(stderr, "redis-server did not come up; its log (%s):\n%s\n", log, text);
	}
	ASSERT(!"redis-server started");
}

void rj_redis_stop(struct rj_redis_server *s)
{
	double deadline = now_ms() + 2000;
	int status;

	if (s->pid <= 0)
		return;
	kill(s->pid, SIGCONT); /* a test may have stopped it */
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
