/*
 * remote.c - the remote tier: code objects shared by a fleet through Redis.
 *
 * Owns what is stored and how it is read: the keys (<prefix>:<record version>:<key hex>
 * for a value, the same with ":lock" for its compile lock), the checks a value must pass
 * before anything of it is used (a value is data anyone who reaches the server chose:
 * record.c checks its form, this file that it is the entry asked for - key, portable key,
 * platform, target, compiler - and that its code object is one for the target holding
 * the kernels it names), the fleet's compile locks and their leases, and the tier's
 * counters.  Talks to the servers only through client.c; never touches the local cache
 * (the request path copies a hit there) nor a context.
 *
 * Locking: one mutex per tier around every use of its client (so one thread of a context
 * talks to the servers at a time; hits from the local tiers never come here) and its
 * lease list.  Sleeps and waits happen outside it.  fork(): the child keeps the tier but
 * none of its parent's connections or locks (pthread_atfork below).
 */
#include "remote/remote.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "codeobj/codeobj.h"
#include "remote/client.h"
#include "remote/url.h"
#include "store/cache.h"

/* Values read at most: a larger one is refused without being read whole. */
#define VALUE_MAX ((size_t)64 << 20)
/* The longest kernels column a value may hold (kernel_names.c's column). */
#define KERNELS_MAX (1 << 20)
/* How long the mark of a failed compile keeps the waiting nodes from waiting. */
#define FAILED_MARK_MS 10000

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
	struct rj_remote *next_open; /* the process's open tiers (fork) */

	atomic_uint_fast64_t hits, misses, errors, rejected, puts, put_errors, waits;
	atomic_uint_fast64_t bytes_read, bytes_written, saved_us, remote_us;
};

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
	struct rj_remote *t;
	int rc;

	*out = NULL;
	{
		struct rj_remote_url check; /* the syntax first: nothing is made for a wrong URL */
		rc = rj_remote_url_parse(url, &check);
		explicit_bzero(check.password, sizeof check.password);
	}
	if (rc < 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		RJ_FAIL(rc, "%s: %s", from, msg);
	}
	RJ_CHECK(!rj_conn_available(), ROCJIT_EUNSUPPORTED, "%s is set, but this rocjit was "
		 "built without hiredis, so the remote tier is unavailable: rebuild rocjit with "
		 "libhiredis-dev installed", from);
	pthread_once(&atfork_once, register_atfork);
	t = calloc(1, sizeof *t);
	RJ_CHECK(!t, ROCJIT_ENOMEM, "out of memory opening the remote cache");
	rj_remote_url_parse(url, &t->url); /* t->shown at its first use (no printf here) */
	t->readonly = t->url.readonly || rocjit_env_flag("ROCJIT_REMOTE_READONLY");
	rc = rj_redis_open(&t->client, &t->url, getenv("ROCJIT_REMOTE_PASSWORD_FILE"),
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

/* t->shown, made at the first call (under mu: the first message may come from any
 * thread); the same string from then on. */
static const char *shown_locked(struct rj_remote *t)
{
	if (!t->shown[0])
		rj_remote_url_show(&t->url, t->shown, sizeof t->shown);
	return t->shown;
}

const char *rj_remote_shown(struct rj_remote *t)
{
	const char *s;

	pthread_mutex_lock(&t->mu);
	s = shown_locked(t);
	pthread_mutex_unlock(&t->mu);
	return s;
}

void rj_remote_share_breaker(struct rj_remote *t, int dirfd)
{
	pthread_mutex_lock(&t->mu);
	rj_redis_share_breaker(t->client, dirfd);
	pthread_mutex_unlock(&t->mu);
}

int rj_remote_readonly(const struct rj_remote *t)
{
	return t->readonly;
}

int rj_remote_lease_ms(const struct rj_remote *t)
{
	return t->url.lease_ms;
}

int rj_remote_is_off(struct rj_remote *t)
{
	int off;

	pthread_mutex_lock(&t->mu);
	off = rj_redis_is_off(t->client);
	pthread_mutex_unlock(&t->mu);
	return off;
}

int rj_remote_off_reason(struct rj_remote *t, char *out, size_t size)
{
	int off;

	pthread_mutex_lock(&t->mu);
	off = rj_redis_is_off(t->client);
	snprintf(out, size, "%s", off ? rj_redis_off_reason(t->client) : "");
	pthread_mutex_unlock(&t->mu);
	return off;
}

/* ---- Talking to the servers ----------------------------------------------------------------- */

/* rj_redis_command under the tier's lock (the caller holds it), timed and counted. */
static int command(struct rj_remote *t, const char *key, int argc, const char *const *argv,
		   const size_t *argvlen, struct rj_reply **reply)
{
	double t0 = rj_now_ms();
	int rc = rj_redis_command(t->client, key, argc, argv, argvlen, reply);

	atomic_fetch_add(&t->remote_us, (uint64_t)((rj_now_ms() - t0) * 1e3));
	if (rc < 0 && rc != -RJ_REDIS_OFF)
		atomic_fetch_add(&t->errors, 1);
	return rc;
}

static void value_key(const struct rj_remote *t, const rj_key *key, char *out, size_t size)
{
	char hex[33];

	rj_key_hex(key, hex);
	snprintf(out, size, "%s:%d:%s", t->url.prefix, RJ_RECORD_VERSION, hex);
}

static void lock_key(const struct rj_remote *t, const rj_key *key, char *out, size_t size)
{
	char hex[33];

	rj_key_hex(key, hex);
	snprintf(out, size, "%s:%d:%s:lock", t->url.prefix, RJ_RECORD_VERSION, hex);
}

void rj_remote_value_free(struct rj_remote_value *v)
{
	if (!v)
		return;
	free(v->bytes);
	free(v->kernels);
	memset(v, 0, sizeof *v);
}

static int field_is(const char *s, size_t n, const char *want)
{
	return want && strlen(want) == n && memcmp(s, want, n) == 0;
}

/*
 * Whether a decoded value is the entry w asks for and its code object is sound: 0, or
 * ROCJIT_EFORMAT with why.  The key alone is not enough: whoever wrote the value chose
 * it too, so every field that decides what runs is compared with the request, and the
 * code object is read as the loader would see it.  *kernels gets the column, copied.
 */
static int check_value(const struct rj_record *rec, const struct rj_remote_want *w,
		       char **kernels)
{
	char *found = NULL, *column;
	int rc;

	*kernels = NULL;
	RJ_CHECK(memcmp(&rec->key, &w->key, sizeof w->key) != 0, ROCJIT_EFORMAT,
		 "it is stored under another key");
	/* What a code object's kernels and name expressions take, with room: the checks
	   below compare lists, and a hostile one must not make them long. */
	RJ_CHECK(rec->kernels_len > KERNELS_MAX, ROCJIT_EFORMAT, "its kernel list is longer "
		 "than %d bytes", KERNELS_MAX);
	RJ_CHECK(memcmp(&rec->pkey, &w->pkey, sizeof w->pkey) != 0, ROCJIT_EFORMAT,
		 "its portable key is not this program's");
	RJ_CHECK(!field_is(rec->platform, rec->platform_len, w->platform), ROCJIT_EFORMAT,
		 "it is for another platform");
	RJ_CHECK(!field_is(rec->target, rec->target_len, w->target), ROCJIT_EFORMAT,
		 "it is for another target");
	RJ_CHECK(!field_is(rec->compiler, rec->compiler_len, w->compiler), ROCJIT_EFORMAT,
		 "another compiler made it");
	rc = rj_codeobj_check(rec->code, rec->code_size, w->target, &found);
	if (rc != 0) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		RJ_FAIL(ROCJIT_EFORMAT, "its code is no code object for %s: %s", w->target, msg);
	}
	column = malloc(rec->kernels_len + 1);
	if (!column) {
		free(found);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory");
	}
	memcpy(column, rec->kernels, rec->kernels_len);
	column[rec->kernels_len] = 0;
	if (strlen(found) != rj_kernels_symbols_len(column) ||
	    memcmp(found, column, strlen(found)) != 0)
		rc = rj_error_set(ROCJIT_EFORMAT, __FILE__, __LINE__, "the kernels it names are "
				  "not those of its code object");
	else if (rj_names_check(column, found, strlen(found)) != 0)
		rc = rj_error_set(ROCJIT_EFORMAT, __FILE__, __LINE__, "its name expressions "
				  "name kernels its code object lacks");
	free(found);
	if (rc != 0) {
		free(column);
		return rc;
	}
	*kernels = column;
	return 0;
}

