/*
 * test_remote_trust.c - every endpoint that feeds code or secrets falls under the one
 * trust rule (base/trust.h; issue 27, class 3): the remote tier's unix socket (its owner,
 * its folder's, the process serving it), its password file (no FIFO, no other owner, no
 * other reader) and the compiler libraries named by a path (no FIFO, no other owner, no
 * other writer).  Real files, real sockets, a real redis-server.
 *
 * Another user is uid 65534 (nobody): files are chown'ed to it, a server runs as it
 * (setuid in a forked child).  That needs root: those tests skip (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "compile/vendor_lib.h"
#include "harness.h"
#include "redis_server.h"
#include "remote/client.h"
#include "remote/conn.h"
#include "remote/url.h"

#define NOBODY 65534
#define PASSWORD "trust-test-password"

static void need_root(void)
{
	if (geteuid() != 0)
		rj_test_skip("making files and servers of another user (uid %d) needs root",
			     NOBODY);
}

static void need_hiredis(void)
{
	if (!rj_conn_available())
		rj_test_skip("built without hiredis (libhiredis-dev): no remote tier");
}

/* ---- The password file ------------------------------------------------------------------ */

/* A PING through a client of server s with the password in file: its result, and the
 * time it took in *ms (the message in rocjit_last_error()). */
static int ping_with_password_file(const struct rj_redis_server *s, const char *file, double *ms)
{
	static const char *const ping[] = { "PING" };
	static const size_t ping_len[] = { 4 };
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;
	char url[128];
	double t0;
	int rc;

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=500", s->port);
	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, file, 0), 0);
	rj_redis_set_quiet(r, 1);
	t0 = rj_now_ms();
	rc = rj_redis_command(r, NULL, 1, ping, ping_len, &reply);
	*ms = rj_now_ms() - t0;
	if (rc == 0)
		ASSERT(rj_reply_is(reply, RJ_REPLY_STATUS, "PONG"));
	rj_reply_free(reply);
	rj_redis_close(r);
	return rc;
}

static void write_password(const char *file, mode_t mode)
{
	rj_test_write_file(file, PASSWORD "\n", strlen(PASSWORD) + 1);
	ASSERT(chmod(file, mode) == 0);
}

/* A redis-server wanting PASSWORD, and the path file[size] of the test's password file
 * (name, in the test's folder; not made yet). */
static void start_wanting_password(struct rj_redis_server *s, char *file, size_t size,
				   const char *name)
{
	static const char *const extra[] = { "--requirepass", PASSWORD, NULL };

	need_hiredis();
	rj_redis_start(s, "redis", extra);
	snprintf(file, size, "%s/%s", rj_test_dir, name);
}

TEST(password_file_that_is_a_fifo_is_refused_at_once)
{
	struct rj_redis_server s;
	char fifo[4400];
	double ms;

	start_wanting_password(&s, fifo, sizeof fifo, "password.fifo");
	ASSERT(mkfifo(fifo, 0600) == 0);
	alarm(30); /* the old open() blocked here for good */
	ASSERT(ping_with_password_file(&s, fifo, &ms) < 0);
	alarm(0);
	ASSERT_CONTAINS(rocjit_last_error(), "FIFO");
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_REMOTE_PASSWORD_FILE");
	ASSERT_CONTAINS(rocjit_last_error(), "chmod 600"); /* what to do */
	ASSERT(ms < 500); /* no wait at all: less than the URL's timeout */
	rj_redis_stop(&s);
}

TEST(password_file_readable_by_others_is_refused)
{
	struct rj_redis_server s;
	char file[4400];
	double ms;

	start_wanting_password(&s, file, sizeof file, "password.txt");
	write_password(file, 0644);
	ASSERT(ping_with_password_file(&s, file, &ms) < 0);
	ASSERT_CONTAINS(rocjit_last_error(), "readable by everyone");
	ASSERT_CONTAINS(rocjit_last_error(), "chmod 600");
	ASSERT(strstr(rocjit_last_error(), PASSWORD) == NULL);
	write_password(file, 0640);
	ASSERT(ping_with_password_file(&s, file, &ms) < 0);
	ASSERT_CONTAINS(rocjit_last_error(), "readable by its group");
	write_password(file, 0600); /* the same file, as a secret is kept: used */
	ASSERT_INT(ping_with_password_file(&s, file, &ms), 0);
	rj_redis_stop(&s);
}

