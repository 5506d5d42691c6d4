/*
 * test_config.c - the settings: the environment beats the user file, which beats the
 * system file, which beats the default, in the library and in `rocjit config`; the size
 * limit stored in the cache, enforced by another process with no limit of its own;
 * `rocjit config set|unset` round trips; files that are malformed or writable by others
 * (or in folders others can write, or links), relative paths and control characters
 * warned of or refused; ROCJIT_LOG's names and a warning for an unknown one; a
 * ROCJIT_KERNEL_PATH that names no folder warned of.
 *
 * Each test runs in a process of its own (harness.c), which reads the files once: a test
 * writes its files before the first setting is read, and asks new processes (the tool, a
 * forked child) for what a later change gives.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define ASSERT_LACKS(hay, needle)                                                        \
	do {                                                                             \
		const char *rj_h_ = (hay), *rj_n_ = (needle);                            \
		if (rj_h_ && strstr(rj_h_, rj_n_))                                       \
			rj_test_fail(__FILE__, __LINE__, "\"%s\" contains \"%s\"", rj_h_,  \
				     rj_n_);                                             \
	} while (0)

static char user_file[4300], system_file[4300];

/* Where a test's standard error is captured. */
static const char *err_path(void)
{
	static char path[4300];

	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	return path;
}

/* A cache in the test's folder, so that the tool's reading commands open a context. */
static void make_cache(void)
{
	rocjit_close(rj_test_open());
}

/* The user file under $XDG_CONFIG_HOME=<test>/xdg and the system file <test>/system.conf
 * ($ROCJIT_CONFIG), both written (mode 0644) when text is not NULL. */
static void files(const char *user, const char *system)
{
	char dir[4200];

	snprintf(dir, sizeof dir, "%s/xdg", rj_test_dir);
	setenv("XDG_CONFIG_HOME", dir, 1);
	snprintf(user_file, sizeof user_file, "%s/rocjit/rocjit.conf", dir);
	snprintf(system_file, sizeof system_file, "%s/system.conf", rj_test_dir);
	setenv("ROCJIT_CONFIG", system_file, 1);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/xdg/rocjit", rj_test_dir);
	mkdir(dir, 0700);
	if (user) {
		rj_test_write_file(user_file, user, strlen(user));
		chmod(user_file, 0644);
	}
	if (system) {
		rj_test_write_file(system_file, system, strlen(system));
		chmod(system_file, 0644);
	}
}

/* Runs the tool (--cache <test cache>, then the arguments) with env's entries added;
 * stdout and stderr into *out (NULL: dropped); the exit status. */