/* One warning per process for values refused, then at ROCJIT_LOG=info.  Without mu. */
static void refused(struct rj_remote *t, const char *key, const char *why)
{
	atomic_fetch_add(&t->rejected, 1);
	if (atomic_load(&t->rejected) == 1)
		rj_log(RJ_LOG_WARN, "remote cache %s: the value of %s is not used: %s (counted "
		       "in rocjit stats; it is replaced when this node compiles it)",
		       rj_remote_shown(t), key, why);
	else
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: the value of %s is not used: %s",
		       rj_remote_shown(t), key, why);
}

/*
 * GETRANGE of a value (caller holds mu): 1 and v->bytes, v->size (the value as read,
 * not yet checked); 0 a miss; 2 refused without a look inside (why[] says why); <0 the
 * server failed.  The checks of what is inside run after mu is let go: a hostile value
 * costs only the thread that reads it.
 */
static int fetch_locked(struct rj_remote *t, const char *key, struct rj_remote_value *v,
			char *why, size_t why_size)
{
	char end[32];
	const char *argv[4];
	size_t argvlen[4];
	struct rj_reply *reply = NULL;
	int rc;

	/* One byte past the limit: a longer value shows as longer, never read whole. */
	snprintf(end, sizeof end, "%zu", VALUE_MAX);
	argv[0] = "GETRANGE", argv[1] = key, argv[2] = "0", argv[3] = end;
	for (int i = 0; i < 4; i++)
		argvlen[i] = strlen(argv[i]);
	rc = command(t, key, 4, argv, argvlen, &reply);
	if (rc < 0)
		return rc;
	if (reply->type == RJ_REPLY_ERROR) {
		snprintf(why, why_size, "the server answered %.*s",
			 (int)(reply->len > 200 ? 200 : reply->len), reply->str);
		rj_reply_free(reply);
		return 2;
	}
	if (reply->type != RJ_REPLY_STRING || reply->len == 0) {
		rj_reply_free(reply);
		return 0; /* GETRANGE of a missing key is "" */
	}
	atomic_fetch_add(&t->bytes_read, reply->len);
	if (reply->len > VALUE_MAX) {
		rj_reply_free(reply);
		snprintf(why, why_size, "it is larger than %zu MiB", VALUE_MAX >> 20);
		return 2;
	}
	v->bytes = malloc(reply->len);
	if (v->bytes) {
		memcpy(v->bytes, reply->str, reply->len);
		v->size = reply->len;
	}
	rj_reply_free(reply);
	return v->bytes ? 1 : 0;
}