TEST(password_file_of_another_user_is_refused)
{
	struct rj_redis_server s;
	char file[4400];
	double ms;

	need_root();
	start_wanting_password(&s, file, sizeof file, "password.txt");
	write_password(file, 0600);
	ASSERT(chown(file, NOBODY, NOBODY) == 0);
	ASSERT(ping_with_password_file(&s, file, &ms) < 0);
	ASSERT_CONTAINS(rocjit_last_error(), "owned by user 65534");
	rj_redis_stop(&s);
}

/* ---- The unix socket ------------------------------------------------------------------- */

/* A socket bound at path (its file made by this process), listening. */
static int listen_at(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	ASSERT(fd >= 0 && strlen(path) < sizeof a.sun_path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	ASSERT(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0);
	return fd;
}

static int connect_unix(const char *path)
{
	struct rj_conn *c = NULL;
	int rc = rj_conn_open(&c, NULL, 0, path, 1000);

	rj_conn_close(c);
	return rc;
}

TEST(unix_socket_owned_by_another_user_is_refused)
{
	static const char *const ping[] = { "PING" };
	static const size_t ping_len[] = { 4 };
	struct rj_redis_server s;
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;
	char url[4500];

	need_hiredis();
	need_root();
	rj_redis_start(&s, "redis", NULL);
	ASSERT_INT(connect_unix(s.sock), 0); /* this user's: used */
	ASSERT(chown(s.sock, NOBODY, NOBODY) == 0);
	/* In a folder only root can write, root arranged it (a service's socket in /run):
	   used, the server being root's. */
	ASSERT(chmod(s.dir, 0755) == 0);
	ASSERT_INT(connect_unix(s.sock), 0);
	/* In a sticky folder anyone can write (/tmp): anyone could have made it. */
	ASSERT(chmod(s.dir, 01777) == 0);
	ASSERT_INT(connect_unix(s.sock), -RJ_CONN_UNTRUSTED);
	ASSERT_CONTAINS(rocjit_last_error(), "owned by user 65534");
	ASSERT_CONTAINS(rocjit_last_error(), "others can write");
	/* Through the tier's client, as unix:// in ROCJIT_REMOTE. */
	snprintf(url, sizeof url, "unix://%s", s.sock);
	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 0), 0);
	rj_redis_set_quiet(r, 1);
	ASSERT(rj_redis_command(r, NULL, 1, ping, ping_len, &reply) < 0);
	ASSERT_CONTAINS(rocjit_last_error(), "the remote cache's socket");
	rj_redis_close(r);
	rj_redis_stop(&s);
}

TEST(unix_socket_in_a_folder_another_user_can_write_is_refused)
{
	char dir[4400], sock[4500];
	int fd;

	need_hiredis();
	need_root();
	snprintf(dir, sizeof dir, "%s/d", rj_test_dir);
	snprintf(sock, sizeof sock, "%s/redis.sock", dir);
	ASSERT(mkdir(dir, 0755) == 0);
	fd = listen_at(sock);
	ASSERT_INT(connect_unix(sock), 0);
	/* Writable by all, not sticky: anyone can put another socket in its place. */
	ASSERT(chmod(dir, 0777) == 0);
	ASSERT_INT(connect_unix(sock), -RJ_CONN_UNTRUSTED);
	ASSERT_CONTAINS(rocjit_last_error(), "the folder of the remote cache's socket");
	/* Sticky, as /tmp: others may add names, not replace this one. */
	ASSERT(chmod(dir, 01777) == 0);
	ASSERT_INT(connect_unix(sock), 0);
	/* Owned by another user. */
	ASSERT(chmod(dir, 0755) == 0 && chown(dir, NOBODY, NOBODY) == 0);
	ASSERT_INT(connect_unix(sock), -RJ_CONN_UNTRUSTED);
	ASSERT_CONTAINS(rocjit_last_error(), "owned by user 65534");
	close(fd);
}