static int tool(const char *const env[], char **out, const char *const args[])
{
	const char *argv[32];
	char *text = NULL;
	int n = 0, rc;

	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = rj_test_cache_dir;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	rc = rj_test_run(argv, env, &text);
	printf("$ rocjit");
	for (int i = 3; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n%s(exit %d)\n", text ? text : "", rc);
	if (out)
		*out = text;
	else
		free(text);
	return rc;
}

#define TOOL(env, out, ...) tool(env, out, (const char *const[]){ __VA_ARGS__, NULL })

/* Runs the tool, asserting its exit status and that its output holds needle. */
static void expect(const char *const env[], int status, const char *needle,
		   const char *const args[])
{
	char *out = NULL;

	ASSERT_INT(tool(env, &out, args), status);
	ASSERT_CONTAINS(out, needle);
	free(out);
}

#define EXPECT(env, status, needle, ...) \
	expect(env, status, needle, (const char *const[]){ __VA_ARGS__, NULL })

/* `rocjit config get KEY` with env's entries: its line (not a warning's) without the
 * newline, malloc'ed. */
static char *get(const char *const env[], const char *key)
{
	char *out = NULL, *line, *v;

	ASSERT_INT(TOOL(env, &out, "config", "get", key), 0);
	for (line = out; !strncmp(line, "rocjit: ", 8) && strchr(line, '\n');)
		line = strchr(line, '\n') + 1;
	line[strcspn(line, "\n")] = 0;
	v = strdup(line);
	free(out);
	return v;
}

/* How many times needle is in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The line of `rocjit config` that shows key (its text up to the newline), malloc'ed. */
static char *shown(const char *show, const char *key)
{
	char pat[128], *line;
	const char *p;

	snprintf(pat, sizeof pat, "\n%s = ", key);
	p = strstr(show, pat);
	if (!p)
		rj_test_fail(__FILE__, __LINE__, "`rocjit config` shows no %s:\n%s", key, show);
	line = strdup(p + 1);
	line[strcspn(line, "\n")] = 0;
	return line;
}

static void assert_line(const char *show, const char *key, const char *want)
{
	char *line = shown(show, key);

	ASSERT_CONTAINS(line, want);
	free(line);
}

/* Every step, in the library of one process: each key is set in the layers down to one. */
TEST(environment_beats_user_file_beats_system_file_beats_default)
{
	char cache_dir[4300], want[4400];
	const char *src = NULL;

	files("workers = 5\narch = gfx906\nlog = info\ncompile_timeout = 30\n"
	      "cache_dir = /tmp/user-cache\n",
	      "workers = 3\narch = gfx900\nlog = off\ncompile_timeout = 20\nlock_timeout_ms = 7\n"
	      "ROCJIT_REMOTE_READONLY = yes\n");
	setenv("ROCJIT_WORKERS", "7", 1);
	setenv("ROCJIT_COMPILE_TIMEOUT", "40", 1);
	unsetenv("ROCJIT_ARCH");
	unsetenv("ROCJIT_LOG");
	/* environment over both files */
	ASSERT_STR(rocjit_config_get("ROCJIT_WORKERS", &src), "7");
	ASSERT_STR(src, "environment");
	ASSERT_STR(rocjit_config_get("compile_timeout", &src), "40");
	ASSERT_STR(src, "environment");
	/* user file over the system file */
	ASSERT_STR(rocjit_config_get("ROCJIT_ARCH", &src), "gfx906");
	ASSERT_STR(src, user_file);
	ASSERT_STR(rocjit_config_get("log", &src), "info");
	ASSERT_STR(src, user_file);
	/* system file over the default; the variable's own name is a key too */
	ASSERT_STR(rocjit_config_get("ROCJIT_LOCK_TIMEOUT_MS", &src), "7");
	ASSERT_STR(src, system_file);
	ASSERT_STR(rocjit_config_get("remote_readonly", &src), "yes");
	ASSERT_STR(src, system_file);
	ASSERT_INT(rocjit_env_flag("ROCJIT_REMOTE_READONLY"), 1);
	/* the default */
	ASSERT(rocjit_config_get("ROCJIT_BUNDLE_PATH", &src) == NULL);
	ASSERT_STR(src, "default");
	/* an empty variable is unset: the files apply */
	setenv("ROCJIT_ARCH", "", 1);
	ASSERT_STR(rocjit_config_get("ROCJIT_ARCH", NULL), "gfx906");
	/* what the library does follows: the cache folder of the user file */
	ASSERT_INT(rocjit_cache_dir(cache_dir, sizeof cache_dir, NULL), 0);
	ASSERT_STR(cache_dir, "/tmp/user-cache");
	setenv("ROCJIT_CACHE_DIR", rj_test_cache_dir, 1);
	ASSERT_INT(rocjit_cache_dir(cache_dir, sizeof cache_dir, NULL), 0);
	ASSERT_STR(cache_dir, rj_test_cache_dir);
	unsetenv("ROCJIT_CACHE_DIR");

	/* The same steps through the tool, each a new process. */
	unsetenv("ROCJIT_WORKERS");
	unsetenv("ROCJIT_COMPILE_TIMEOUT");
	unsetenv("ROCJIT_ARCH");
	{
		const char *env[] = { "ROCJIT_WORKERS=9", NULL };
		char *v = get(env, "workers"), *show = NULL;
		ASSERT_STR(v, "9");
		free(v);
		ASSERT_STR((v = get(NULL, "workers")), "5");
		free(v);
		ASSERT_STR((v = get(NULL, "lock_timeout_ms")), "7");
		free(v);
		ASSERT_STR((v = get(NULL, "bundle_path")), "");
		free(v);
		ASSERT_INT(TOOL(env, &show, "config"), 0);
		assert_line(show, "workers", "= 9");
		assert_line(show, "workers", "# environment: ROCJIT_WORKERS");
		snprintf(want, sizeof want, "# user: %s", user_file);
		assert_line(show, "arch", "= gfx906");
		assert_line(show, "arch", want);
		snprintf(want, sizeof want, "# system: %s", system_file);
		assert_line(show, "lock_timeout_ms", "= 7");
		assert_line(show, "lock_timeout_ms", want);
		assert_line(show, "bundle_path", "# default");
		free(show);
	}
	/* No system file at all: ROCJIT_CONFIG="" */
	{
		const char *env[] = { "ROCJIT_CONFIG=", NULL };
		char *v = get(env, "lock_timeout_ms");
		ASSERT_STR(v, "");
		free(v);
	}
}

/* `rocjit config` names every source, the cache's among them, in text and JSON. */
TEST(config_show_names_the_source_of_each_value)
{
	const char *env[] = { "ROCJIT_LOG=debug", NULL };
	const char *override[] = { "ROCJIT_CACHE_MAXSIZE=1G", NULL };
	char *show = NULL, want[4400];

	files("signing_key = /keys/me.secret\n", "trusted_keys = ci:AAAA\n");
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "cache_maxsize", "300M"), 0);
	ASSERT_INT(TOOL(env, &show, "config"), 0);
	assert_line(show, "log", "= debug");
	assert_line(show, "log", "# environment: ROCJIT_LOG");
	snprintf(want, sizeof want, "# user: %s", user_file);
	assert_line(show, "signing_key", want);
	snprintf(want, sizeof want, "# system: %s", system_file);
	assert_line(show, "trusted_keys", want);
	snprintf(want, sizeof want, "# cache: %s", rj_test_cache_dir);
	assert_line(show, "cache_maxsize", "= 300M");
	assert_line(show, "cache_maxsize", want);
	assert_line(show, "workers", "= (the CPUs this process may use)");
	assert_line(show, "workers", "# default");
	/* every setting of the table is shown, and in --help's Environment section */
	for (size_t i = 0; rocjit_setting_at(i); i++)
		free(shown(show, rocjit_setting_at(i)->name));
	free(show);
	/* The environment's limit is this process's override, and said so. */
	ASSERT_INT(TOOL(override, &show, "config"), 0);
	assert_line(show, "cache_maxsize", "= 1G");
	assert_line(show, "cache_maxsize", "# environment: ROCJIT_CACHE_MAXSIZE, for this "
					   "process only");
	free(show);
	ASSERT_INT(TOOL(env, &show, "config", "--json"), 0);
	ASSERT_CONTAINS(show, "\"name\": \"cache_maxsize\",\n"
			      "      \"env\": \"ROCJIT_CACHE_MAXSIZE\",\n"
			      "      \"value\": \"300M\",\n"
			      "      \"source\": \"cache\"");
	ASSERT_CONTAINS(show, "\"value\": \"debug\",\n      \"source\": \"environment\"");
	ASSERT_CONTAINS(show, "\"source\": \"user\"");
	ASSERT_CONTAINS(show, "\"source\": \"system\"");
	ASSERT_CONTAINS(show, "\"value\": null,\n      \"source\": \"default\"");
	free(show);
}

