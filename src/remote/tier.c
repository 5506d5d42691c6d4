/*
 * tier.c - the remote tier's handle and its values: what is stored and how it is read.
 *
 * Owns the keys (<prefix>:<record version>:<key hex> for a value; lease.c adds ":lock"
 * for its compile lock), the checks a value must pass before anything of it is used (a
 * value is data anyone who reaches the server chose: record.c checks its form, this file
 * that it is the entry asked for - key, portable key, platform, target, compiler - and
 * that its code object is one for the target holding the kernels it names), puts, and the
 * tier's counters.  Talks to the servers only through client.c, under the tier's mutex
 * (one thread of a context talks to the servers at a time; hits from the local tiers
 * never come here); a value's checks run after it is let go.  Never touches the local
 * cache (the request path copies a hit there) nor a context.  The bottom of the tier's
 * files (remote_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/shared.h"
#include "codeobj/codeobj.h"
#include "remote/remote_internal.h"
#include "sign/sign.h"
#include "store/cache.h"

/* Values read at most: a larger one is refused without being read whole. */
#define VALUE_MAX ((size_t)64 << 20)
/* The longest kernels column a value may hold (kernel_names.c's column). */
#define KERNELS_MAX (1 << 20)

/* t->shown is made at the first call (under mu: the first message may come from any
 * thread); the same string from then on. */
const char *rj_tier_shown_locked(struct rj_remote *t)
{
	if (!t->shown[0])
		rj_remote_url_show(&t->url, t->shown, sizeof t->shown);
	return t->shown;
}

