/*
 * test_signed.c - signed code (issue 16) end to end: real hipRTC compiles for gfx90a,
 * real SQLite caches and bundles, a real redis-server (tests/redis_server.c), real
 * ed25519 keys written by rocjit_keygen.  Every refusal is checked to have loaded
 * nothing: the request is compiled here (or fails without a compiler), counted.  Nodes
 * are contexts on cache folders of their own (tests/remote_nodes.h), in this process or,
 * for the remote tier across nodes, in processes of their own.
 */
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "remote_nodes.h"
#include "remote/conn.h"
#include "remote/record.h"
#include "key/key.h"
#include "request/context.h"
#include "store/cache_internal.h"

#define TARGET "gfx90a"

static struct rj_redis_server server;
static char url[128];

/* Starts the test's server, url its address; skips where rocjit has no remote tier. */
static void start_server(void)
{
	rj_node_start_server(&server, url, sizeof url);
}


/* A node: cache folder rj_test_dir/<name>, the remote tier url (NULL: none), a signing
 * key file and a trust list (NULL: none), a rule, flags. */
static rocjit_ctx *node(const char *name, const char *remote, const char *key,
			const char *trusted, int require, unsigned flags, const char *bundles)
{
	return rj_node_open_signing(name, remote, key, trusted, require, flags, bundles);
}

static const rocjit_code *variant(rocjit_ctx *ctx, int i)
{
	return rj_test_compile_variant(ctx, TARGET, "RJ_SIGNED_TEST", i);
}

/* Variant i's program at -O0: the same kernels, other code (the variants' macro changes
 * only the key). */
static const rocjit_code *other_code(rocjit_ctx *ctx, int i)
{
	const rocjit_code *c;
	char opt[64];
	const char *o[2] = { opt, "-O0" };
	int rc;

	snprintf(opt, sizeof opt, "-DRJ_SIGNED_TEST=%d", i);
	rc = rj_test_compile(&c, ctx, TARGET, NULL, rj_test_axpy, o, 2, NULL, 0, NULL, 0);
	ASSERT_INT(rc, 0);
	return c;
}

static int try_variant(rocjit_ctx *ctx, int i, const rocjit_code **c)
{
	return rj_test_try_variant(c, ctx, TARGET, "RJ_SIGNED_TEST", i);
}

/* ---- The remote tier -------------------------------------------------------------------------- */

/* st: served by the remote tier, its signature checked once and trusted, nothing compiled. */
static void served_signed(const rocjit_stats *st)
{
	ASSERT_INT(st->remote_hits, 1);
	ASSERT_INT(st->compiles, 0);
	ASSERT_INT(st->signatures_checked, 1);
	ASSERT_INT(st->signature_rejects, 0);
	ASSERT_INT(st->remote_rejected, 0);
}

/* st: the tier's value refused for its signature, so never loaded; compiles: how many
 * compiles followed (0 where compiling is forbidden). */
static void refused_for_signature(const rocjit_stats *st, int compiles)
{
	ASSERT_INT(st->remote_hits, 0);
	ASSERT_INT(st->compiles, compiles);
	ASSERT_INT(st->signature_rejects, 1);
	ASSERT_INT(st->remote_rejected, 1);
}


/* Node name, trusting trusted (and allowed to compile, with no signing key), asks for
 * variant i: the tier's value is refused for its signature, the variant compiled here,
 * and puts values on the tier (1: it replaced the refused one, 0: it left it). */
static void tier_refused_and_compiled(const char *name, const char *trusted, int i,
				      int puts)
{
	rocjit_ctx *ctx = node(name, url, NULL, trusted, 0, 0, NULL);
	rocjit_stats st;

	ASSERT_INT(variant(ctx, i)->from_cache, 0);
	st = rj_test_stats(ctx);
	refused_for_signature(&st, 1);
	ASSERT_INT((int)st.remote_puts, puts);
	rocjit_close(ctx);
}