TEST(help_lists_every_variable_of_the_table)
{
	char *help = NULL;

	ASSERT_INT(TOOL(NULL, &help, "--help"), 0);
	ASSERT_CONTAINS(help, "\nEnvironment:\n");
	for (size_t i = 0; rocjit_setting_at(i); i++) {
		char line[128];
		snprintf(line, sizeof line, "\n  %s\n      ", rocjit_setting_at(i)->env);
		ASSERT_CONTAINS(strstr(help, "\nEnvironment:\n"), line);
	}
	ASSERT(rocjit_setting_at(20) != NULL); /* the ~27 variables of issue 31, not a few */
	ASSERT_CONTAINS(help, "ROCJIT_KERNEL_PATH\n      read registered kernels");
	free(help);
	ASSERT_INT(TOOL(NULL, &help, "help", "config"), 0);
	ASSERT_CONTAINS(help, "rocjit config set [--file] KEY VALUE");
	free(help);
}

static int read_back(const char *key, const char *want)
{
	char *v = get(NULL, key);
	int same = !strcmp(v, want);

	free(v);
	return same;
}

TEST(config_set_and_unset_round_trip)
{
	char *out = NULL, *text;

	files("# my settings\nworkers = 2 # not a comment: part of the value\n\n", NULL);
	/* the value above is no number: warned, skipped */
	ASSERT(read_back("workers", ""));
	EXPECT(NULL, 0, user_file, "config", "set", "workers", "4");
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "ROCJIT_LOG", "debug"), 0);
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "platform", "nvidia"), 0);
	ASSERT(read_back("workers", "4"));
	ASSERT(read_back("log", "debug"));
	ASSERT(read_back("ROCJIT_PLATFORM", "nvidia"));
	text = rj_test_read_file(user_file, NULL);
	ASSERT_STR(text, "# my settings\nworkers = 4\n\nlog = debug\nplatform = nvidia\n");
	free(text);
	/* Values are checked by the library's own parsers: nothing written. */
	EXPECT(NULL, 2, "\"many\" is not a whole number", "config", "set", "workers", "many");
	EXPECT(NULL, 2, "not a log level", "config", "set", "log", "verbose");
	EXPECT(NULL, 2, "not a size", "config", "set", "cache_index_size", "12Q");
	EXPECT(NULL, 2, "not one of amd|nvidia|auto", "config", "set", "platform", "intel");
	EXPECT(NULL, 2, "'no_such_thing' is no setting", "config", "set", "no_such_thing", "1");
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "config", "/etc/x"), 2);
	text = rj_test_read_file(user_file, NULL);
	ASSERT_STR(text, "# my settings\nworkers = 4\n\nlog = debug\nplatform = nvidia\n");
	free(text);
	/* unset */
	ASSERT_INT(TOOL(NULL, NULL, "config", "unset", "log"), 0);
	ASSERT(read_back("log", ""));
	ASSERT(read_back("workers", "4"));
	text = rj_test_read_file(user_file, NULL);
	ASSERT_STR(text, "# my settings\nworkers = 4\n\nplatform = nvidia\n");
	free(text);
	/* The cache's limit: in the cache, not the file, unless --file. */
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "cache_maxsize", "5G"), 0);
	ASSERT(read_back("cache_maxsize", "5G"));
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "--file", "cache_maxsize", "2G"), 0);
	ASSERT(read_back("cache_maxsize", "5G")); /* the cache's comes first */
	ASSERT_INT(TOOL(NULL, NULL, "config", "unset", "cache_maxsize"), 0);
	ASSERT(read_back("cache_maxsize", "2G"));
	ASSERT_INT(TOOL(NULL, NULL, "config", "unset", "--file", "cache_maxsize"), 0);
	ASSERT(read_back("cache_maxsize", ""));
	ASSERT_INT(TOOL(NULL, &out, "config", "set", "cache_maxsize", "lots"), 2);
	free(out);
	/* A folder that does not exist yet is made. */
	{
		char dir[4300];
		snprintf(dir, sizeof dir, "XDG_CONFIG_HOME=%s/fresh/conf", rj_test_dir);
		const char *env[] = { dir, NULL };
		ASSERT_INT(TOOL(env, NULL, "config", "set", "arch", "gfx90a"), 0);
		snprintf(dir, sizeof dir, "%s/fresh/conf/rocjit/rocjit.conf", rj_test_dir);
		text = rj_test_read_file(dir, NULL);
		ASSERT_STR(text, "arch = gfx90a\n");
		free(text);
	}
}