const char *rj_remote_shown(struct rj_remote *t)
{
	const char *s;

	pthread_mutex_lock(&t->mu);
	s = rj_tier_shown_locked(t);
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

int rj_tier_command(struct rj_remote *t, const char *key, int argc, const char *const *argv,
		    const size_t *argvlen, struct rj_reply **reply)
{
	double t0 = rj_now_ms();
	int rc = rj_redis_command(t->client, key, argc, argv, argvlen, reply);

	atomic_fetch_add(&t->remote_us, (uint64_t)((rj_now_ms() - t0) * 1e3));
	if (rc < 0 && rc != -RJ_REDIS_OFF) {
		atomic_fetch_add(&t->errors, 1);
		rj_cache_count(t->counts, RJ_COUNT_REMOTE_ERROR, 1);
	}
	return rc;
}

static void value_key(const struct rj_remote *t, const rj_key *key, char *out, size_t size)
{
	char hex[33];

	rj_key_hex(key, hex);
	snprintf(out, size, "%s:%d:%s", t->url.prefix, RJ_RECORD_VERSION, hex);
}

void rj_remote_value_free(struct rj_remote_value *v)
{
	if (!v)
		return;
	rj_shared_unref(v->bytes);
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
	else if (rj_names_check(column, found, strlen(found), rec->code, rec->code_size) != 0)
		rc = rj_error_set(ROCJIT_EFORMAT, __FILE__, __LINE__, "its name expressions "
				  "name kernels or variables its code object lacks");
	free(found);
	if (rc != 0) {
		free(column);
		return rc;
	}
	*kernels = column;
	return 0;
}

void rj_remote_set_trust(struct rj_remote *t, const struct rj_sig_trust *trust)
{
	t->trust = trust;
}

void rj_remote_count_in(struct rj_remote *t, struct rj_cache *c)
{
	t->counts = c;
}

uint64_t rj_remote_sig_rejected(struct rj_remote *t)
{
	return atomic_load(&t->sig_rejected);
}

/*
 * With trusted keys, a value serves only when signed by one of them, over the fields it
 * is served by (those check_value compared with the request) and its code: 0, or
 * ROCJIT_EFORMAT saying what is wrong with its signature.  *other_signer: refused only
 * because it is unsigned or signed by a key not trusted here (it may be what nodes that
 * trust its signer, or check nothing, load); 0 for a signature that does not hold (the
 * value was altered: whoever compiles it replaces it).
 */
static int check_signature(struct rj_remote *t, const struct rj_record *rec, int *other_signer)
{
	char signer[RJ_SIG_NAME_MAX + 1] = "", platform[64], target[128], *compiler;
	struct rj_sig_subject e;
	unsigned char described[RJ_SIG_DIGEST_BYTES];
	enum rj_sig_status st;

	if (!t->trust)
		return 0;
	compiler = malloc(rec->compiler_len + 1);
	RJ_CHECK(!compiler, ROCJIT_ENOMEM, "out of memory checking a signature");
	memcpy(compiler, rec->compiler, rec->compiler_len);
	compiler[rec->compiler_len] = 0;
	/* check_value bounded platform and target by the request's, which fit. */
	snprintf(platform, sizeof platform, "%.*s", (int)rec->platform_len, rec->platform);
	snprintf(target, sizeof target, "%.*s", (int)rec->target_len, rec->target);
	if (rec->signer_len <= RJ_SIG_NAME_MAX)
		snprintf(signer, sizeof signer, "%.*s", (int)rec->signer_len, rec->signer);
	else
		snprintf(signer, sizeof signer, "?");
	/* Every field the signature covers, as the value holds it: what is stored and
	   served from it (kernels column, compile time, texts) is what is checked. */
	rj_sig_describe(described, rec->options, rec->options_len, rec->source_name,
			rec->source_name_len, rec->headers, rec->headers_len);
	rj_sig_subject_make(&e, &rec->key, &rec->pkey, platform, target, compiler, rec->kernels,
			    rec->kernels_len, rec->compile_ms, described, rec->code,
			    rec->code_size);
	st = rj_sig_verify(t->trust, &e, signer, rec->sig, rec->sig_len);
	free(compiler);
	if (st == RJ_SIG_TRUSTED)
		return 0;
	*other_signer = st == RJ_SIG_UNSIGNED || st == RJ_SIG_UNTRUSTED;
	atomic_fetch_add(&t->sig_rejected, 1);
	rj_cache_count(t->counts, RJ_COUNT_SIGNATURE_REJECT, 1);
	if (st == RJ_SIG_UNSIGNED)
		RJ_FAIL(ROCJIT_EFORMAT, "it is not signed, and this process loads only code "
			"signed by a trusted key (ROCJIT_TRUSTED_KEYS)");
	if (st == RJ_SIG_UNTRUSTED)
		RJ_FAIL(ROCJIT_EFORMAT, "it is signed by \"%s\", which is not a trusted key "
			"(ROCJIT_TRUSTED_KEYS)", signer);
	RJ_FAIL(ROCJIT_EFORMAT, "its signature by \"%s\" does not hold: the value was altered "
		"after it was signed, signed by another key of that name, or signed in an older "
		"format (re-sign it with `rocjit sign` where it was made, and push it again)",
		signer);
}

/* One warning per process for values refused, then at ROCJIT_LOG=info.  Without mu.
 * sig: refused for its signature alone (lookup.c replaces it only with a signed value). */
static void refused(struct rj_remote *t, const char *key, const char *why, int sig)
{
	if (atomic_fetch_add(&t->rejected, 1) == 0)
		rj_log(RJ_LOG_WARN, "remote cache %s: the value of %s is not used: %s (counted "
		       "in rocjit stats; %s)", rj_remote_shown(t), key, why,
		       sig ? "compiled here, and replaced only by a value this node signs: "
			     "nodes that trust its signer may use it"
			   : "it is replaced when this node compiles it");
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
	rc = rj_tier_command(t, key, 4, argv, argvlen, &reply);
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
	/* A value of some size was read into a buffer of its own: taken, not copied. */
	if (reply->shared) {
		v->bytes = reply->shared;
		reply->shared = NULL;
	} else if ((v->bytes = rj_shared_alloc(reply->len)) != NULL) {
		memcpy(v->bytes, reply->str, reply->len);
	}
	if (v->bytes)
		v->size = reply->len;
	rj_reply_free(reply);
	return v->bytes ? 1 : 0;
}

/* The value of w->key, checked: 1 and *v, else 0 (a miss, a refusal) or <0. */
static int get_value(struct rj_remote *t, const struct rj_remote_want *w,
		     struct rj_remote_value *v)
{
	char key[160], why[600];
	int rc, other_signer = 0;

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
	} else if (rc == 1 && check_signature(t, &v->rec, &other_signer) != 0) {
		snprintf(why, sizeof why, "%s", rocjit_last_error());
		rj_remote_value_free(v);
		v->sig_refused = other_signer;
		rc = 2;
	}
	if (rc == 2) {
		refused(t, key, why, v->sig_refused);
		v->refused = 1;
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
	if (m->signer) {
		r->signer = m->signer, r->signer_len = strlen(m->signer);
		r->sig = m->sig, r->sig_len = RJ_SIG_BYTES;
	}
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
	rc = rj_tier_command(t, key, argc, argv, argvlen, &reply);
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
		rj_cache_count(t->counts, RJ_COUNT_REMOTE_ERROR, 1);
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

