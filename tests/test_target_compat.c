/*
 * test_target_compat.c - a cache prewarmed for a processor ("rocjit prewarm --arch gfx90a")
 * serves a device that reports its full target id ("gfx90a:sramecc+:xnack-") from every
 * tier - the database, its read index, the remote tier, a bundle - with compiling
 * forbidden; an entry that specifies a feature never serves another setting of it nor the
 * plain processor; and an entry served for another id is still checked as signed for the
 * id it was built for.  The rule itself is test_key.c's (rj_target_compatible).
 *
 * Real processes throughout: the rocjit tool prewarms (real hipRTC compiles), the
 * application is tests/probe.c posing as the device with --target, in a fresh process
 * with ROCJIT_NO_COMPILE=1; the remote tier is a real redis-server (tests/redis_server.c).
 */
#include <stdarg.h>
#include <unistd.h>

#include "harness.h"
#include "remote_nodes.h"

#define MAX_ARGS 24

static const char axpy[] = ROCJIT_TEST_KERNELS "/axpy.hip";

/* Runs `rocjit --cache <cache> [--remote url] args...` (NULL-terminated), asserting exit 0. */
static void rocjit_ok(const char *cache, const char *url, ...)
{
	const char *argv[MAX_ARGS];
	char *out = NULL;
	va_list ap;
	int n = 0, rc;

	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = cache;
	if (url) {
		argv[n++] = "--remote";
		argv[n++] = url;
	}
	va_start(ap, url);
	while (n < MAX_ARGS - 1 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	rc = rj_test_run(argv, NULL, &out);
	printf("$ rocjit %s ...\n%s(exit %d)\n", argv[url ? 5 : 3], out ? out : "", rc);
	ASSERT_INT(rc, 0);
	free(out);
}

/* How the application is served: its cache, and its other environment entries. */
struct app {
	const char *cache;
	const char *env[4];     /* "K=V", NULL-terminated; ROCJIT_NO_COMPILE=1 is added */
	int arch_env;           /* the target in ROCJIT_ARCH, not the request's --target */
};

/* The application asks for axpy.hip for target, compiling forbidden: its exit status;
 * its output line in *out (malloc'ed). */
static int app_run(const struct app *a, const char *target, char **out)
{
	const char *env[7] = { "ROCJIT_NO_COMPILE=1" };
	const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", a->cache, "--file", axpy,
			       "--target", target, NULL };
	char arch[128];
	size_t n = 1;
	int rc;

	for (size_t i = 0; i < 4 && a->env[i]; i++)
		env[n++] = a->env[i];
	if (a->arch_env) {
		/* Posing as the device through the environment: no --target. */
		snprintf(arch, sizeof arch, "ROCJIT_ARCH=%s", target);
		env[n++] = arch;
		argv[5] = NULL;
	}
	env[n] = NULL;
	rc = rj_test_run(argv, env, out);
	printf("$ ROCJIT_NO_COMPILE=1 probe --target %s\n%s(exit %d)\n", target, *out, rc);
	return rc;
}

/* target is served without compiling, by code built for built_for; what: the counter
 * ("index_hits=1", "remote_hits=1", ...) that says which tier served it. */
static void served_key(const struct app *a, const char *target, const char *built_for,
		       const char *what, char key[33])
{
	char *out = NULL, want[128];
	const char *k;

	ASSERT_INT(app_run(a, target, &out), 0);
	ASSERT_CONTAINS(out, "from_cache=1");
	ASSERT_CONTAINS(out, "compiles=0");
	snprintf(want, sizeof want, "target=%s ", built_for);
	ASSERT_CONTAINS(out, want);
	ASSERT_CONTAINS(out, what);
	ASSERT((k = strstr(out, " key=")) != NULL);
	snprintf(key, 33, "%.32s", k + 5);
	free(out);
}

static void served(const struct app *a, const char *target, const char *built_for,
		   const char *what)
{
	char key[33];

	served_key(a, target, built_for, what, key);
}