TEST(malformed_file_lines_warn_with_file_and_line)
{
	char want[4400], *out = NULL, *err;
	int saved;

	files("log = info\n"
	      "this line has no equals sign\n"
	      "no_such_setting = 1\n"
	      "workers = many\n"
	      "cache_maxsize = 12Q\n"
	      "disable_cache = perhaps\n"
	      "= 3\n"
	      "config = /elsewhere.conf\n"
	      "arch = gfx90a\n",
	      "require_signed = sometimes\nlock_timeout_ms = 5\n");
	unsetenv("ROCJIT_LOG");
	saved = rj_test_stderr_capture(err_path());
	ASSERT_STR(rocjit_config_get("arch", NULL), "gfx90a"); /* the good lines hold */
	ASSERT_STR(rocjit_config_get("lock_timeout_ms", NULL), "5");
	ASSERT(rocjit_config_get("workers", NULL) == NULL);
	ASSERT(rocjit_config_get("require_signed", NULL) == NULL);
	ASSERT_INT(rocjit_env_flag("ROCJIT_DISABLE_CACHE"), 0);
	err = rj_test_stderr_restore(saved, err_path());
	printf("%s", err);
	{
		/* Each bad line of either file, named FILE:LINE. */
		static const struct { int system, line; const char *what; } bad[] = {
			{ 0, 2, "not a `key = value` line" },
			{ 0, 3, "\"no_such_setting\" is no rocjit setting" },
			{ 0, 4, "workers: \"many\" is not a whole number" },
			{ 0, 5, "cache_maxsize: \"12Q\" is not a size" },
			{ 0, 6, "disable_cache: \"perhaps\" is not a switch" },
			{ 0, 7, "not a `key = value` line" },
			{ 0, 8, "config is read from the environment only" },
			{ 1, 1, "require_signed: \"sometimes\" is not one of" },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			snprintf(want, sizeof want, "%s:%d: %s",
				 bad[i].system ? system_file : user_file, bad[i].line, bad[i].what);
			ASSERT_CONTAINS(err, want);
		}
	}
	/* Once a process: more reads say nothing again. */
	saved = rj_test_stderr_capture(err_path());
	rocjit_config_get("arch", NULL);
	rocjit_ctx *ctx = rj_test_open();
	rocjit_close(ctx);
	free(err);
	err = rj_test_stderr_restore(saved, err_path());
	ASSERT_LACKS(err, "rocjit.conf:");
	free(err);
	/* The tool says them too, and still shows the settings. */
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	snprintf(want, sizeof want, "%s:4: workers", user_file);
	ASSERT_CONTAINS(out, want);
	assert_line(out, "arch", "= gfx90a");
	free(out);
}

TEST(a_world_writable_file_is_skipped_with_a_warning)
{
	char *out = NULL, want[4400];

	files("arch = gfx906\nworkers = 3\n", "arch = gfx900\nlock_timeout_ms = 9\n");
	chmod(user_file, 0666);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	snprintf(want, sizeof want, "configuration file %s skipped: it is writable by every user",
		 user_file);
	ASSERT_CONTAINS(out, want);
	ASSERT_CONTAINS(out, "chmod go-w");
	assert_line(out, "arch", "= gfx900"); /* the system file's: the user file is not read */
	assert_line(out, "workers", "# default");
	free(out);
	/* The system file too; then neither applies. */
	chmod(system_file, 0646);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	snprintf(want, sizeof want, "configuration file %s skipped", system_file);
	ASSERT_CONTAINS(out, want);
	assert_line(out, "lock_timeout_ms", "# default");
	free(out);
	/* Made safe again, it is read. */
	chmod(user_file, 0600);
	chmod(system_file, 0644);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	ASSERT_LACKS(out, "skipped");
	assert_line(out, "arch", "= gfx906");
	free(out);
	/* Setting through a file that is skipped changes nothing and says why. */
	chmod(user_file, 0666);
	EXPECT(NULL, 1, "writable by every user", "config", "set", "workers", "4");
	/* A folder where the file should be is no file. */
	chmod(user_file, 0600);
	unlink(system_file);
	mkdir(system_file, 0755);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	snprintf(want, sizeof want, "configuration file %s skipped", system_file);
	ASSERT_CONTAINS(out, want);
	free(out);
	rmdir(system_file);
}

/* The size limit stored by one process is enforced by another that has none of its own,
 * at its next store even when it set it while that process had the cache open. */
