/*
 * process.c - one compile worker process, as its parent sees it: starting it
 * (posix_spawn, the greeting), receiving a frame from it under a time and a memory limit,
 * what it printed, and its end (kill, reap, its status in words).
 *
 * Owns nothing shared: each function works on the one worker it is given, which the
 * calling thread holds (pool.c hands workers out and keeps the process's table of them).
 * Uses the wire for the greeting.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "compile/inputs.h"
#include "compile/platform.h"
#include "worker/process.h"
#include "worker/wire.h"

extern char **environ;

#define HELLO_TIMEOUT_MS 120000.0 /* with no time limit set: loading the compiler, on a
                                     loaded machine, bounded all the same */
#define MEMORY_SAMPLE_MS 100
#define END_GRACE_MS 500.0        /* a worker whose channel closed, to end by itself */
#define TMP_PREFIX "rocjit-worker-" /* <prefix><parent pid>-XXXXXX */

/* ---- The workers' temporary folders --------------------------------------------------- */

static pthread_once_t base_once = PTHREAD_ONCE_INIT, sweep_once = PTHREAD_ONCE_INIT;
static char tmp_base[1024];

static void choose_base(void)
{
	const char *env = getenv("TMPDIR");

	if (!env || env[0] != '/' || strlen(env) >= sizeof tmp_base - 64)
		env = "/tmp";
	snprintf(tmp_base, sizeof tmp_base, "%s", env);
}

const char *rj_wproc_tmp_base(void)
{
	pthread_once(&base_once, choose_base);
	return tmp_base;
}

/*
 * Removes name (a folder in the folder at) and all it holds, by descriptor: each folder
 * is opened O_NOFOLLOW relative to its parent, and a link is removed, never followed, so
 * a link planted by the compiler (or anyone who could write there) leads nowhere else.
 * depth bounds the recursion.  Best effort: what cannot be removed stays.
 */
static void remove_tree_at(int at, const char *name, int depth)
{
	int fd = depth < 64 ? openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	DIR *d;
	struct dirent *e;

	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			struct stat st;
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			if (S_ISDIR(st.st_mode))
				remove_tree_at(dirfd(d), e->d_name, depth + 1);
			else
				(void)unlinkat(dirfd(d), e->d_name, 0);
		}
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	(void)unlinkat(at, name, AT_REMOVEDIR);
}