/* target is not served: no compatible entry, and compiling is forbidden. */
static void refused(const struct app *a, const char *target)
{
	char *out = NULL;

	ASSERT_INT(app_run(a, target, &out), 1);
	ASSERT_CONTAINS(out, "not in the cache");
	free(out);
}

/* The full ids of a gfx90a a fleet may report, each served by a gfx90a entry. */
static const char *const gfx90a_ids[] = { "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-:xnack+",
					  "gfx90a:xnack-", "gfx90a:sramecc+", "gfx90a" };
#define NIDS (sizeof gfx90a_ids / sizeof gfx90a_ids[0])

/* ---- The on-disk cache: its database, its read index ----------------------------------------- */

TEST(prewarm_for_a_processor_serves_its_full_ids_from_the_database_without_compiling)
{
	struct app a = { .cache = rj_test_cache_dir,
			 .env = { "ROCJIT_CACHE_INDEX_SIZE=0", NULL } };
	char index[4400];

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to prewarm for gfx90a");
	rocjit_ok(rj_test_cache_dir, NULL, "prewarm", "--arch", "gfx90a", "--no-progress", axpy,
		  NULL);
	/* The database alone: no index read (and none written by the application). */
	snprintf(index, sizeof index, "%s/rocjit-cache.index", rj_test_cache_dir);
	unlink(index);
	for (size_t i = 0; i < NIDS; i++)
		served(&a, gfx90a_ids[i], "gfx90a", "index_hits=0");
	/* The same, the device's id in ROCJIT_ARCH (as a node without a GPU poses as one). */
	a.arch_env = 1;
	served(&a, "gfx90a:sramecc+:xnack-", "gfx90a", "index_hits=0");
	refused(&a, "gfx908:xnack-");
	a.arch_env = 0;
	ASSERT(access(index, F_OK) != 0);
	/* Another processor is not served by it. */
	refused(&a, "gfx908:xnack-");
}

TEST(prewarm_for_a_processor_serves_its_full_ids_from_the_read_index)
{
	struct app a = { .cache = rj_test_cache_dir, .env = { NULL } };
	char entry[33], key[33];

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to prewarm for gfx90a");
	rocjit_ok(rj_test_cache_dir, NULL, "prewarm", "--arch", "gfx90a", "--no-progress", axpy,
		  NULL);
	/* The first process may find the index not yet written (the database answers and
	   its close writes one); from then on the index serves every full id. */
	served_key(&a, "gfx90a", "gfx90a", "disk_hits=1", entry);
	for (size_t i = 0; i < NIDS; i++) {
		/* The code says what it is: the gfx90a entry, its key; and the index served
		   it with no database opened for the more specific ids it lacks (a new
		   process's first request paid that open, 0.4-0.8 ms, before). */
		served_key(&a, gfx90a_ids[i], "gfx90a", "index_hits=1", key);
		ASSERT_STR(key, entry);
		served(&a, gfx90a_ids[i], "gfx90a", "databases_open=0");
	}
	served(&a, "gfx90a", "gfx90a", "databases_open=0");
	refused(&a, "gfx908:xnack-");
}

/*
 * Prewarm and export take what the application is served: a full id the processor's
 * entry serves is already cached (nothing compiled), and exporting for it writes that
 * entry, which then serves the full id from the bundle alone.
 */
TEST(prewarm_and_export_for_a_full_id_take_the_processor_entry_that_serves_it)
{
	char bundle[4400], bundle_env[4500], fresh[4400], *out = NULL;
	struct app a = { .cache = fresh, .env = { bundle_env, NULL } };
	const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "prewarm",
			       "--arch", "gfx90a:sramecc+:xnack-", "--no-progress", axpy, NULL };

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to prewarm for gfx90a");
	rocjit_ok(rj_test_cache_dir, NULL, "prewarm", "--arch", "gfx90a", "--no-progress", axpy,
		  NULL);
	ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
	printf("%s", out);
	ASSERT_CONTAINS(out, "0 compiled, 0 stored, 1 already cached");
	free(out);
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	rocjit_ok(rj_test_cache_dir, NULL, "export", "-o", bundle, "--arch",
		  "gfx90a:sramecc+:xnack-", axpy, NULL);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	served(&a, "gfx90a:sramecc+:xnack-", "gfx90a", "disk_hits=1");
}

