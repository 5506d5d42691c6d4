/*
 * test_cli.c - the rocjit command-line tool, run as a real process against a real cache in
 * the test's folder: every command, its --json output (parsed by python3 -m json.tool),
 * its error paths (bad arguments exit 2 with a usage line), and the prewarm contract:
 * after `rocjit prewarm`, the application finds every key with compiling forbidden.
 *
 * Set-up that is not under test (filling a cache, damaging it) uses the library and
 * SQLite directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define MAX_ARGS 64

/* argv for the tool: the binary, --cache <test cache>, then args (NULL-terminated). */
static void argv_of(const char *argv[MAX_ARGS], const char *const *args)
{
	int n = 0;

	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = rj_test_cache_dir;
	for (; *args && n < MAX_ARGS - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
}

static void build_argv(const char *argv[MAX_ARGS], va_list ap)
{
	const char *args[MAX_ARGS];
	int n = 0;

	while ((args[n] = va_arg(ap, const char *)) && n < MAX_ARGS - 1)
		n++;
	args[n] = NULL;
	argv_of(argv, args);
}

static void echo_command(const char *const argv[], const char *output)
{
	printf("$ rocjit");
	for (int i = 3; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n%s", output ? output : "");
	fflush(stdout);
}

/* Runs the tool with extra environment entries; stdout+stderr into *out (may be NULL). */
static int cli_env(const char *const env[], char **out, ...)
{
	const char *argv[MAX_ARGS];
	char *output = NULL;
	va_list ap;
	int rc;

	va_start(ap, out);
	build_argv(argv, ap);
	va_end(ap);
	rc = rj_test_run(argv, env, &output);
	echo_command(argv, output);
	printf("(exit %d)\n", rc);
	if (out)
		*out = output;
	else
		free(output);
	return rc;
}

#define cli(out, ...) cli_env(NULL, out, __VA_ARGS__)

/*
 * Runs the tool with stdout alone into a file, asserts its exit status, and checks with
 * python3 -m json.tool that the file is JSON.  Returns the JSON text.
 */
static char *cli_json(int expect, ...)
{
	const char *argv[MAX_ARGS];
	char path[4200], *text;
	const char *check[] = { "/usr/bin/env", "python3", "-m",
			  "json.tool", path, NULL };
	va_list ap;
	pid_t pid;
	int status;

	va_start(ap, expect);
	build_argv(argv, ap);
	va_end(ap);
	snprintf(path, sizeof path, "%s/out.json", rj_test_dir);
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		rj_test_exec(argv, NULL);
	}
	waitpid(pid, &status, 0);
	text = rj_test_read_file(path, NULL);
	echo_command(argv, text);
	ASSERT(WIFEXITED(status));
	ASSERT_INT(WEXITSTATUS(status), expect);
	ASSERT_INT(rj_test_run(check, NULL, NULL), 0);
	return text;
}

/* Runs the data probe (an application embedding tests/data/kernels) or the plain probe. */
static int probe(const char *exe, const char *target, const char *how, const char *what,
		 const char *option, char **out)
{
	const char *env[] = { "ROCJIT_NO_COMPILE=1", NULL };
	const char *argv[] = { exe, "--cache", rj_test_cache_dir, "--target",
			 target, how, what,
			 (option ? "--option" : NULL), option, NULL };
	char *output;
	int rc = rj_test_run(argv, env, &output);

	printf("$ ROCJIT_NO_COMPILE=1 probe %s %s %s %s\n%s(exit %d)\n", target, how, what,
	       option ? option : "", output, rc);
	if (out)
		*out = output;
	else
		free(output);
	return rc;
}

/* Whether NVRTC is installed here: the sm_ parts of the tests run only where it is. */
static int have_nvrtc(void)
{
	const char *id;
	return rocjit_compiler_identity(&id, ROCJIT_PLATFORM_NVIDIA) == 0;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[4300];

	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	rj_test_write_file(path, text, strlen(text));
}

static const char bad_hip[] = "#include <hip/hip_runtime.h>\n"
			      "extern \"C\" __global__ void broken(float *y)\n"
			      "{\n"
			      "    y[0] = undeclared_thing;\n"
			      "}\n";

/* Fills the cache through the library: axpy for gfx90a with n option variants. */
static void fill(int n)
{
	static const char *const variants[] = { "-DRJ_VARIANT=1", "-DRJ_VARIANT=2",
						"-DRJ_VARIANT=3" };
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;

	p.source = rj_test_axpy;
	p.name = "axpy.hip";
	for (int i = 0; i < n; i++) {
		p.options = &variants[i];
		p.num_options = 1;
		ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	}
	rocjit_close(ctx);
}

/* Runs SQL on the test cache's database (to age or damage entries). */
static void sql(const char *statement)
{
	char path[4300];
	sqlite3 *db;

	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_exec(db, statement, NULL, NULL, NULL) != SQLITE_OK)
		rj_test_fail(__FILE__, __LINE__, "%s: %s", statement, sqlite3_errmsg(db));
	sqlite3_close(db);
}

struct keys {
	int n;
	char key[8][33];
	char target[8][64];
	uint64_t bytes;
};

static int add_key(const rocjit_entry *e, void *user)
{
	struct keys *k = user;
	if (k->n < 8) {
		memcpy(k->key[k->n], e->key, 33);
		snprintf(k->target[k->n], sizeof k->target[0], "%s", e->target);
	}
	k->n++;
	k->bytes += e->size;
	return 0;
}

/* The entries now in the cache, in key order (through the library). */
static struct keys cache_keys(void)
{
	struct keys k = { 0 };
	rocjit_ctx *ctx = rj_test_open();

	ASSERT_INT(rocjit_cache_foreach(ctx, add_key, &k), 0);
	rocjit_close(ctx);
	return k;
}

static uint64_t db_bytes(void)
{
	char path[4300];
	struct stat st;
	uint64_t n = 0;

	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	if (stat(path, &st) == 0)
		n += (uint64_t)st.st_size;
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite-wal", rj_test_cache_dir);
	if (stat(path, &st) == 0)
		n += (uint64_t)st.st_size;
	return n;
}

/* ---- Help, version, usage errors -------------------------------------------------------- */

TEST(help_and_version_exit_0_and_do_nothing_else)
{
	static const char *const cmds[] = { "prewarm", "purge", "stats", "list", "ls",
					    "show", "verify", "compile", "targets" };
	char *out, expect[64];

	fill(1);

	ASSERT_INT(cli(&out, "--version", NULL), 0);
	ASSERT_CONTAINS(out, "rocjit " ROCJIT_VERSION_STRING);
	free(out);
	ASSERT_INT(cli(&out, "--help", NULL), 0);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		ASSERT_CONTAINS(out, cmds[i]);
	free(out);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		const char *name = strcmp(cmds[i], "ls") ? cmds[i] : "list";
		snprintf(expect, sizeof expect, "usage: rocjit %s", name);
		ASSERT_INT(cli(&out, cmds[i], "--help", NULL), 0);
		ASSERT_CONTAINS(out, expect);
		free(out);
		ASSERT_INT(cli(&out, "help", cmds[i], NULL), 0);
		ASSERT_CONTAINS(out, expect);
		free(out);
	}
	/* --help wins over everything else on the line: nothing was removed. */
	ASSERT_INT(cli(&out, "purge", "--all", "--help", NULL), 0);
	free(out);
	ASSERT_INT(cache_keys().n, 1);
}

TEST(bad_arguments_exit_2_with_a_usage_line)
{
	static const char *const cases[][8] = {
		{ NULL },
		{ "frobnicate", NULL },
		{ "--frobnicate", "stats", NULL },
		{ "help", "frobnicate", NULL },
		{ "prewarm", "--arch", "gfx90a", NULL },
		{ "prewarm", "--jobs", "0", "--arch", "gfx90a", NULL },
		{ "prewarm", "--arch", "gfx90a:bogus", "--manifest", ROCJIT_TEST_MANIFEST, NULL },
		{ "prewarm", "--arch", "tpu_v5", "--manifest", ROCJIT_TEST_MANIFEST, NULL },
		{ "prewarm", ROCJIT_TEST_MANIFEST, "--arch", NULL },
		{ "purge", NULL },
		{ "purge", "--all", "--arch", "gfx90a", NULL },
		{ "purge", "--older-than", "soon", NULL },
		{ "purge", "--max-size", "lots", NULL },
		{ "purge", "--all", "extra", NULL },
		{ "list", "--sort", "color", NULL },
		{ "list", "--", "-O2", NULL },
		{ "show", NULL },
		{ "show", "xyz1", NULL },
		{ "show", "12", NULL },
		{ "verify", "--fix=yes", NULL },
		{ "stats", "--bogus", NULL },
		{ "compile", NULL },
		{ "compile", "a.hip", "b.hip", NULL },
		{ "compile", "a.hip", "--arch", "gfx90a,gfx1030", "-o", "x.o", NULL },
		{ "targets", "now", NULL },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *argv[MAX_ARGS];
		char *out;
		int rc;

		argv_of(argv, cases[i]);
		rc = rj_test_run(argv, NULL, &out);
		echo_command(argv, out);
		ASSERT_INT(rc, 2);
		ASSERT_CONTAINS(out, "usage: rocjit");
		free(out);
	}
}

/* ---- prewarm ------------------------------------------------------------------------------ */