TEST(the_caches_stored_limit_is_enforced_by_another_process)
{
	rocjit_ctx *ctx;
	rocjit_stats st;
	uint64_t bytes;
	const char *source = NULL, *stored = NULL;
	char *out = NULL;

	/* The files first: this process reads them once, at its first setting. */
	files(NULL, "cache_maxsize = 1G\n");
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "compiles for gfx90a");
	ctx = rj_test_open();
	rj_test_compile_variant(ctx, "gfx90a", "RJ_LIMIT", 0);
	ASSERT_INT(rocjit_cache_maxsize_get(&bytes, &source, &stored, ctx), 0);
	ASSERT_INT(bytes, 1ull << 30);
	ASSERT_STR(source, system_file);
	ASSERT(stored == NULL);
	/* Another process stores a limit while this one has the cache open. */
	EXPECT(NULL, 0, "every process using it", "config", "set", "cache_maxsize", "20K");
	for (int i = 1; i < 8; i++) {
		rj_test_compile_variant(ctx, "gfx90a", "RJ_LIMIT", i);
		st = rj_test_stats(ctx);
		ASSERT(st.bytes <= 20 * 1024);
	}
	st = rj_test_stats(ctx);
	printf("entries %llu, %llu bytes\n", (unsigned long long)st.entries,
	       (unsigned long long)st.bytes);
	ASSERT(st.entries >= 2 && st.entries < 8); /* some were evicted */
	ASSERT_INT(rocjit_cache_maxsize_get(&bytes, &source, &stored, ctx), 0);
	ASSERT_INT(bytes, 20 * 1024);
	ASSERT_STR(source, "cache");
	ASSERT_STR(stored, "20K");
	rocjit_close(ctx);
	/* A fresh process too: a child of none of this, the tool, lists what is left. */
	ASSERT_INT(TOOL(NULL, &out, "stats", "--json"), 0);
	free(out);
	/* The environment still overrides, for its process only: 0 is no limit. */
	setenv("ROCJIT_CACHE_MAXSIZE", "0", 1);
	ctx = rj_test_open();
	for (int i = 8; i < 12; i++)
		rj_test_compile_variant(ctx, "gfx90a", "RJ_LIMIT", i);
	st = rj_test_stats(ctx);
	ASSERT(st.bytes > 20 * 1024);
	ASSERT_INT(rocjit_cache_maxsize_get(&bytes, &source, &stored, ctx), 0);
	ASSERT_INT(bytes, 0);
	ASSERT_STR(source, "environment");
	ASSERT_STR(stored, "20K");
	rocjit_close(ctx);
	/* Setting it evicts at once, without a store. */
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "cache_maxsize", "12K"), 0);
	ctx = rj_test_open();
	st = rj_test_stats(ctx);
	ASSERT(st.bytes <= 12 * 1024);
	rocjit_close(ctx);
}

TEST(log_levels_have_names_and_an_unknown_one_warns)
{
	static const char *const unknown[] = { "verbose", "trace", "3", "loud" };
	char *out = NULL, env_log[64], env_path[4300];

	/* Each unknown value, in a process of its own: a warning naming it, once. */
	make_cache();
	snprintf(env_path, sizeof env_path, "ROCJIT_KERNEL_PATH=%s/none", rj_test_dir);
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
		const char *env[] = { env_log, NULL };
		char want[128];
		snprintf(env_log, sizeof env_log, "ROCJIT_LOG=%s", unknown[i]);
		ASSERT_INT(TOOL(env, &out, "stats"), 0);
		snprintf(want, sizeof want, "ROCJIT_LOG=%s is not a log level", unknown[i]);
		ASSERT_CONTAINS(out, want);
		ASSERT_INT(count(out, "is not a log level"), 1);
		free(out);
	}
	/* The names: quiet says nothing, error and warn say warnings, debug says more. */
	{
		const char *quiet[] = { "ROCJIT_LOG=quiet", env_path, NULL };
		const char *error[] = { "ROCJIT_LOG=error", env_path, NULL };
		const char *warn[] = { "ROCJIT_LOG=WARN", env_path, NULL };
		const char *debug[] = { "ROCJIT_LOG=debug", env_path, NULL };
		const char *two[] = { "ROCJIT_LOG=2", env_path, NULL };
		ASSERT_INT(TOOL(quiet, &out, "stats"), 0);
		ASSERT_LACKS(out, "warning");
		free(out);
		ASSERT_INT(TOOL(error, &out, "stats"), 0);
		ASSERT_CONTAINS(out, "ROCJIT_KERNEL_PATH=");
		ASSERT_LACKS(out, "not a log level");
		free(out);
		EXPECT(warn, 0, "ROCJIT_KERNEL_PATH=", "stats");
		EXPECT(debug, 2, "error -1 (", "config", "set", "cache_maxsize", "nonsense");
		EXPECT(two, 2, "error -1 (", "config", "set", "cache_maxsize", "nonsense");
	}
	/* From a file: checked there, with its line. */
	files("log = chatty\n", NULL);
	EXPECT(NULL, 0, "rocjit.conf:1: log: \"chatty\" is not a log level", "config");
}