/* ---- The remote tier ------------------------------------------------------------------------ */

TEST(remote_tier_prewarmed_for_a_processor_serves_a_node_reporting_its_full_id)
{
	struct rj_redis_server server;
	char url[4400], fresh[4400], remote_env[4500];
	struct app a = { .cache = fresh, .env = { remote_env, NULL } };

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to prewarm for gfx90a");
	rj_node_start_server(&server, url, sizeof url);
	snprintf(remote_env, sizeof remote_env, "ROCJIT_REMOTE=%s", url);
	rocjit_ok(rj_test_cache_dir, url, "prewarm", "--arch", "gfx90a", "--no-progress",
		  "--push", axpy, NULL);
	/* A node with an empty cache: the remote tier's gfx90a value serves its full id. */
	snprintf(fresh, sizeof fresh, "%s/node-b", rj_test_dir);
	served(&a, "gfx90a:sramecc+:xnack-", "gfx90a", "remote_hits=1");
	/* Kept in its cache under the gfx90a entry: its next process (and another full id
	   of the same processor) is served from the disk, without asking the tier. */
	served(&a, "gfx90a:sramecc+:xnack-", "gfx90a", "remote_hits=0");
	served(&a, "gfx90a:sramecc-:xnack+", "gfx90a", "disk_hits=1");
	/* Each other full id, from the tier alone (a fresh cache each). */
	for (size_t i = 0; i < NIDS; i++) {
		snprintf(fresh, sizeof fresh, "%s/node-c%zu", rj_test_dir, i);
		served(&a, gfx90a_ids[i], "gfx90a", "remote_hits=1");
	}
	snprintf(fresh, sizeof fresh, "%s/node-d", rj_test_dir);
	refused(&a, "gfx908:xnack-");
	rj_redis_stop(&server);
}

/* ---- Bundles -------------------------------------------------------------------------------- */

TEST(bundle_exported_for_a_processor_serves_its_full_id_without_compiling)
{
	char bundle[4400], bundle_env[4500], fresh[4400];
	struct app a = { .cache = fresh, .env = { bundle_env, NULL } };

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to export for gfx90a");
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	rocjit_ok(rj_test_cache_dir, NULL, "export", "-o", bundle, "--arch", "gfx90a", axpy,
		  NULL);
	for (size_t i = 0; i < NIDS; i++) {
		snprintf(fresh, sizeof fresh, "%s/fresh%zu", rj_test_dir, i);
		served(&a, gfx90a_ids[i], "gfx90a", "disk_hits=1");
	}
	refused(&a, "gfx908:xnack-");
}

/* ---- Never the reverse ---------------------------------------------------------------------- */

/*
 * Entries made for gfx90a:xnack+ (prewarmed, pushed, exported): a device with xnack on
 * is served from each tier; one with xnack off, and one asking for the plain processor
 * (whose code must run with either setting), are not, from any tier.
 */