/* The value of w->key, checked: 1 and *v, else 0 (a miss, a refusal) or <0. */
static int get_value(struct rj_remote *t, const struct rj_remote_want *w,
		     struct rj_remote_value *v)
{
	char key[160], why[600];
	int rc;

	memset(v, 0, sizeof *v);
	value_key(t, &w->key, key, sizeof key);
	pthread_mutex_lock(&t->mu);
	rc = fetch_locked(t, key, v, why, sizeof why);
	pthread_mutex_unlock(&t->mu);
	if (rc == 1 && (rj_record_decode(&v->rec, v->bytes, v->size) != 0 ||
			check_value(&v->rec, w, &v->kernels) != 0)) {
		snprintf(why, sizeof why, "%s", rocjit_last_error());
		rj_remote_value_free(v);
		rc = 2;
	}
	if (rc == 2) {
		refused(t, key, why);
		return 0;
	}
	return rc;
}

/* rj_remote_get, a miss counted or not. */
static int get_counted(struct rj_remote *t, const struct rj_remote_want *w,
		       struct rj_remote_value *v, int count_miss)
{
	int rc = get_value(t, w, v);

	if (rc == 1) {
		atomic_fetch_add(&t->hits, 1);
		atomic_fetch_add(&t->saved_us, (uint64_t)(v->rec.compile_ms * 1e3));
		return 1;
	}
	if (count_miss)
		atomic_fetch_add(&t->misses, 1);
	return 0;
}

int rj_remote_get(struct rj_remote *t, const struct rj_remote_want *w, struct rj_remote_value *v)
{
	return get_counted(t, w, v, 1);
}

