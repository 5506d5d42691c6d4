/*
 * lease.c - the fleet's compile locks: one compile per key across the nodes.
 *
 * Owns the locks (<prefix>:<record version>:<key hex>:lock, SET NX PX with a lease), the
 * scripts by which only their holder renews, releases or marks one failed, the thread
 * that renews the leases held, and the wait of the other nodes for the holder's value.
 * Uses tier.c for every command and for the value; never the other way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "remote/remote_internal.h"

/* How long the mark of a failed compile keeps the waiting nodes from waiting. */
#define FAILED_MARK_MS 10000
/* rj_remote_claim's own flag: a wait ended in vain lately, so no lock is waited for. */
#define CLAIM_NO_WAIT_NOW 0x100

static void lock_key(const struct rj_remote *t, const rj_key *key, char *out, size_t size)
{
	char hex[33];

	rj_key_hex(key, hex);
	snprintf(out, size, "%s:%d:%s:lock", t->url.prefix, RJ_RECORD_VERSION, hex);
}

/* Lua, so that only the holder of a lock renews, releases or marks it. */
static const char renew_lua[] =
	"if redis.call('get', KEYS[1]) == ARGV[1] then "
	"return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
static const char release_lua[] =
	"if redis.call('get', KEYS[1]) == ARGV[1] then "
	"return redis.call('del', KEYS[1]) else return 0 end";
static const char mark_failed_lua[] =
	"if redis.call('get', KEYS[1]) == ARGV[1] then "
	"return redis.call('set', KEYS[1], '!' .. ARGV[1], 'PX', ARGV[2]) else return 0 end";

/* Runs script on a lock (caller holds mu): the reply's integer, or <0. */
static int lock_script(struct rj_remote *t, const char *script, const struct rj_remote_lease *l,
		       int ms)
{
	char num[24];
	const char *argv[6] = { "EVAL", script, "1", l->key, l->token, num };
	size_t argvlen[6];
	struct rj_reply *reply = NULL;
	int rc;

	snprintf(num, sizeof num, "%d", ms);
	for (int i = 0; i < 6; i++)
		argvlen[i] = strlen(argv[i]);
	rc = rj_tier_command(t, l->key, 6, argv, argvlen, &reply);
	if (rc < 0)
		return rc;
	rc = reply->type == RJ_REPLY_INTEGER ? (int)reply->integer :
	     reply->type == RJ_REPLY_STATUS ? 1 : 0;
	if (reply->type == RJ_REPLY_ERROR)
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: a lock script failed: %.*s", rj_tier_shown_locked(t),
		       (int)(reply->len > 200 ? 200 : reply->len), reply->str);
	rj_reply_free(reply);
	return rc;
}

/*
 * The lease thread: renews every held lease each third of the lease, sleeping while none
 * is held, until the tier closes.  One per tier, started by the first lock taken.  A
 * renewal that fails is left to the next round: a lease lost meanwhile only lets another
 * node compile the same key too.
 */