TEST(entry_for_a_feature_serves_neither_the_other_setting_nor_the_plain_id_in_any_tier)
{
	struct rj_redis_server server;
	char url[4400], remote_env[4500], bundle[4400], bundle_env[4500], fresh[4400];
	struct app db = { .cache = rj_test_cache_dir,
			  .env = { "ROCJIT_CACHE_INDEX_SIZE=0", NULL } };
	struct app ix = { .cache = rj_test_cache_dir, .env = { NULL } };
	struct app remote = { .cache = fresh, .env = { remote_env, NULL } };
	struct app bundled = { .cache = fresh, .env = { bundle_env, NULL } };
	const struct app *tiers[] = { &db, &ix, &remote, &bundled };
	static const char *const not_served[] = { "gfx90a:xnack-", "gfx90a",
						  "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-" };

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to prewarm for gfx90a:xnack+");
	rj_node_start_server(&server, url, sizeof url);
	snprintf(remote_env, sizeof remote_env, "ROCJIT_REMOTE=%s", url);
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	rocjit_ok(rj_test_cache_dir, url, "prewarm", "--arch", "gfx90a:xnack+", "--no-progress",
		  "--push", axpy, NULL);
	rocjit_ok(rj_test_cache_dir, NULL, "export", "-o", bundle, "--arch", "gfx90a:xnack+",
		  axpy, NULL);
	for (size_t t = 0; t < 4; t++) {
		snprintf(fresh, sizeof fresh, "%s/fresh%zu", rj_test_dir, t);
		for (size_t i = 0; i < sizeof not_served / sizeof not_served[0]; i++)
			refused(tiers[t], not_served[i]);
		/* The control: the same entry serves the setting it was made for. */
		snprintf(fresh, sizeof fresh, "%s/fresh-ok%zu", rj_test_dir, t);
		served(tiers[t], "gfx90a:sramecc+:xnack+", "gfx90a:xnack+", "from_cache=1");
	}
	rj_redis_stop(&server);
}

/* ---- Signatures ----------------------------------------------------------------------------- */

/*
 * Node name (the tier at url, or none: its own cache), trusting the key trusted under the
 * rule require, asks for variant 1 for gfx90a:sramecc+:xnack- with compiling forbidden:
 * served by the gfx90a entry with its signature checked once (ok), else refused for its
 * signature with nothing loaded.
 */
static void ask_signed(const char *name, const char *url, const char *trusted, int require,
		       int ok)
{
	rocjit_ctx *ctx = rj_node_open_signing(name, url, NULL, trusted, require,
					       ROCJIT_OPEN_NO_COMPILE, NULL);
	const rocjit_code *c;
	int rc = rj_test_try_variant(&c, ctx, "gfx90a:sramecc+:xnack-", "RJ_COMPAT", 1);
	rocjit_stats st = rj_test_stats(ctx);

	if (ok) {
		ASSERT_INT(rc, 0);
		ASSERT_STR(c->target, "gfx90a");
		ASSERT_INT(url ? st.remote_hits : st.disk_hits, 1);
		ASSERT_INT(st.signatures_checked, 1);
		ASSERT_INT(st.signature_rejects, 0);
	} else {
		ASSERT_INT(rc, ROCJIT_ENOTCACHED);
		ASSERT_INT(st.remote_hits + st.disk_hits, 0);
		ASSERT(st.signature_rejects >= 1);
	}
	rocjit_close(ctx);
}

/*
 * An entry served for another id is checked as what it is: signed for the id it was
 * built for.  Node "a" signs what it compiles for gfx90a (pushed to the tier, and kept in
 * its cache); a node trusting a's key, asking for gfx90a:sramecc+:xnack- with compiling
 * forbidden, is served from the tier and from a's cache under ROCJIT_REQUIRE_SIGNED=all,
 * each signature checked; a node trusting another key is refused by both.
 */
TEST(entry_served_for_a_full_id_is_checked_as_signed_for_the_id_it_was_built_for)
{
	struct rj_redis_server server;
	char url[4400], ska[4400], pa[256], skb[4400], pb[256];
	rocjit_ctx *ctx;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC, to compile for gfx90a");
	rj_node_start_server(&server, url, sizeof url);
	rj_node_keygen("a", ska, pa);
	rj_node_keygen("b", skb, pb);
	ctx = rj_node_open_signing("a", url, ska, NULL, 0, 0, NULL);
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_COMPAT", 1)->from_cache, 0);
	rocjit_close(ctx);
	/* The tier's value, trusted; then by a node trusting another key. */
	ask_signed("b", url, pa, 0, 1);
	ask_signed("c", url, pb, 0, 0);
	/* a's own cache under ROCJIT_REQUIRE_SIGNED=all (no tier): trusted, then not. */
	ask_signed("a", NULL, pa, ROCJIT_REQUIRE_SIGNED_ALL, 1);
	ask_signed("a", NULL, pb, ROCJIT_REQUIRE_SIGNED_ALL, 0);
	rj_redis_stop(&server);
}