TEST(prewarm_manifest_then_forbidden_compile_hits_every_key)
{
	static const char *const sources[] = { "scale.hip", "sub/offset.hip" };
	const char *arch = have_nvrtc() ? "gfx90a,sm_90" : "gfx90a";
	const char *targets[] = { "gfx90a", "sm_90" };
	size_t ntargets = have_nvrtc() ? 2 : 1;
	char *out;

	ASSERT_INT(cli(&out, "prewarm", "--manifest", ROCJIT_TEST_MANIFEST, "--arch", arch,
		       "--jobs", "2", NULL), 0);
	ASSERT_CONTAINS(out, ntargets == 2 ? "4 compiled, 4 stored, 0 already cached, 0 failed"
					   : "2 compiled, 2 stored, 0 already cached, 0 failed");
	free(out);
	/* The application itself, with compiling forbidden: every registered kernel hits. */
	for (size_t t = 0; t < ntargets; t++)
		for (size_t s = 0; s < 2; s++) {
			ASSERT_INT(probe(ROCJIT_TEST_PROBE_DATA, targets[t], "--registered",
					 sources[s], NULL, &out), 0);
			ASSERT_CONTAINS(out, "from_cache=1");
			free(out);
		}
	/* The control: a key prewarm did not store is refused, not compiled. */
	ASSERT_INT(probe(ROCJIT_TEST_PROBE_DATA, "gfx90a", "--registered", "scale.hip",
			 "-DOTHER=1", &out), 1);
	ASSERT_CONTAINS(out, "not in the cache");
	free(out);
	/* The folder is read as the same set: everything is already there, nothing compiles. */
	ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_DATA_KERNELS, "--arch", arch, NULL), 0);
	ASSERT_CONTAINS(out, ntargets == 2 ? "0 compiled, 0 stored, 4 already cached"
					   : "0 compiled, 0 stored, 2 already cached");
	free(out);
}

TEST(prewarm_single_file_takes_options_and_ignores_no_compile)
{
	const char *env[] = { "ROCJIT_NO_COMPILE=1", "ROCJIT_ARCH=gfx90a", NULL };
	char *out;

	/* No --arch: $ROCJIT_ARCH.  ROCJIT_NO_COMPILE is for applications, not prewarm. */
	ASSERT_INT(cli_env(env, &out, "prewarm", ROCJIT_TEST_KERNELS "/axpy.hip", "--", "-DN=4",
			   NULL), 0);
	ASSERT_CONTAINS(out, "1 compiled");
	free(out);
	ASSERT_INT(probe(ROCJIT_TEST_PROBE, "gfx90a", "--file", ROCJIT_TEST_KERNELS "/axpy.hip",
			 "-DN=4", &out), 0);
	ASSERT_CONTAINS(out, "from_cache=1");
	free(out);
	/* Other options are another key. */
	ASSERT_INT(probe(ROCJIT_TEST_PROBE, "gfx90a", "--file", ROCJIT_TEST_KERNELS "/axpy.hip",
			 NULL, &out), 1);
	free(out);
}

TEST(prewarm_failure_prints_the_compiler_log_and_exits_1)
{
	char dir[4200], *out, *json;

	snprintf(dir, sizeof dir, "%s/src", rj_test_dir);
	write_text(dir, "bad.hip", bad_hip);
	write_text(dir, "good.hip", rj_test_axpy);
	ASSERT_INT(cli(&out, "prewarm", dir, "--arch", "gfx90a", "-j", "2", NULL), 1);
	ASSERT_CONTAINS(out, "FAILED bad.hip for gfx90a");
	ASSERT_CONTAINS(out, "bad.hip:4:12: error: use of undeclared identifier");
	ASSERT_CONTAINS(out, "1 compiled, 1 stored, 0 already cached, 1 failed");
	free(out);
	/* Again, as JSON: the good one is cached now, the bad one fails again, with its log. */
	json = cli_json(1, "prewarm", dir, "--arch", "gfx90a", "--json", NULL);
	ASSERT_CONTAINS(json, "\"failed\": 1");
	ASSERT_CONTAINS(json, "\"cached\": 1");
	ASSERT_CONTAINS(json, "bad.hip:4:12: error");
	free(json);
}

TEST(prewarm_refuses_unknown_targets_and_bad_inputs)
{
	char path[4200], *out;
	int gpus = 0, n;

	/* A processor the compiler does not know: one clear failure, no crash (comgr would
	   abort on it). */
	ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx940",
		       NULL), 1);
	ASSERT_CONTAINS(out, "FAILED every source for gfx940");
	ASSERT_CONTAINS(out, "cannot compile for \"gfx940\"");
	ASSERT_CONTAINS(out, "rocjit targets");
	free(out);
	/* A feature it does not know: refused by the library's check. */
	ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch",
		       "gfx1030:xnack-", NULL), 1);
	ASSERT_CONTAINS(out, "1 failed");
	free(out);
	ASSERT_INT(cli(&out, "prewarm", "/nonexistent/kernels", "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "check the path");
	free(out);
	snprintf(path, sizeof path, "%s/not-a-manifest", rj_test_dir);
	rj_test_write_file(path, "axpy.hip\n", 9);
	ASSERT_INT(cli(&out, "prewarm", "--manifest", path, "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "not a rocjit kernel manifest");
	free(out);
	rj_test_write_file(path, "# rocjit-manifest 1\ndir=/nonexistent\naxpy.hip\n", 46);
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "rebuild the application");
	free(out);
	/* No --arch, no $ROCJIT_ARCH, no GPU: say what to pass. */
	for (int p = ROCJIT_PLATFORM_AMD; p <= ROCJIT_PLATFORM_NVIDIA; p++)
		if (rocjit_device_count_get(&n, p) == 0)
			gpus += n;
	if (!gpus) {
		ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_KERNELS, NULL), 1);
		ASSERT_CONTAINS(out, "pass --arch");
		free(out);
	}
}

/* ---- compile ------------------------------------------------------------------------------ */

