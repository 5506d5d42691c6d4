/*
 * test_signed_fields.c - a signature covers every field that decides what runs (issue 27,
 * class 1): the kernels column with its name expressions' lowered names, the compile time
 * and the descriptive texts, besides the key, target, compiler and code.  The attack:
 * in an entry signed over one code object holding both scale<float> and clear<float>,
 * the expression "scale<float>" is made to lower to clear's symbol.  The code, key and
 * checksums stay sound, so only the signature can tell; each tier must refuse it: a
 * remote value, a bundle entry (lookup and import), the local row under
 * ROCJIT_REQUIRE_SIGNED=all (and rocjit show/verify report it bad), the read index's copy.
 *
 * Real hipRTC compiles for gfx90a, real SQLite files, a real redis-server, real keys.
 */
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "remote_nodes.h"
#include "remote/record.h"
#include "store/cache_index_internal.h"

#define TARGET "gfx90a"

/* Two instantiations whose mangled names have one length: a lowered name swapped in
 * place keeps every offset (the read index's entry among them). */
static const char source[] =
	"template <typename T> __global__ void scale(T *y) { y[0] = y[0] * (T)2; }\n"
	"template <typename T> __global__ void clear(T *y) { y[0] = (T)0; }\n";
static const char *const exprs[] = { "scale<float>", "clear<float>" };
#define SCALE "_Z5scaleIfEvPT_"
#define CLEAR "_Z5clearIfEvPT_"
/* The line the attack edits, before and after. */
#define LINE_TRUE "scale<float>\t" SCALE
#define LINE_EDITED "scale<float>\t" CLEAR

static struct rj_redis_server server;
static char url[128];

/* Compiles (or loads) the program: 0 and *c, or the error. */
static int get_program(rocjit_ctx *ctx, const rocjit_code **c)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;

	p.source = source;
	p.name = "scale.hip";
	p.name_expressions = exprs;
	p.num_name_expressions = 2;
	return rocjit_compile(c, ctx, TARGET, &p);
}

/* The name "scale<float>" lowers to in c. */
static const char *scale_of(const rocjit_code *c)
{
	const char *lowered = NULL;

	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "scale<float>"), 0);
	return lowered;
}

/* Runs sql on the SQLite file path (asserting success). */
static void sql_on(const char *path, const char *sql)
{
	sqlite3 *db;
	char *err = NULL;

	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		rj_test_fail(__FILE__, __LINE__, "%s: %s", sql, err ? err : "?");
	ASSERT_INT(sqlite3_changes(db) >= 1, 1);
	sqlite3_close(db);
}

/* The SQL that makes "scale<float>" lower to clear's symbol in every entry. */
#define EDIT_KERNELS "UPDATE entries SET kernels = replace(kernels, 'scale<float>' || " \
	"char(9) || '" SCALE "', 'scale<float>' || char(9) || '" CLEAR "')"

/* A node that trusts trusted, may not compile, loads nothing: the request fails and one
 * entry was refused for its signature. */
static void refused_without_compiling(const char *name, const char *remote,
				      const char *trusted, int require, const char *bundles)
{
	const rocjit_code *c = NULL;
	rocjit_ctx *ctx = rj_node_open_signing(name, remote, NULL, trusted, require,
				    ROCJIT_OPEN_NO_COMPILE, bundles);
	rocjit_stats st;

	ASSERT(get_program(ctx, &c) != 0);
	st = rj_test_stats(ctx);
	ASSERT(st.signature_rejects >= 1);
	ASSERT_INT(st.compiles, 0);
	rocjit_close(ctx);
}

/* ---- The remote tier --------------------------------------------------------------------- */


/* rec encoded again, its signature kept, and planted under key. */
static void plant_record(const char *key, const struct rj_record *rec)
{
	char name[128];
	void *out;
	size_t size;

	ASSERT_INT(rj_record_encode(&out, &size, rec), 0);
	rj_node_value_key(name, sizeof name, key);
	rj_node_plant(url, name, out, size);
	free(out);
}

