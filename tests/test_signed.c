/*
 * test_signed.c - signed code (issue 16) end to end: real hipRTC compiles for gfx90a,
 * real SQLite caches and bundles, a real redis-server (tests/redis_server.c), real
 * ed25519 keys written by rocjit_keygen.  Every refusal is checked to have loaded
 * nothing: the request is compiled here (or fails without a compiler), counted.
 */
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "redis_server.h"
#include "remote/client.h"
#include "remote/record.h"
#include "remote/url.h"
#include "key/key.h"

#define TARGET "gfx90a"

static struct rj_redis_server server;
static char url[128];

/* Makes key pair name in rj_test_dir; its secret file's path into secret, its public
 * line into pub. */
static void keygen(const char *name, char secret[4400], char pub[256])
{
	ASSERT_INT(rocjit_keygen(name, rj_test_dir, pub, 256), 0);
	snprintf(secret, 4400, "%s/%s.secret", rj_test_dir, name);
}

/* A node: cache folder rj_test_dir/<name>, the remote tier url (NULL: none), a signing
 * key file and a trust list (NULL: none), a rule, flags. */
static rocjit_ctx *node(const char *name, const char *remote, const char *key,
			const char *trusted, int require, unsigned flags, const char *bundles)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;
	char dir[4400];

	snprintf(dir, sizeof dir, "%s/%s", rj_test_dir, name);
	o.cache_dir = dir;
	o.remote = remote ? remote : "";
	o.signing_key = key ? key : "";
	o.trusted_keys = trusted ? trusted : "";
	o.require_signed = require;
	o.flags = flags;
	o.bundles = bundles;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

static rocjit_stats stats_of(rocjit_ctx *ctx)
{
	rocjit_stats st;

	memset(&st, 0, sizeof st);
	st.version = ROCJIT_STATS_VERSION;
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	return st;
}

static const rocjit_code *variant(rocjit_ctx *ctx, int i)
{
	return rj_test_compile_variant(ctx, TARGET, "RJ_SIGNED_TEST", i);
}

/* Variant i's program at -O0: the same kernels, other code (the variants' macro changes
 * only the key). */
static const rocjit_code *other_code(rocjit_ctx *ctx, int i)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;
	char opt[64];
	const char *o[2] = { opt, "-O0" };

	snprintf(opt, sizeof opt, "-DRJ_SIGNED_TEST=%d", i);
	p.source = rj_test_axpy;
	p.options = o;
	p.num_options = 2;
	ASSERT_INT(rocjit_compile(&c, ctx, TARGET, &p), 0);
	return c;
}

static int try_variant(rocjit_ctx *ctx, int i, const rocjit_code **c)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	char opt[64];
	const char *o[1] = { opt };

	snprintf(opt, sizeof opt, "-DRJ_SIGNED_TEST=%d", i);
	p.source = rj_test_axpy;
	p.options = o;
	p.num_options = 1;
	return rocjit_compile(c, ctx, TARGET, &p);
}

/* ---- The remote tier -------------------------------------------------------------------------- */

TEST(remote_value_signed_by_a_trusted_key_serves_and_others_are_refused)
{
	char ska[4400], pa[256], skb[4400], pb[256];
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;

	keygen("ci-a", ska, pa);
	keygen("ci-b", skb, pb);
	rj_redis_start(&server, "redis", NULL);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", server.port);
	ctx = node("producer", url, ska, NULL, 0, 0, NULL);
	ASSERT_INT(variant(ctx, 1)->from_cache, 0);
	ASSERT_INT(stats_of(ctx).signed_stores, 1);
	ASSERT_STR(stats_of(ctx).signing_key, "ci-a");
	rocjit_close(ctx);

	/* Trusts ci-a: served by the tier, verified once. */
	ctx = node("trusting", url, NULL, pa, 0, 0, NULL);
	c = variant(ctx, 1);
	st = stats_of(ctx);
	ASSERT_INT(st.remote_hits, 1);
	ASSERT_INT(st.compiles, 0);
	ASSERT_INT(st.signatures_checked, 1);
	ASSERT_INT(st.signature_rejects, 0);
	ASSERT_INT(st.require_signed, ROCJIT_REQUIRE_SIGNED_SHARED);
	ASSERT(c->from_cache);
	variant(ctx, 1); /* a repeat: the table, no second check */
	ASSERT_INT(stats_of(ctx).signatures_checked, 1);
	rocjit_close(ctx);

	/* Trusts only ci-b: the value is not loaded; compiled here. */
	ctx = node("other", url, NULL, pb, 0, 0, NULL);
	ASSERT_INT(variant(ctx, 1)->from_cache, 0);
	st = stats_of(ctx);
	ASSERT_INT(st.remote_hits, 0);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.signature_rejects, 1);
	ASSERT_INT(st.remote_rejected, 1);
	rocjit_close(ctx);

	/* Trusts nothing: takes the tier's value as before (no rule). */
	ctx = node("plain", url, NULL, NULL, 0, 0, NULL);
	ASSERT_INT(stats_of(ctx).require_signed, ROCJIT_REQUIRE_SIGNED_NONE);
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

