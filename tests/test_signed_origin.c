/*
 * test_signed_origin.c - a signer vouches only for code whose origin it knows (issue 27,
 * class 2).  Each entry's origin is recorded when it is stored (compiled here, from the
 * remote tier, from a bundle); signing the cache, a signed export and a push sign only
 * entries compiled here, keep a signature by a key the node trusts, and refuse the rest,
 * saying which entry, why and what to do.  The attack: an unsigned value planted on the
 * remote tier under a real key is served to a producer that trusts no key; the producer
 * must not then sign it for its consumers.
 *
 * Real hipRTC compiles for gfx90a, real SQLite files, a real redis-server, real keys.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "harness.h"
#include "remote_nodes.h"
#include "remote/record.h"

#define TARGET "gfx90a"

static struct rj_redis_server server;
static char url[128];

static const rocjit_code *variant(rocjit_ctx *ctx, int i)
{
	return rj_test_compile_variant(ctx, TARGET, "RJ_ORIGIN_TEST", i);
}

/* The one value of SQL sql in the SQLite file path, as text, into out ("" when none). */
static void sql_text(const char *path, const char *sql, char *out, size_t size)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	out[0] = 0;
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void db_of(const char *node, char path[4400])
{
	snprintf(path, 4400, "%s/%s/rocjit-cache.sqlite", rj_test_dir, node);
}

/* Exports key from ctx into rj_test_dir/<file>: the call's result. */
static int export_one(rocjit_ctx *ctx, const char *key, const char *file, char path[4400])
{
	const char *keys[1] = { key };
	size_t n = 0;

	snprintf(path, 4400, "%s/%s", rj_test_dir, file);
	return rocjit_bundle_export(ctx, path, keys, 1, &n);
}

/*
 * Node from (signing key fk; NULL none) compiles variant i and exports it into file; node
 * "producer" (signing key sk, trusting trusted) imports it, and its origin row, "ORIGIN/
 * SIGNER", is then want.  key gets the entry's key, db the producer's database; returns
 * the producer's context.
 */
static rocjit_ctx *imported(const char *from, const char *fk, int i, const char *file,
			    const char *sk, const char *trusted, const char *want, char key[33],
			    char db[4400])
{
	char bundle[4400], origin[128];
	rocjit_ctx *ctx = rj_node_open_signing(from, NULL, fk, NULL, 0, 0, NULL);
	size_t copied = 0;

	snprintf(key, 33, "%s", variant(ctx, i)->key);
	ASSERT_INT(export_one(ctx, key, file, bundle), 0);
	rocjit_close(ctx);
	ctx = rj_node_open_signing("producer", NULL, sk, trusted, 0, ROCJIT_OPEN_NO_COMPILE,
				   NULL);
	ASSERT_INT(rocjit_bundle_import_v2(ctx, bundle, &copied, NULL, NULL, NULL), 0);
	ASSERT_INT(copied, 1);
	db_of("producer", db);
	sql_text(db, "SELECT origin || '/' || coalesce(signer, '') FROM origins", origin,
		 sizeof origin);
	ASSERT_STR(origin, want);
	return ctx;
}

