/*
 * test_escape.c - text from outside is escaped everywhere the library hands text out
 * (src/base/text.c, error.c): what a server answers, a URL someone wrote, a compiler's
 * output.  No control character, bidirectional override or byte that is not UTF-8
 * reaches a terminal, a log hook or rocjit_last_error raw, and no embedded newline forges
 * a line of rocjit's.  Also: a node whose remote tier checks no signature says so, once.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/text.h"
#include "harness.h"
#include "remote_nodes.h"

/* ---- What a log hook received ------------------------------------------------------- */

struct lines {
	pthread_mutex_t mu;
	int n;
	char text[64][1024];
};

static struct lines got = { PTHREAD_MUTEX_INITIALIZER, 0, { { 0 } } };

static void record(void *user, int level, const char *message)
{
	struct lines *l = user;

	(void)level;
	pthread_mutex_lock(&l->mu);
	if (l->n < 64)
		snprintf(l->text[l->n++], sizeof l->text[0], "%s", message);
	pthread_mutex_unlock(&l->mu);
}

/* Whether s is valid UTF-8 holding no character that must be escaped. */
static int clean(const char *s, int lines)
{
	size_t n = strlen(s), i = 0;

	while (i < n) {
		uint32_t c;
		size_t len = rj_utf8_char(s + i, n - i, &c);
		if (!len || (rj_unsafe_char(c) && !(lines && c == '\n')))
			return 0;
		i += len;
	}
	return 1;
}

static int got_has(const char *needle)
{
	for (int i = 0; i < got.n; i++)
		if (strstr(got.text[i], needle))
			return 1;
	return 0;
}


/* Every line of text starts with "rocjit: " or "  | " (a quoted line), and only real
 * rocjit lines name what the hostile text tried to forge at their start. */
static void assert_lines_are_rocjits(const char *text)
{
	const char *p = text;

	ASSERT(clean(text, 1));
	while (*p) {
		const char *nl = strchr(p, '\n');
		ASSERT(strncmp(p, "rocjit: ", 8) == 0 || strncmp(p, "  | ", 4) == 0);
		ASSERT(strncmp(p, "rocjit: warning: forged", 23) != 0);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/* ---- The escaping itself ------------------------------------------------------------ */

TEST(escaping_shows_every_unsafe_byte_and_keeps_text)
{
	static const char in[] = "ok \x1b[2J bell\x07 \xff\xfe nl\n cr\r tab\t "
				 "\xe2\x80\xae" /* U+202E */ " \xc2\x9b" /* CSI */
				 " caf\xc3\xa9 \xe6\xbc\xa2 back\\slash";
	char out[RJ_TEXT_MAX(sizeof in)], again[RJ_TEXT_MAX(sizeof out)];
	size_t n = rj_text_escape(out, sizeof out, in, sizeof in - 1, 0);

	ASSERT_STR(out, "ok \\x1b[2J bell\\x07 \\xff\\xfe nl\\n cr\\r tab\\t \\u202e \\u009b "
			"caf\xc3\xa9 \xe6\xbc\xa2 back\\slash");
	ASSERT_INT((int)n, (int)strlen(out));
	/* Escaped text is left as it is: escaping twice shows the same. */
	rj_text_escape(again, sizeof again, out, n, 0);
	ASSERT_STR(again, out);
	/* Lines kept when asked, every other control escaped all the same. */
	rj_text_escape(out, sizeof out, "a\nb\tc\rd", 7, RJ_TEXT_LINES);
	ASSERT_STR(out, "a\nb\tc\\rd");
	/* Cut whole: never half an escape nor half a character. */
	rj_text_escape(out, 6, "ab\x1b" "cd", 5, 0);
	ASSERT_STR(out, "ab");
	rj_text_escape(out, 4, "a\xc3\xa9z", 4, 0);
	ASSERT_STR(out, "a\xc3\xa9");
	rj_text_escape(out, 3, "a\xc3\xa9z", 4, 0);
	ASSERT_STR(out, "a");
}

/*
 * A message quoting a URL someone wrote (rocjit_open's error) and a warning quoting an
 * environment value: rocjit_last_error and the hook get them escaped, on one line.
 */
TEST(errors_and_warnings_quoting_outside_text_are_escaped)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;
	char path[4200], *err;
	int saved;

	o.cache_dir = rj_test_cache_dir;
	o.remote = "redis://\x1b]0;owned\x07host\nrocjit: warning: forged:1/\xff";
	ASSERT(rocjit_open(&ctx, &o) < 0);
	ASSERT(clean(rocjit_last_error(), 0));
	ASSERT_CONTAINS(rocjit_last_error(), "\\x1b]0;owned\\x07host\\nrocjit: warning: forged");

	/* A warning quoting the environment, to the hook and to stderr. */
	setenv("ROCJIT_TEST_SWITCH", "\x1b[31mred\nrocjit: warning: forged line", 1);
	rocjit_set_log_callback(record, &got);
	ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 0);
	rocjit_set_log_callback(NULL, NULL);
	ASSERT_INT(got.n, 1);
	ASSERT(clean(got.text[0], 0));
	ASSERT_CONTAINS(got.text[0], "\\x1b[31mred\\nrocjit: warning: forged line");

	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	setenv("ROCJIT_TEST_OTHER_SWITCH", "\xe2\x80\xae\x1b[8m\nrocjit: warning: forged", 1);
	saved = rj_test_stderr_capture(path);
	ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_OTHER_SWITCH"), 0);
	err = rj_test_stderr_restore(saved, path);
	assert_lines_are_rocjits(err);
	ASSERT_CONTAINS(err, "\\u202e\\x1b[8m\\nrocjit: warning: forged");
	ASSERT(strchr(err, '\n') == err + strlen(err) - 1); /* one line */
	free(err);
}

