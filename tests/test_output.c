/*
 * test_output.c - what the rocjit tool prints from stored fields (issue 11, class 6).
 *
 * A cache or bundle file is data anyone can craft: its names, options, targets and
 * compiler ids may hold terminal escape sequences and bytes that are not UTF-8.  These
 * tests craft such rows with SQLite directly, run every command that prints them (text
 * and --json, on the cache folder and on the file named as the cache, read-only), and
 * check every byte of the output: text holds no control character but its line breaks
 * and only valid UTF-8; JSON parses (python3, strict UTF-8) and holds no raw byte that
 * is not UTF-8.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* Hostile field values: ESC sequences (title, clear, colour), BEL, CR, LF, TAB, DEL,
 * C1 CSI, a right-to-left override, and bytes that are not UTF-8 - a lone 0xff, a lead
 * byte without its continuation, an overlong NUL, a UTF-16 surrogate, and a sequence
 * cut short at the end of the string. */
static const char *const hostile[] = {
	"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\n\tafter-newline",
	"\xff\xfe bad \xc3\x28 overlong \xc0\x80 surrogate \xed\xa0\x80 cut \xe2\x82",
	"\xc2\x9b" "31m C1 \xe2\x80\xae RLO \x7f DEL \x01\x1f",
	"gfx90a\x1b[8m:hidden\xf4\x90\x80\x80 cut4 \xf0\x9f\x98",
};
static const char fine_utf8[] = "na\xc3\xafve-\xe2\x82\xac.hip"; /* valid: printed as is */