TEST(compile_prints_diagnostics_like_a_compiler)
{
	char dir[4200], bad[4300], good[4300], obj[4300], *out, *json;
	size_t size;

	snprintf(dir, sizeof dir, "%s/src", rj_test_dir);
	write_text(dir, "bad.hip", bad_hip);
	write_text(dir, "good.hip", rj_test_axpy);
	snprintf(bad, sizeof bad, "%s/bad.hip", dir);
	snprintf(good, sizeof good, "%s/good.hip", dir);
	snprintf(obj, sizeof obj, "%s/good.co", rj_test_dir);
	ASSERT_INT(cli(&out, "compile", bad, "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "bad.hip:4:12: error: use of undeclared identifier");
	ASSERT_CONTAINS(out, "did not compile for gfx90a");
	free(out);
	/* --no-cache: compiled and written out, nothing stored. */
	ASSERT_INT(cli(&out, "compile", good, "--arch", "gfx90a", "--no-cache", "-o", obj, NULL),
		   0);
	ASSERT_CONTAINS(out, "1 kernel");
	ASSERT_CONTAINS(out, "  axpy: ");
	ASSERT_CONTAINS(out, " VGPRs, ");
	ASSERT_CONTAINS(out, "not stored");
	free(out);
	free(rj_test_read_file(obj, &size));
	ASSERT(size > 1000);
	ASSERT_INT(cache_keys().n, 0);
	/* Stored, then served from the cache. */
	ASSERT_INT(cli(&out, "compile", good, "--arch", "gfx90a", NULL), 0);
	ASSERT_CONTAINS(out, "stored in the cache");
	free(out);
	ASSERT_INT(cache_keys().n, 1);
	json = cli_json(0, "compile", good, "--arch", "gfx90a", "--json", NULL);
	ASSERT_CONTAINS(json, "\"from_cache\": true");
	ASSERT_CONTAINS(json, "\"axpy\"");
	ASSERT_CONTAINS(json, "\"resources\": [");
	ASSERT_CONTAINS(json, "\"kernel\": \"axpy\"");
	ASSERT_CONTAINS(json, "\"wavefront\": 64");
	free(json);
}

/* ---- list, show ---------------------------------------------------------------------------- */

TEST(list_and_show_describe_the_entries)
{
	char prefix[8], other[8], obj[4300], *out, *json, *code;
	struct keys k;
	size_t size;

	fill(2);
	k = cache_keys();
	ASSERT_INT(k.n, 2);
	ASSERT_INT(cli(&out, "list", NULL), 0);
	ASSERT_CONTAINS(out, "KEY");
	snprintf(prefix, sizeof prefix, "%.6s", k.key[0]);
	ASSERT_CONTAINS(out, prefix);
	ASSERT_CONTAINS(out, "axpy.hip: axpy");
	free(out);
	ASSERT_INT(cli(&out, "ls", "--arch", "gfx1030", NULL), 0);
	ASSERT(strstr(out, "axpy.hip") == NULL);
	free(out);
	json = cli_json(0, "list", "--sort", "size", "--reverse", "--json", NULL);
	ASSERT_CONTAINS(json, k.key[1]);
	free(json);
	/* show: the stored fields and what the object itself says. */
	ASSERT_INT(cli(&out, "show", prefix, NULL), 0);
	ASSERT_CONTAINS(out, k.key[0]);
	ASSERT_CONTAINS(out, "object target: gfx90a");
	ASSERT_CONTAINS(out, "checksum:      ok");
	ASSERT_CONTAINS(out, "-DRJ_VARIANT=");
	ASSERT_CONTAINS(out, "  axpy: ");
	ASSERT_CONTAINS(out, ", wave64\n");
	free(out);
	json = cli_json(0, "show", prefix, "--json", NULL);
	ASSERT_CONTAINS(json, "\"checksum_ok\": true");
	ASSERT_CONTAINS(json, "\"max_threads\": 1024");
	free(json);
	snprintf(obj, sizeof obj, "%s/entry.co", rj_test_dir);
	ASSERT_INT(cli(NULL, "show", prefix, "--extract", obj, NULL), 0);
	code = rj_test_read_file(obj, &size);
	ASSERT(size > 1000 && memcmp(code, "\177ELF", 4) == 0);
	free(code);
	/* A prefix no key has. */
	snprintf(other, sizeof other, "%.4s", k.key[0]);
	for (other[0] = '0'; other[0] == k.key[0][0] || other[0] == k.key[1][0]; other[0]++)
		;
	ASSERT_INT(cli(&out, "show", other, NULL), 1);
	ASSERT_CONTAINS(out, "rocjit list");
	free(out);
}

/* ---- purge ------------------------------------------------------------------------------- */

TEST(purge_all_empties_the_cache_and_shrinks_the_file)
{
	uint64_t before;
	char *out, *json;

	fill(3);
	before = db_bytes();
	ASSERT_INT(cli(&out, "purge", "--all", "--dry-run", NULL), 0);
	ASSERT_CONTAINS(out, "3 of 3 entries");
	ASSERT_CONTAINS(out, "nothing was changed");
	free(out);
	ASSERT_INT(cache_keys().n, 3);
	json = cli_json(0, "purge", "--all", "--json", NULL);
	ASSERT_CONTAINS(json, "\"removed\": 3");
	free(json);
	ASSERT_INT(cache_keys().n, 0);
	printf("database: %llu -> %llu bytes\n", (unsigned long long)before,
	       (unsigned long long)db_bytes());
	ASSERT(db_bytes() < before);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	ASSERT_CONTAINS(out, "0 entries checked, 0 bad");
	free(out);
}

TEST(purge_by_arch_age_and_compiler_version)
{
	char update[512], *out;
	struct keys k;

	fill(3);
	k = cache_keys();
	/* One entry last used 40 days ago; one made by another compiler. */
	snprintf(update, sizeof update,
		 "UPDATE entries SET created = strftime('%%s','now') - 40*86400, "
		 "last_used = strftime('%%s','now') - 40*86400 WHERE lower(hex(key)) = '%s'",
		 k.key[0]);
	sql(update);
	snprintf(update, sizeof update,
		 "UPDATE entries SET compiler = 'hiprtc 8.0; hip 0; comgr 1.0' "
		 "WHERE lower(hex(key)) = '%s'", k.key[1]);
	sql(update);
	ASSERT_INT(cli(&out, "purge", "--arch", "gfx1030", NULL), 0);
	ASSERT_CONTAINS(out, "removed 0 of 3");
	free(out);
	ASSERT_INT(cli(&out, "list", "--older-than", "30d", NULL), 0);
	snprintf(update, sizeof update, "\n%.12s ", k.key[0]);
	ASSERT_CONTAINS(out, update);
	snprintf(update, sizeof update, "\n%.12s ", k.key[2]);
	ASSERT(strstr(out, update) == NULL);
	free(out);
	ASSERT_INT(cli(&out, "purge", "--older-than", "30d", "--arch", "gfx90a", "-v", NULL), 0);
	ASSERT_CONTAINS(out, "removed 1 of 3");
	free(out);
	ASSERT_INT(cli(&out, "purge", "--compiler-version-other-than-current", "--dry-run",
		       NULL), 0);
	ASSERT_CONTAINS(out, "1 of 2 entries");
	free(out);
	ASSERT_INT(cli(&out, "purge", "--compiler-version-other-than-current", NULL), 0);
	ASSERT_CONTAINS(out, "removed 1 of 2");
	free(out);
	k = cache_keys();
	ASSERT_INT(k.n, 1);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	free(out);
}

TEST(purge_max_size_evicts_least_recently_used_first)
{
	char update[512], *out;
	struct keys k;

	fill(3);
	k = cache_keys();
	/* Used 3, 2 and 1 hours ago, in key order. */
	for (int i = 0; i < 3; i++) {
		snprintf(update, sizeof update,
			 "UPDATE entries SET last_used = strftime('%%s','now') - %d "
			 "WHERE lower(hex(key)) = '%s'", (3 - i) * 3600, k.key[i]);
		sql(update);
	}
	/* One byte too many: the least recently used goes, the others stay. */
	snprintf(update, sizeof update, "%llu", (unsigned long long)k.bytes - 1);
	ASSERT_INT(cli(&out, "purge", "--max-size", update, NULL), 0);
	ASSERT_CONTAINS(out, "removed 1 of 3");
	free(out);
	k = cache_keys();
	ASSERT_INT(k.n, 2);
	ASSERT_INT(cli(&out, "purge", "--max-size", "1G", NULL), 0);
	ASSERT_CONTAINS(out, "removed 0 of 2");
	free(out);
	ASSERT_INT(cli(&out, "purge", "--max-size", "0", NULL), 0);
	ASSERT_CONTAINS(out, "removed 2 of 2");
	free(out);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	free(out);
}

/* ---- verify ------------------------------------------------------------------------------- */

TEST(verify_finds_damage_and_fix_drops_it)
{
	char update[512], prefix[32], *out, *json;
	struct keys k;

	fill(3);
	k = cache_keys();
	/* A flipped code object, and an object stored under another target. */
	snprintf(update, sizeof update,
		 "UPDATE entries SET code = zeroblob(size) WHERE lower(hex(key)) = '%s'",
		 k.key[0]);
	sql(update);
	snprintf(update, sizeof update,
		 "UPDATE entries SET target = 'gfx1030' WHERE lower(hex(key)) = '%s'", k.key[1]);
	sql(update);
	ASSERT_INT(cli(&out, "verify", NULL), 1);
	snprintf(prefix, sizeof prefix, "bad %.12s", k.key[0]);
	ASSERT_CONTAINS(out, prefix);
	ASSERT_CONTAINS(out, "checksum");
	ASSERT_CONTAINS(out, "3 entries checked, 2 bad");
	ASSERT_CONTAINS(out, "verify --fix");
	free(out);
	json = cli_json(1, "verify", "--json", NULL);
	ASSERT_CONTAINS(json, "\"bad\": 2");
	ASSERT_CONTAINS(json, "\"reason\": \"object\"");
	free(json);
	ASSERT_INT(cli(&out, "show", k.key[0], NULL), 1);
	ASSERT_CONTAINS(out, "BAD");
	free(out);
	ASSERT_INT(cli(&out, "verify", "--fix", NULL), 1);
	ASSERT_CONTAINS(out, "removed");
	free(out);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	ASSERT_CONTAINS(out, "1 entry checked, 0 bad");
	free(out);
}

/* ---- stats, targets, the cache itself ----------------------------------------------------- */

TEST(stats_counts_hits_and_zero_resets_them)
{
	char *out, *json;

	ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx90a",
		       NULL), 0);
	free(out);
	/* An application's disk hit, in another process. */
	ASSERT_INT(probe(ROCJIT_TEST_PROBE, "gfx90a", "--file", ROCJIT_TEST_KERNELS "/axpy.hip",
			 NULL, NULL), 0);
	ASSERT_INT(cli(&out, "stats", NULL), 0);
	ASSERT_CONTAINS(out, "entries:        1");
	ASSERT_CONTAINS(out, "disk hits:    1");
	ASSERT_CONTAINS(out, "misses:       1");
	ASSERT_CONTAINS(out, "compiles:     1");
	ASSERT_CONTAINS(out, "hit ratio:    50.0 %");
	ASSERT_CONTAINS(out, "gfx90a");
	ASSERT_CONTAINS(out, "hiprtc");
	ASSERT_CONTAINS(out, rj_test_cache_dir);
	free(out);
	json = cli_json(0, "stats", "--json", NULL);
	ASSERT_CONTAINS(json, "\"disk_hits\": 1");
	free(json);
	ASSERT_INT(cli(&out, "stats", "--zero", NULL), 0);
	free(out);
	ASSERT_INT(cli(&out, "stats", NULL), 0);
	ASSERT_CONTAINS(out, "disk hits:    0");
	ASSERT_CONTAINS(out, "entries:        1");
	free(out);
}

TEST(targets_lists_compilers_and_gpus)
{
	char *out, *json;

	ASSERT_INT(cli(&out, "targets", NULL), 0);
	ASSERT_CONTAINS(out, "amd");
	ASSERT_CONTAINS(out, "gfx90a");
	ASSERT_CONTAINS(out, "GPUs:");
	free(out);
	json = cli_json(0, "targets", "--json", NULL);
	ASSERT_CONTAINS(json, "\"platform\": \"nvidia\"");
	free(json);
}

TEST(an_unusable_cache_says_what_to_do)
{
	const char *env[] = { "ROCJIT_DISABLE_CACHE=1", NULL };
	char file[4200], path[4300];
	const char *argv[] = { ROCJIT_TEST_CLI, "--cache", path, "list", NULL };
	char *out;

	/* A file where the folder should be. */
	snprintf(file, sizeof file, "%s/file", rj_test_dir);
	rj_test_write_file(file, "x", 1);
	snprintf(path, sizeof path, "%s/cache", file);
	ASSERT_INT(rj_test_run(argv, NULL, &out), 1);
	printf("%s", out);
	ASSERT_CONTAINS(out, "--cache DIR");
	free(out);
	ASSERT_INT(cli_env(env, &out, "stats", NULL), 1);
	ASSERT_CONTAINS(out, "unset ROCJIT_DISABLE_CACHE");
	free(out);
}

/*
 * The distribution path: `rocjit export` of an application's manifest, then the
 * application on a machine with an empty cache and no compiler at all (hipRTC made
 * unloadable, NVRTC too): every registered kernel comes from the bundle.
 */