/* ---- A hostile server ---------------------------------------------------------------- */

/* Answers every command on 127.0.0.1 with one error reply holding what no terminal or
 * log should get raw, until stopped. */
struct hostile {
	int listen_fd, stop[2];
	int port;
	pthread_t thread;
};

static const char evil_reply[] = "-LOADING \x1b]0;owned\x07 \x1b[2J \xff\xfe \xe2\x80\xae"
				 "\nrocjit: warning: forged by the server\r\n";

static void *hostile_serve(void *arg)
{
	struct hostile *h = arg;

	for (;;) {
		struct pollfd p[2] = { { h->listen_fd, POLLIN, 0 }, { h->stop[0], POLLIN, 0 } };
		char buf[4096];
		int fd;

		if (poll(p, 2, -1) < 0 || (p[1].revents & (POLLIN | POLLHUP)))
			return NULL;
		if ((fd = accept(h->listen_fd, NULL, NULL)) < 0)
			continue;
		while (read(fd, buf, sizeof buf) > 0)
			if (send(fd, evil_reply, sizeof evil_reply - 1, MSG_NOSIGNAL) < 0)
				break;
		close(fd);
	}
}

static void hostile_start(struct hostile *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	h->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT(h->listen_fd >= 0);
	ASSERT(bind(h->listen_fd, (struct sockaddr *)&a, sizeof a) == 0);
	ASSERT(listen(h->listen_fd, 8) == 0);
	ASSERT(getsockname(h->listen_fd, (struct sockaddr *)&a, &len) == 0);
	h->port = ntohs(a.sin_port);
	ASSERT(pipe(h->stop) == 0);
	ASSERT(pthread_create(&h->thread, NULL, hostile_serve, h) == 0);
}

static void hostile_stop(struct hostile *h)
{
	close(h->stop[1]);
	pthread_join(h->thread, NULL);
	close(h->stop[0]);
	close(h->listen_fd);
}

/* Opens a context on the hostile server (no signature asked: the warning of an unsigned
 * fleet is another test's) and compiles axpy for gfx90a through it. */