TEST(unsigned_value_planted_on_the_remote_tier_is_not_signed_by_export_push_or_sign)
{
	char sk[4400], pk[256], key[33], own[33], bundle[4400], db[4400], origin[64];
	const rocjit_code *c;
	struct rj_record rec;
	rocjit_ctx *ctx;
	size_t n = 9, pushed = 9, present = 9, failed = 9, size;
	const char *keys[1] = { key };
	char name[128];
	void *v;

	rj_node_keygen("producer", sk, pk);
	rj_node_start_server(&server, url, sizeof url);
	/* Planted: a node with no key puts its value, unsigned, under the real key. */
	ctx = rj_node_open_signing("planter", url, NULL, NULL, 0, 0, NULL);
	snprintf(key, sizeof key, "%s", variant(ctx, 1)->key);
	rocjit_close(ctx);

	/* The producer trusts no key: the value serves it, and is stored from the tier. */
	ctx = rj_node_open_signing("producer", url, sk, NULL, 0, 0, NULL);
	c = variant(ctx, 1);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_INT(rj_test_stats(ctx).compiles, 0);
	snprintf(own, sizeof own, "%s", variant(ctx, 2)->key); /* compiled here */
	rocjit_close(ctx);
	db_of("producer", db);
	snprintf(name, sizeof name, "SELECT origin FROM origins WHERE hex(key) = upper('%s')",
		 key);
	sql_text(db, name, origin, sizeof origin);
	ASSERT_STR(origin, "remote");

	ctx = rj_node_open_signing("producer", url, sk, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	/* A signed export of it: refused, saying why and what to do; no bundle signed. */
	ASSERT_INT(export_one(ctx, key, "planted.rocjit", bundle), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), key);
	ASSERT_CONTAINS(rocjit_last_error(), "arrived unsigned from the remote tier");
	ASSERT_CONTAINS(rocjit_last_error(), "rocjit purge");
	ASSERT_CONTAINS(rocjit_last_error(), "1 not signed");
	/* rocjit sign: the same, counted; the one compiled here is signed. */
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), ROCJIT_EFORMAT);
	ASSERT_INT(n, 1);
	ASSERT_CONTAINS(rocjit_last_error(), "1 entries signed");
	ASSERT_CONTAINS(rocjit_last_error(), "arrived unsigned from the remote tier");
	snprintf(name, sizeof name, "SELECT count(*) FROM signatures WHERE hex(key) = upper('%s')",
		 key);
	sql_text(db, name, origin, sizeof origin);
	ASSERT_STR(origin, "0");
	/* A push with the key: not pushed signed (counted as failed, saying why). */
	ASSERT(rocjit_remote_push(ctx, keys, 1, &pushed, &present, &failed, NULL, NULL) != 0);
	ASSERT_INT(failed, 1);
	ASSERT_INT(pushed, 0);
	ASSERT_CONTAINS(rocjit_last_error(), "from the remote tier");
	rj_node_value_key(name, sizeof name, key);
	v = rj_node_fetch(url, name, &size);
	ASSERT(v != NULL);
	ASSERT_INT(rj_record_decode(&rec, v, size), 0);
	ASSERT_INT(rec.sig_len, 0); /* still the planted, unsigned value */
	free(v);
	/* The entry compiled here exports signed. */
	ASSERT_INT(export_one(ctx, own, "own.rocjit", bundle), 0);
	rocjit_close(ctx);

	/* A consumer trusting the producer's key loads neither the planted value nor a
	   signed copy of it; the producer's own entry serves from its bundle. */
	ctx = rj_node_open_signing("consumer", url, NULL, pk, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT(rj_test_try_variant(&c, ctx, TARGET, "RJ_ORIGIN_TEST", 1) != 0);
	ASSERT_INT(rj_test_try_variant(&c, ctx, TARGET, "RJ_ORIGIN_TEST", 2), 0);
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

TEST(entry_imported_unsigned_from_a_bundle_is_not_signed)
{
	char sk[4400], pk[256], key[33], out[4400], db[4400], origin[64];
	rocjit_ctx *ctx;
	size_t n = 9;

	rj_node_keygen("producer", sk, pk);
	/* The producer trusts no key: the import copies the unsigned entry. */
	ctx = imported("third-party", NULL, 3, "third.rocjit", sk, NULL, "bundle/", key, db);
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), ROCJIT_EFORMAT);
	ASSERT_INT(n, 0);
	ASSERT_CONTAINS(rocjit_last_error(), "arrived unsigned from a bundle");
	ASSERT_INT(export_one(ctx, key, "resigned.rocjit", out), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), key);
	rocjit_close(ctx);
	/* No signature was ever written into the producer's cache. */
	sql_text(db, "SELECT count(*) FROM sqlite_master WHERE name = 'signatures'", origin,
		 sizeof origin);
	ASSERT_STR(origin, "0");
}

