/*
 * keylock.h - one compile per key across processes (see keylock.c).
 */
#ifndef ROCJIT_KEYLOCK_H
#define ROCJIT_KEYLOCK_H

#include "key/key.h"

struct rj_keylock {
	int fd;             /* -1: not held */
	int dirfd;          /* the locks/ folder while held, else -1 */
	char name[40];      /* <32 hex digits>.lock, in the locks/ folder */
	struct rj_keylock *prev, *next; /* the process's held locks (fork: keylock.c) */
};

enum { RJ_LOCK_HELD = 1, RJ_LOCK_BUSY = 0, RJ_LOCK_UNAVAILABLE = -1 };

/*
 * Tries, without waiting, to take the lock of key in folder dir (its locks/ subfolder).
 * Returns RJ_LOCK_HELD, RJ_LOCK_BUSY (another process holds it), or RJ_LOCK_UNAVAILABLE
 * (no lock can be had here, e.g. a read-only folder: go on without one).  The first call
 * of a process for a folder also removes the lock files that killed processes left.
 */
int rj_keylock_try(struct rj_keylock *l, const char *dir, const rj_key *key);

/* Releases a held lock (and removes its file). Harmless on one not held. */
void rj_keylock_release(struct rj_keylock *l);

/*
 * Removes the lock files in dir/locks that nobody holds and that are older than a minute
 * (left by killed processes), looking at no more than max_files names.  Returns how many
 * were removed.  Best-effort: any failure leaves a file where it is.
 */
int rj_keylock_sweep(const char *dir, int max_files);

/* How long a process waits for another's compile of the same key before compiling itself:
 * $ROCJIT_LOCK_TIMEOUT_MS, default 300000 (5 minutes). */
int rj_keylock_timeout_ms(void);

#endif
