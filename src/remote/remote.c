/*
 * remote.c - the remote tier: code objects shared by a fleet through Redis.  This file
 * opens and closes a tier and keeps the process's open tiers right across fork(): the
 * child keeps the tier but none of its parent's connections or locks (pthread_atfork).
 *
 * The tier's other files (remote_internal.h), from the bottom: tier.c (the handle, its
 * values and checks, puts, counters), lease.c (the fleet's compile locks), info.c (what
 * the servers say of themselves).  Locking: one mutex per tier around every use of its
 * client and its lease list; sleeps and waits happen outside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/error.h"
#include "remote/remote_internal.h"

/* ---- fork ----------------------------------------------------------------------------------- */

static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rj_remote *open_tiers;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
	pthread_mutex_lock(&open_mu);
	for (struct rj_remote *t = open_tiers; t; t = t->next_open)
		pthread_mutex_lock(&t->mu);
}

static void after_fork_parent(void)
{
	for (struct rj_remote *t = open_tiers; t; t = t->next_open)
		pthread_mutex_unlock(&t->mu);
	pthread_mutex_unlock(&open_mu);
}

/* The child: its sockets are its parent's too and the locks are its parent's: forget
 * them (no word to the servers), and there is no lease thread here. */
static void after_fork_child(void)
{
	static const pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

	for (struct rj_remote *t = open_tiers; t; t = t->next_open) {
		t->mu = mu;
		t->cv = cv;
		rj_redis_drop(t->client);
		t->leases = NULL;  /* the parent's: its memory stays with the parent's threads */
		t->renewer_running = 0;
		atomic_store(&t->hits, 0);
		atomic_store(&t->misses, 0);
		atomic_store(&t->errors, 0);
		atomic_store(&t->rejected, 0);
		atomic_store(&t->puts, 0);
		atomic_store(&t->put_errors, 0);
		atomic_store(&t->waits, 0);
		atomic_store(&t->bytes_read, 0);
		atomic_store(&t->bytes_written, 0);
		atomic_store(&t->saved_us, 0);
		atomic_store(&t->remote_us, 0);
	}
	open_mu = mu;
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* ---- Opening, closing ----------------------------------------------------------------------- */

int rj_remote_open(struct rj_remote **out, const char *url, const char *from)
{
	struct rj_remote_url parsed; /* the syntax first: nothing is made for a wrong URL */
	struct rj_remote *t;
	int rc;

	*out = NULL;
	rc = rj_remote_url_parse(url, &parsed);
	if (rc < 0) {
		char msg[1024];
		explicit_bzero(parsed.password, sizeof parsed.password);
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		RJ_FAIL(rc, "%s: %s", from, msg);
	}
	t = rj_conn_available() ? calloc(1, sizeof *t) : NULL;
	if (t)
		t->url = parsed; /* t->shown at its first use (no printf here) */
	explicit_bzero(parsed.password, sizeof parsed.password);
	RJ_CHECK(!rj_conn_available(), ROCJIT_EUNSUPPORTED, "%s is set, but this rocjit was "
		 "built without hiredis, so the remote tier is unavailable: rebuild rocjit with "
		 "libhiredis-dev installed", from);
	RJ_CHECK(!t, ROCJIT_ENOMEM, "out of memory opening the remote cache");
	pthread_once(&atfork_once, register_atfork);
	t->readonly = t->url.readonly || rocjit_env_flag("ROCJIT_REMOTE_READONLY");
	rc = rj_redis_open(&t->client, &t->url, rj_config("ROCJIT_REMOTE_PASSWORD_FILE", NULL),
			   t->url.retry_ms);
	/* The client keeps the password; here a mark that there is one, for the URL shown. */
	if (t->url.password[0]) {
		explicit_bzero(t->url.password, sizeof t->url.password);
		t->url.password[0] = '*';
	}
	if (rc < 0) {
		free(t);
		return rc;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	pthread_mutex_lock(&open_mu);
	t->next_open = open_tiers;
	open_tiers = t;
	pthread_mutex_unlock(&open_mu);
	*out = t;
	return 0;
}

void rj_remote_close(struct rj_remote *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&open_mu);
	for (struct rj_remote **p = &open_tiers; *p; p = &(*p)->next_open)
		if (*p == t) {
			*p = t->next_open;
			break;
		}
	pthread_mutex_unlock(&open_mu);
	rj_lease_stop_all(t);
	rj_redis_close(t->client);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