/*
 * A server run as user nobody on sock, made by that user (bind after setuid: the socket
 * file is nobody's) when as_owner, else by root before setuid (root's file, another
 * user's server); answers +PONG to whatever comes.  Its pid; it dies with the test.
 */
static pid_t serve_as_nobody(const char *sock, int as_owner)
{
	int ready[2], fd;
	pid_t pid;
	char c;

	ASSERT(pipe(ready) == 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		memcpy(a.sun_path, sock, strlen(sock) + 1);
		if (fd < 0 || (!as_owner && bind(fd, (struct sockaddr *)&a, sizeof a) != 0) ||
		    setgid(NOBODY) != 0 || setuid(NOBODY) != 0 ||
		    (as_owner && bind(fd, (struct sockaddr *)&a, sizeof a) != 0) ||
		    listen(fd, 8) != 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;) {
			int conn = accept(fd, NULL, NULL);
			if (conn >= 0 && write(conn, "+PONG\r\n", 7) < 0)
				_exit(1);
		}
	}
	close(ready[1]);
	ASSERT(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	return pid;
}

static void stop_server(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST(unix_socket_served_by_another_user_is_refused)
{
	char sock[4400];
	pid_t pid;

	need_hiredis();
	need_root();
	/* The socket file is root's, in root's folder: only the server's own uid
	   (SO_PEERCRED) tells that another user serves it. */
	snprintf(sock, sizeof sock, "%s/redis.sock", rj_test_dir);
	pid = serve_as_nobody(sock, 0);
	ASSERT_INT(connect_unix(sock), -RJ_CONN_UNTRUSTED);
	ASSERT_CONTAINS(rocjit_last_error(), "served by a process of user 65534");
	stop_server(pid);
}

/*
 * A service's own socket (Debian's redis-server: user redis, /run/redis): made by the
 * user that serves it, in that user's folder, which nobody else can write - used.  The
 * same socket in a folder its group may write, or in a folder of a third user, is not.
 */
TEST(service_socket_in_the_services_own_folder_is_used)
{
	char dir[4400], sock[4500];
	pid_t pid;

	need_hiredis();
	need_root();
	snprintf(dir, sizeof dir, "%s/run-redis", rj_test_dir);
	snprintf(sock, sizeof sock, "%s/redis.sock", dir);
	ASSERT(mkdir(dir, 0755) == 0 && chown(dir, NOBODY, NOBODY) == 0);
	ASSERT(chmod(rj_test_dir, 0755) == 0); /* nobody must reach its folder */
	pid = serve_as_nobody(sock, 1);
	ASSERT_INT(connect_unix(sock), 0);
	ASSERT(chmod(dir, 0775) == 0);
	ASSERT_INT(connect_unix(sock), -RJ_CONN_UNTRUSTED);
	ASSERT_CONTAINS(rocjit_last_error(), "others can write");
	ASSERT(chmod(dir, 0755) == 0 && chown(dir, 12345, 12345) == 0);
	ASSERT_INT(connect_unix(sock), -RJ_CONN_UNTRUSTED);
	ASSERT_CONTAINS(rocjit_last_error(), "of a third user");
	stop_server(pid);
}

/* ---- Compiler libraries ------------------------------------------------------------------ */

/* Copies the fake hipRTC (a real shared library) to path with mode. */
static void copy_library(const char *path, mode_t mode)
{
	size_t size = 0;
	char *bytes = rj_test_read_file(ROCJIT_TEST_FAKE_HIPRTC, &size);

	ASSERT(bytes && size > 0);
	rj_test_write_file(path, bytes, size);
	free(bytes);
	ASSERT(chmod(path, mode) == 0);
}

static void *open_library(const char *path)
{
	const char *const names[] = { path, NULL };

	return rj_vendor_open(NULL, 0, names);
}

TEST(compiler_library_that_is_a_fifo_is_refused_at_once)
{
	char fifo[4400];
	const char *id = NULL;
	double t0;

	snprintf(fifo, sizeof fifo, "%s/libamdhip64.so.5", rj_test_dir);
	ASSERT(mkfifo(fifo, 0755) == 0);
	alarm(30); /* dlopen of a FIFO blocked until a writer came */
	t0 = rj_now_ms();
	ASSERT(open_library(fifo) == NULL);
	setenv("ROCJIT_HIP_LIBRARY", fifo, 1);
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), ROCJIT_ENOCOMPILER);
	setenv("ROCJIT_NVRTC_LIBRARY", fifo, 1);
	ASSERT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_NVIDIA) != 0);
	alarm(0);
	ASSERT(rj_now_ms() - t0 < 5000);
}