TEST(export_manifest_then_application_without_compiler_runs_from_the_bundle)
{
	static const char *const sources[] = { "scale.hip", "sub/offset.hip" };
	char bundle[4300], bundle_env[4400], fresh[4300];
	char *out;

	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	ASSERT_INT(cli(&out, "export", "-o", bundle, "--manifest", ROCJIT_TEST_MANIFEST, "--arch",
		       "gfx90a", NULL), 0);
	ASSERT_CONTAINS(out, "2 entries written");
	free(out);
	/* A second export to the same file is refused, the file kept. */
	ASSERT_INT(cli(&out, "export", "-o", bundle, "--manifest", ROCJIT_TEST_MANIFEST, "--arch",
		       "gfx90a", NULL), 2);
	free(out);
	/* list and verify read the bundle itself. */
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", bundle,
				 "verify", NULL };
		ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
		ASSERT_CONTAINS(out, "2 entries checked, 0 bad");
		free(out);
	}
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	snprintf(fresh, sizeof fresh, "%s/elsewhere", rj_test_dir);
	for (size_t s = 0; s < 2; s++) {
		const char *env[] = { "ROCJIT_HIP_LIBRARY=/nonexistent/libamdhip64.so",
				"ROCJIT_NVRTC_LIBRARY=/nonexistent/libnvrtc.so", bundle_env,
				NULL };
		const char *argv[] = { ROCJIT_TEST_PROBE_DATA, "--cache", fresh,
				 "--target", "gfx90a", "--registered",
				 sources[s], NULL };
		int rc = rj_test_run(argv, env, &out);
		printf("%s", out);
		ASSERT_INT(rc, 0);
		ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
		free(out);
	}
	/* import copies it into a user cache. */
	ASSERT_INT(cli(&out, "import", bundle, NULL), 0);
	free(out);
}

/* ---- What was stored, and nothing else (issue 11, class 3) -------------------------------- */

/* The number before " stored" in a prewarm summary ("prewarm: 4 compiled, 1 stored, ..."). */
static long summary_stored(const char *out)
{
	const char *p = strstr(out, "prewarm: ");
	const char *q = p ? strstr(p, " stored") : NULL;

	ASSERT(p && q);
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	return strtol(q, NULL, 10);
}

/* A cache whose every write fails, as on a full disk: SQLite's own error, raised by a
 * trigger (the test runs as root, so permissions cannot make a disk read-only here). */
static void make_writes_fail(void)
{
	fill(1); /* the database exists, with one entry */
	sql("CREATE TRIGGER disk_full BEFORE INSERT ON entries "
	    "BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END");
}

TEST(prewarm_counts_only_what_the_cache_kept_under_a_tiny_size_limit)
{
	const char *env[] = { "ROCJIT_CACHE_MAXSIZE=1K", NULL };
	const char *env12[] = { "ROCJIT_CACHE_MAXSIZE=12K", NULL };
	char *out, *json;

	/* Every object is larger than the limit: nothing is stored, and it says so. */
	ASSERT_INT(cli_env(env, &out, "prewarm", ROCJIT_TEST_DATA_KERNELS, "--arch",
			   "gfx90a,gfx1030", "--no-progress", NULL), 1);
	ASSERT_CONTAINS(out, "prewarm: 4 compiled, 0 stored, 0 already cached, 0 failed");
	ASSERT_CONTAINS(out, "NOT STORED scale.hip for gfx90a");
	ASSERT_CONTAINS(out, "larger than the cache's size limit");
	ASSERT_CONTAINS(out, "raise ROCJIT_CACHE_MAXSIZE");
	ASSERT_CONTAINS(out, "4 compiled code objects are not in the cache");
	free(out);
	ASSERT_INT(cache_keys().n, 0);
	/* Room for about three: each store succeeds, later ones evict earlier ones.  The
	   summary counts what the cache holds at the end. */
	ASSERT_INT(cli_env(env12, &out, "prewarm", ROCJIT_TEST_DATA_KERNELS, "--arch",
			   "gfx90a,gfx1030,gfx906", "--no-progress", NULL), 1);
	ASSERT_CONTAINS(out, "prewarm: 6 compiled, ");
	ASSERT_CONTAINS(out, "NOT STORED");
	ASSERT_INT(summary_stored(out), cache_keys().n);
	ASSERT(cache_keys().n < 6);
	free(out);
	/* --json carries the same truth. */
	setenv("ROCJIT_CACHE_MAXSIZE", "1K", 1);
	json = cli_json(1, "prewarm", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx90a",
			"--json", NULL);
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	ASSERT_CONTAINS(json, "\"compiled\": 1");
	ASSERT_CONTAINS(json, "\"stored\": 0");
	ASSERT_CONTAINS(json, "\"not_stored\": 1");
	ASSERT_CONTAINS(json, "\"ok\": false");
	ASSERT_CONTAINS(json, "\"status\": \"not_stored\"");
	ASSERT_CONTAINS(json, "\"store_error\": ");
	free(json);
}

TEST(prewarm_and_compile_report_a_failed_write_and_exit_1)
{
	char *out, *json;

	make_writes_fail();
	ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_DATA_KERNELS, "--arch", "gfx90a",
		       "--no-progress", NULL), 1);
	ASSERT_CONTAINS(out, "prewarm: 2 compiled, 0 stored, 0 already cached, 0 failed");
	ASSERT_CONTAINS(out, "database or disk is full");
	ASSERT_CONTAINS(out, "make room or make the cache writable");
	free(out);
	ASSERT_INT(cache_keys().n, 1);
	/* compile: never "stored in the cache" on faith. */
	ASSERT_INT(cli(&out, "compile", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx1030",
		       NULL), 1);
	ASSERT_CONTAINS(out, "NOT stored in the cache");
	ASSERT(!strstr(out, ", stored in the cache"));
	ASSERT_CONTAINS(out, "database or disk is full");
	ASSERT_CONTAINS(out, "--no-cache");
	free(out);
	json = cli_json(1, "compile", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx906",
			"--json", NULL);
	ASSERT_CONTAINS(json, "\"stored\": false");
	ASSERT_CONTAINS(json, "database or disk is full");
	free(json);
	ASSERT_INT(cache_keys().n, 1);
	/* What the library says, for every client: store_failures and the reason. */
	{
		rocjit_ctx *ctx = rj_test_open();
		rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
		rj_test_compile_variant(ctx, "gfx90a", "RJ_FULL", 1);
		ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
		ASSERT_INT(st.stores, 0);
		ASSERT_INT(st.store_failures, 1);
		ASSERT_CONTAINS(st.store_error, "database or disk is full");
		rocjit_close(ctx);
	}
}

TEST(prewarm_and_compile_into_a_read_only_cache_file_say_nothing_was_stored)
{
	char db[4100], *out;

	fill(1);
	snprintf(db, sizeof db, "%.4000s/rocjit-cache.sqlite", rj_test_cache_dir);
	/* A file named as the cache is opened read-only: prewarm stops before compiling. */
	snprintf(rj_test_cache_dir, sizeof rj_test_cache_dir, "%s", db);
	ASSERT_INT(cli(&out, "prewarm", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx1030",
		       NULL), 1);
	ASSERT_CONTAINS(out, "read-only");
	ASSERT(!strstr(out, "prewarm: 1 compiled"));
	free(out);
	ASSERT_INT(cli(&out, "compile", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx1030",
		       NULL), 1);
	ASSERT_CONTAINS(out, "NOT stored in the cache");
	ASSERT_CONTAINS(out, "read-only");
	free(out);
}

TEST(read_only_commands_never_create_a_cache)
{
	static const struct {
		const char *args[6];
		int rc;
		int json;
	} cmds[] = {
		{ { "ls", NULL }, 0, 0 },
		{ { "list", "--json", NULL }, 0, 1 },
		{ { "ls", "--arch", "gfx90a", "--sort", "size" }, 0, 0 },
		{ { "stats", NULL }, 0, 0 },
		{ { "stats", "--json", NULL }, 0, 1 },
		{ { "show", "abcd", NULL }, 1, 0 },
		{ { "show", "abcdef01", "--json", NULL }, 1, 0 },
		{ { "verify", NULL }, 0, 0 },
		{ { "verify", "--json", NULL }, 0, 1 },
		{ { "purge", "--all", "--dry-run", NULL }, 0, 0 },
	};
	char parent[4100];
	struct stat st;

	snprintf(parent, sizeof parent, "%.4000s/none", rj_test_dir);
	snprintf(rj_test_cache_dir, sizeof rj_test_cache_dir, "%s/x", parent);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		const char *const *a = cmds[i].args;
		const char *argv[MAX_ARGS];
		char *out;
		argv_of(argv, a);
		ASSERT_INT(rj_test_run(argv, NULL, &out), cmds[i].rc);
		echo_command(argv, out);
		ASSERT_CONTAINS(out, "no cache at ");
		ASSERT_CONTAINS(out, rj_test_cache_dir);
		free(out);
		if (cmds[i].json)
			free(cli_json(0, a[0], a[1], a[2], NULL)); /* still valid JSON */
		ASSERT(stat(parent, &st) != 0 && errno == ENOENT);
	}
	/* An existing cache is read without being written: same bytes, same time. */
	snprintf(rj_test_cache_dir, sizeof rj_test_cache_dir, "%s/cache", rj_test_dir);
	fill(1);
	{
		char db[4300], *before, *after, *out;
		size_t nb, na;
		snprintf(db, sizeof db, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
		before = rj_test_read_file(db, &nb);
		chmod(rj_test_cache_dir, 0500);
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
			const char *argv[MAX_ARGS];
			argv_of(argv, cmds[i].args);
			rj_test_run(argv, NULL, &out);
			ASSERT(!strstr(out, "no cache at"));
			free(out);
		}
		chmod(rj_test_cache_dir, 0700);
		after = rj_test_read_file(db, &na);
		ASSERT(nb == na && memcmp(before, after, nb) == 0);
		free(before);
		free(after);
	}
}