TEST(a_kernel_path_that_names_no_folder_warns_once)
{
	char path[4300], *err;
	rocjit_ctx *ctx;
	int saved;

	snprintf(path, sizeof path, "%s/kernels-typo", rj_test_dir);
	setenv("ROCJIT_KERNEL_PATH", path, 1);
	unsetenv("ROCJIT_LOG");
	saved = rj_test_stderr_capture(err_path());
	ctx = rj_test_open();
	rocjit_close(ctx);
	ctx = rj_test_open();
	rocjit_close(ctx);
	err = rj_test_stderr_restore(saved, err_path());
	printf("%s", err);
	ASSERT_CONTAINS(err, "ROCJIT_KERNEL_PATH=");
	ASSERT_CONTAINS(err, "kernels-typo: No such file or directory; registered kernels come "
			     "from their embedded text");
	ASSERT_INT(count(err, "kernels-typo"), 1); /* once */
	free(err);
}

/* Other instances, each a process of its own: a file, not a folder; a path from the user
 * file; and a folder that exists says nothing. */
TEST(a_kernel_path_that_is_a_file_or_comes_from_a_file_warns)
{
	char path[4300], conf[4400], *out = NULL;

	make_cache();
	snprintf(path, sizeof path, "%s/axpy.hip", rj_test_dir);
	rj_test_write_file(path, "x", 1);
	snprintf(conf, sizeof conf, "kernel_path = %s/missing-folder\n", rj_test_dir);
	files(conf, NULL);
	{
		char e[4400];
		snprintf(e, sizeof e, "ROCJIT_KERNEL_PATH=%s", path);
		const char *env[] = { e, NULL };
		EXPECT(env, 0, "axpy.hip is not a folder", "stats");
	}
	EXPECT(NULL, 0, "missing-folder: No such file or directory", "stats");
	{
		char e[4400];
		snprintf(e, sizeof e, "ROCJIT_KERNEL_PATH=%s", rj_test_dir);
		const char *env[] = { e, NULL };
		ASSERT_INT(TOOL(env, &out, "stats"), 0);
		ASSERT_LACKS(out, "ROCJIT_KERNEL_PATH");
		free(out);
	}
}

/*
 * A value the environment gives that its setting's parser refuses is warned of once, by
 * any command (`rocjit stats` reads neither ROCJIT_WORKERS nor the limit) and not again by
 * the reader nor by a compile worker, whose stderr is the tool's.
 */
TEST(a_bad_value_in_the_environment_is_warned_of_once_by_any_command)
{
	static const char *const bad[] = { "ROCJIT_WORKERS=many", "ROCJIT_CACHE_MAXSIZE=5Q",
					   "ROCJIT_COMPILE_TIMEOUT=soon",
					   "ROCJIT_CACHE_SHARED=maybe",
					   "ROCJIT_REQUIRE_SIGNED=some", NULL };
	static const char *const said[] = { "ROCJIT_WORKERS=many is not",
					    "ROCJIT_CACHE_MAXSIZE=5Q is not",
					    "ROCJIT_COMPILE_TIMEOUT=soon is not",
					    "ROCJIT_CACHE_SHARED=maybe is not",
					    "ROCJIT_REQUIRE_SIGNED=some is not" };
	char src[4300], *out = NULL;

	make_cache();
	ASSERT_INT(TOOL(bad, &out, "stats"), 0);
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
		ASSERT_INT(count(out, said[i]), 1);
	free(out);

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "compiles for gfx90a");
	snprintf(src, sizeof src, "%s/k.hip", rj_test_dir);
	rj_test_write_file(src, "extern \"C\" __global__ void k(float *y) { y[0] = 1; }\n",
			   strlen("extern \"C\" __global__ void k(float *y) { y[0] = 1; }\n"));
	ASSERT_INT(TOOL(bad, &out, "compile", "--arch", "gfx90a", src, "-o", "/dev/null"), 0);
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
		ASSERT_INT(count(out, said[i]), 1);
	ASSERT_CONTAINS(out, "1 kernel");
	ASSERT_CONTAINS(out, "taking all, the strictest");
	free(out);
}

/* Whether setting s takes paths (its kind says "path" or "paths"), or files of keys. */
static int takes_paths(const rocjit_setting *s)
{
	return !strncmp(s->kind, "path", 4) || !strcmp(s->kind, "keys");
}

/*
 * A relative path would be resolved in whatever folder a process runs in: every setting
 * that takes a path, a path list or files of keys, in either file, is warned of with its
 * FILE:LINE and ignored; absolute ones are taken.  And the instance that matters: a
 * system-file `worker = bin/rocjit-worker` never runs the bin/ of the folder the tool
 * is run from.
 */