TEST(compiler_library_writable_by_others_is_refused_and_a_sound_one_loads)
{
	char lib[4400];
	void *h, *sym;

	snprintf(lib, sizeof lib, "%s/libhiprtc-open.so", rj_test_dir);
	copy_library(lib, 0757);
	ASSERT(open_library(lib) == NULL);
	snprintf(lib, sizeof lib, "%s/libhiprtc-group.so", rj_test_dir);
	copy_library(lib, 0775);
	ASSERT(open_library(lib) == NULL);
	/* A sound copy loads, and is known by the path it was named by. */
	snprintf(lib, sizeof lib, "%s/libhiprtc-mine.so", rj_test_dir);
	copy_library(lib, 0755);
	h = open_library(lib);
	ASSERT(h != NULL);
	sym = rj_vendor_sym(h, "hiprtcVersion");
	ASSERT(sym != NULL);
	ASSERT_STR(rj_vendor_file(sym), lib);
}

TEST(compiler_library_of_another_user_is_refused)
{
	char lib[4400];

	need_root();
	snprintf(lib, sizeof lib, "%s/libhiprtc-theirs.so", rj_test_dir);
	copy_library(lib, 0755);
	ASSERT(chown(lib, NOBODY, NOBODY) == 0);
	ASSERT(open_library(lib) == NULL);
	setenv("ROCJIT_HIP_LIBRARY", lib, 1);
	{
		const char *id = NULL;
		ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), ROCJIT_ENOCOMPILER);
	}
}

/* ---- Through the library, as an application meets them ----------------------------------- */

TEST(application_with_a_fifo_password_file_compiles_on_without_the_tier)
{
	static const char *const extra[] = { "--requirepass", PASSWORD, NULL };
	struct rj_redis_server s;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	char fifo[4400], url[128];
	rocjit_stats st;

	need_hiredis();
	rj_redis_start(&s, "redis", extra);
	snprintf(fifo, sizeof fifo, "%s/password.fifo", rj_test_dir);
	ASSERT(mkfifo(fifo, 0600) == 0);
	setenv("ROCJIT_REMOTE_PASSWORD_FILE", fifo, 1);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", s.port);
	o.cache_dir = rj_test_cache_dir;
	o.remote = url;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	alarm(60); /* the old open() of the FIFO held the tier's lock for good */
	ASSERT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST_FIFO", 1)->size > 0);
	alarm(0);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.compiles, 1);
	ASSERT(st.remote_errors >= 1);
	rocjit_close(ctx);
	unsetenv("ROCJIT_REMOTE_PASSWORD_FILE");
	rj_redis_stop(&s);
}

TEST(cache_hit_with_a_fifo_compiler_library_does_not_hang)
{
	rocjit_ctx *ctx = rj_test_open();
	char fifo[4400];
	pid_t pid;
	int status = 0;

	/* The entry, compiled with the system's hipRTC. */
	ASSERT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST_HIT", 1)->size > 0);
	rocjit_close(ctx);
	snprintf(fifo, sizeof fifo, "%s/libamdhip64.so.5", rj_test_dir);
	ASSERT(mkfifo(fifo, 0755) == 0);
	/* A new process (the loader runs once a process) with the library a FIFO: it asks
	   for the same kernel and gets an answer, whichever, instead of hanging. */
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		const rocjit_code *c = NULL;
		alarm(60);
		setenv("ROCJIT_HIP_LIBRARY", fifo, 1);
		ctx = rj_test_open();
		_exit(rj_test_try_variant(&c, ctx, "gfx90a", "RJ_TRUST_HIT", 1) == 0 ? 0 : 3);
	}
	ASSERT(waitpid(pid, &status, 0) == pid);
	ASSERT(WIFEXITED(status)); /* not ended by the alarm */
}