/* Removes a worker's folder (name, in the base folder). */
static void remove_tmp(const char *name)
{
	int base;

	if (!name[0])
		return;
	base = open(rj_wproc_tmp_base(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base < 0)
		return;
	remove_tree_at(base, name, 0);
	close(base);
}

/* A stale folder: ours by name and owner, a folder, its parent process gone. */
static int stale(int base, const char *name)
{
	struct stat st;
	char *end;
	long pid;

	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) != 0)
		return 0;
	pid = strtol(name + strlen(TMP_PREFIX), &end, 10);
	if (pid <= 0 || *end != '-' || pid == (long)getpid())
		return 0;
	if (fstatat(base, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void sweep(void)
{
	int base = open(rj_wproc_tmp_base(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;

	if (base < 0)
		return;
	d = fdopendir(dup(base));
	if (d) {
		while ((e = readdir(d)) != NULL)
			if (stale(base, e->d_name)) {
				RJ_LOG(RJ_LOG_INFO, "removing %s/%s, left by a process that ended",
				       tmp_base, e->d_name);
				remove_tree_at(base, e->d_name, 0);
			}
		closedir(d);
	}
	close(base);
}

void rj_wproc_sweep_stale(void)
{
	pthread_once(&sweep_once, sweep);
}

void rj_wproc_remove_own_tmp(pid_t parent)
{
	const char *dir = getenv("TMPDIR"), *name = dir ? strrchr(dir, '/') : NULL;
	char prefix[64], parent_dir[1024];
	int base;

	snprintf(prefix, sizeof prefix, TMP_PREFIX "%d-", (int)parent);
	if (!name || strncmp(name + 1, prefix, strlen(prefix)) != 0 ||
	    (size_t)(name - dir) >= sizeof parent_dir)
		return;
	snprintf(parent_dir, sizeof parent_dir, "%.*s", (int)(name - dir), dir);
	base = open(parent_dir[0] ? parent_dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base < 0)
		return;
	remove_tree_at(base, name + 1, 0);
	close(base);
}

/* Makes w's private temporary folder: 0 with w->tmp and *dir (its path), else -1. */
static int make_tmp(struct rj_wproc *w, char *dir, size_t size)
{
	int n = snprintf(dir, size, "%s/" TMP_PREFIX "%d-XXXXXX", rj_wproc_tmp_base(),
			 (int)getpid());

	w->tmp[0] = 0;
	if (n < 0 || (size_t)n >= size || !mkdtemp(dir)) /* mkdtemp: mode 0700 */
		return -1;
	snprintf(w->tmp, sizeof w->tmp, "%s", strrchr(dir, '/') + 1);
	return 0;
}

/*
 * The worker's environment: this process's, less the variables that change what the
 * compilers read (compile/inputs.h: they are not in the key), with TMPDIR set to its
 * private folder, and the compiler libraries this process has loaded named for it to load
 * first (compile/platform.h, RJ_WORKER_LIBRARIES; one inherited is dropped).  One
 * malloc'ed block (the array, then the entries made here); NULL: no memory.
 */
static char **worker_environ(const char *tmpdir)
{
	size_t n = 0, k = 0;
	char **env, *entry, *libraries = rj_worker_libraries_env();
	size_t extra = strlen(tmpdir) + 8 + (libraries ? strlen(libraries) + 1 : 0);

	while (environ[n])
		n++;
	env = malloc((n + 3) * sizeof *env + extra);
	if (!env) {
		free(libraries);
		return NULL;
	}
	entry = (char *)(env + n + 3);
	sprintf(entry, "TMPDIR=%s", tmpdir);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "TMPDIR=", 7) == 0 ||
		    strncmp(environ[i], RJ_WORKER_LIBRARIES "=",
			    strlen(RJ_WORKER_LIBRARIES) + 1) == 0)
			continue;
		if (rj_inputs_env_changes_code(environ[i])) {
			rj_warn_once(environ[i], "%.*s is set: rocjit's compile workers run "
				     "without it, because it would change what the compiler reads "
				     "without changing the cache key; pass what it adds as "
				     "registered headers or compiler options instead",
				     (int)strcspn(environ[i], "="), environ[i]);
			continue;
		}
		env[k++] = environ[i];
	}
	env[k++] = entry;
	if (libraries) {
		env[k++] = strcpy(entry + strlen(entry) + 1, libraries);
		free(libraries);
	}
	env[k] = NULL;
	return env;
}

/* Reads what the worker printed so far (non-blocking) into t (NULL: discarded). */
void rj_wproc_drain(int fd, struct rj_wtail *t)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
		size_t k = n > 0 ? (size_t)n : 0;
		if (!t || !k)
			continue;
		if (k >= RJ_WTAIL_MAX) {
			memcpy(t->text, buf + k - RJ_WTAIL_MAX, RJ_WTAIL_MAX);
			t->len = RJ_WTAIL_MAX;
		} else {
			if (t->len + k > RJ_WTAIL_MAX) {
				size_t drop = t->len + k - RJ_WTAIL_MAX;
				memmove(t->text, t->text + drop, t->len - drop);
				t->len -= drop;
			}
			memcpy(t->text + t->len, buf, k);
			t->len += k;
		}
		t->text[t->len] = 0;
	}
}