int rj_remote_peek(struct rj_remote *t, const struct rj_remote_want *w, struct rj_remote_value *v)
{
	return get_counted(t, w, v, 0);
}

/* ---- The fleet's compile locks -------------------------------------------------------------- */

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
	rc = command(t, l->key, 6, argv, argvlen, &reply);
	if (rc < 0)
		return rc;
	rc = reply->type == RJ_REPLY_INTEGER ? (int)reply->integer :
	     reply->type == RJ_REPLY_STATUS ? 1 : 0;
	if (reply->type == RJ_REPLY_ERROR)
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: a lock script failed: %.*s", shown_locked(t),
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
 * 0 someone holds it, 2 its holder failed (compile unlocked), <0 the server failed.
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
	rc = command(t, l->key, 6, argv, argvlen, &reply);
	if (rc < 0)
		return rc;
	rc = reply->type == RJ_REPLY_STATUS;
	if (reply->type == RJ_REPLY_ERROR) /* out of memory, a read-only replica */
		rc = -1;
	rj_reply_free(reply);
	if (rc != 0)
		return rc;
	rc = command(t, l->key, 2, get, getlen, &reply);
	if (rc < 0)
		return rc;
	rc = reply->type == RJ_REPLY_STRING && reply->len && reply->str[0] == '!' ? 2 : 0;
	rj_reply_free(reply);
	return rc;
}

int rj_remote_claim(struct rj_remote *t, const struct rj_remote_want *w, int wait_ms,
		    int nowait, struct rj_remote_lease **lease, struct rj_remote_value *v)
{
	double deadline = rj_now_ms() + wait_ms;
	unsigned sleep_us = 5000;
	struct rj_remote_lease *l;
	int waited = 0, rc;

	*lease = NULL;
	memset(v, 0, sizeof *v);
	if (t->readonly)
		return 0;
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
			/* The holder before us may have put the value just before letting go. */
			if (waited && rj_remote_get(t, w, v) == 1) {
				rj_remote_release(t, l, 1);
				return 1;
			}
			*lease = l;
			return 0;
		}
		pthread_mutex_unlock(&t->mu);
		if (rc != 0) /* the server failed, refused the lock, or its holder failed */
			break;
		if (nowait) {
			free(l);
			return 2; /* another node compiles it now: the caller does something else */
		}
		if (!waited++) {
			atomic_fetch_add(&t->waits, 1);
			RJ_LOG(RJ_LOG_INFO, "remote cache %s: another node is compiling %s; "
			       "waiting for its value", rj_remote_shown(t), l->key);
		}
		if (rj_now_ms() > deadline) {
			rj_log(RJ_LOG_WARN, "remote cache %s: another node has been compiling %s for "
			       "%d ms; compiling it here too", rj_remote_shown(t), l->key, wait_ms);
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
	rj_redis_close(t->client);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

/* ---- Putting values ------------------------------------------------------------------------- */

void rj_remote_record_of(struct rj_record *r, const rj_key *key, const struct rj_cache_meta *m,
			 const void *code, size_t size)
{
	memset(r, 0, sizeof *r);
	r->key = *key;
	r->pkey = m->pkey;
	r->platform = m->platform, r->platform_len = strlen(m->platform);
	r->target = m->target, r->target_len = strlen(m->target);
	r->compiler = m->compiler, r->compiler_len = strlen(m->compiler);
	r->options = m->options, r->options_len = strlen(m->options);
	r->source_name = m->source_name, r->source_name_len = strlen(m->source_name);
	r->headers = m->headers, r->headers_len = strlen(m->headers);
	r->kernels = m->kernels, r->kernels_len = strlen(m->kernels);
	r->compile_ms = m->compile_ms;
	r->code = code, r->code_size = size;
}

int rj_remote_put(struct rj_remote *t, const struct rj_record *r, int only_if_absent)
{
	char key[160], ttl[24];
	const char *argv[6];
	size_t argvlen[6], size;
	void *bytes;
	struct rj_reply *reply = NULL;
	int argc = 3, rc;

	RJ_CHECK(t->readonly, ROCJIT_EINVAL, "remote cache %s is read-only (?readonly or "
		 "ROCJIT_REMOTE_READONLY)", rj_remote_shown(t));
	RJ_FORWARD(rj_record_encode(&bytes, &size, r));
	if (size > VALUE_MAX) {
		free(bytes);
		RJ_FAIL(ROCJIT_EINVAL, "a value of %zu bytes is larger than the remote tier "
			"takes (%zu MiB)", size, VALUE_MAX >> 20);
	}
	value_key(t, &r->key, key, sizeof key);
	argv[0] = "SET", argv[1] = key, argv[2] = bytes;
	argvlen[0] = 3, argvlen[1] = strlen(key), argvlen[2] = size;
	if (t->url.ttl_s) {
		snprintf(ttl, sizeof ttl, "%lld", (long long)t->url.ttl_s);
		argv[argc] = "EX", argvlen[argc++] = 2;
		argv[argc] = ttl, argvlen[argc++] = strlen(ttl);
	}
	if (only_if_absent)
		argv[argc] = "NX", argvlen[argc++] = 2;
	pthread_mutex_lock(&t->mu);
	rc = command(t, key, argc, argv, argvlen, &reply);
	pthread_mutex_unlock(&t->mu);
	free(bytes);
	if (rc < 0) {
		atomic_fetch_add(&t->put_errors, 1);
		return rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "%s", rocjit_last_error());
	}
	if (reply->type == RJ_REPLY_ERROR) {
		/* The server works but refuses writes: full (maxmemory with noeviction), a
		   read-only replica.  Reads go on; each put says so at ROCJIT_LOG=info. */
		char msg[300];
		snprintf(msg, sizeof msg, "%.*s", (int)(reply->len > 250 ? 250 : reply->len),
			 reply->str);
		rj_reply_free(reply);
		atomic_fetch_add(&t->put_errors, 1);
		atomic_fetch_add(&t->errors, 1);
		RJ_FAIL(ROCJIT_EIO, "remote cache %s refused a value of %zu bytes: %s%s", rj_remote_shown(t),
			size, msg, strncmp(msg, "OOM", 3) == 0 ? " (set maxmemory-policy "
			"allkeys-lru so that old values make room)" : "");
	}
	rc = reply->type == RJ_REPLY_STATUS ? 1 : 0;
	rj_reply_free(reply);
	if (rc) {
		atomic_fetch_add(&t->puts, 1);
		atomic_fetch_add(&t->bytes_written, size);
	}
	return rc;
}

