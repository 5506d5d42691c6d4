/*
 * remote.h - the remote tier: code objects shared by a fleet through Redis (remote.c,
 * tier.c, lease.c, info.c; remote_internal.h says which owns what).
 *
 * Best-effort, as the on-disk cache: every failure here is a miss for the request path,
 * with one warning; none can fail a kernel request.  Internally locked: one tier per
 * context, shared by its threads.
 */
#ifndef ROCJIT_REMOTE_H
#define ROCJIT_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "key/key.h"
#include "remote/record.h"

struct rj_remote;

/*
 * Opens the tier for the URL text (url.h), read from `from` ("ROCJIT_REMOTE",
 * "rocjit_options.remote": for messages).  Nothing is connected until the first request
 * needs the server.  The password, when the URL has none, comes from
 * $ROCJIT_REMOTE_PASSWORD_FILE; $ROCJIT_REMOTE_READONLY=1 makes the tier read-only.
 * 0, or ROCJIT_EINVAL (the URL is wrong: the message says why, without the password),
 * ROCJIT_EUNSUPPORTED (built without hiredis), ROCJIT_ENOMEM.
 */
int rj_remote_open(struct rj_remote **out, const char *url, const char *from);
/* Shares the tier's breaker with the node's other processes through a file in the
 * folder dirfd (the on-disk cache's; -1: none): see rj_redis_share_breaker.  Before the
 * first request. */
void rj_remote_share_breaker(struct rj_remote *t, int dirfd);
/* Values serve only with a signature by a key of trust (NULL: no signature asked for),
 * which must outlive the tier.  Set before the first request. */
struct rj_sig_trust;
void rj_remote_set_trust(struct rj_remote *t, const struct rj_sig_trust *trust);
/* Values refused for their signature (also in the rejected counter). */
uint64_t rj_remote_sig_rejected(struct rj_remote *t);
/* Counts the tier's failed commands and values refused for their signature in cache c
 * too (rj_cache_count: across processes), as they happen; c (NULL: nowhere) must outlive
 * the tier.  Set before the first request. */
struct rj_cache;
void rj_remote_count_in(struct rj_remote *t, struct rj_cache *c);
/* Releases the fleet locks still held, ends the lease thread, closes.  NULL: nothing. */
void rj_remote_close(struct rj_remote *t);

/* The URL as it may be shown (no password). */
const char *rj_remote_shown(struct rj_remote *t);
/* 1 when the tier only reads (no puts, no fleet locks). */
int rj_remote_readonly(const struct rj_remote *t);
/* How long a fleet lock lives unless renewed (the URL's lease=). */
int rj_remote_lease_ms(const struct rj_remote *t);

/* What a value must be to be used: the entry of this key, made by this compiler for this
 * target, on this platform. */
struct rj_remote_want {
	rj_key key;
	rj_key pkey;
	const char *platform;
	const char *target;
	const char *compiler;
};

/* A value that passed every check. */
struct rj_remote_value {
	void *bytes;            /* the value as read (a shared buffer: base/shared.h); rec
	                           points into it */
	size_t size;
	struct rj_record rec;
	char *kernels;          /* the kernels column, NUL-terminated (malloc'ed) */
	int sig_refused;        /* a miss because the value was refused only for being
	                           unsigned or signed by a key not trusted here (it may
	                           serve nodes that trust its signer); not for a signature
	                           that does not hold */
	int refused;            /* a miss because a value was there and refused (any
	                           reason); 0: there was none, or the server failed */
};
void rj_remote_value_free(struct rj_remote_value *v);

/*
 * Reads the value of w->key.  1 and *v filled on a hit; 0 on a miss, also when the value
 * fails a check (counted, one warning: it is never loaded) or the server fails (counted,
 * one warning, the breaker opens).
 */
int rj_remote_get(struct rj_remote *t, const struct rj_remote_want *w, struct rj_remote_value *v);
/* rj_remote_get for an early look, which a later rj_remote_get of the same request
 * follows when it misses: a miss is not counted (the request's miss is counted once). */
int rj_remote_peek(struct rj_remote *t, const struct rj_remote_want *w, struct rj_remote_value *v);