TEST(remote_value_with_edited_name_mapping_compile_time_or_texts_is_refused)
{
	char sk[4400], pk[256], key[33], *column, *at;
	const rocjit_code *c;
	struct rj_record rec, edited;
	rocjit_ctx *ctx;
	size_t size;
	void *v;

	rj_node_keygen("producer", sk, pk);
	rj_node_start_server(&server, url, sizeof url);
	ctx = rj_node_open_signing("producer", url, sk, NULL, 0, 0, NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	ASSERT_STR(scale_of(c), SCALE);
	snprintf(key, sizeof key, "%s", c->key);
	rocjit_close(ctx);

	/* The value as signed serves a consumer that trusts the key (the control). */
	ctx = rj_node_open_signing("control", url, NULL, pk, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	ASSERT_STR(scale_of(c), SCALE);
	rocjit_close(ctx);

	v = rj_node_signed_value(url, key, "producer", &rec, &size);
	/* The name mapping: scale<float> lowers to clear's symbol, same code object. */
	column = malloc(rec.kernels_len + 1);
	memcpy(column, rec.kernels, rec.kernels_len);
	column[rec.kernels_len] = 0;
	ASSERT((at = strstr(column, LINE_TRUE)) != NULL);
	memcpy(at, LINE_EDITED, strlen(LINE_EDITED));
	edited = rec;
	edited.kernels = column;
	plant_record(key, &edited);
	refused_without_compiling("consumer1", url, pk, 0, NULL);
	/* Allowed to compile: compiled here, and scale<float> is scale. */
	ctx = rj_node_open_signing("consumer2", url, NULL, pk, 0, 0, NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	ASSERT_INT(c->from_cache, 0);
	ASSERT_STR(scale_of(c), SCALE);
	rocjit_close(ctx);

	/* The compile time (it feeds the saved-time counters). */
	edited = rec;
	edited.compile_ms = rec.compile_ms + 1000;
	plant_record(key, &edited);
	refused_without_compiling("consumer3", url, pk, 0, NULL);
	/* A descriptive text: the source name `rocjit show` displays. */
	edited = rec;
	edited.source_name = "trusted-by-security-review.hip";
	edited.source_name_len = strlen(edited.source_name);
	plant_record(key, &edited);
	refused_without_compiling("consumer4", url, pk, 0, NULL);
	free(column);
	free(v);
	rj_redis_stop(&server);
}

/* ---- Bundles ----------------------------------------------------------------------------- */

/* Exports the program's entry, signed with key sk, into rj_test_dir/<file> (path). */
static void export_signed(const char *sk, const char *file, char path[4400])
{
	const rocjit_code *c;
	const char *keys[1];
	rocjit_ctx *ctx = rj_node_open_signing("build", NULL, sk, NULL, 0, 0, NULL);
	size_t n = 0;

	ASSERT_INT(get_program(ctx, &c), 0);
	keys[0] = c->key;
	snprintf(path, 4400, "%s/%s", rj_test_dir, file);
	ASSERT_INT(rocjit_bundle_export(ctx, path, keys, 1, &n), 0);
	ASSERT_INT(n, 1);
	rocjit_close(ctx);
}

/* A node trusting pk imports bundle: nothing copied, one entry rejected. */
static void import_rejected(const char *name, const char *pk, const char *bundle)
{
	rocjit_ctx *ctx = rj_node_open_signing(name, NULL, NULL, pk, 0, 0, NULL);
	size_t copied = 9, rejected = 9;

	ASSERT(rocjit_bundle_import_v2(ctx, bundle, &copied, &rejected, NULL, NULL) != 0);
	ASSERT_INT(copied, 0);
	ASSERT_INT(rejected, 1);
	rocjit_close(ctx);
}

TEST(bundle_entry_with_edited_name_mapping_or_compile_time_is_refused)
{
	char sk[4400], pk[256], a[4400], b[4400], ok[4400];
	const rocjit_code *c;
	rocjit_ctx *ctx;

	rj_node_keygen("release", sk, pk);
	export_signed(sk, "ok.rocjit", ok);
	export_signed(sk, "names.rocjit", a);
	export_signed(sk, "time.rocjit", b);
	sql_on(a, EDIT_KERNELS);
	sql_on(b, "UPDATE entries SET compile_ms = compile_ms + 1000");

	/* The control: the bundle as signed serves. */
	ctx = rj_node_open_signing("app0", NULL, NULL, pk, 0, ROCJIT_OPEN_NO_COMPILE, ok);
	ASSERT_INT(get_program(ctx, &c), 0);
	ASSERT_STR(scale_of(c), SCALE);
	rocjit_close(ctx);

	refused_without_compiling("app1", NULL, pk, 0, a);
	refused_without_compiling("app2", NULL, pk, 0, b);
	import_rejected("imp1", pk, a);
	import_rejected("imp2", pk, b);
}

/* ---- The local cache and what show and verify say ------------------------------------------ */

static int find_signature(const rocjit_entry *e, const void *code, size_t size, void *user)
{
	(void)code;
	(void)size;
	*(int *)user = e->signature;
	return 0;
}

struct verdicts {
	int reason, signature;
	char message[512];
};

static void each_verdict(const rocjit_entry *e, int reason, const char *message, void *user)
{
	struct verdicts *v = user;

	v->reason = reason;
	v->signature = e->signature;
	snprintf(v->message, sizeof v->message, "%s", message);
}

/* What show (rocjit_cache_find) and verify say of node n's one entry, trusting pk. */
static void verdict(const char *pk, const char *key, int want_signature, int want_reason)
{
	rocjit_ctx *ctx = rj_node_open_signing("n", NULL, NULL, pk, 0, ROCJIT_OPEN_NO_COMPILE, NULL);
	struct verdicts v = { -1, -1, "" };
	uint64_t checked = 0, bad = 0;
	int shown = -1;

	ASSERT_INT(rocjit_cache_find(ctx, key, find_signature, &shown), 0);
	ASSERT_INT(shown, want_signature);
	ASSERT_INT(rocjit_cache_verify_each(ctx, 0, each_verdict, &v, &checked, &bad), 0);
	ASSERT_INT(checked, 1);
	ASSERT_INT(v.signature, want_signature);
	ASSERT_INT(v.reason, want_reason);
	ASSERT_INT(bad, want_reason ? 1 : 0);
	rocjit_close(ctx);
}

/* node n's database and read index paths. */
static void paths(char db[4400], char index[4400])
{
	snprintf(db, 4400, "%s/n/rocjit-cache.sqlite", rj_test_dir);
	snprintf(index, 4400, "%s/n/%s", rj_test_dir, RJ_INDEX_FILE);
}

TEST(local_row_with_edited_kernels_compile_time_or_options_is_refused_and_reported_bad)
{
	static const struct {
		const char *edit, *undo;
	} edits[] = {
		{ EDIT_KERNELS, "UPDATE entries SET kernels = replace(kernels, 'scale<float>' || "
				"char(9) || '" CLEAR "', 'scale<float>' || char(9) || '" SCALE "')" },
		{ "UPDATE entries SET compile_ms = compile_ms * 4",
		  "UPDATE entries SET compile_ms = compile_ms / 4" },
		{ "UPDATE entries SET options = options || ' -DREVIEWED'",
		  "UPDATE entries SET options = substr(options, 1, length(options) - 11)" },
		{ "UPDATE entries SET source_name = 'reviewed.hip'",
		  "UPDATE entries SET source_name = 'scale.hip'" },
	};
	char sk[4400], pk[256], key[33], db[4400], index[4400];
	const rocjit_code *c;
	rocjit_ctx *ctx;

	rj_node_keygen("local", sk, pk);
	paths(db, index);
	ctx = rj_node_open_signing("n", NULL, sk, NULL, 0, 0, NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	snprintf(key, sizeof key, "%s", c->key);
	rocjit_close(ctx);
	verdict(pk, key, ROCJIT_SIGNATURE_TRUSTED, 0);
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		/* The row edited with the sqlite3 shell; the index (which holds the row as it
		   was, signed) removed, so that the row is what is served. */
		sql_on(db, edits[i].edit);
		unlink(index);
		refused_without_compiling("n", NULL, pk, ROCJIT_REQUIRE_SIGNED_ALL, NULL);
		verdict(pk, key, ROCJIT_SIGNATURE_BAD, ROCJIT_VERIFY_SIGNATURE);
		sql_on(db, edits[i].undo);
		unlink(index);
		verdict(pk, key, ROCJIT_SIGNATURE_TRUSTED, 0);
	}
	/* As signed, it loads under the rule, and scale<float> is scale. */
	ctx = rj_node_open_signing("n", NULL, NULL, pk, ROCJIT_REQUIRE_SIGNED_ALL, ROCJIT_OPEN_NO_COMPILE,
			NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	ASSERT_STR(scale_of(c), SCALE);
	rocjit_close(ctx);
}

/* ---- The read index's copy -------------------------------------------------------------- */

/* Edits the index file at path in place: "scale<float>" lowers to clear's symbol in the
 * entry's kernels column, and the entry's meta checksum is made again, as someone who may
 * write the file can. */
static void edit_index(const char *path)
{
	size_t size;
	char *file = rj_test_read_file(path, &size), *at;
	struct index_entry *e = NULL;
	size_t off;

	at = memmem(file, size, LINE_TRUE, strlen(LINE_TRUE));
	ASSERT(at != NULL);
	memcpy(at, LINE_EDITED, strlen(LINE_EDITED));
	/* The entry whose kernels column holds it: entries lie at multiples of 8, the column
	   right after one. */
	for (off = (size_t)(at - file) & ~(size_t)7; off >= sizeof *e; off -= 8) {
		struct index_entry *cand = (struct index_entry *)(file + off - sizeof *e);
		if (cand->kernels_len && off + cand->kernels_len <= size &&
		    at < file + off + cand->kernels_len && file[off + cand->kernels_len - 1] == 0 &&
		    memchr(file + off, 0, cand->kernels_len) == file + off + cand->kernels_len - 1) {
			e = cand;
			break;
		}
	}
	ASSERT(e != NULL);
	ASSERT(e->signer_len > 0);
	e->meta_sum = rj_index_entry_sum(e, (const char *)(e + 1),
					 (const unsigned char *)(e + 1) + e->kernels_len);
	rj_test_write_file(path, file, size);
	free(file);
}

TEST(read_index_copy_with_edited_name_mapping_is_refused)
{
	char sk[4400], pk[256], db[4400], index[4400];
	const rocjit_code *c;
	rocjit_ctx *ctx;
	rocjit_stats st;

	rj_node_keygen("local", sk, pk);
	paths(db, index);
	ctx = rj_node_open_signing("n", NULL, sk, NULL, 0, 0, NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	rocjit_close(ctx);
	ASSERT(access(index, F_OK) == 0);
	/* The control: served by the index, on its copy of the signature. */
	ctx = rj_node_open_signing("n", NULL, NULL, pk, ROCJIT_REQUIRE_SIGNED_ALL, ROCJIT_OPEN_NO_COMPILE,
			NULL);
	ASSERT_INT(get_program(ctx, &c), 0);
	ASSERT_STR(scale_of(c), SCALE);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.index_hits, 1);
	rocjit_close(ctx);

	edit_index(index);
	/* The index serves the edited column with a sound meta checksum; the signature,
	   checked over it (from the index's copy, then the database's row), refuses it. */
	refused_without_compiling("n", NULL, pk, ROCJIT_REQUIRE_SIGNED_ALL, NULL);
}