TEST(remote_value_signed_by_a_trusted_key_serves_and_others_are_refused)
{
	char ska[4400], pa[256], skb[4400], pb[256];
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;

	rj_node_keygen("ci-a", ska, pa);
	rj_node_keygen("ci-b", skb, pb);
	start_server();
	ctx = node("producer", url, ska, NULL, 0, 0, NULL);
	ASSERT_INT(variant(ctx, 1)->from_cache, 0);
	ASSERT_INT(rj_test_stats(ctx).signed_stores, 1);
	ASSERT_STR(rj_test_stats(ctx).signing_key, "ci-a");
	rocjit_close(ctx);

	/* Trusts ci-a: served by the tier, verified once. */
	ctx = node("trusting", url, NULL, pa, 0, 0, NULL);
	c = variant(ctx, 1);
	st = rj_test_stats(ctx);
	served_signed(&st);
	ASSERT_INT(st.require_signed, ROCJIT_REQUIRE_SIGNED_SHARED);
	ASSERT(c->from_cache);
	variant(ctx, 1); /* a repeat: the table, no second check */
	ASSERT_INT(rj_test_stats(ctx).signatures_checked, 1);
	rocjit_close(ctx);

	/* Trusts only ci-b: the value is not loaded; compiled here. */
	/* It keeps the value, signed by a key it does not trust (others may), and puts no
	   unsigned one in its place. */
	tier_refused_and_compiled("other", pb, 1, 0);

	/* Trusts nothing: takes the tier's value as before (no rule). */
	ctx = node("plain", url, NULL, NULL, 0, 0, NULL);
	ASSERT_INT(rj_test_stats(ctx).require_signed, ROCJIT_REQUIRE_SIGNED_NONE);
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

TEST(remote_value_with_swapped_code_and_recomputed_checksums_is_refused)
{
	char ska[4400], pa[256], key[128];
	const rocjit_code *c4, *c5;
	struct rj_record rec;
	void *v;
	size_t size;
	rocjit_ctx *ctx;

	rj_node_keygen("ci-a", ska, pa);
	start_server();
	ctx = node("producer", url, ska, NULL, 0, 0, NULL);
	c4 = variant(ctx, 4);
	c5 = other_code(ctx, 4);
	ASSERT(c5->size != c4->size || memcmp(c5->data, c4->data, c4->size) != 0);
	/* Variant 4's value with its -O0 code: a sound code object for the target with
	   the same kernels, every checksum recomputed, the signature kept - what an attacker
	   who can write the server but has no key can do. */
	v = rj_node_signed_value(url, c4->key, "ci-a", &rec, &size);
	rj_node_value_key(key, sizeof key, c4->key);
	rj_node_plant_swapped(url, key, v, size, c5->data, c5->size);
	rocjit_close(ctx);

	/* Without trusted keys, such a value would be loaded: the checks of form pass. */
	/* A signature that does not hold is no one's: the node's own compile replaces it. */
	tier_refused_and_compiled("trusting", pa, 4, 1);
	free(v);
	rj_redis_stop(&server);
}

/* ---- Nodes that are processes of their own ---------------------------------------------------- */

/* A node process's settings, set by the test before it forks the process. */
struct node_role {
	const char *name; /* its cache folder, report and stderr under rj_test_dir */
	const char *key;  /* its signing key file, or NULL */
	const char *trusted; /* its trust list, or NULL */
	unsigned flags;
};
static struct node_role roles[5];

/* Node process i: opens node roles[i] on the test's server, asks for variant 6, and
 * reports what it got; its exit status 0 when it could report. */
static int node_process(int i)
{
	const struct node_role *r = &roles[i];
	const rocjit_code *c = NULL;
	rocjit_ctx *ctx = node(r->name, url, r->key, r->trusted, 0, r->flags, NULL);
	int rc = try_variant(ctx, 6, &c);

	rc = rj_node_report_write(r->name, rc, c, ctx);
	rocjit_close(ctx);
	return rc;
}

/* Runs node process i to its end (it must exit 0: its stderr is shown when it does not):
 * its report, and its stderr in *err (malloc'ed) unless err is NULL. */
static struct rj_node_report run_node(int i, char **err)
{
	char *text = NULL;
	int status = rj_node_process(node_process, i, roles[i].name, &text);

	if (status != 0)
		fprintf(stderr, "node process %s exited %d; its stderr:\n%s\n", roles[i].name,
			status, text);
	ASSERT_INT(status, 0);
	if (err)
		*err = text;
	else
		free(text);
	return rj_node_report_read(roles[i].name);
}

TEST(node_processes_load_a_pushed_value_only_where_its_signer_is_trusted)
{
	char ska[4400], pa[256], skx[4400], px[256], *err;
	struct rj_node_report a, b, c;
	struct rj_record rec;
	size_t size = 0;

	rj_node_keygen("fleet-a", ska, pa);
	rj_node_keygen("fleet-x", skx, px);
	start_server();
	/* Five processes, one after the other, each on a cache folder of its own; this one
	   opens no context. */
	roles[0] = (struct node_role){ "proc-a", ska, NULL, 0 };
	roles[1] = (struct node_role){ "proc-b", NULL, pa, ROCJIT_OPEN_NO_COMPILE };
	roles[2] = (struct node_role){ "proc-c", NULL, px, ROCJIT_OPEN_NO_COMPILE };
	roles[3] = (struct node_role){ "proc-c2", NULL, px, 0 };

	/* A signs with fleet-a: it compiles, signs and pushes. */
	a = run_node(0, NULL);
	ASSERT_INT(a.rc, 0);
	ASSERT_INT(a.from_cache, 0);
	ASSERT_INT(a.stats.compiles, 1);
	ASSERT_INT(a.stats.remote_puts, 1);
	ASSERT_INT(a.stats.signed_stores, 1);
	ASSERT_STR(a.stats.signing_key, "fleet-a");
	/* The server holds its value, signed by fleet-a. */
	free(rj_node_signed_value(url, a.key, "fleet-a", &rec, &size));

	/* B trusts fleet-a and may not compile: served by the tier, the signature checked. */
	b = run_node(1, NULL);
	ASSERT_INT(b.rc, 0);
	ASSERT_INT(b.from_cache, 1);
	ASSERT_STR(b.key, a.key);
	served_signed(&b.stats);

	/* C trusts only fleet-x: A's value is not loaded.  Compiling forbidden, the request
	   fails, and the process's warning says that the signer is not trusted. */
	c = run_node(2, &err);
	ASSERT_INT(c.rc, ROCJIT_ENOTCACHED);
	ASSERT_CONTAINS(c.error, "compiling is forbidden");
	refused_for_signature(&c.stats, 0);
	ASSERT_CONTAINS(err, "signed by \"fleet-a\", which is not a trusted key");
	free(err);
	/* Allowed to compile, such a node compiles it itself. */
	c = run_node(3, NULL);
	ASSERT_INT(c.rc, 0);
	ASSERT_INT(c.from_cache, 0);
	ASSERT_STR(c.key, a.key);
	refused_for_signature(&c.stats, 1);
	/* ... and keeps it: an unsigned value would take the signed one from the nodes that
	   trust fleet-a (B's kind), and every node that checks would refuse it. */
	ASSERT_INT((int)c.stats.remote_puts, 0);
	free(rj_node_signed_value(url, a.key, "fleet-a", &rec, &size));
	roles[4] = (struct node_role){ "proc-b2", NULL, pa, ROCJIT_OPEN_NO_COMPILE };
	b = run_node(4, NULL);
	ASSERT_INT(b.rc, 0);
	ASSERT_INT((int)b.stats.remote_hits, 1);
	ASSERT_INT((int)b.stats.compiles, 0);
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

	rj_node_keygen("rel-a", ska, pa);
	rj_node_keygen("rel-b", skb, pb);
	ctx = node("build", NULL, ska, NULL, 0, 0, NULL);
	export_bundle(ctx, "app.rocjit", bundle);
	rocjit_close(ctx);

	/* Trusts rel-a, may not compile: served by the bundle. */
	ctx = node("app1", NULL, NULL, pa, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT_INT(try_variant(ctx, 1, &c), 0);
	ASSERT_INT(try_variant(ctx, 2, &c), 0);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.signatures_checked, 2);
	ASSERT_INT(st.signature_rejects, 0);
	rocjit_close(ctx);

	/* Trusts rel-b only: nothing loads; without a compile it fails, saying why. */
	ctx = node("app2", NULL, NULL, pb, 0, ROCJIT_OPEN_NO_COMPILE, bundle);
	ASSERT(try_variant(ctx, 1, &c) != 0);
	st = rj_test_stats(ctx);
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

	rj_node_keygen("rel-a", ska, pa);
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
	ASSERT(rj_test_stats(ctx).signature_rejects >= 1);
	rocjit_close(ctx);
	/* Allowed to compile: compiled here, the bundle's code never loaded. */
	ctx = node("app2", NULL, NULL, pa, 0, 0, bundle);
	ASSERT_INT(try_variant(ctx, 1, &c), 0);
	ASSERT_INT(c->from_cache, 0);
	ASSERT_INT(rj_test_stats(ctx).compiles, 1);
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

	rj_node_keygen("local", ska, pa);
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
	st = rj_test_stats(ctx);
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
	st = rj_test_stats(ctx);
	ASSERT_INT(st.signature_rejects, 0);
	ASSERT_INT(st.signatures_checked, 1);
	rocjit_close(ctx);
}

/* ---- Signatures in the read index ------------------------------------------------------------- */

/* What a new process of node n is to find (set before the fork): trusting trusted, under
 * ROCJIT_REQUIRE_SIGNED_ALL, never compiling, it asks for variant arg, which the read
 * index holds; loaded: it loads (else refused for its signature); database: its
 * connection was opened (the database judged the signature). */
static struct {
	const char *trusted;
	int loaded, database;
} want;

static int index_child(int i)
{
	const rocjit_code *c = NULL;
	rocjit_stats st;
	rocjit_ctx *ctx;
	int rc, database;

	ctx = node("n", NULL, NULL, want.trusted, ROCJIT_REQUIRE_SIGNED_ALL,
		   ROCJIT_OPEN_NO_COMPILE, NULL);
	RJ_CHILD_CHECK(ctx->cache && ctx->cache->index && !ctx->cache->db);
	rc = try_variant(ctx, i, &c);
	database = ctx->cache->db != NULL; /* before the counters: they read the totals there */
	st = rj_test_stats(ctx);
	RJ_CHILD_CHECK(st.signatures_checked == 1);
	RJ_CHILD_CHECK(st.index_hits == (want.loaded ? 1u : 0u));
	RJ_CHILD_CHECK(st.signature_rejects == (want.loaded ? 0u : 1u));
	RJ_CHILD_CHECK(want.loaded ? rc == 0 && c->from_cache : rc == ROCJIT_ENOTCACHED);
	RJ_CHILD_CHECK(database == want.database);
	rocjit_close(ctx);
	return 0;
}

/* Variant i in a new process trusting trusted: loaded or refused, the database opened or
 * not, as said. */
static void in_new_process(int i, const char *trusted, int loaded, int database)
{
	want.trusted = trusted;
	want.loaded = loaded;
	want.database = database;
	ASSERT_INT(rj_test_in_child(index_child, i), 0);
}

/* A new process of node n whose request for variant i misses (opening the database). */
static int miss_child(int i)
{
	const rocjit_code *c = NULL;
	rocjit_ctx *ctx = node("n", NULL, NULL, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);

	RJ_CHILD_CHECK(ctx->cache && !ctx->cache->db);
	RJ_CHILD_CHECK(try_variant(ctx, i, &c) == ROCJIT_ENOTCACHED);
	RJ_CHILD_CHECK(ctx->cache->db != NULL);
	rocjit_close(ctx);
	return 0;
}

static const char *index_path(void)
{
	static char path[4400];

	snprintf(path, sizeof path, "%s/n/%s", rj_test_dir, RJ_INDEX_FILE);
	return path;
}

TEST(require_all_loads_a_signed_entry_from_the_index_without_opening_the_database)
{
	char ska[4400], pa[256], skb[4400], pb[256], key2[33], *old;
	const char *keys[1] = { key2 };
	size_t old_size, n = 0;
	rocjit_ctx *ctx;

	rj_node_keygen("a", ska, pa);
	rj_node_keygen("b", skb, pb);
	/* Variant 1 signed by a, variant 2 unsigned; the close writes the index. */
	ctx = node("n", NULL, ska, NULL, 0, 0, NULL);
	variant(ctx, 1);
	rocjit_close(ctx);
	ctx = node("n", NULL, NULL, NULL, 0, 0, NULL);
	snprintf(key2, sizeof key2, "%s", variant(ctx, 2)->key);
	rocjit_close(ctx);
	ASSERT(access(index_path(), F_OK) == 0);
	/* Trusting a: loaded on the index's copy of the signature, no database; twice. */
	in_new_process(1, pa, 1, 0);
	in_new_process(1, pa, 1, 0);
	/* Trusting b only: not loaded, on the database's word. */
	in_new_process(1, pb, 0, 1);
	/* Unsigned: refused, on the database's word. */
	in_new_process(2, pa, 0, 1);
	/* The refusals left the index as it was: a signed hit still needs no database. */
	in_new_process(1, pa, 1, 0);

	/* Variant 2 signed by a after the index was written, the index left holding it
	   unsigned (rocjit sign, then its old index put back): the database judges, and loads
	   it; the index is then written anew with its signature, which the next process
	   loads it on. */
	old = rj_test_read_file(index_path(), &old_size);
	ctx = node("n", NULL, ska, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(rocjit_cache_sign(ctx, keys, 1, &n), 0);
	ASSERT_INT(n, 1);
	rocjit_close(ctx);
	rj_test_write_file(index_path(), old, old_size);
	in_new_process(2, pa, 1, 1);
	in_new_process(2, pa, 1, 0);
	free(old);
}

TEST(require_all_judges_an_entry_signed_again_after_its_index_was_written_by_the_database)
{
	char ska[4400], pa[256], skb[4400], pb[256], skc[4400], pc[256];
	char *old;
	size_t old_size, n = 0;
	rocjit_ctx *ctx;

	rj_node_keygen("a", ska, pa);
	rj_node_keygen("b", skb, pb);
	rj_node_keygen("c", skc, pc);
	ctx = node("n", NULL, ska, NULL, 0, 0, NULL);
	variant(ctx, 1);
	variant(ctx, 2);
	rocjit_close(ctx);
	old = rj_test_read_file(index_path(), &old_size); /* holds a's signatures */
	in_new_process(1, pa, 1, 0);

	/* rocjit sign with b removes the index in its transaction, and its close writes it
	   anew: a's signature, though a is trusted, no longer loads the entry. */
	ctx = node("n", NULL, skb, NULL, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(rocjit_cache_sign(ctx, NULL, 0, &n), 0);
	ASSERT_INT(n, 2);
	ASSERT(access(index_path(), F_OK) != 0);
	rocjit_close(ctx);
	in_new_process(1, pa, 0, 1);
	in_new_process(1, pb, 1, 0); /* b's signature, from the index written anew */

	/* The index as a program that re-signs without knowing it leaves it: still holding
	   a's signatures.  Trusting b: a's is not trusted, so the database judges, and
	   loads it (b's); trusting c, it refuses. */
	rj_test_write_file(index_path(), old, old_size);
	in_new_process(1, pb, 1, 1);
	rj_test_write_file(index_path(), old, old_size);
	in_new_process(1, pc, 0, 1);
	/* Once a process opens the database (here at a miss), the change of signature,
	   counted with the deletions, drops that stale index, and the index written anew
	   holds b's: trusting a, variant 1 is refused. */
	rj_test_write_file(index_path(), old, old_size);
	ASSERT_INT(rj_test_in_child(miss_child, 3), 0);
	in_new_process(1, pa, 0, 1);
	in_new_process(1, pb, 1, 0);
	free(old);
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
	st = rj_test_stats(ctx);
	ASSERT_INT(st.require_signed, ROCJIT_REQUIRE_SIGNED_SHARED);
	ASSERT_INT(st.trusted_keys, 0);
	rocjit_close(ctx);
	unsetenv("ROCJIT_TRUSTED_KEYS");
}