/* Puts bytes under key with rocjit's own client (binary-safe). */
static void plant(const char *key, const void *bytes, size_t size, void **old, size_t *old_size)
{
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;
	const char *get[2] = { "GET", key }, *set[3] = { "SET", key, bytes };
	size_t glen[2] = { 3, strlen(key) }, slen[3] = { 3, strlen(key), size };

	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 1000), 0);
	if (old) {
		ASSERT_INT(rj_redis_command(r, key, 2, get, glen, &reply), 0);
		ASSERT(reply->type == RJ_REPLY_STRING);
		*old = malloc(reply->len);
		memcpy(*old, reply->str, reply->len);
		*old_size = reply->len;
		rj_reply_free(reply);
	}
	if (bytes) {
		ASSERT_INT(rj_redis_command(r, key, 3, set, slen, &reply), 0);
		ASSERT(reply->type == RJ_REPLY_STATUS);
		rj_reply_free(reply);
	}
	rj_redis_close(r);
}

TEST(remote_value_with_swapped_code_and_recomputed_checksums_is_refused)
{
	char ska[4400], pa[256], key[128];
	const rocjit_code *c4, *c5;
	struct rj_record rec;
	void *v, *re;
	size_t size, resize;
	rocjit_stats st;
	rocjit_ctx *ctx;

	keygen("ci-a", ska, pa);
	rj_redis_start(&server, "redis", NULL);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", server.port);
	ctx = node("producer", url, ska, NULL, 0, 0, NULL);
	c4 = variant(ctx, 4);
	c5 = other_code(ctx, 4);
	ASSERT(c5->size != c4->size || memcmp(c5->data, c4->data, c4->size) != 0);
	/* Variant 4's value with its -O0 code: a sound code object for the target with
	   the same kernels, every checksum recomputed, the signature kept - what an attacker
	   who can write the server but has no key can do. */
	snprintf(key, sizeof key, "rocjit:%d:%s", RJ_RECORD_VERSION, c4->key);
	plant(key, NULL, 0, &v, &size);
	ASSERT_INT(rj_record_decode(&rec, v, size), 0);
	ASSERT_INT(rec.sig_len, 64);
	rec.code = c5->data;
	rec.code_size = c5->size;
	ASSERT_INT(rj_record_encode(&re, &resize, &rec), 0);
	plant(key, re, resize, NULL, NULL);
	rocjit_close(ctx);

	/* Without trusted keys, such a value would be loaded: the checks of form pass. */
	ctx = node("trusting", url, NULL, pa, 0, 0, NULL);
	ASSERT_INT(variant(ctx, 4)->from_cache, 0);
	st = stats_of(ctx);
	ASSERT_INT(st.signature_rejects, 1);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.remote_hits, 0);
	rocjit_close(ctx);
	free(v);
	free(re);
	rj_redis_stop(&server);
}

/* ---- Bundles ---------------------------------------------------------------------------------- */

/* Exports variants 1 and 2 of node name's cache into rj_test_dir/<file>. */
static void export_bundle(rocjit_ctx *ctx, const char *file, char path[9000])
{
	const rocjit_code *a = variant(ctx, 1), *b = variant(ctx, 2);
	const char *keys[2] = { a->key, b->key };
	size_t n = 0;

	snprintf(path, 9000, "%s/%s", rj_test_dir, file);
	ASSERT_INT(rocjit_bundle_export(ctx, path, keys, 2, &n), 0);
	ASSERT_INT(n, 2);
}