TEST(entry_signed_by_a_trusted_key_keeps_that_signature_through_export)
{
	char svk[4400], pvk[256], sk[4400], pk[256], key[33], pb[4400], db[4400];
	char signer[64];
	const rocjit_code *c;
	rocjit_ctx *ctx;
	size_t n = 0;

	rj_node_keygen("vendor", svk, pvk);
	rj_node_keygen("producer", sk, pk);
	/* The producer trusts the vendor: the import checks the signature and records it. */
	ctx = imported("vendor", svk, 4, "vendor.rocjit", sk, pvk, "bundle/vendor", key, db);
	/* Signing and a signed export keep the vendor's signature: counted, not replaced. */
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), 0);
	ASSERT_INT(n, 1);
	ASSERT_INT(export_one(ctx, key, "producer.rocjit", pb), 0);
	rocjit_close(ctx);
	sql_text(db, "SELECT signer FROM signatures", signer, sizeof signer);
	ASSERT_STR(signer, "vendor");
	sql_text(pb, "SELECT signer FROM signatures", signer, sizeof signer);
	ASSERT_STR(signer, "vendor");
	/* A consumer trusting the vendor alone loads it from the producer's bundle. */
	ctx = rj_node_open_signing("consumer", NULL, NULL, pvk, 0, ROCJIT_OPEN_NO_COMPILE, pb);
	ASSERT_INT(rj_test_try_variant(&c, ctx, TARGET, "RJ_ORIGIN_TEST", 4), 0);
	rocjit_close(ctx);
}

TEST(entry_compiled_here_is_signed_and_one_of_unknown_origin_is_not)
{
	char sk[4400], pk[256], db[4400], text[64];
	const rocjit_code *c;
	rocjit_ctx *ctx;
	size_t n = 0;
	sqlite3 *h;

	rj_node_keygen("local", sk, pk);
	/* Compiled without a key: recorded as compiled here, and signed later. */
	ctx = rj_node_open_signing("n", NULL, NULL, NULL, 0, 0, NULL);
	variant(ctx, 5);
	variant(ctx, 6);
	rocjit_close(ctx);
	db_of("n", db);
	sql_text(db, "SELECT group_concat(origin) FROM origins", text, sizeof text);
	ASSERT_STR(text, "compiled,compiled");
	ctx = rj_node_open_signing("n", NULL, sk, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), 0);
	ASSERT_INT(n, 2);
	rocjit_close(ctx);
	ctx = rj_node_open_signing("n", NULL, NULL, pk, ROCJIT_REQUIRE_SIGNED_ALL,
				   ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(rj_test_try_variant(&c, ctx, TARGET, "RJ_ORIGIN_TEST", 5), 0);
	rocjit_close(ctx);

	/* A cache written before origins were recorded: no row, origin unknown, refused. */
	ASSERT_INT(sqlite3_open(db, &h), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(h, "DELETE FROM origins; DELETE FROM signatures", NULL, NULL,
				NULL), SQLITE_OK);
	sqlite3_close(h);
	ctx = rj_node_open_signing("n", NULL, sk, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), ROCJIT_EFORMAT);
	ASSERT_INT(n, 0);
	ASSERT_CONTAINS(rocjit_last_error(), "its origin is unknown");
	ASSERT_CONTAINS(rocjit_last_error(), "2 not signed");
	rocjit_close(ctx);
	/* The trigger drops a row with its entry. */
	ctx = rj_node_open_signing("n", NULL, NULL, NULL, 0, 0, NULL);
	variant(ctx, 7);
	rocjit_close(ctx);
	ASSERT_INT(sqlite3_open(db, &h), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(h, "DELETE FROM entries", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	sql_text(db, "SELECT count(*) FROM origins", text, sizeof text);
	ASSERT_STR(text, "0");
}