/* The worker's resident memory in MiB, or 0 when it cannot be read. */
static uint64_t resident_mib(pid_t pid)
{
	char path[64], text[128];
	unsigned long long size = 0, resident = 0;
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	if (sscanf(text, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) >> 20;
}

/*
 * Receives one frame from w with the limits applied, collecting its output into t.
 * RJ_WEND_FRAME with *payload malloc'ed; otherwise nothing to free.
 */
enum rj_wend rj_wproc_receive(struct rj_wproc *w, const struct rj_wlimits *lim,
			      struct rj_wtail *t, char **payload, size_t *len)
{
	uint32_t n = 0;
	size_t got = 0, want = sizeof n;
	char *p = NULL;

	for (;;) {
		struct pollfd fds[2] = { { w->sock, POLLIN, 0 }, { w->out, POLLIN, 0 } };
		int timeout = -1;
		double now = rj_now_ms();

		if (lim->deadline_ms > 0) {
			if (now >= lim->deadline_ms)
				break;
			timeout = (int)(lim->deadline_ms - now) + 1;
		}
		if (lim->memory_mib && (timeout < 0 || timeout > MEMORY_SAMPLE_MS))
			timeout = MEMORY_SAMPLE_MS;
		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			rj_wproc_drain(w->out, t);
		if (lim->memory_mib && resident_mib(w->pid) > lim->memory_mib) {
			free(p);
			return RJ_WEND_MEMORY;
		}
		if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		for (;;) {
			char *dst = p ? p + got : (char *)&n + got;
			ssize_t r = recv(w->sock, dst, want - got, MSG_DONTWAIT);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (r <= 0) {
				free(p);
				rj_wproc_drain(w->out, t);
				return RJ_WEND_DIED;
			}
			got += (size_t)r;
			if (got < want)
				continue;
			if (p) {
				p[n] = 0;
				*payload = p;
				*len = n;
				return RJ_WEND_FRAME;
			}
			if (n > RJ_WIRE_FRAME_MAX || !(p = malloc((size_t)n + 1)))
				return RJ_WEND_DIED; /* not a worker's frame: treated as a broken worker */
			got = 0;
			want = n;
			if (!want) {
				p[0] = 0;
				*payload = p;
				*len = 0;
				return RJ_WEND_FRAME;
			}
		}
	}
	free(p);
	return RJ_WEND_TIMEOUT;
}

/* Closes w's ends, kills it if asked, and reaps it; its wait status, or -1 when another
 * waiter of this process took it. */
int rj_wproc_retire(struct rj_wproc *w, int kill_it)
{
	double until = rj_now_ms() + END_GRACE_MS;
	int status = 0;
	pid_t r;

	if (kill_it)
		kill(w->pid, SIGKILL);
	close(w->sock);
	close(w->out);
	/* A worker whose channel closed is ending; one that is not (it closed its socket and
	   went on) must not hold this thread: it is killed after a moment.  Its status stays
	   what it ended with when it was already ending. */
	for (;;) {
		r = waitpid(w->pid, &status, kill_it ? 0 : WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 0)
			break;
		if (rj_now_ms() >= until) {
			kill(w->pid, SIGKILL);
			kill_it = 1;
			continue;
		}
		usleep(2000);
	}
	w->pid = 0;
	/* Its compiler's temporary files go with it, whatever ended it. */
	remove_tmp(w->tmp);
	w->tmp[0] = 0;
	return r > 0 ? status : -1;
}

/*
 * Starts a worker into w (a slot the caller holds) and reads its greeting.  posix_spawn resets the signals the application may ignore or
 * block, and closes every other descriptor of the application in the worker.
 */
int rj_wproc_spawn(struct rj_wproc *w, const char *path, int platform,
		   const struct rj_wlimits *limits, int *started)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int sv[2], op[2], rc;
	pid_t pid = 0;
	const char *why = NULL;
	char *argv[] = { (char *)RJ_WORKER_NAME, (char *)"--platform",
			 (char *)(platform == ROCJIT_PLATFORM_NVIDIA ? "nvidia" : "amd"), NULL };
	struct rj_wlimits lim = *limits;
	struct rj_wtail t = { .len = 0 };
	char *hello = NULL, tmpdir[1200], **env;
	size_t len = 0;
	enum rj_wend end;

	*started = 0;
	if (lim.deadline_ms <= 0)
		lim.deadline_ms = rj_now_ms() + HELLO_TIMEOUT_MS;
	rj_wproc_sweep_stale();
	RJ_CHECK(make_tmp(w, tmpdir, sizeof tmpdir) != 0, ROCJIT_EIO, "cannot start a compile "
		 "worker: cannot make its temporary folder in %s: %s; set TMPDIR to a writable "
		 "folder", rj_wproc_tmp_base(), strerror(errno));
	env = worker_environ(tmpdir);
	if (!env) {
		remove_tmp(w->tmp);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory starting a compile worker");
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		rc = errno;
		free(env);
		remove_tmp(w->tmp);
		RJ_FAIL(ROCJIT_EIO, "cannot start a compile worker: socketpair: %s", strerror(rc));
	}
	if (pipe2(op, O_CLOEXEC) != 0) {
		rc = errno;
		close(sv[0]);
		close(sv[1]);
		free(env);
		remove_tmp(w->tmp);
		RJ_FAIL(ROCJIT_EIO, "cannot start a compile worker: pipe: %s", strerror(rc));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, op[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, op[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
#endif
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGCHLD);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, path, &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(env);
	close(sv[1]);
	close(op[1]);
	if (rc != 0) {
		close(sv[0]);
		close(op[0]);
		w->pid = 0;
		remove_tmp(w->tmp);
		w->tmp[0] = 0;
		RJ_FAIL(ROCJIT_ENOCOMPILER, "cannot start the compile worker %s: %s; reinstall "
			"rocjit, set ROCJIT_WORKER to a working rocjit-worker, or compile in "
			"this process (ROCJIT_COMPILE_INPROCESS=1)", path, strerror(rc));
	}
	w->sock = sv[0];
	w->out = op[0];
	w->pid = pid; /* last: a fork meanwhile sees a slot without a worker or a whole one */
	fcntl(w->out, F_SETFL, O_NONBLOCK);
	*started = 1;
	end = rj_wproc_receive(w, &lim, &t, &hello, &len);
	if (end == RJ_WEND_FRAME) {
		struct rj_wread r = { hello, len, 0, 0 };
		rc = rj_wire_hello_check(&r, &why);
		free(hello);
		if (rc == 0) {
			RJ_LOG(RJ_LOG_INFO, "started compile worker %d (%s)", (int)w->pid,
			       path);
			return 0;
		}
	}
	rj_wproc_retire(w, 1);
	if (end == RJ_WEND_TIMEOUT || end == RJ_WEND_MEMORY)
		RJ_FAIL(ROCJIT_ENOCOMPILER, "the compile worker %s did not start: it sent no "
			"greeting within %s%s; set ROCJIT_WORKER to the rocjit-worker installed "
			"with this library, raise the limit, or compile in this process "
			"(ROCJIT_COMPILE_INPROCESS=1)%s%s", path, end == RJ_WEND_MEMORY ?
			"the memory limit (ROCJIT_COMPILE_MEMORY_MB)" : "the time limit",
			end == RJ_WEND_MEMORY ? "" : limits->deadline_ms > 0 ?
			" (ROCJIT_COMPILE_TIMEOUT)" : " (120 s)", t.len ? ". It printed: " : "",
			t.len ? t.text : "");
	RJ_FAIL(ROCJIT_ENOCOMPILER, "the compile worker %s did not start: %s%s%s; set "
		"ROCJIT_WORKER to the rocjit-worker installed with this library, or compile in "
		"this process (ROCJIT_COMPILE_INPROCESS=1)", path,
		why ? why : "it sent no greeting", t.len ? ". It printed: " : "",
		t.len ? t.text : "");
}

/* Whether an idle worker is still there: it sends nothing between requests, so anything
 * readable on its socket is its end. */
int rj_wproc_idle_alive(const struct rj_wproc *w)
{
	struct pollfd fd = { w->sock, POLLIN, 0 };

	return poll(&fd, 1, 0) == 0;
}


/* The last line of what the worker printed ("LLVM ERROR: ..."), for a message. */
void rj_wproc_last_line(char *out, size_t size, const struct rj_wtail *t)
{
	size_t end = t->len, start;

	while (end && (t->text[end - 1] == '\n' || t->text[end - 1] == '\r' ||
		       t->text[end - 1] == ' '))
		end--;
	start = end;
	while (start && t->text[start - 1] != '\n')
		start--;
	snprintf(out, size, "%.*s", (int)(end - start), t->text + start);
}

/* A worker's end status in words: "was killed by signal 6 (SIGABRT)". */
void rj_wproc_describe_status(char *out, size_t size, int status)
{
	if (status == -1)
		snprintf(out, size, "ended (its exit status was taken by another part of this "
			 "process)");
	else if (WIFSIGNALED(status))
		snprintf(out, size, "was killed by signal %d (SIG%s)", WTERMSIG(status),
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else if (WIFEXITED(status))
		snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(out, size, "ended");
}