/*
 * After a miss, before compiling: one compile per key across the fleet.  Takes the key's
 * compile lock in Redis (SET NX with a lease that a background thread renews every third
 * of it while the lock is held).  When another node holds it, waits for its value,
 * polling, for at most wait_ms; a value that arrives is returned (1, *v filled).  Not
 * waited for: a lock that lives longer than the URL's lease (no holder of ours sets one:
 * planted), and, for the retry period (at least wait_ms) after a wait ended in vain,
 * any lock: a planted lock costs a process one wait, not one per key.  A lock
 * whose lease expired (its holder died) is taken over; a holder that failed to compile
 * makes the waiters compile at once, each on its own.  0: compile now, with *lease the
 * lock to give to rj_remote_release, or NULL when there is none to hold (read-only tier,
 * server down, holder failed, waited wait_ms).  Flags: RJ_CLAIM_NOWAIT: a lock another
 * node holds returns 2 at once instead (it is compiling the key now; nothing held,
 * nothing counted), for a caller with other work to do.  RJ_CLAIM_ABSENT: the caller's
 * miss found no value (v->refused was 0), so a node may have put it and let its lock go
 * since: once the lock is taken the value is looked for again (1 if it came).  A value
 * the caller refused is not read again unless this call waited for its holder: a node
 * that mends it holds the lock meanwhile.
 */
enum { RJ_CLAIM_NOWAIT = 1, RJ_CLAIM_ABSENT = 2 };
struct rj_remote_lease;
int rj_remote_claim(struct rj_remote *t, const struct rj_remote_want *w, int wait_ms,
		    unsigned flags, struct rj_remote_lease **lease, struct rj_remote_value *v);

/*
 * Gives a lock back after the compile (NULL: nothing): compiled, the lock is deleted
 * (after the value was put); not compiled (the compile failed), it is replaced by a
 * short-lived mark that sends the waiting nodes to compile on their own.
 */
void rj_remote_release(struct rj_remote *t, struct rj_remote_lease *lease, int compiled);

/* The record of an entry as the on-disk cache keeps it (its strings NUL-terminated; the
 * pointers are r's, valid as long as m's and code). */
struct rj_cache_meta;
void rj_remote_record_of(struct rj_record *r, const rj_key *key, const struct rj_cache_meta *m,
			 const void *code, size_t size);

/*
 * Puts r (encoded here) under its key, with the URL's ttl.  only_if_absent: never replace
 * a value (rocjit push); else replace whatever is there (a value that failed a check is
 * then mended).  1 stored, 0 a value was there (only_if_absent), or a negative code:
 * ROCJIT_EIO (the server refused or failed: out of memory, a read-only replica, down),
 * ROCJIT_EINVAL (read-only tier), ROCJIT_ENOMEM; the message says why.
 */
int rj_remote_put(struct rj_remote *t, const struct rj_record *r, int only_if_absent);

/* What the tier did, since it was opened (or forked). */
struct rj_remote_counts {
	uint64_t hits, misses, errors, rejected, puts, put_errors, waits;
	uint64_t bytes_read, bytes_written;
	double saved_ms;        /* compile time the hits did not spend */
	double remote_ms;       /* time spent talking to the servers */
};
void rj_remote_counts_get(const struct rj_remote *t, struct rj_remote_counts *out);
/* 1 when the tier is not asked now (the breaker is open after a failure). */
int rj_remote_is_off(struct rj_remote *t);
/* 1 when the tier is not asked now (the breaker is open after a failure), with why in
 * out[size]; 0 (out "") when it is asked. */
int rj_remote_off_reason(struct rj_remote *t, char *out, size_t size);

/* What `rocjit remote ping|stats` show (rocjit_remote_info in rocjit.h). */
struct rj_remote_server_info {
	int servers;            /* masters (a cluster) or 1 */
	double latency_ms;      /* the slowest server's PING round trip */
	char version[32];       /* redis_version of the first server */
	char policy[32];        /* maxmemory-policy of the first server */
	uint64_t used_memory, maxmemory; /* summed over the servers */
	int keys_counted;       /* 1 when entries/bytes/locks were counted (with_keys) */
	uint64_t entries, bytes, locks;
};
/* Asks every server (PING, INFO; with with_keys, a SCAN of this tier's keys and their
 * sizes), all of it within 20 of the URL's timeouts whatever the servers do (info.c).
 * 0, or ROCJIT_EIO with the message. */
int rj_remote_server_info(struct rj_remote *t, int with_keys, struct rj_remote_server_info *out);

#endif