static void *renew_leases(void *arg)
{
	struct rj_remote *t = arg;
	double period = t->url.lease_ms / 3.0, next = rj_now_ms() + period;

	pthread_mutex_lock(&t->mu);
	while (!t->closing) {
		struct timespec until;
		double left;
		if (!t->leases) {
			pthread_cond_wait(&t->cv, &t->mu);
			next = rj_now_ms() + period;
			continue;
		}
		left = next - rj_now_ms();
		if (left <= 0) {
			for (struct rj_remote_lease *l = t->leases; l && !t->closing; l = l->next)
				lock_script(t, renew_lua, l, t->url.lease_ms);
			next = rj_now_ms() + period;
			continue;
		}
		/* Woken early (a new lease, closing): the round stays where it was. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)(left / 1000);
		until.tv_nsec += (long)((left - (double)(long)(left / 1000) * 1000) * 1e6);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->cv, &t->mu, &until);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

static void new_token(char *out, size_t size)
{
	static atomic_uint counter;
	unsigned char r[8] = { 0 };
	char host[64] = "";

	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		uint64_t x = (uint64_t)rj_now_ms() * 1000003u ^ (uint64_t)getpid();
		memcpy(r, &x, sizeof r);
	}
	gethostname(host, sizeof host - 1);
	snprintf(out, size, "%s:%d:%02x%02x%02x%02x%02x%02x%02x%02x:%u", host, (int)getpid(),
		 r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], atomic_fetch_add(&counter, 1));
}

/*
 * One round of the wait (caller holds mu): tries to take the lock; 1 taken (*l filled),
 * 0 someone holds it, 2 its holder failed (compile unlocked), 3 the lock is not one an
 * honest holder makes (see below), <0 the server failed.
 *
 * A holder sets its lock with the lease of its URL and renews it to that lease, never
 * longer; so a lock that lives longer than this tier's lease (or for ever) was planted,
 * or set by a node configured otherwise: it is not waited for (a planted lock with an
 * hour's lease would otherwise make every cold node wait its whole wait for every key it
 * covers).  Compiling at once is what a wait that ends in vain does anyway.
 */
static int try_lock(struct rj_remote *t, struct rj_remote_lease *l)
{
	char px[24];
	const char *argv[6] = { "SET", l->key, l->token, "NX", "PX", px };
	const char *get[2] = { "GET", l->key };
	size_t argvlen[6], getlen[2] = { 3, strlen(l->key) };
	struct rj_reply *reply = NULL;
	int rc;

	snprintf(px, sizeof px, "%d", t->url.lease_ms);
	for (int i = 0; i < 6; i++)
		argvlen[i] = strlen(argv[i]);
	rc = rj_tier_command(t, l->key, 6, argv, argvlen, &reply);
	if (rc < 0)
		return rc;
	rc = reply->type == RJ_REPLY_STATUS;
	if (reply->type == RJ_REPLY_ERROR) /* out of memory, a read-only replica */
		rc = -1;
	rj_reply_free(reply);
	if (rc != 0)
		return rc;
	rc = rj_tier_command(t, l->key, 2, get, getlen, &reply);
	if (rc < 0)
		return rc;
	rc = reply->type == RJ_REPLY_STRING && reply->len && reply->str[0] == '!' ? 2 : 0;
	rj_reply_free(reply);
	if (rc != 0)
		return rc;
	get[0] = "PTTL";
	getlen[0] = 4;
	rc = rj_tier_command(t, l->key, 2, get, getlen, &reply);
	if (rc < 0)
		return rc;
	/* -2: gone since (the next round takes it); -1: no expiry, never ours. */
	rc = reply->type == RJ_REPLY_INTEGER &&
	     (reply->integer == -1 || reply->integer > t->url.lease_ms) ? 3 : 0;
	rj_reply_free(reply);
	return rc;
}

int rj_remote_claim(struct rj_remote *t, const struct rj_remote_want *w, int wait_ms,
		    unsigned flags, struct rj_remote_lease **lease, struct rj_remote_value *v)
{
	double deadline = rj_now_ms() + wait_ms;
	unsigned sleep_us = 5000;
	struct rj_remote_lease *l;
	int waited = 0, rc;

	*lease = NULL;
	memset(v, 0, sizeof *v);
	if (t->readonly)
		return 0;
	/* A wait that ended in vain less than the breaker's period ago: no holder is waited
	   for meanwhile (see below). */
	pthread_mutex_lock(&t->mu);
	if (rj_now_ms() < t->no_wait_until)
		flags |= CLAIM_NO_WAIT_NOW;
	pthread_mutex_unlock(&t->mu);
	l = calloc(1, sizeof *l);
	if (!l)
		return 0;
	lock_key(t, &w->key, l->key, sizeof l->key);
	new_token(l->token, sizeof l->token);
	for (;;) {
		pthread_mutex_lock(&t->mu);
		rc = try_lock(t, l);
		if (rc == 1) {
			l->next = t->leases;
			t->leases = l;
			if (!t->renewer_running && !t->closing &&
			    pthread_create(&t->renewer, NULL, renew_leases, t) == 0)
				t->renewer_running = 1;
			pthread_cond_broadcast(&t->cv);
			pthread_mutex_unlock(&t->mu);
			/* The holder before us may have put the value just before letting go:
			   while this call waited, or between the caller's miss and this lock. */
			if ((waited || (flags & RJ_CLAIM_ABSENT)) && rj_remote_peek(t, w, v) == 1) {
				rj_remote_release(t, l, 1);
				return 1;
			}
			*lease = l;
			return 0;
		}
		pthread_mutex_unlock(&t->mu);
		if (rc == 3 && !atomic_exchange(&t->bogus_warned, 1))
			rj_log(RJ_LOG_WARN, "remote cache %s: the lock %s lives longer than this "
			       "tier's lease (%d ms): no holder of ours sets that, so it is not "
			       "waited for (its keys are compiled here); if it is another node's, "
			       "give every node the same lease=", rj_remote_shown(t), l->key,
			       t->url.lease_ms);
		if (rc != 0) /* the server failed, refused the lock, its holder failed, or
				it is no holder's */
			break;
		if (flags & RJ_CLAIM_NOWAIT) {
			free(l);
			return 2; /* another node compiles it now: the caller does something else */
		}
		if (flags & CLAIM_NO_WAIT_NOW)
			break; /* compiled here, as after the wait that ended in vain */
		if (!waited++) {
			atomic_fetch_add(&t->waits, 1);
			RJ_LOG(RJ_LOG_INFO, "remote cache %s: another node is compiling %s; "
			       "waiting for its value", rj_remote_shown(t), l->key);
		}
		if (rj_now_ms() > deadline) {
			/* A holder that never delivers (a node stuck, or a lock planted with an
			   honest lease and renewed by whoever planted it) costs this process
			   one wait: for the breaker's period (at least the wait) no lock is
			   waited for, each key is compiled here at once. */
			pthread_mutex_lock(&t->mu);
			t->no_wait_until = rj_now_ms() + (t->url.retry_ms > wait_ms ?
							  t->url.retry_ms : wait_ms);
			pthread_mutex_unlock(&t->mu);
			rj_log(RJ_LOG_WARN, "remote cache %s: another node has been compiling %s for "
			       "%d ms; compiling it here too, and every key whose lock is held "
			       "for the next %d ms", rj_remote_shown(t), l->key, wait_ms,
			       t->url.retry_ms > wait_ms ? t->url.retry_ms : wait_ms);
			break;
		}
		usleep(sleep_us);
		if (sleep_us < 100000)
			sleep_us *= 2;
		if (rj_remote_peek(t, w, v) == 1) { /* the request's miss is counted once */
			free(l);
			return 1;
		}
	}
	free(l);
	return 0;
}

void rj_remote_release(struct rj_remote *t, struct rj_remote_lease *lease, int compiled)
{
	if (!lease)
		return;
	pthread_mutex_lock(&t->mu);
	for (struct rj_remote_lease **p = &t->leases; *p; p = &(*p)->next)
		if (*p == lease) {
			*p = lease->next;
			break;
		}
	lock_script(t, compiled ? release_lua : mark_failed_lua, lease, FAILED_MARK_MS);
	pthread_mutex_unlock(&t->mu);
	free(lease);
}

void rj_lease_stop_all(struct rj_remote *t)
{
	pthread_mutex_lock(&t->mu);
	t->closing = 1;
	pthread_cond_broadcast(&t->cv);
	while (t->leases) {
		/* Held by a compile that never finished (the context closes under it): let the
		   others compile instead of waiting out the lease. */
		struct rj_remote_lease *l = t->leases;
		t->leases = l->next;
		if (!rj_redis_is_off(t->client))
			lock_script(t, release_lua, l, 0);
		free(l);
	}
	pthread_mutex_unlock(&t->mu);
	if (t->renewer_running)
		pthread_join(t->renewer, NULL);
}