/* Runs the tool with stdout on /dev/full; its exit status, stderr into *err. */
static int cli_to_dev_full(char **err, const char *const *args)
{
	const char *argv[MAX_ARGS];
	char path[4200];
	pid_t pid;
	int status;

	argv_of(argv, args);
	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	pid = fork();
	if (pid == 0) {
		int out = open("/dev/full", O_WRONLY);
		int e = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(out, 1);
		dup2(e, 2);
		rj_test_exec(argv, NULL);
	}
	waitpid(pid, &status, 0);
	*err = rj_test_read_file(path, NULL);
	echo_command(argv, *err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(a_write_error_on_standard_output_exits_1)
{
	static const char *const cmds[][4] = {
		{ "ls", NULL },	{ "ls", "--json", NULL }, { "stats", NULL },
		{ "stats", "--json", NULL }, { "show", "KEY", NULL }, { "show", "KEY", "--json", NULL },
		{ "verify", NULL }, { "targets", NULL }, { "targets", "--json", NULL },
		{ "--help", NULL }, { "--version", NULL }, { "help", "prewarm", NULL },
		{ "purge", "--all", "--dry-run", NULL },
	};
	struct keys k;
	char *err;

	if (access("/dev/full", W_OK) != 0) {
		printf("SKIP: no /dev/full\n");
		exit(77);
	}
	fill(1);
	k = cache_keys();
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		const char *a[4];
		for (int n = 0; n < 4; n++)
			a[n] = cmds[i][n] && !strcmp(cmds[i][n], "KEY") ? k.key[0] : cmds[i][n];
		ASSERT_INT(cli_to_dev_full(&err, a), 1);
		ASSERT_CONTAINS(err, "cannot write the output");
		free(err);
	}
	ASSERT_INT(cache_keys().n, 1); /* and nothing else happened */
}

/* ---- Issue 13 tooling: .cu files, headers by name, code objects without kernels ---------- */

static const char tmpl_only[] = "template <unsigned B> __global__ void tk(float *y) { y[0] = B; }\n";

static void write_cuda_folder(char *dir, size_t size)
{
	snprintf(dir, size, "%s/cudadev", rj_test_dir);
	write_text(dir, "k.cu", "#include \"common.cuh\"\n#include <mylimits>\n"
		   "extern \"C\" __global__ void kcu(int *x) { x[0] = TWICE(MY_MAX); }\n");
	write_text(dir, "common.cuh", "#pragma once\n#define TWICE(x) ((x) * 2)\n");
	write_text(dir, "mylimits", "#pragma once\n#define MY_MAX 7\n");
	write_text(dir, "tmpl.hip", tmpl_only);
}

TEST(prewarm_takes_cu_files_extensionless_headers_and_warns_of_empty_objects)
{
	char dir[4200], *out, *json;

	write_cuda_folder(dir, sizeof dir);
	/* Without --header, mylimits is not read: k.cu fails to compile. */
	ASSERT_INT(cli(&out, "prewarm", dir, "--arch", "gfx90a", "--no-progress", NULL), 1);
	ASSERT_CONTAINS(out, "mylimits");
	free(out);
	ASSERT_INT(cli(&out, "prewarm", dir, "--header", "mylimits", "--arch", "gfx90a",
		       "--no-progress", NULL), 0);
	/* tmpl.hip includes no header: mylimits joining the folder leaves its key alone. */
	ASSERT_CONTAINS(out, "1 compiled, 1 stored, 1 already cached, 0 failed");
	ASSERT_CONTAINS(out, "warning: tmpl.hip (gfx90a): the code object holds 0 kernels");
	ASSERT_CONTAINS(out, "templates that were never instantiated");
	ASSERT(!strstr(out, "warning: k.cu"));
	free(out);
	/* Cached now; the JSON says 0 kernels and carries the warning. */
	json = cli_json(0, "prewarm", dir, "--header", "mylimits", "--arch", "gfx90a",
			"--json", NULL);
	ASSERT_CONTAINS(json, "\"cached\": 2");
	ASSERT_CONTAINS(json, "\"num_kernels\": 0");
	ASSERT_CONTAINS(json, "\"warnings\": [");
	ASSERT_CONTAINS(json, "templates that were never instantiated");
	ASSERT_CONTAINS(json, "\"kcu\"");
	free(json);
	/* A missing --header file is named. */
	ASSERT_INT(cli(&out, "prewarm", dir, "--header", "nosuch", "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "nosuch");
	free(out);
}

TEST(compile_warns_of_a_code_object_without_kernels_in_text_and_json)
{
	char path[4300], *out, *json;

	snprintf(path, sizeof path, "%s/tmpl.hip", rj_test_dir);
	rj_test_write_file(path, tmpl_only, sizeof tmpl_only - 1);
	ASSERT_INT(cli(&out, "compile", path, "--arch", "gfx90a", NULL), 0);
	ASSERT_CONTAINS(out, "0 kernels");
	ASSERT_CONTAINS(out, "warning: ");
	ASSERT_CONTAINS(out, "add name expressions");
	free(out);
	json = cli_json(0, "compile", path, "--arch", "gfx90a", "--json", NULL);
	ASSERT_CONTAINS(json, "\"num_kernels\": 0");
	ASSERT_CONTAINS(json, "\"warnings\": [");
	ASSERT_CONTAINS(json, "\"the code object holds 0 kernels");
	free(json);
	/* A file with kernels has an empty warnings array. */
	json = cli_json(0, "compile", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx90a",
			"--json", NULL);
	ASSERT_CONTAINS(json, "\"warnings\": []");
	free(json);
}

/* The value of the first "key" in a JSON text (32 hex digits), copied into out. */
static void json_key(char out[33], const char *json)
{
	const char *k = strstr(json, "\"key\": \"");

	ASSERT(k != NULL);
	memcpy(out, k + 8, 32);
	out[32] = 0;
}

TEST(compile_and_prewarm_take_the_language_by_name_or_lang)
{
	char dir[4200], cu[4300], key_hip[33], key_cuda[33], key[33], *json, *out;

	json = cli_json(0, "compile", ROCJIT_TEST_KERNELS "/axpy.hip", "--arch", "gfx90a",
			"--json", NULL);
	ASSERT_CONTAINS(json, "\"language\": \"hip\"");
	json_key(key_hip, json);
	free(json);
	json = cli_json(0, "compile", ROCJIT_TEST_KERNELS "/axpy.hip", "--lang", "cuda",
			"--arch", "gfx90a", "--json", NULL);
	ASSERT_CONTAINS(json, "\"language\": \"cuda\"");
	json_key(key_cuda, json);
	free(json);
	ASSERT(strcmp(key_hip, key_cuda) != 0);
	/* The same text named *.cu is CUDA by its name: the --lang cuda key. */
	snprintf(cu, sizeof cu, "%s/axpy.cu", rj_test_dir);
	{
		size_t n;
		char *text = rj_test_read_file(ROCJIT_TEST_KERNELS "/axpy.hip", &n);
		rj_test_write_file(cu, text, n);
		free(text);
	}
	json = cli_json(0, "compile", cu, "--arch", "gfx90a", "--json", NULL);
	json_key(key, json);
	ASSERT_STR(key, key_cuda);
	free(json);
	json = cli_json(0, "compile", cu, "--lang", "hip", "--arch", "gfx90a", "--json", NULL);
	json_key(key, json);
	ASSERT_STR(key, key_hip);
	free(json);
	ASSERT_INT(cli(&out, "compile", cu, "--lang", "fortran", "--arch", "gfx90a", NULL), 2);
	ASSERT_CONTAINS(out, "give cuda or hip");
	free(out);
	/* prewarm: by name, then --lang hip for every source moves only the .cu file's key. */
	write_cuda_folder(dir, sizeof dir);
	ASSERT_INT(cli(&out, "prewarm", dir, "--header", "mylimits", "--arch", "gfx90a",
		       "--no-progress", NULL), 0);
	ASSERT_CONTAINS(out, "2 compiled, 2 stored, 0 already cached");
	free(out);
	ASSERT_INT(cli(&out, "prewarm", dir, "--header", "mylimits", "--lang", "hip", "--arch",
		       "gfx90a", "--no-progress", NULL), 0);
	ASSERT_CONTAINS(out, "1 compiled, 1 stored, 1 already cached");
	free(out);
	ASSERT_INT(cli(&out, "prewarm", dir, "--lang", "x", "--arch", "gfx90a", NULL), 2);
	free(out);
}

TEST(compile_name_expr_prints_lowered_names_and_a_new_process_hits)
{
	static const char src[] =
		"template <typename T, int N> __global__ void scale(T *y) { y[0] = (T)N; }\n"
		"namespace ns { template <typename T> __global__ void k(T *y) { y[0] = 1; } }\n"
		"template <unsigned B> __global__ void mm(float *y) { y[0] = B; }\n";
	char path[4300], key[33], *out, *json;

	snprintf(path, sizeof path, "%s/tmpl.hip", rj_test_dir);
	rj_test_write_file(path, src, sizeof src - 1);
	ASSERT_INT(cli(&out, "compile", path, "--arch", "gfx90a", "--name-expr",
		       "scale<float, 4>", "--name-expr", "ns::k<int>", NULL), 0);
	ASSERT_CONTAINS(out, "compiled in");
	ASSERT_CONTAINS(out, "scale<float, 4> -> _Z5scaleIfLi4EEvPT_");
	ASSERT_CONTAINS(out, "ns::k<int> -> _ZN2ns1kIiEEvPT_");
	free(out);
	/* Another process: served from the cache, lowered names included. */
	json = cli_json(0, "compile", path, "--arch", "gfx90a", "--name-expr", "scale<float, 4>",
			"--name-expr", "ns::k<int>", "--json", NULL);
	ASSERT_CONTAINS(json, "\"from_cache\": true");
	ASSERT_CONTAINS(json, "\"lowered_names\": {");
	ASSERT_CONTAINS(json, "\"scale<float, 4>\": \"_Z5scaleIfLi4EEvPT_\"");
	ASSERT_CONTAINS(json, "\"ns::k<int>\": \"_ZN2ns1kIiEEvPT_\"");
	json_key(key, json);
	free(json);
	/* show lists them with the entry; the kernels stay the symbols alone. */
	ASSERT_INT(cli(&out, "show", key, NULL), 0);
	ASSERT_CONTAINS(out, "kernels:       _Z5scaleIfLi4EEvPT_,_ZN2ns1kIiEEvPT_\n");
	ASSERT_CONTAINS(out, "name expr:     scale<float, 4> -> _Z5scaleIfLi4EEvPT_");
	free(out);
	/* What hipRTC's textual lookup misses is lowered all the same. */
	ASSERT_INT(cli(&out, "compile", path, "--arch", "gfx90a", "--name-expr", "mm<16>", NULL),
		   0);
	ASSERT_CONTAINS(out, "mm<16> -> _Z2mmILj16EEvPf");
	free(out);
	/* An expression that names no kernel: the error names it. */
	ASSERT_INT(cli(&out, "compile", path, "--arch", "gfx90a", "--name-expr", "nosuch<int>",
		       NULL), 1);
	ASSERT_CONTAINS(out, "error: ");
	ASSERT_CONTAINS(out, "nosuch");
	ASSERT_CONTAINS(out, "did not compile for gfx90a");
	free(out);
	if (have_nvrtc()) {
		ASSERT_INT(cli(&out, "compile", path, "--arch", "sm_90", "--name-expr", "mm<16>",
			       NULL), 0);
		ASSERT_CONTAINS(out, "mm<16> -> _Z2mmILj16EEvPf");
		free(out);
	}
}

/* The manifest rocjit_add_kernels(... HEADERS mylimits) writes: format 2. */
TEST(prewarm_reads_a_format_2_manifest_with_headers_by_name)
{
	char dir[4200], manifest[4300], text[8192], *out;

	write_cuda_folder(dir, sizeof dir);
	snprintf(manifest, sizeof manifest, "%s/app.rocjit-manifest", rj_test_dir);
	snprintf(text, sizeof text, "# rocjit-manifest 2\ndir=%s\nfile=common.cuh\n"
		 "file=k.cu\nheader=mylimits\n", dir);
	rj_test_write_file(manifest, text, strlen(text));
	ASSERT_INT(cli(&out, "prewarm", "--manifest", manifest, "--arch", "gfx90a",
		       "--no-progress", NULL), 0);
	ASSERT_CONTAINS(out, "1 compiled, 1 stored, 0 already cached, 0 failed");
	free(out);
	/* The folder with --header mylimits is the same set: the same key. */
	ASSERT_INT(cli(&out, "prewarm", dir, "--header", "mylimits", "--arch", "gfx90a",
		       "--no-progress", NULL), 0);
	ASSERT_CONTAINS(out, "1 already cached");
	free(out);
	snprintf(text, sizeof text, "# rocjit-manifest 2\ndir=%s\nk.cu\n", dir);
	rj_test_write_file(manifest, text, strlen(text));
	ASSERT_INT(cli(&out, "prewarm", "--manifest", manifest, "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "expected file=<name> or header=<name>");
	free(out);
}

/* ---- Name expressions in prewarm and its manifest (issue 31) ------------------------------ */

/* Kernel templates: nothing in them is a kernel until instantiated.  LIB_K comes from
 * lib.h in the folder, from a #define in the file alone (solo.hip). */
#define TMPL_BODY                                                                          \
	"template <typename T, int N> __global__ void scale(T *y) { y[0] = (T)(N * LIB_K); }\n" \
	"namespace ns { template <typename T> __global__ void k(T *y) { y[0] = 1; } }\n"       \
	"template <unsigned B> __global__ void mm(float *y) { y[0] = B; }\n"

/* rj_test_dir/solo.hip, the templates alone, into path. */
static void write_template_file(char *path, size_t size)
{
	snprintf(path, size, "%s/solo.hip", rj_test_dir);
	write_text(rj_test_dir, "solo.hip", "#define LIB_K 3\n" TMPL_BODY);
}

/* dir/lib.hip (templates), dir/lib.h, dir/plain.hip (an extern "C" kernel). */
static void write_template_folder(char *dir, size_t size)
{
	snprintf(dir, size, "%s/tlib", rj_test_dir);
	write_text(dir, "lib.hip", "#include \"lib.h\"\n" TMPL_BODY);
	write_text(dir, "lib.h", "#pragma once\n#define LIB_K 3\n");
	write_text(dir, "plain.hip", "extern \"C\" __global__ void plain(int *x) { x[0] = 2; }\n");
}

/* The probe (another process) compiling path with these expressions, compiling forbidden:
 * its summary line. */
static char *probe_file_exprs(const char *path, const char *target, const char *e1,
			      const char *e2)
{
	const char *env[] = { "ROCJIT_NO_COMPILE=1", NULL };
	const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", rj_test_cache_dir, "--target",
			       target, "--file", path, "--name-expr", e1,
			       e2 ? "--name-expr" : NULL, e2, NULL };
	char *out;
	int rc = rj_test_run(argv, env, &out);

	printf("$ ROCJIT_NO_COMPILE=1 probe --file %s --name-expr %s%s%s\n%s(exit %d)\n", path,
	       e1, e2 ? " --name-expr " : "", e2 ? e2 : "", out, rc);
	ASSERT_INT(rc, 0);
	return out;
}

/*
 * A template file compiled whole holds no kernel, and the warning says to give
 * --name-expr; with --name-expr (repeatable, or @FILE) prewarm stores the program an
 * application compiles with those name expressions: another process finds it with
 * compiling forbidden.  For hipRTC (gfx90a, an expression its textual lookup misses too)
 * and NVRTC (sm_90).
 */
TEST(prewarm_name_expr_instantiates_the_templates_of_a_file)
{
	char path[4300], list[4300], *out, *json;

	write_template_file(path, sizeof path);
	/* Whole: 0 kernels, and what to do about it. */
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--no-progress", NULL), 0);
	ASSERT_CONTAINS(out, "the code object holds 0 kernels");
	ASSERT_CONTAINS(out, "--name-expr 'k<float>'");
	free(out);
	json = cli_json(0, "prewarm", path, "--arch", "gfx90a", "--name-expr", "scale<float, 4>",
			"--name-expr", "ns::k<int>", "--json", NULL);
	ASSERT_CONTAINS(json, "\"compiled\": 1");
	ASSERT_CONTAINS(json, "\"name_expressions\": [\n        \"scale<float, 4>\",\n"
			      "        \"ns::k<int>\"\n      ]");
	ASSERT_CONTAINS(json, "\"_Z5scaleIfLi4EEvPT_\"");
	ASSERT_CONTAINS(json, "\"_ZN2ns1kIiEEvPT_\"");
	ASSERT(!strstr(json, "0 kernels"));
	free(json);
	out = probe_file_exprs(path, "gfx90a", "scale<float, 4>", "ns::k<int>");
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
	free(out);
	/* @FILE: the same expressions one a line (a comment, a blank line, CRLF): the same
	   program, already there. */
	snprintf(list, sizeof list, "%s/exprs.txt", rj_test_dir);
	write_text(rj_test_dir, "exprs.txt", "# the app's instantiations\r\nscale<float, 4>\r\n"
		   "\nns::k<int>\n");
	{
		char at[4400];
		snprintf(at, sizeof at, "@%s", list);
		ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--no-progress",
			       "--name-expr", at, NULL), 0);
		ASSERT_CONTAINS(out, "0 compiled, 0 stored, 1 already cached, 0 failed; 1 program");
		free(out);
	}
	/* An expression hipRTC's textual lookup misses (an unsigned parameter): lowered all
	   the same, and served. */
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--no-progress", "--name-expr",
		       "mm<16>", NULL), 0);
	ASSERT_CONTAINS(out, "1 compiled, 1 stored");
	free(out);
	out = probe_file_exprs(path, "gfx90a", "mm<16>", NULL);
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
	free(out);
	if (have_nvrtc()) {
		json = cli_json(0, "prewarm", path, "--arch", "sm_90", "--name-expr", "mm<16>",
				"--name-expr", "scale<double, 2>", "--json", NULL);
		ASSERT_CONTAINS(json, "\"_Z2mmILj16EEvPf\"");
		ASSERT_CONTAINS(json, "\"_Z5scaleIdLi2EEvPT_\"");
		free(json);
		out = probe_file_exprs(path, "sm_90", "mm<16>", "scale<double, 2>");
		ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
		free(out);
	}
}

