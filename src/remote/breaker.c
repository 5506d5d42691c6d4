/*
 * breaker.c - the remote tier's circuit breaker.
 *
 * A failure the request path cannot do better against by retrying (no answer, refused
 * credentials, a server loading or a cluster down) opens the breaker: for retry_ms no
 * command is sent, so a server down costs one timeout per period, not one per request.
 * It is shared with the node's other processes through a file in the cache folder
 * (cache/FORMAT.md): a failure writes it, a process about to connect looks at it first
 * and keeps away while it is recent, a command that works removes it - a dead server
 * costs a node one timeout per period, not one per process.  One warning an outage.
 *
 * Owns the breaker's state and its file; knows nothing of connections or commands
 * (client.c asks it before sending and tells it what came of a command).
 */
#include "remote/breaker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "key/key.h"

void rj_breaker_init(struct rj_breaker *b, int retry_ms)
{
	memset(b, 0, sizeof *b);
	b->retry_ms = retry_ms;
	b->share_fd = -1;
}

void rj_breaker_share(struct rj_breaker *b, int dirfd)
{
	/* A descriptor of its own: the cache closes and opens its own around fork(), and the
	   number could then name another folder.  The name is made at its first use
	   (rocjit_open's path makes no printf). */
	rj_breaker_close(b);
	b->share_fd = dirfd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) : -1;
}

void rj_breaker_close(struct rj_breaker *b)
{
	if (b->share_fd >= 0)
		close(b->share_fd);
	b->share_fd = -1;
}

/* The shared file's name in its folder: one per deployment, named by its URL as shown
 * (no password). */
static const char *share_name(struct rj_breaker *b, const char *shown)
{
	char hex[33];
	rj_digest d;
	rj_key k;

	if (!b->share_name[0]) {
		d = rj_digest_of(shown, strlen(shown));
		memcpy(k.b, d.b, sizeof k.b);
		rj_key_hex(&k, hex);
		snprintf(b->share_name, sizeof b->share_name, "rocjit-remote-%.16s.down", hex);
	}
	return b->share_name;
}

/* Writes why into the shared file (best-effort: a breaker not shared only costs the
 * other processes their own timeout). */
static void share_trip(struct rj_breaker *b, const char *shown, const char *why)
{
	int fd;

	if (b->share_fd < 0)
		return;
	fd = openat(b->share_fd, share_name(b, shown),
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0)
		return;
	if (write(fd, why, strlen(why)) < 0)
		RJ_LOG(RJ_LOG_DEBUG, "remote cache %s: the breaker's file: %s", shown,
		       strerror(errno));
	close(fd);
	b->share_seen = 1;
}

int rj_breaker_shared_off(struct rj_breaker *b, const char *shown)
{
	struct stat st;
	struct timespec now;
	double age_ms;
	char why[sizeof b->off_why - 64];
	ssize_t n = 0;
	int fd;

	if (b->share_fd < 0 ||
	    fstatat(b->share_fd, share_name(b, shown), &st, AT_SYMLINK_NOFOLLOW) != 0) {
		b->share_seen = 0;
		return 0;
	}
	b->share_seen = 1;
	clock_gettime(CLOCK_REALTIME, &now);
	age_ms = (double)(now.tv_sec - st.st_mtim.tv_sec) * 1e3 +
		 (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e6;
	if (!S_ISREG(st.st_mode) || age_ms < 0 || age_ms >= b->retry_ms)
		return 0;
	fd = openat(b->share_fd, b->share_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		n = read(fd, why, sizeof why - 1);
		close(fd);
	}
	why[n > 0 ? n : 0] = 0;
	for (char *c = why; *c; c++) /* another process's words: printable ASCII only */
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = ' ';
	b->off_until = rj_now_ms() + (b->retry_ms - age_ms);
	snprintf(b->off_why, sizeof b->off_why, "another process of this node found it failing "
		 "%.1f s ago: %s", age_ms / 1000.0, why[0] ? why : "(no reason kept)");
	if (!b->quiet && !b->warned)
		rj_log(RJ_LOG_WARN, "remote cache %s: %s; going on without it for %.0f s", shown,
		       b->off_why, (b->retry_ms - age_ms) / 1000.0);
	b->warned = 1;
	return 1;
}

void rj_breaker_trip(struct rj_breaker *b, const char *shown, const char *why)
{
	b->off_until = rj_now_ms() + b->retry_ms;
	snprintf(b->off_why, sizeof b->off_why, "%s", why);
	share_trip(b, shown, why);
	/* One warning per outage: a server that stays down is retried every period, and
	   says so only at ROCJIT_LOG=info. */
	if (b->quiet)
		return;
	if (!b->warned)
		rj_log(RJ_LOG_WARN, "remote cache %s: %s; going on without it for %.0f s (then it "
		       "is tried again)", shown, why, b->retry_ms / 1000.0);
	else
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: %s; tried again in %.0f s", shown, why,
		       b->retry_ms / 1000.0);
	b->warned = 1;
}

int rj_breaker_check(struct rj_breaker *b, const char *shown)
{
	if (!b->off_why[0] || rj_now_ms() >= b->off_until)
		return 0;
	RJ_FAIL(-RJ_BREAKER_OFF, "remote cache %s is not used for %.1f s more, after: %s", shown,
		(b->off_until - rj_now_ms()) / 1000.0, b->off_why);
}

void rj_breaker_succeeded(struct rj_breaker *b, const char *shown)
{
	if (b->off_why[0] && b->warned)
		RJ_LOG(RJ_LOG_INFO, "remote cache %s answers again", shown);
	b->off_why[0] = 0;
	b->warned = 0;
	if (b->share_seen && b->share_fd >= 0) {
		/* It works again: the node's other processes need not keep away. */
		unlinkat(b->share_fd, b->share_name, 0);
		b->share_seen = 0;
	}
}