/* Runs the tool (--cache cache, then args); stdout and stderr into *out and *err. */
static int run(const char *cache, char **out, size_t *out_len, char **err, const char *const *args)
{
	const char *argv[32];
	char opath[4200], epath[4200];
	int n = 0, status;
	pid_t pid;

	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = cache;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	snprintf(opath, sizeof opath, "%.4000s/stdout", rj_test_dir);
	snprintf(epath, sizeof epath, "%.4000s/stderr", rj_test_dir);
	pid = fork();
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(o, 1);
		dup2(e, 2);
		rj_test_exec(argv, NULL);
	}
	waitpid(pid, &status, 0);
	*out = rj_test_read_file(opath, out_len);
	*err = rj_test_read_file(epath, NULL);
	printf("$ rocjit --cache %s", cache);
	for (int i = 3; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("   (exit %d, %zu bytes out)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       *out_len);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The length of a valid UTF-8 character at s (shortest form, no surrogate), else 0.
 * Written apart from the tool's own decoder, on purpose. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
					: (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t c = len == 1 ? s[0] : len == 2 ? s[0] & 0x1fu : len == 3 ? s[0] & 0x0fu : s[0] & 7u;
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Text safe for a terminal: valid UTF-8, no control character but newlines, no C1, no
 * bidirectional override. */
static void assert_safe_text(const char *what, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0; i < n;) {
		uint32_t c = 0;
		size_t len = utf8_len(s + i, n - i, &c);
		if (!len)
			rj_test_fail(__FILE__, __LINE__, "%s: byte 0x%02x at %zu is not UTF-8:\n%s",
				     what, s[i], i, text);
		if ((c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f) || c == 0x202e)
			rj_test_fail(__FILE__, __LINE__, "%s: raw U+%04X at %zu:\n%s", what,
				     (unsigned)c, i, text);
		i += len;
	}
}

/* JSON that a strict parser reads as UTF-8 (python3: json.loads of a strict decode). */
static void assert_json(const char *what, const char *text, size_t n)
{
	char path[4200];
	const char *check[] = { "/usr/bin/python3", "-c",
			  "import json,sys; json.loads(open(sys.argv[1], 'rb').read()"
				  ".decode('utf-8', 'strict'))",
			  path, NULL };
	char *out;

	assert_safe_text(what, text, n); /* JSON escapes every control character too */
	snprintf(path, sizeof path, "%.4000s/doc.json", rj_test_dir);
	rj_test_write_file(path, text, n);
	if (rj_test_run(check, NULL, &out) != 0)
		rj_test_fail(__FILE__, __LINE__, "%s: not strict UTF-8 JSON: %s\n%s", what, out,
			     text);
	free(out);
}

static void set_field(sqlite3 *db, const char *column, const char *value, const char *key)
{
	char sql[256];
	sqlite3_stmt *st;

	snprintf(sql, sizeof sql, "UPDATE entries SET %s = ?1 WHERE hex(key) = upper(?2)", column);
	ASSERT_INT(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, value, (int)strlen(value), SQLITE_STATIC); /* bytes as they are */
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	ASSERT_INT(sqlite3_step(st), SQLITE_DONE);
	ASSERT_INT(sqlite3_changes(db), 1);
	sqlite3_finalize(st);
}

struct keys {
	int n;
	char key[8][33];
};

static int add_key(const rocjit_entry *e, void *user)
{
	struct keys *k = user;
	if (k->n < 8)
		memcpy(k->key[k->n++], e->key, 33);
	return 0;
}

/*
 * A real cache with four entries whose stored fields are each hostile value (one per
 * entry, rotating through the fields), and a fifth with a valid UTF-8 name.  Returns the
 * keys in key order.
 */
static struct keys craft(void)
{
	static const char *const fields[] = { "source_name", "kernels", "headers", "options",
					      "compiler", "target" };
	rocjit_ctx *ctx = rj_test_open();
	struct keys k = { 0 };
	char path[4300];
	sqlite3 *db;

	for (int i = 0; i < 5; i++)
		rj_test_compile_variant(ctx, "gfx90a", "RJ_CRAFT", i);
	ASSERT_INT(rocjit_cache_foreach(ctx, add_key, &k), 0);
	rocjit_close(ctx);
	ASSERT_INT(k.n, 5);
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t e = 0; e < 4; e++)
		for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
			set_field(db, fields[f], hostile[(e + f) % 4], k.key[e]);
	set_field(db, "source_name", fine_utf8, k.key[4]);
	sqlite3_close(db);
	chmod(path, 0600);
	return k;
}

/* Every command that prints stored fields, on one way of naming the cache. */
static void check_every_command(const char *cache, const struct keys *k)
{
	static const char *const text_cmds[][4] = {
		{ "ls", NULL }, { "ls", "--sort", "target", NULL }, { "verify", NULL },
		{ "stats", NULL }, { "purge", "--all", "--dry-run", NULL },
	};
	static const char *const json_cmds[][5] = {
		{ "ls", "--json", NULL }, { "verify", "--json", NULL }, { "stats", "--json", NULL },
		{ "purge", "--all", "--dry-run", "--json", NULL },
	};
	char *out, *err;
	size_t n;

	for (size_t i = 0; i < sizeof text_cmds / sizeof text_cmds[0]; i++) {
		run(cache, &out, &n, &err, text_cmds[i]);
		assert_safe_text(text_cmds[i][0], out, n);
		assert_safe_text("stderr", err, strlen(err));
		if (!strcmp(text_cmds[i][0], "ls")) {
			ASSERT_CONTAINS(out, "\\x1b]0;pwned\\x07\\x1b[2J"); /* shown, not obeyed */
			ASSERT_CONTAINS(out, "\\xff\\xfe bad \\xc3(");
			ASSERT_CONTAINS(out, "\\u009b31m C1 \\u202e RLO \\x7f DEL");
			ASSERT_CONTAINS(out, fine_utf8);
		}
		free(out);
		free(err);
	}
	for (size_t i = 0; i < sizeof json_cmds / sizeof json_cmds[0]; i++) {
		run(cache, &out, &n, &err, json_cmds[i]);
		assert_json(json_cmds[i][0], out, n);
		assert_safe_text("stderr", err, strlen(err));
		if (!strcmp(json_cmds[i][0], "ls")) {
			ASSERT_CONTAINS(out, "\\u001b]0;pwned\\u0007");
			ASSERT_CONTAINS(out, "\\ufffd");
			ASSERT_CONTAINS(out, fine_utf8);
		}
		free(out);
		free(err);
	}
	for (int e = 0; e < k->n; e++) {
		const char *show[] = { "show", k->key[e], NULL };
		const char *show_json[] = { "show", k->key[e], "--json", NULL };
		run(cache, &out, &n, &err, show);
		assert_safe_text("show", out, n);
		assert_safe_text("stderr", err, strlen(err));
		free(out);
		free(err);
		run(cache, &out, &n, &err, show_json);
		assert_json("show --json", out, n);
		free(out);
		free(err);
	}
}

TEST(hostile_stored_fields_are_escaped_in_every_command_on_a_cache_folder)
{
	struct keys k = craft();

	check_every_command(rj_test_cache_dir, &k);
}

TEST(hostile_stored_fields_are_escaped_in_every_command_on_a_cache_file)
{
	struct keys k = craft();
	char file[4300];

	/* A file named as the cache is read as a bundle is: read-only, immutable. */
	snprintf(file, sizeof file, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	check_every_command(file, &k);
}

TEST(hostile_file_names_are_escaped_in_prewarm_and_compile_output)
{
	static const char bad[] = "extern \"C\" __global__ void k(float *y) { y[0] = nope; }\n";
	char dir[4200], path[4300], *out, *err;
	size_t n;

	snprintf(dir, sizeof dir, "%.4000s/src", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/evil\x1b]0;title\x07\x1b[2J\xff.hip", dir);
	rj_test_write_file(path, bad, sizeof bad - 1);
	{
		const char *args[] = { "prewarm", dir, "--arch", "gfx90a", NULL };
		ASSERT_INT(run(rj_test_cache_dir, &out, &n, &err, args), 1);
		assert_safe_text("prewarm", out, n);
		assert_safe_text("prewarm stderr", err, strlen(err)); /* progress lines */
		ASSERT_CONTAINS(out, "FAILED evil\\x1b]0;title\\x07\\x1b[2J\\xff.hip");
		free(out);
		free(err);
	}
	{
		const char *args[] = { "prewarm", dir, "--arch", "gfx90a", "--json", NULL };
		run(rj_test_cache_dir, &out, &n, &err, args);
		assert_json("prewarm --json", out, n);
		free(out);
		free(err);
	}
	{
		const char *args[] = { "compile", path, "--arch", "gfx90a", NULL };
		ASSERT_INT(run(rj_test_cache_dir, &out, &n, &err, args), 1);
		assert_safe_text("compile", out, n);
		assert_safe_text("compile stderr", err, strlen(err)); /* the compiler's log */
		free(out);
		free(err);
	}
}