/* Each kind of bad expression: the message names it and says what to give instead. */
TEST(prewarm_bad_name_expr_names_it_and_says_what_to_do)
{
	char path[4300], empty[4300], at[4400], *out;

	write_template_file(path, sizeof path);
	/* Names nothing, or no instantiation of a template (a missing argument). */
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--no-progress", "--name-expr",
		       "nosuch<int>", NULL), 1);
	ASSERT_CONTAINS(out, "solo.hip 'nosuch<int>' for gfx90a: ");
	ASSERT_CONTAINS(out, "the name expression \"nosuch<int>\" names no kernel of it");
	ASSERT_CONTAINS(out, "give a __global__ function template of");
	free(out);
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--no-progress", "--name-expr",
		       "scale<float, 4>", "--name-expr", "scale<double>", NULL), 1);
	ASSERT_CONTAINS(out, "the name expression \"scale<double>\" names no kernel of it");
	free(out);
	if (have_nvrtc()) {
		ASSERT_INT(cli(&out, "prewarm", path, "--arch", "sm_90", "--no-progress",
			       "--name-expr", "nosuch<int>", NULL), 1);
		ASSERT_CONTAINS(out, "the name expression \"nosuch<int>\" names no kernel of it");
		free(out);
	}
	/* Refused before any compile: usage errors, exit 2. */
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--name-expr", "", NULL), 2);
	ASSERT_CONTAINS(out, "--name-expr needs a value");
	free(out);
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--name-expr", "k<int,\tfloat>",
		       NULL), 2);
	ASSERT_CONTAINS(out, "control character");
	free(out);
	snprintf(at, sizeof at, "%s/x.rocjit", rj_test_dir);
	ASSERT_INT(cli(&out, "export", "-o", at, path, "--arch", "gfx90a",
		       "--name-expr", "@/nonexistent/exprs", NULL), 2);
	ASSERT_CONTAINS(out, "cannot read /nonexistent/exprs");
	free(out);
	snprintf(empty, sizeof empty, "%s/none.txt", rj_test_dir);
	write_text(rj_test_dir, "none.txt", "# nothing yet\n\n");
	snprintf(at, sizeof at, "@%s", empty);
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--name-expr", at, NULL), 2);
	ASSERT_CONTAINS(out, "holds no name expression");
	free(out);
	write_text(rj_test_dir, "none.txt", "# a comment\n\nk<int,\tfloat>\n");
	ASSERT_INT(cli(&out, "prewarm", path, "--arch", "gfx90a", "--name-expr", at, NULL), 2);
	ASSERT_CONTAINS(out, "none.txt: line 3: it holds a control character");
	free(out);
}

