/*
 * keylock.c - one compile per key across processes.
 *
 * A process that misses a key in the on-disk cache takes an exclusive flock on
 * <cache>/locks/<key>.lock before compiling; the others that miss the same key meanwhile
 * wait, looking at the cache, and take the result when it appears.  flock locks die with
 * their process, so a holder killed mid-compile blocks nobody; a holder that hangs is
 * waited for at most rj_keylock_timeout_ms(), then the waiter compiles itself.
 *
 * The lock file is removed by its holder before it lets go.  A process that opened the
 * old file and then got its lock would hold a lock nobody else sees, so after taking a
 * lock the name must still name the locked file (same inode), else it tries again.  The
 * same check guards the removal of stale files (rj_keylock_sweep): a file is removed only
 * while its remover holds its lock, exactly as a holder removes its own.
 *
 * Everything works on descriptors: the locks/ folder is opened once per call without
 * following a link and checked (a folder, not writable by others), and every lock file
 * is opened relative to it with O_NOFOLLOW and O_NONBLOCK, then must be a regular file.
 * In a group-shared cache (ROCJIT_CACHE_SHARED) the folder is 0770 and the files 0660 so
 * that every member can take every lock; a private cache keeps 0700 and 0600.
 *
 * fork(): a child inherits the descriptors of the locks its parent holds, and with them
 * the locks (a flock belongs to the open file, not to the process).  A child that lived
 * on would keep a dead parent's lock taken, and could release or remove a lock the
 * parent still holds.  So the process's held locks are listed, and a fork child closes
 * its copies and forgets them (pthread_atfork): the parent's locks stay the parent's.
 *
 * Owns the key lock files in the locks/ folder (cache_db.c's open.lock beside them is the
 * cache's); never touches the database, and knows no rj_cache: it is given the folder.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/error.h"
#include "store/keylock.h"
#include "store/trust.h"

#define STALE_AFTER_S 60     /* a lock file nobody holds, this old, was left behind */
#define SWEEP_ON_LOCK 512    /* names looked at by the sweep a process makes on its own */

/* ---- The process's held locks, for fork ---------------------------------------------- */

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rj_keylock *held;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
	pthread_mutex_lock(&held_mu);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&held_mu);
}

/* The child: its copies of the parent's lock descriptors are closed, never unlocked (that
 * would release the parent's lock) and never unlinked; a release in the child is then a
 * no-op. */
static void after_fork_child(void)
{
	for (struct rj_keylock *l = held, *next; l; l = next) {
		next = l->next;
		close(l->fd);
		close(l->dirfd);
		l->fd = l->dirfd = -1;
		l->prev = l->next = NULL;
	}
	held = NULL;
	pthread_mutex_init(&held_mu, NULL); /* anew: the parent's thread took it */
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static void list_add(struct rj_keylock *l)
{
	pthread_mutex_lock(&held_mu);
	l->prev = NULL;
	l->next = held;
	if (held)
		held->prev = l;
	held = l;
	pthread_mutex_unlock(&held_mu);
}

static void list_remove(struct rj_keylock *l)
{
	pthread_mutex_lock(&held_mu);
	if (l->prev)
		l->prev->next = l->next;
	else if (held == l)
		held = l->next;
	if (l->next)
		l->next->prev = l->prev;
	l->prev = l->next = NULL;
	pthread_mutex_unlock(&held_mu);
}

/* ---- The locks/ folder ----------------------------------------------------------------- */

/* ROCJIT_CACHE_SHARED, as the trust rule reads it (trust.c). */
static int shared_mode(void)
{
	return !!(rj_cache_trust_flags() & RJ_TRUST_SHARED);
}

/*
 * Opens dir/locks (creating it), as a descriptor: not through a link, a folder, and not
 * writable by users outside the cache's owner (and group, when shared).  A folder this
 * process creates gets exactly 0700, or 0770 when shared, whatever the umask; an existing
 * one is widened to the group only in a shared cache and only by its owner, never
 * narrowed nor widened in a private one.  -1 when no usable folder can be had.
 */
static int open_locks_dir(const char *dir, int shared)
{
	mode_t want = shared ? 0770 : 0700;
	struct stat st;
	int cfd, fd, made;

	cfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cfd < 0)
		return -1;
	made = mkdirat(cfd, "locks", want) == 0;
	fd = openat(cfd, "locks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(cfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & S_IWOTH)) {
		close(fd);
		return -1;
	}
	if (st.st_uid == geteuid() && (made ? (st.st_mode & 0777) != want
					    : shared && (st.st_mode & 0070) != 0070))
		(void)fchmod(fd, want | (st.st_mode & S_ISGID)); /* keep a setgid folder's */
	return fd;
}