TEST(a_relative_path_in_a_file_is_ignored_with_its_line)
{
	char user[8192] = "", want[4600], *out = NULL, *err;
	int saved, line = 0, lines[64];
	const rocjit_setting *s;

	for (size_t i = 0; (s = rocjit_setting_at(i)); i++) {
		if (!takes_paths(s) || !strcmp(s->name, "config"))
			continue;
		/* A list holds an absolute path first: each item is checked. */
		snprintf(user + strlen(user), sizeof user - strlen(user), "%s = %s\n", s->name,
			 !strcmp(s->kind, "paths") ? "/abs/a.rocjit:rel/b.rocjit" :
			 !strcmp(s->kind, "keys") ? "ci:AAAA,./keys.pub" : "rel/thing");
		lines[i] = ++line;
	}
	ASSERT(line >= 9); /* cache_dir, kernel_path, bundle_path, worker, ... */
	files(user, "worker = bin/rocjit-worker\nsigning_key = /keys/me.secret\n"
		    "trusted_keys = ci:AAAA /keys/ci.pub\nbundle_path = /a.rocjit:/b.rocjit\n");
	unsetenv("ROCJIT_LOG");
	for (size_t i = 0; (s = rocjit_setting_at(i)); i++)
		if (takes_paths(s) && strcmp(s->name, "config"))
			unsetenv(s->env); /* the test environment's own (ROCJIT_WORKER) */
	saved = rj_test_stderr_capture(err_path());
	for (size_t i = 0; (s = rocjit_setting_at(i)); i++)
		if (takes_paths(s) && strcmp(s->name, "config") && strcmp(s->name, "signing_key") &&
		    strcmp(s->name, "trusted_keys") && strcmp(s->name, "bundle_path"))
			ASSERT(rocjit_config_get(s->name, NULL) == NULL);
	/* The system file's absolute ones hold (the user file's relative ones are gone). */
	ASSERT_STR(rocjit_config_get("signing_key", NULL), "/keys/me.secret");
	ASSERT_STR(rocjit_config_get("trusted_keys", NULL), "ci:AAAA /keys/ci.pub");
	ASSERT_STR(rocjit_config_get("bundle_path", NULL), "/a.rocjit:/b.rocjit");
	err = rj_test_stderr_restore(saved, err_path());
	printf("%s", err);
	for (size_t i = 0; (s = rocjit_setting_at(i)); i++) {
		if (!takes_paths(s) || !strcmp(s->name, "config"))
			continue;
		snprintf(want, sizeof want, "%s:%d: %s: \"%s\" is a relative path", user_file,
			 lines[i], s->name, !strcmp(s->kind, "paths") ? "rel/b.rocjit" :
			 !strcmp(s->kind, "keys") ? "./keys.pub" : "rel/thing");
		ASSERT_CONTAINS(err, want);
	}
	snprintf(want, sizeof want, "%s:1: worker: \"bin/rocjit-worker\" is a relative path",
		 system_file);
	ASSERT_CONTAINS(err, want);
	ASSERT_CONTAINS(err, "write it whole, from /");
	free(err);
	/* The environment is the user's own: a relative path there is taken as given. */
	{
		const char *env[] = { "ROCJIT_KERNEL_PATH=kernels", NULL };
		char *v = get(env, "kernel_path");
		ASSERT_STR(v, "kernels");
		free(v);
	}
	/* From a folder holding bin/rocjit-worker, the tool compiles with the real worker. */
	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "a compile with the file's worker line");
	{
		char bin[4400], planted[4500], marker[4500], script[4800], src[4500], cwd[4300];
		const char *env[] = { "ROCJIT_WORKER=", NULL };
		snprintf(bin, sizeof bin, "%s/work/bin", rj_test_dir);
		snprintf(marker, sizeof marker, "%s/planted-ran", rj_test_dir);
		snprintf(planted, sizeof planted, "%s/rocjit-worker", bin);
		snprintf(src, sizeof src, "%s/axpy.hip", rj_test_dir);
		snprintf(script, sizeof script, "#!/bin/sh\ntouch %s\nexit 1\n", marker);
		ASSERT(getcwd(cwd, sizeof cwd) != NULL);
		*strrchr(bin, '/') = 0;
		ASSERT_INT(mkdir(bin, 0755), 0);
		strcat(bin, "/bin");
		ASSERT_INT(mkdir(bin, 0755), 0);
		rj_test_write_file(planted, script, strlen(script));
		ASSERT_INT(chmod(planted, 0755), 0);
		rj_test_write_file(src, rj_test_axpy, strlen(rj_test_axpy));
		*strrchr(bin, '/') = 0;
		ASSERT_INT(chdir(bin), 0);
		ASSERT_INT(TOOL(env, &out, "compile", src, "--arch", "gfx90a", "-o", "/dev/null"),
			   0);
		ASSERT_INT(chdir(cwd), 0);
		ASSERT_CONTAINS(out, "is a relative path");
		ASSERT(access(marker, F_OK) != 0); /* the planted worker never ran */
		free(out);
	}
}

/*
 * `rocjit config set` writes one line: a value with a control character (a newline would
 * add a setting of its own) or a relative path is refused, exit 2, the file unchanged;
 * the library's call refuses them too.  A path from the environment holding one is
 * ignored with a warning.
 */