void rj_remote_counts_get(const struct rj_remote *t, struct rj_remote_counts *out)
{
	out->hits = atomic_load(&t->hits);
	out->misses = atomic_load(&t->misses);
	out->errors = atomic_load(&t->errors);
	out->rejected = atomic_load(&t->rejected);
	out->puts = atomic_load(&t->puts);
	out->put_errors = atomic_load(&t->put_errors);
	out->waits = atomic_load(&t->waits);
	out->bytes_read = atomic_load(&t->bytes_read);
	out->bytes_written = atomic_load(&t->bytes_written);
	out->saved_ms = (double)atomic_load(&t->saved_us) / 1e3;
	out->remote_ms = (double)atomic_load(&t->remote_us) / 1e3;
}

/* ---- What the servers say about themselves --------------------------------------------------- */

struct info_walk {
	struct rj_remote *t;
	struct rj_remote_server_info *out;
	int with_keys, first;
};

/* The value of field in an INFO reply ("maxmemory_policy:allkeys-lru\r\n"), or "". */
static void info_field(const struct rj_reply *r, const char *field, char *out, size_t size)
{
	size_t fl = strlen(field);
	const char *p = r->str, *end = r->str + r->len;

	out[0] = 0;
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((eol ? eol : end) - p);
		if (n > fl && memcmp(p, field, fl) == 0 && p[fl] == ':') {
			size_t vl = n - fl - 1;
			if (vl && p[fl + 1 + vl - 1] == '\r')
				vl--;
			if (vl >= size)
				vl = size - 1;
			memcpy(out, p + fl + 1, vl);
			out[vl] = 0;
			return;
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* SCANs this tier's keys on one server, adding their count and sizes. */
static int count_keys(struct rj_conn *c, const char *where, struct info_walk *w)
{
	char cursor[32] = "0", match[96];
	int rounds = 0;

	snprintf(match, sizeof match, "%s:%d:*", w->t->url.prefix, RJ_RECORD_VERSION);
	do {
		const char *scan[6] = { "SCAN", cursor, "MATCH", match, "COUNT", "1000" };
		size_t scan_len[6];
		struct rj_reply *r = NULL, *keys;
		for (int i = 0; i < 6; i++)
			scan_len[i] = strlen(scan[i]);
		RJ_FORWARD(rj_conn_call(c, 6, scan, scan_len, &r, w->t->url.timeout_ms));
		if (r->type != RJ_REPLY_ARRAY || r->n != 2 || r->elem[0].type != RJ_REPLY_STRING ||
		    r->elem[1].type != RJ_REPLY_ARRAY || r->elem[0].len >= sizeof cursor) {
			rj_reply_free(r);
			RJ_FAIL(ROCJIT_EIO, "%s: SCAN answered something else than a cursor and keys",
				where);
		}
		memcpy(cursor, r->elem[0].str, r->elem[0].len);
		cursor[r->elem[0].len] = 0;
		keys = &r->elem[1];
		for (size_t i = 0; i < keys->n; i++) {
			const struct rj_reply *k = &keys->elem[i];
			const char *strlen_cmd[2] = { "STRLEN", k->str };
			size_t strlen_len[2] = { 6, k->len };
			struct rj_reply *len = NULL;
			if (k->len >= 5 && memcmp(k->str + k->len - 5, ":lock", 5) == 0) {
				w->out->locks++;
				continue;
			}
			if (rj_conn_call(c, 2, strlen_cmd, strlen_len, &len, w->t->url.timeout_ms) < 0) {
				rj_reply_free(r);
				return -RJ_CONN_IO;
			}
			if (len->type == RJ_REPLY_INTEGER) {
				w->out->entries++;
				w->out->bytes += (uint64_t)len->integer;
			}
			rj_reply_free(len);
		}
		rj_reply_free(r);
	} while (strcmp(cursor, "0") != 0 && ++rounds < 1000000);
	return 0;
}

static int info_one(struct rj_conn *c, const char *where, void *user)
{
	struct info_walk *w = user;
	static const char *const ping[] = { "PING" };
	static const size_t ping_len[] = { 4 };
	const char *info[2] = { "INFO", "all" };
	size_t info_len[2] = { 4, 3 };
	struct rj_reply *r = NULL;
	char value[64];
	double t0 = rj_now_ms(), ms;

	RJ_FORWARD(rj_conn_call(c, 1, ping, ping_len, &r, w->t->url.timeout_ms));
	ms = rj_now_ms() - t0;
	rj_reply_free(r);
	if (ms > w->out->latency_ms)
		w->out->latency_ms = ms;
	RJ_FORWARD(rj_conn_call(c, 2, info, info_len, &r, w->t->url.timeout_ms));
	if (r->type == RJ_REPLY_STRING) {
		if (w->first) {
			info_field(r, "redis_version", w->out->version, sizeof w->out->version);
			info_field(r, "maxmemory_policy", w->out->policy, sizeof w->out->policy);
		}
		info_field(r, "used_memory", value, sizeof value);
		w->out->used_memory += strtoull(value, NULL, 10);
		info_field(r, "maxmemory", value, sizeof value);
		w->out->maxmemory += strtoull(value, NULL, 10);
	}
	rj_reply_free(r);
	w->first = 0;
	if (w->with_keys)
		RJ_FORWARD(count_keys(c, where, w));
	return 0;
}

int rj_remote_server_info(struct rj_remote *t, int with_keys, struct rj_remote_server_info *out)
{
	struct info_walk w = { t, out, with_keys, 1 };
	int rc;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&t->mu);
	/* The caller reports a failure itself; the breaker is not consulted either: an
	   operator asking is told how the servers are now. */
	rj_redis_set_quiet(t->client, 1);
	rj_redis_reset_breaker(t->client);
	rc = rj_redis_each_server(t->client, info_one, &w);
	rj_redis_set_quiet(t->client, 0);
	out->servers = rj_redis_servers(t->client);
	pthread_mutex_unlock(&t->mu);
	out->keys_counted = with_keys && rc == 0;
	if (rc < 0)
		return rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "%s", rocjit_last_error());
	return 0;
}
