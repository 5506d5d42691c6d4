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
 * lock the path must still name the locked file (same inode), else it tries again.
 *
 * Owns the locks/ folder; never touches the database.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "error.h"
#include "keylock.h"

int rj_keylock_try(struct rj_keylock *l, const char *dir, const rj_key *key)
{
	char hex[33];
	struct stat a, b;

	l->fd = -1;
	rj_key_hex(key, hex);
	if ((size_t)snprintf(l->path, sizeof l->path, "%s/locks", dir) >= sizeof l->path)
		return RJ_LOCK_UNAVAILABLE;
	if (mkdir(l->path, 0700) != 0 && errno != EEXIST)
		return RJ_LOCK_UNAVAILABLE;
	snprintf(l->path, sizeof l->path, "%s/locks/%s.lock", dir, hex);
	for (int attempt = 0; attempt < 8; attempt++) {
		int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return RJ_LOCK_UNAVAILABLE;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int busy = errno == EWOULDBLOCK;
			close(fd);
			return busy ? RJ_LOCK_BUSY : RJ_LOCK_UNAVAILABLE;
		}
		if (fstat(fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev) {
			l->fd = fd;
			return RJ_LOCK_HELD;
		}
		/* The holder removed this file between our open and our lock: again. */
		close(fd);
	}
	return RJ_LOCK_UNAVAILABLE;
}

void rj_keylock_release(struct rj_keylock *l)
{
	if (l->fd < 0)
		return;
	unlink(l->path);
	close(l->fd);
	l->fd = -1;
}

int rj_keylock_timeout_ms(void)
{
	return (int)rj_env_long("ROCJIT_LOCK_TIMEOUT_MS", 300000, 0, 86400000);
}