TEST(config_set_refuses_control_characters_and_relative_paths)
{
	static const char kept[] = "arch = gfx90a\n";
	static const struct { const char *key, *value, *why; } bad[] = {
		{ "remote", "x\nworker = /tmp/evil", "control character (byte 0x0a at offset 1)" },
		{ "arch", "gfx90a\rlog = debug", "control character (byte 0x0d" },
		{ "log", "info\t", "control character (byte 0x09" },
		{ "signing_key", "/keys/a\x7f", "control character (byte 0x7f" },
		{ "worker", "bin/rocjit-worker", "\"bin/rocjit-worker\" is a relative path" },
		{ "cache_dir", "./cache", "\"./cache\" is a relative path" },
		{ "remote_password_file", "pw.txt", "\"pw.txt\" is a relative path" },
		{ "bundle_path", "/a.rocjit:b.rocjit", "\"b.rocjit\" is a relative path" },
		{ "trusted_keys", "ci:AAAA,../k.pub", "\"../k.pub\" is a relative path" },
	};
	char *text, *v;

	files(kept, NULL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		EXPECT(NULL, 2, bad[i].why, "config", "set", bad[i].key, bad[i].value);
		ASSERT_INT(rocjit_config_write(bad[i].key, bad[i].value), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), bad[i].why);
	}
	text = rj_test_read_file(user_file, NULL);
	ASSERT_STR(text, kept);
	free(text);
	/* Absolute ones are written. */
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "worker", "/opt/rocjit/rocjit-worker"), 0);
	ASSERT_INT(TOOL(NULL, NULL, "config", "set", "trusted_keys", "ci:AAAA,/keys/ci.pub"), 0);
	text = rj_test_read_file(user_file, NULL);
	ASSERT_STR(text, "arch = gfx90a\nworker = /opt/rocjit/rocjit-worker\n"
			 "trusted_keys = ci:AAAA,/keys/ci.pub\n");
	free(text);
	/* A path of the environment with a newline in it: ignored, said, not echoed. */
	{
		const char *env[] = { "ROCJIT_WORKER=/usr/bin/x\nlog = debug", NULL };
		char *out = NULL;
		ASSERT_INT(TOOL(env, &out, "config", "get", "worker"), 0);
		ASSERT_CONTAINS(out, "ROCJIT_WORKER holds a control character");
		ASSERT_LACKS(out, "/usr/bin/x");
		free(out);
		v = get(env, "worker");
		ASSERT_STR(v, ""); /* ignored: the default applies, as said */
		free(v);
	}
}

/*
 * A file is only as safe as the folders it is in (OpenSSH's StrictModes): one in a folder
 * others can write, at any level, or owned by another user, is skipped with the folder
 * named and the fix; a symbolic link is not followed.  A sticky folder of one's own
 * (a /tmp of one's own) is fine: nobody else can rename what is in it.
 */
TEST(a_file_in_a_folder_others_could_write_or_behind_a_link_is_skipped)
{
	char dir[4400], top[4400], want[9000], real[4600], *out = NULL;

	files("arch = gfx906\n", NULL);
	snprintf(top, sizeof top, "%s/xdg", rj_test_dir);
	snprintf(dir, sizeof dir, "%s/xdg/rocjit", rj_test_dir);
	ASSERT_INT(chmod(dir, 0777), 0);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	snprintf(want, sizeof want, "configuration file %s skipped: its folder %s is writable "
		 "by every user (mode 0777)", user_file, dir);
	ASSERT_CONTAINS(out, want);
	snprintf(want, sizeof want, "chmod go-w %s", dir);
	ASSERT_CONTAINS(out, want);
	assert_line(out, "arch", "# default");
	free(out);
	/* A folder higher up. */
	ASSERT_INT(chmod(dir, 0700), 0);
	ASSERT_INT(chmod(top, 0757), 0);
	snprintf(want, sizeof want, "its folder %s is writable by every user (mode 0757)", top);
	EXPECT(NULL, 0, want, "config");
	/* Sticky and one's own: read. */
	ASSERT_INT(chmod(top, 01777), 0);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	ASSERT_LACKS(out, "skipped");
	assert_line(out, "arch", "= gfx906");
	free(out);
	ASSERT_INT(chmod(top, 0700), 0);
	/* Another user's folder, or its group's (root can make both). */
	if (geteuid() == 0) {
		ASSERT_INT(chown(dir, 65534, 0), 0);
		snprintf(want, sizeof want, "its folder %s is owned by user 65534", dir);
		EXPECT(NULL, 0, want, "config");
		ASSERT_INT(chown(dir, 0, 65534), 0);
		ASSERT_INT(chmod(dir, 0770), 0);
		snprintf(want, sizeof want, "its folder %s is writable by its group", dir);
		EXPECT(NULL, 0, want, "config");
		ASSERT_INT(chmod(dir, 0700), 0);
	}
	/* A link, even to a good file of one's own. */
	snprintf(real, sizeof real, "%s/real.conf", rj_test_dir);
	ASSERT_INT(rename(user_file, real), 0);
	ASSERT_INT(symlink(real, user_file), 0);
	ASSERT_INT(TOOL(NULL, &out, "config"), 0);
	snprintf(want, sizeof want, "configuration file %s skipped: it is a symbolic link",
		 user_file);
	ASSERT_CONTAINS(out, want);
	assert_line(out, "arch", "# default");
	free(out);
	/* Setting through it changes nothing. */
	EXPECT(NULL, 1, "symbolic link", "config", "set", "arch", "gfx900");
	ASSERT(read_back("arch", ""));
}