/*
 * A manifest of format 3 (rocjit_add_kernels(NAME_EXPRESSIONS)): each expr= line is one
 * program; a source they name is never compiled whole, the others are.  The entries are
 * the ones an application registering these files asks for with those expressions
 * (looked up here through rocjit_compile_registered_v2, compiling forbidden).
 */
TEST(prewarm_manifest_with_name_expressions_compiles_each_program)
{
	static const char *const one[] = { "scale<float, 4>" };
	static const char *const two[] = { "ns::k<int>", "mm<16u>" };
	char dir[4200], manifest[4300], text[8192], *out, *json;
	rocjit_source_file files[3];
	char *texts[3];
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;

	write_template_folder(dir, sizeof dir);
	snprintf(manifest, sizeof manifest, "%s/app.rocjit-manifest", rj_test_dir);
	snprintf(text, sizeof text, "# rocjit-manifest 3\ndir=%s\nfile=lib.h\nfile=lib.hip\n"
		 "file=plain.hip\nexpr=lib.hip\tscale<float, 4>\nexpr=lib.hip\tns::k<int>\t"
		 "mm<16u>\n", dir);
	rj_test_write_file(manifest, text, strlen(text));
	ASSERT_INT(cli(&out, "prewarm", "--manifest", manifest, "--arch", "gfx90a",
		       "--no-progress", NULL), 0);
	ASSERT_CONTAINS(out, "3 compiled, 3 stored, 0 already cached, 0 failed; 3 programs x 1 "
			     "target");
	ASSERT(!strstr(out, "0 kernels"));
	free(out);
	json = cli_json(0, "prewarm", "--manifest", manifest, "--arch", "gfx90a", "--json", NULL);
	ASSERT_CONTAINS(json, "\"cached\": 3");
	ASSERT_CONTAINS(json, "\"name_expressions\": [\n        \"ns::k<int>\",\n"
			      "        \"mm<16u>\"\n      ]");
	ASSERT_CONTAINS(json, "\"plain\"");
	free(json);

	/* An application of these files, in this process: every program is there. */
	for (size_t i = 0; i < 3; i++) {
		static const char *const names[] = { "lib.h", "lib.hip", "plain.hip" };
		char p[4300];
		size_t len;
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		texts[i] = rj_test_read_file(p, &len);
		files[i].name = names[i];
		files[i].text = texts[i];
		files[i].length = len;
	}
	ASSERT_INT(rocjit_register_sources(files, 3), 0);
	o.cache_dir = rj_test_cache_dir;
	o.flags = ROCJIT_OPEN_NO_COMPILE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	{
		rocjit_registered_options ro = ROCJIT_REGISTERED_OPTIONS_INIT;
		const rocjit_code *code;
		ro.name_expressions = one;
		ro.num_name_expressions = 1;
		ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "lib.hip", &ro), 0);
		ro.name_expressions = two;
		ro.num_name_expressions = 2;
		ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "lib.hip", &ro), 0);
		ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "plain.hip", NULL), 0);
		/* lib.hip whole was never stored: the application never asks for it. */
		ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "lib.hip", NULL),
			   ROCJIT_ENOTCACHED);
	}
	rocjit_close(ctx);

	/* Damaged lines, each named with what to do. */
	static const struct { const char *lines, *says; } bad[] = {
		{ "file=lib.hip\nexpr=nosuch.hip\tk<int>\n", "expr=nosuch.hip names no file" },
		{ "file=lib.hip\nfile=lib.h\nexpr=lib.h\tk<int>\n", "names a header" },
		{ "file=lib.hip\nexpr=lib.hip k<int>\n", "a tab after the file name" },
		{ "file=lib.hip\nexpr=lib.hip\tk<int>\t\n", "name expression 2 of lib.hip: it is "
							 "empty" },
		{ "file=lib.hip\nsomething\n", "expected file=<name>, header=<name> or expr=" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, "# rocjit-manifest 3\ndir=%s\n%s", dir, bad[i].lines);
		rj_test_write_file(manifest, text, strlen(text));
		ASSERT_INT(cli(&out, "prewarm", "--manifest", manifest, "--arch", "gfx90a", NULL),
			   1);
		ASSERT_CONTAINS(out, bad[i].says);
		free(out);
	}
	/* expr= lines belong to format 3: an older format rejects them. */
	snprintf(text, sizeof text, "# rocjit-manifest 2\ndir=%s\nfile=lib.hip\n"
		 "expr=lib.hip\tk<int>\n", dir);
	rj_test_write_file(manifest, text, strlen(text));
	ASSERT_INT(cli(&out, "prewarm", "--manifest", manifest, "--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "expected file=<name> or header=<name>");
	free(out);
	for (size_t i = 0; i < 3; i++)
		free(texts[i]);
}

/* ---- Signed code (issue 16) ------------------------------------------------------------------ */

/* rocjit keygen NAME into dir (made when missing): the public line it prints, into pub. */
static void cli_keygen(const char *dir, const char *name, char pub[256])
{
	char *out, *line;

	ASSERT_INT(cli(&out, "keygen", "--dir", dir, name, NULL), 0);
	/* stdout is the line alone (stderr says where the files went) */
	line = strstr(out, "\n");
	for (line = out; line && !(strncmp(line, name, strlen(name)) == 0 &&
				   line[strlen(name)] == ':');)
		line = (line = strchr(line, '\n')) ? line + 1 : NULL;
	ASSERT(line != NULL && strcspn(line, "\n") < 256);
	memcpy(pub, line, strcspn(line, "\n"));
	pub[strcspn(line, "\n")] = 0;
	free(out);
}

TEST(keygen_writes_a_private_secret_and_never_replaces_it)
{
	char dir[4300], path[4400], pub[256], again[256], *out, *text;
	struct stat st;

	snprintf(dir, sizeof dir, "%s/keys", rj_test_dir);
	cli_keygen(dir, "alice-1", pub);
	snprintf(path, sizeof path, "%s/alice-1.secret", dir);
	ASSERT_INT(stat(path, &st), 0);
	ASSERT_INT(st.st_mode & 0777, 0600);
	text = rj_test_read_file(path, NULL);
	ASSERT(strstr(text, "alice-1:") == text);
	ASSERT(strstr(text, pub + 8) == NULL); /* the secret file is not the public key */
	snprintf(path, sizeof path, "%s/alice-1.pub", dir);
	out = rj_test_read_file(path, NULL);
	ASSERT(strncmp(out, pub, strlen(pub)) == 0 && !strcmp(out + strlen(pub), "\n"));
	free(out);
	/* A second keygen of the name fails and leaves both files as they were. */
	ASSERT_INT(cli(&out, "keygen", "--dir", dir, "alice-1", NULL), 1);
	ASSERT_CONTAINS(out, "alice-1.secret");
	free(out);
	snprintf(path, sizeof path, "%s/alice-1.secret", dir);
	out = rj_test_read_file(path, NULL);
	ASSERT_STR(out, text);
	free(out);
	free(text);
	/* Names that could be read as paths or options are refused as usage errors. */
	ASSERT(cli(&out, "keygen", "--dir", dir, "../evil", NULL) != 0);
	ASSERT_CONTAINS(out, "name");
	free(out);
	ASSERT(cli(&out, "keygen", "--dir", dir, ".hidden", NULL) != 0);
	free(out);
	cli_keygen(dir, "bob", again);
	ASSERT(strcmp(pub + 8, again + 4) != 0); /* another key, not the same bytes */
}

/* The signature status of key in `list --json`'s text: its entry's "signature" value. */
static void assert_listed(const char *json, const char *key, const char *signer,
			  const char *status)
{
	const char *e = strstr(json, key), *end;
	char want[160];

	ASSERT(e != NULL);
	end = strstr(e, "}");
	ASSERT(end != NULL);
	snprintf(want, sizeof want, "\"signer\": \"%s\"", signer);
	ASSERT(strstr(e, want) && strstr(e, want) < end);
	snprintf(want, sizeof want, "\"signature\": \"%s\"", status);
	ASSERT(strstr(e, want) && strstr(e, want) < end);
}

TEST(sign_then_show_list_and_verify_report_each_signature)
{
	char dir[4300], secret[4400], pub[256], other[256], trust[520], update[512];
	char *out, *json;
	struct keys k;

	snprintf(dir, sizeof dir, "%s/keys", rj_test_dir);
	cli_keygen(dir, "alice", pub);
	cli_keygen(dir, "mallory", other);
	snprintf(secret, sizeof secret, "%s/alice.secret", dir);
	fill(3);
	k = cache_keys();
	ASSERT_INT(k.n, 3);
	json = cli_json(0, "list", "--json", NULL);
	assert_listed(json, k.key[0], "", "none");
	free(json);

	/* Two of the three signed. */
	ASSERT_INT(cli(&out, "sign", "--key", secret, k.key[0], k.key[1], NULL), 0);
	free(out);
	/* Nothing trusted: the signer is shown, and said to be no key this process trusts. */
	unsetenv("ROCJIT_TRUSTED_KEYS");
	ASSERT_INT(cli(&out, "show", k.key[0], NULL), 0);
	ASSERT_CONTAINS(out, "signature:     untrusted (signed by alice");
	free(out);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	ASSERT_CONTAINS(out, "signatures: 0 trusted, 1 unsigned, 2 by keys not trusted, 0 bad");
	ASSERT_CONTAINS(out, "set ROCJIT_TRUSTED_KEYS");
	free(out);

	/* Trusting alice (and mallory, rotation-style): checked where the code is read. */
	snprintf(trust, sizeof trust, "%s,%s", other, pub);
	setenv("ROCJIT_TRUSTED_KEYS", trust, 1);
	ASSERT_INT(cli(&out, "show", k.key[1], NULL), 0);
	ASSERT_CONTAINS(out, "signature:     trusted (signed by alice, checked)");
	free(out);
	ASSERT_INT(cli(&out, "show", k.key[2], NULL), 0);
	ASSERT_CONTAINS(out, "signature:     none (unsigned)");
	free(out);
	json = cli_json(0, "show", "--json", k.key[0], NULL);
	ASSERT_CONTAINS(json, "\"signature\": \"trusted\"");
	free(json);
	json = cli_json(0, "list", "--json", NULL);
	assert_listed(json, k.key[0], "alice", "unchecked");
	assert_listed(json, k.key[2], "", "none");
	free(json);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	ASSERT_CONTAINS(out, "signatures: 2 trusted, 1 unsigned, 0 by keys not trusted, 0 bad");
	free(out);

	/* Moved under another compiler with the checksum still right: the signature fails. */
	snprintf(update, sizeof update, "UPDATE entries SET compiler = compiler || ' (moved)' "
		 "WHERE lower(hex(key)) = '%s'", k.key[1]);
	sql(update);
	ASSERT_INT(cli(&out, "show", k.key[1], NULL), 0);
	ASSERT_CONTAINS(out, "signature:     BAD (in the name of alice");
	free(out);
	json = cli_json(1, "verify", "--json", NULL);
	ASSERT_CONTAINS(json, "\"reason\": \"signature\"");
	ASSERT_CONTAINS(json, "\"trusted\": 1");
	ASSERT_CONTAINS(json, "\"none\": 1");
	free(json);

	/* Under ROCJIT_REQUIRE_SIGNED=all the unsigned entry is bad too; --fix leaves only
	   the good signed one. */
	setenv("ROCJIT_REQUIRE_SIGNED", "all", 1);
	ASSERT_INT(cli(&out, "verify", NULL), 1);
	ASSERT_CONTAINS(out, "3 entries checked, 2 bad");
	ASSERT_CONTAINS(out, "ROCJIT_REQUIRE_SIGNED=all");
	free(out);
	ASSERT_INT(cli(&out, "verify", "--fix", NULL), 1);
	free(out);
	ASSERT_INT(cli(&out, "verify", NULL), 0);
	ASSERT_CONTAINS(out, "1 entry checked, 0 bad");
	free(out);
	unsetenv("ROCJIT_REQUIRE_SIGNED");
	unsetenv("ROCJIT_TRUSTED_KEYS");
	k = cache_keys();
	ASSERT_INT(k.n, 1);
}

TEST(import_takes_signatures_along_and_admits_only_trusted_signers)
{
	char dir[4300], signing[4400], pub[256], other[256], bundle[4300], plain[4300];
	char other_cache[4300], *out;
	const char *argv[8];

	snprintf(dir, sizeof dir, "%s/keys", rj_test_dir);
	cli_keygen(dir, "vendor", pub);
	cli_keygen(dir, "someone", other);
	/* An unsigned bundle, then a signed one of the same entries (the export signs them
	   with the producer's key, the cached ones too). */
	snprintf(signing, sizeof signing, "ROCJIT_SIGNING_KEY=%s/vendor.secret", dir);
	snprintf(bundle, sizeof bundle, "%s/signed.rocjit", rj_test_dir);
	snprintf(plain, sizeof plain, "%s/plain.rocjit", rj_test_dir);
	ASSERT_INT(cli(&out, "export", "-o", plain, "--manifest", ROCJIT_TEST_MANIFEST, "--arch",
		       "gfx90a", NULL), 0);
	free(out);
	{
		const char *env[] = { signing, NULL };
		ASSERT_INT(cli_env(env, &out, "export", "-o", bundle, "--manifest",
				   ROCJIT_TEST_MANIFEST, "--arch", "gfx90a", NULL), 0);
		ASSERT_CONTAINS(out, "2 already cached");
		free(out);
	}
	snprintf(other_cache, sizeof other_cache, "%s/consumer", rj_test_dir);
	argv[0] = ROCJIT_TEST_CLI;
	argv[1] = "--cache";
	argv[2] = other_cache;
	argv[3] = "import";
	argv[5] = NULL;

	/* A consumer trusting another key refuses every entry of both, saying why. */
	setenv("ROCJIT_TRUSTED_KEYS", other, 1);
	argv[4] = bundle;
	ASSERT_INT(rj_test_run(argv, NULL, &out), 1);
	printf("%s", out);
	ASSERT_CONTAINS(out, "0 copied, 2 rejected");
	ASSERT_CONTAINS(out, "signed by a key that is not trusted: vendor");
	free(out);
	argv[4] = plain;
	ASSERT_INT(rj_test_run(argv, NULL, &out), 1);
	ASSERT_CONTAINS(out, "unsigned");
	free(out);

	/* Trusting the vendor: the signed bundle comes in, with its signatures. */
	setenv("ROCJIT_TRUSTED_KEYS", pub, 1);
	argv[4] = bundle;
	ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
	ASSERT_CONTAINS(out, "2 entries copied");
	free(out);
	argv[3] = "verify";
	argv[4] = NULL;
	ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
	printf("%s", out);
	ASSERT_CONTAINS(out, "signatures: 2 trusted, 0 unsigned");
	free(out);

	/* The unsigned bundle signed in place (a signed copy renamed over it): it verifies,
	   keeps its mode, and leaves nothing beside it. */
	{
		char secret[4400], *listing;
		struct stat before, after;
		const char *sign[] = { ROCJIT_TEST_CLI, "--cache", plain, "sign", "--key", secret,
				 NULL };
		const char *verify[] = { ROCJIT_TEST_CLI, "--cache", plain, "verify", NULL };
		const char *ls[] = { "/bin/ls", "-a", rj_test_dir, NULL };

		snprintf(secret, sizeof secret, "%s/vendor.secret", dir);
		ASSERT_INT(stat(plain, &before), 0);
		ASSERT_INT(rj_test_run(sign, NULL, &out), 0);
		ASSERT_CONTAINS(out, "signed 2 entries");
		free(out);
		ASSERT_INT(stat(plain, &after), 0);
		ASSERT_INT(after.st_mode, before.st_mode);
		ASSERT_INT(rj_test_run(verify, NULL, &out), 0);
		printf("%s", out);
		ASSERT_CONTAINS(out, "signatures: 2 trusted, 0 unsigned");
		free(out);
		ASSERT_INT(rj_test_run(ls, NULL, &listing), 0);
		ASSERT(strstr(listing, "signing-") == NULL);
		free(listing);
	}
	/* Signing renames a signed copy over the name given: a symbolic link is refused (the
	   file it names would stay unsigned), and so is a live cache database (its WAL would
	   be lost). */
	{
		char secret[4400], link[4300], live[4400];
		const char *sign[] = { ROCJIT_TEST_CLI, "--cache", link, "sign", "--key", secret,
				 NULL };

		snprintf(secret, sizeof secret, "%s/vendor.secret", dir);
		snprintf(link, sizeof link, "%s/link.rocjit", rj_test_dir);
		ASSERT_INT(symlink(plain, link), 0);
		ASSERT_INT(rj_test_run(sign, NULL, &out), 1);
		ASSERT_CONTAINS(out, "symbolic link");
		free(out);
		snprintf(live, sizeof live, "%s/rocjit-cache.sqlite", other_cache);
		sign[2] = live;
		ASSERT_INT(rj_test_run(sign, NULL, &out), 1);
		printf("%s", out);
		ASSERT_CONTAINS(out, "live cache database");
		free(out);
	}
	/* A key that cannot be used says why, not only that there is none. */
	{
		char secret[4400];
		const char *sign[] = { ROCJIT_TEST_CLI, "--cache", plain, "sign", "--key", secret,
				 NULL };

		snprintf(secret, sizeof secret, "%s/vendor.secret", dir);
		ASSERT_INT(chmod(secret, 0644), 0);
		ASSERT_INT(rj_test_run(sign, NULL, &out), 1);
		printf("%s", out);
		ASSERT_CONTAINS(out, "no signing key: ROCJIT_SIGNING_KEY: ");
		ASSERT_CONTAINS(out, "chmod 600");
		free(out);
	}
	unsetenv("ROCJIT_TRUSTED_KEYS");
}
