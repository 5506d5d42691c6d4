/*
 * remote_internal.h - the remote tier's handle, shared by its files (see remote.h for the
 * interface): tier.c (the handle, its values and counters) under lease.c (the fleet's
 * compile locks) and info.c (what the servers say of themselves), under remote.c
 * (opening, closing, fork).  Nothing outside src/remote includes it.
 */
#ifndef ROCJIT_REMOTE_INTERNAL_H
#define ROCJIT_REMOTE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "remote/client.h"
#include "remote/remote.h"
#include "remote/url.h"

struct rj_remote_lease {
	char key[160];          /* the lock's key */
	char token[96];         /* ours: host, pid, random */
	struct rj_remote_lease *next;
};

struct rj_remote {
	pthread_mutex_t mu;     /* the client, the leases, the lease thread's state */
	pthread_cond_t cv;      /* wakes the lease thread (a new lease, closing) */
	struct rj_redis *client;
	struct rj_remote_url url; /* its password is cleared: the client keeps it */
	char shown[600];
	int readonly;
	struct rj_remote_lease *leases;
	pthread_t renewer;
	int renewer_running, closing;
	double no_wait_until;   /* rj_now_ms() before which no held lock is waited for (a
	                           wait ended in vain: lease.c) */
	atomic_int bogus_warned; /* a lock with a lease longer than ours was warned of */
	struct rj_remote *next_open; /* the process's open tiers (fork) */

	const struct rj_sig_trust *trust; /* NULL: values need no signature (the context's) */
	atomic_uint_fast64_t hits, misses, errors, rejected, puts, put_errors, waits;
	atomic_uint_fast64_t sig_rejected; /* of rejected: for their signature */
	struct rj_cache *counts;  /* errors and sig_rejected counted there too, or NULL */
	atomic_uint_fast64_t bytes_read, bytes_written, saved_us, remote_us;
};

/* ---- tier.c ---- */

/* rj_redis_command under the tier's lock (the caller holds it), timed and counted. */
int rj_tier_command(struct rj_remote *t, const char *key, int argc, const char *const *argv,
		    const size_t *argvlen, struct rj_reply **reply);
/* The URL without its password (caller holds mu), made at its first use. */
const char *rj_tier_shown_locked(struct rj_remote *t);

/* ---- lease.c ---- */

/* At close: gives back the locks still held (a compile that never finished: the others
 * compile instead of waiting out the lease) and ends the lease thread. */
void rj_lease_stop_all(struct rj_remote *t);

#endif