TEST(signed_bundle_serves_without_compiling_only_where_its_key_is_trusted)
{
	char ska[4400], pa[256], skb[4400], pb[256], both[600], bundle[9000];
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;

	keygen("rel-a", ska, pa);
	keygen("rel-b", skb, pb);
	ctx = node("build", NULL, ska, NULL, 0, 0, NULL);
	export_bundle(ctx, "app.rocjit", bundle);
	rocjit_close(ctx);

	/* Trusts rel-a, may not compile: served by the bundle. */
	ctx = node("app1", NULL, NULL, pa, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT_INT(try_variant(ctx, 1, &c), 0);
	ASSERT_INT(try_variant(ctx, 2, &c), 0);
	st = stats_of(ctx);
	ASSERT_INT(st.signatures_checked, 2);
	ASSERT_INT(st.signature_rejects, 0);
	rocjit_close(ctx);

	/* Trusts rel-b only: nothing loads; without a compile it fails, saying why. */
	ctx = node("app2", NULL, NULL, pb, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT(try_variant(ctx, 1, &c) != 0);
	st = stats_of(ctx);
	ASSERT(st.signature_rejects >= 1);
	rocjit_close(ctx);

	/* Rotation: both trusted, a bundle signed by each serves; rel-a removed, its no more. */
	snprintf(both, sizeof both, "%s,%s", pa, pb);
	ctx = node("build-b", NULL, skb, NULL, 0, 0, NULL);
	{
		char path[4400];
		const rocjit_code *v = variant(ctx, 3);
		const char *keys[1] = { v->key };
		snprintf(path, sizeof path, "%s/b.rocjit", rj_test_dir);
		ASSERT_INT(rocjit_bundle_export(ctx, path, keys, 1, NULL), 0);
		size_t len = strlen(bundle);
		snprintf(bundle + len, sizeof bundle - len, ":%.4200s", path);
	}
	rocjit_close(ctx);
	ctx = node("app3", NULL, NULL, both, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT_INT(try_variant(ctx, 1, &c), 0);
	ASSERT_INT(try_variant(ctx, 3, &c), 0);
	rocjit_close(ctx);
	ctx = node("app4", NULL, NULL, pb, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT(try_variant(ctx, 1, &c) != 0);
	ASSERT_INT(try_variant(ctx, 3, &c), 0);
	rocjit_close(ctx);
}

TEST(bundle_entry_altered_after_signing_is_refused)
{
	char ska[4400], pa[256], bundle[9000];
	const rocjit_code *c, *other;
	sqlite3 *db;
	sqlite3_stmt *st;
	rocjit_ctx *ctx;

	keygen("rel-a", ska, pa);
	ctx = node("build", NULL, ska, NULL, 0, 0, NULL);
	export_bundle(ctx, "app.rocjit", bundle);
	other = other_code(ctx, 1);
	/* Every entry's code becomes variant 9's, size and checksum recomputed. */
	ASSERT_INT(sqlite3_open(bundle, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_prepare_v2(db, "UPDATE entries SET code = ?1, size = ?2, checksum = ?3",
				      -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, other->data, (int)other->size, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)other->size);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)rj_checksum(other->data, other->size));
	ASSERT_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	rocjit_close(ctx);

	ctx = node("app", NULL, NULL, pa, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT(try_variant(ctx, 1, &c) != 0);
	ASSERT(stats_of(ctx).signature_rejects >= 1);
	rocjit_close(ctx);
	/* Allowed to compile: compiled here, the bundle's code never loaded. */
	ctx = node("app2", NULL, NULL, pa, 0, 0, bundle);
	ASSERT_INT(try_variant(ctx, 1, &c), 0);
	ASSERT_INT(c->from_cache, 0);
	ASSERT_INT(stats_of(ctx).compiles, 1);
	rocjit_close(ctx);
}

/* ---- The local cache under ROCJIT_REQUIRE_SIGNED_ALL --------------------------------------------- */

TEST(require_all_refuses_unsigned_local_entries_until_signed)
{
	char ska[4400], pa[256];
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;
	size_t n = 0;

	keygen("local", ska, pa);
	ctx = node("n", NULL, NULL, NULL, 0, 0, NULL);
	variant(ctx, 1);
	rocjit_close(ctx);
	/* Shared only (the default with keys): the unsigned local entry is a disk hit. */
	ctx = node("n", NULL, NULL, pa, 0, 0, NULL);
	ASSERT(variant(ctx, 1)->from_cache);
	rocjit_close(ctx);
	/* All: refused, compiled again. */
	ctx = node("n", NULL, NULL, pa, ROCJIT_REQUIRE_SIGNED_ALL, 0, NULL);
	c = variant(ctx, 1);
	ASSERT_INT(c->from_cache, 0);
	st = stats_of(ctx);
	ASSERT_INT(st.signature_rejects, 1);
	ASSERT_INT(st.compiles, 1);
	rocjit_close(ctx);
	/* rocjit_cache_sign signs it; then it loads. */
	ctx = node("n", NULL, ska, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), 0);
	ASSERT_INT(n, 1);
	rocjit_close(ctx);
	ctx = node("n", NULL, NULL, pa, ROCJIT_REQUIRE_SIGNED_ALL, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT(variant(ctx, 1)->from_cache);
	st = stats_of(ctx);
	ASSERT_INT(st.signature_rejects, 0);
	ASSERT_INT(st.signatures_checked, 1);
	rocjit_close(ctx);
}

TEST(bad_rule_in_the_options_fails_open_and_in_the_environment_fails_closed)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;
	rocjit_stats st;

	o.cache_dir = rj_test_cache_dir;
	o.trusted_keys = "not a key";
	ASSERT_INT(rocjit_open(&ctx, &o), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "trusted_keys");
	o.trusted_keys = NULL;
	o.signing_key = "/nonexistent/key.secret";
	ASSERT(rocjit_open(&ctx, &o) != 0);
	/* From the environment: a warning, and no key trusted (shared entries compile). */
	o.signing_key = NULL;
	setenv("ROCJIT_TRUSTED_KEYS", "garbage", 1);
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	st = stats_of(ctx);
	ASSERT_INT(st.require_signed, ROCJIT_REQUIRE_SIGNED_SHARED);
	ASSERT_INT(st.trusted_keys, 0);
	rocjit_close(ctx);
	unsetenv("ROCJIT_TRUSTED_KEYS");
}