/* A lock file, opened relative to the locks/ folder: a regular file or nothing. */
static int open_lock_file(int dfd, const char *name, int shared)
{
	int flags = O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	mode_t want = shared ? 0660 : 0600;
	struct stat st;
	int fd = openat(dfd, name, O_RDWR | flags, want);

	/* Another member's file that its umask left 0640: a lock needs no write access. */
	if (fd < 0 && errno == EACCES)
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (shared && st.st_uid == geteuid() && (st.st_mode & 0777) != want)
		(void)fchmod(fd, want);
	return fd;
}

/* 1 when name in dfd is still the file open as fd. */
static int same_file(int dfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* ---- Stale lock files -------------------------------------------------------------------- */

static int is_lock_name(const char *name)
{
	for (int i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)name[i]))
			return 0;
	return strcmp(name + 32, ".lock") == 0;
}

/* Removes name when it is a lock file nobody holds, older than STALE_AFTER_S. */
static int remove_if_stale(int dfd, const char *name, time_t now)
{
	struct stat st;
	int fd, removed = 0;

	if (!is_lock_name(name) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_mtime > now - STALE_AFTER_S)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* Held by nobody: ours now, so removing it is what a holder's release does. */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && same_file(dfd, name, fd))
		removed = unlinkat(dfd, name, 0) == 0;
	close(fd);
	return removed;
}

static int sweep_fd(int dfd, int max_files)
{
	time_t now = time(NULL);
	int dup_fd = dup(dfd), removed = 0, seen = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	while (seen < max_files && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		seen++;
		removed += remove_if_stale(dfd, de->d_name, now);
	}
	closedir(d);
	if (removed)
		RJ_LOG(RJ_LOG_INFO, "removed %d lock files left by processes that were killed",
		       removed);
	return removed;
}

int rj_keylock_sweep(const char *dir, int max_files)
{
	int dfd = open_locks_dir(dir, shared_mode()), n;

	if (dfd < 0)
		return 0;
	n = sweep_fd(dfd, max_files);
	close(dfd);
	return n;
}

/* Once per process and locks folder (the first few folders): the sweep a lock pays. */
static int first_time_here(int dfd)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct { dev_t dev; ino_t ino; } seen[8];
	static int nseen;
	struct stat st;
	int first = 1;

	if (fstat(dfd, &st) != 0)
		return 0;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < nseen && first; i++)
		first = !(seen[i].dev == st.st_dev && seen[i].ino == st.st_ino);
	if (first && nseen < 8) {
		seen[nseen].dev = st.st_dev;
		seen[nseen++].ino = st.st_ino;
	} else if (first) {
		first = 0; /* a process using that many caches sweeps with `rocjit purge` */
	}
	pthread_mutex_unlock(&mu);
	return first;
}

/* ---- Taking and releasing ---------------------------------------------------------------- */

int rj_keylock_try(struct rj_keylock *l, const char *dir, const rj_key *key)
{
	char hex[33];
	int shared = shared_mode(), dfd;

	pthread_once(&atfork_once, register_atfork);
	l->fd = l->dirfd = -1;
	l->prev = l->next = NULL;
	rj_key_hex(key, hex);
	snprintf(l->name, sizeof l->name, "%s.lock", hex);
	dfd = open_locks_dir(dir, shared);
	if (dfd < 0)
		return RJ_LOCK_UNAVAILABLE;
	if (first_time_here(dfd))
		sweep_fd(dfd, SWEEP_ON_LOCK);
	for (int attempt = 0; attempt < 8; attempt++) {
		int fd = open_lock_file(dfd, l->name, shared);

		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int busy = errno == EWOULDBLOCK;
			close(fd);
			close(dfd);
			return busy ? RJ_LOCK_BUSY : RJ_LOCK_UNAVAILABLE;
		}
		if (same_file(dfd, l->name, fd)) {
			l->fd = fd;
			l->dirfd = dfd;
			list_add(l);
			return RJ_LOCK_HELD;
		}
		/* The holder removed this file between our open and our lock: again. */
		close(fd);
	}
	close(dfd);
	return RJ_LOCK_UNAVAILABLE;
}

void rj_keylock_release(struct rj_keylock *l)
{
	if (l->fd < 0)
		return;
	list_remove(l);
	unlinkat(l->dirfd, l->name, 0);
	close(l->fd);
	close(l->dirfd);
	l->fd = l->dirfd = -1;
}

int rj_keylock_timeout_ms(void)
{
	return (int)rj_env_long("ROCJIT_LOCK_TIMEOUT_MS", 300000, 0, 86400000);
}