static void compile_through(struct hostile *h)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_ctx *ctx;
	char url[128];

	snprintf(url, sizeof url, "redis://127.0.0.1:%d?timeout=2000", h->port);
	o.cache_dir = rj_test_cache_dir;
	o.remote = url;
	o.require_signed = ROCJIT_REQUIRE_SIGNED_NONE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	p.source = rj_test_axpy;
	p.name = "axpy.hip";
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0); /* the server cannot fail it */
	rocjit_close(ctx);
}

/*
 * The server's error text (terminal escapes, an OSC title, invalid UTF-8, a bidi override
 * and a newline followed by a forged rocjit line) reaches the hook as one escaped line,
 * and stderr as lines that are all rocjit's own.
 */
TEST(server_error_text_reaches_hook_and_stderr_escaped)
{
	struct hostile h;
	char path[4200], *err;
	int saved;

	hostile_start(&h);
	rocjit_set_log_callback(record, &got);
	compile_through(&h);
	rocjit_set_log_callback(NULL, NULL);
	ASSERT(got.n >= 1);
	for (int i = 0; i < got.n; i++) {
		ASSERT(clean(got.text[i], 0));
		ASSERT(strncmp(got.text[i], "rocjit", 6) != 0);
	}
	ASSERT(got_has("LOADING \\x1b]0;owned\\x07 \\x1b[2J \\xff\\xfe \\u202e\\nrocjit: "
		       "warning: forged by the server"));

	/* Without a hook: stderr, in a fresh cache (the first one has the kernel). */
	snprintf(rj_test_cache_dir, sizeof rj_test_cache_dir, "%s/cache2", rj_test_dir);
	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	saved = rj_test_stderr_capture(path);
	compile_through(&h);
	err = rj_test_stderr_restore(saved, path);
	assert_lines_are_rocjits(err);
	ASSERT_CONTAINS(err, "\\nrocjit: warning: forged by the server");
	free(err);
	hostile_stop(&h);
}

/*
 * A compiler's output (here a #warning naming escapes and a forged line, and a kernel
 * file name holding a newline) at ROCJIT_LOG=info: each of its lines is quoted ("  | "),
 * escaped, and none passes for rocjit's.
 */
TEST(compiler_output_is_quoted_line_by_line)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_ctx *ctx;
	char path[4200], *err;
	int saved;

	setenv("ROCJIT_LOG", "info", 1);
	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	p.source = "#warning \"\x1b[2J wiped\"\n"
		   "extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n";
	p.name = "evil\nrocjit: warning: forged.hip";
	ctx = rj_test_open();
	saved = rj_test_stderr_capture(path);
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	err = rj_test_stderr_restore(saved, path);
	rocjit_close(ctx);
	assert_lines_are_rocjits(err);
	ASSERT_CONTAINS(err, "compiler said for evil\\nrocjit: warning: forged.hip:");
	ASSERT_CONTAINS(err, "\n  | ");
	ASSERT_CONTAINS(err, "[2J wiped"); /* the compiler shows ESC its own way (<U+001B>) */
	/* The compiler names the source as it was given (a #line: its newline a '?'). */
	ASSERT_CONTAINS(err, "\n  | evil?rocjit: warning: forged.hip:1:2: warning:");
	free(err);

	/* The hook: the same lines, one call each. */
	ctx = rj_test_open();
	rocjit_set_log_callback(record, &got);
	p.source = "#warning \"\x1b[2J again\"\n"
		   "extern \"C\" __global__ void k(int *x) { x[0] = 2; }\n";
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	rocjit_set_log_callback(NULL, NULL);
	rocjit_close(ctx);
	for (int i = 0; i < got.n; i++)
		ASSERT(clean(got.text[i], 0));
	ASSERT(got_has("  | "));
	ASSERT(got_has("[2J again"));
}

/* ---- An unsigned fleet says so ------------------------------------------------------- */

static struct rj_redis_server server;
static char url[128];
static int variant, consumers; /* set before each fork: a consumer's caches are new */

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* A node that compiles and puts variant `variant` (signed when ROCJIT_SIGNING_KEY is). */
static int producer(int unused)
{
	rocjit_ctx *ctx = rj_node_open("producer", url);
	const rocjit_code *c = NULL;

	(void)unused;
	RJ_CHILD_CHECK(rj_test_try_variant(&c, ctx, "gfx90a", "RJ_ESCAPE_VARIANT", variant) == 0);
	RJ_CHILD_CHECK(!c->from_cache);
	rocjit_close(ctx);
	return 0;
}

/* Two contexts of one process, each on a fresh cache, each served the value from the
 * server; require: rocjit_options.require_signed. */
static int consumer(int require)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	char name[32];

	o.require_signed = require;
	for (int i = 0; i < 2; i++) {
		const rocjit_code *c = NULL;
		rocjit_ctx *ctx;

		snprintf(name, sizeof name, "consumer%d-%d", consumers, i);
		ctx = rj_node_open_with(name, url, &o);
		RJ_CHILD_CHECK(rj_test_try_variant(&c, ctx, "gfx90a", "RJ_ESCAPE_VARIANT", variant) == 0);
		RJ_CHILD_CHECK(rj_test_stats(ctx).remote_hits == 1);
		rocjit_close(ctx);
	}
	return 0;
}

static int warnings(int require, const char *what)
{
	char *err;
	int n;

	consumers++;
	ASSERT_INT(rj_node_process(consumer, require, "consumer", &err), 0);
	n = count(err, what);
	free(err);
	return n;
}

/*
 * A node whose remote tier serves code checked against no trusted key warns once per
 * process at its first such hit, naming the server and what to do; a second context of
 * the process does not warn again.  ROCJIT_REQUIRE_SIGNED=none (environment or options)
 * says an unsigned fleet is meant: no warning.  A value signed by a trusted key: none.
 */
TEST(unsigned_fleet_warns_once_per_process)
{
	static const char what[] = "no trusted key (ROCJIT_TRUSTED_KEYS), so its code is run "
				   "unchecked";
	char *err, line[128], keyfile[4300], shown[256];

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	variant = 1;
	ASSERT_INT(rj_node_process(producer, 0, "producer", &err), 0);
	ASSERT_INT(count(err, what), 0); /* it compiled: nothing ran from the server */
	free(err);

	consumers++;
	ASSERT_INT(rj_node_process(consumer, ROCJIT_REQUIRE_SIGNED_DEFAULT, "consumer", &err), 0);
	ASSERT_INT(count(err, what), 1);
	snprintf(shown, sizeof shown, "rocjit: warning: remote cache %s: %s", url, what);
	ASSERT_CONTAINS(err, shown);
	ASSERT_CONTAINS(err, "ROCJIT_SIGNING_KEY");
	ASSERT_CONTAINS(err, "ROCJIT_REQUIRE_SIGNED=none");
	free(err);

	ASSERT_INT(warnings(ROCJIT_REQUIRE_SIGNED_NONE, what), 0);
	setenv("ROCJIT_REQUIRE_SIGNED", "none", 1);
	ASSERT_INT(warnings(ROCJIT_REQUIRE_SIGNED_DEFAULT, what), 0);
	unsetenv("ROCJIT_REQUIRE_SIGNED");

	/* A signed fleet: the producer signs, the consumer trusts its key. */
	ASSERT_INT(rocjit_keygen("fleet", rj_test_dir, line, sizeof line), 0);
	snprintf(keyfile, sizeof keyfile, "%s/fleet.secret", rj_test_dir);
	setenv("ROCJIT_SIGNING_KEY", keyfile, 1);
	variant = 2;
	ASSERT_INT(rj_node_process(producer, 0, "producer", &err), 0);
	free(err);
	unsetenv("ROCJIT_SIGNING_KEY");
	setenv("ROCJIT_TRUSTED_KEYS", line, 1);
	ASSERT_INT(warnings(ROCJIT_REQUIRE_SIGNED_DEFAULT, what), 0);
	rj_redis_stop(&server);
}
