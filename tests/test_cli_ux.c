/*
 * test_cli_ux.c - the rocjit tool as a user at a terminal meets it (issue 31): "did you
 * mean" for mistyped commands and options, global options after the command, --quiet,
 * -o to a device or a bad path, one warning per code object without kernels, a progress
 * bar that no message is written over (run under a real pseudo-terminal), the man page
 * and the bash completion (run in a real bash).  Every run is the built binary, a real
 * process, on a real cache in the test's folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "harness.h"

#define MAX_ARGS 48

/* Runs the tool with args (NULL-terminated) and extra environment entries; stdout and
 * stderr together into *out (may be NULL).  No --cache is added: tests give it where
 * they mean it. */
static int tool_env(const char *const env[], char **out, ...)
{
	const char *argv[MAX_ARGS];
	char *output = NULL;
	va_list ap;
	int n = 0, rc;

	argv[n++] = ROCJIT_TEST_CLI;
	va_start(ap, out);
	while ((argv[n] = va_arg(ap, const char *)) && n < MAX_ARGS - 1)
		n++;
	va_end(ap);
	argv[n] = NULL;
	rc = rj_test_run(argv, env, &output);
	printf("$ rocjit");
	for (int i = 1; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n%s(exit %d)\n", output, rc);
	fflush(stdout);
	if (out)
		*out = output;
	else
		free(output);
	return rc;
}

#define tool(out, ...) tool_env(NULL, out, __VA_ARGS__)

/* How many times needle occurs in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static const char tmpl_only[] = "template <unsigned B> __global__ void tk(float *y) { y[0] = B; }\n";

/* dir/name with text; the path into out. */
static void put(char *out, size_t size, const char *dir, const char *name, const char *text)
{
	ASSERT((size_t)snprintf(out, size, "%s/%s", dir, name) < size);
	mkdir(dir, 0700);
	rj_test_write_file(out, text, strlen(text));
}

/* Whether the test's cache folder holds a database (something ran against it). */
static int cache_exists(void)
{
	char db[4300];
	struct stat st;

	snprintf(db, sizeof db, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	return stat(db, &st) == 0;
}

TEST(a_mistyped_command_or_option_gets_the_nearest_names)
{
	static const struct {
		const char *typed, *want;
	} commands[] = {
		{ "statz", "did you mean 'stats'?" },     /* a letter changed */
		{ "prewram", "did you mean 'prewarm'?" }, /* two swapped */
		{ "compil", "did you mean 'compile'?" },  /* a prefix */
		{ "lsit", "did you mean 'list'?" },        /* two swapped, short name */
		{ "verifyy", "did you mean 'verify'?" },  /* one added */
		{ "pu", "did you mean 'purge' or 'push'?" },
		{ "exprot", "did you mean 'export'?" },
	};
	char *out;

	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		ASSERT_INT(tool(&out, commands[i].typed, NULL), 2);
		ASSERT_CONTAINS(out, "is not a rocjit command");
		ASSERT_CONTAINS(out, commands[i].want);
		free(out);
	}
	/* `rocjit help TYPO` too. */
	ASSERT_INT(tool(&out, "help", "statz", NULL), 2);
	ASSERT_CONTAINS(out, "did you mean 'stats'?");
	free(out);
	/* Nothing near: no suggestion. */
	ASSERT_INT(tool(&out, "xyzzyq", NULL), 2);
	ASSERT(!strstr(out, "did you mean"));
	free(out);
	/* Options: a command's own, and the global ones before the command. */
	ASSERT_INT(tool(&out, "list", "--jsno", NULL), 2);
	ASSERT_CONTAINS(out, "unknown option --jsno; did you mean --json?");
	free(out);
	ASSERT_INT(tool(&out, "compile", "x.hip", "--arhc", "gfx90a", NULL), 2);
	ASSERT_CONTAINS(out, "did you mean --arch?");
	free(out);
	ASSERT_INT(tool(&out, "--cahce", rj_test_cache_dir, "stats", NULL), 2);
	ASSERT_CONTAINS(out, "did you mean --cache?");
	free(out);
	ASSERT_INT(tool(&out, "--verison", NULL), 2);
	ASSERT_CONTAINS(out, "did you mean --version?");
	free(out);
	/* A command's option before the command: where it goes. */
	ASSERT_INT(tool(&out, "--json", "stats", NULL), 2);
	ASSERT_CONTAINS(out, "options go after it: rocjit COMMAND --json");
	free(out);
	ASSERT(!cache_exists());
}

TEST(global_options_after_the_command_work_as_before_it)
{
	char arg[4300], *before, *after, *out;

	/* The same cache either way, in each form. */
	ASSERT_INT(tool(&before, "--cache", rj_test_cache_dir, "stats", "--json", NULL), 0);
	ASSERT_INT(tool(&after, "stats", "--json", "--cache", rj_test_cache_dir, NULL), 0);
	ASSERT_STR(after, before);
	ASSERT_CONTAINS(after, rj_test_cache_dir);
	free(after);
	snprintf(arg, sizeof arg, "--cache=%s", rj_test_cache_dir);
	ASSERT_INT(tool(&after, "stats", arg, "--json", NULL), 0);
	ASSERT_STR(after, before);
	free(after);
	free(before);
	/* import and list too (import has no option of its own). */
	ASSERT_INT(tool(&out, "list", "--cache", rj_test_cache_dir, NULL), 0);
	ASSERT_CONTAINS(out, rj_test_cache_dir);
	free(out);
	ASSERT_INT(tool(&out, "import", "/nonexistent.rocjit", "--cache", rj_test_cache_dir,
			NULL), 1);
	ASSERT(!strstr(out, "unknown option"));
	free(out);
	/* A value still required; a password on the command line still refused. */
	ASSERT_INT(tool(&out, "stats", "--cache", NULL), 2);
	ASSERT_CONTAINS(out, "--cache needs a folder");
	free(out);
	ASSERT_INT(tool(&out, "stats", "--remote", "redis://u:secret@h:1", NULL), 2);
	ASSERT_CONTAINS(out, "ROCJIT_REMOTE_PASSWORD_FILE");
	free(out);
	/* After "--" it is a compiler option, not the tool's: the compile sees it. */
	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "the compile after \"--\"");
	{
		char src[4300], other[4300];
		put(src, sizeof src, rj_test_dir, "axpy.hip", rj_test_axpy);
		snprintf(other, sizeof other, "%s/other", rj_test_dir);
		tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a", "--",
		     "--cache", other, NULL);
		ASSERT(access(other, F_OK) != 0); /* never used as a cache */
		free(out);
	}
}

TEST(quiet_prints_nothing_on_success_and_still_says_what_failed)
{
	char src[4300], bad[4300], *out;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "--quiet compiles");
	put(src, sizeof src, rj_test_dir, "axpy.hip", rj_test_axpy);
	ASSERT_INT(tool(&out, "--quiet", "--cache", rj_test_cache_dir, "compile", src, "--arch",
			"gfx90a", NULL), 0);
	ASSERT_STR(out, "");
	free(out);
	/* prewarm (a bar or lines otherwise) and -q after the command. */
	ASSERT_INT(tool(&out, "prewarm", src, "--arch", "gfx90a,gfx1030", "-q", "--cache",
			rj_test_cache_dir, NULL), 0);
	ASSERT_STR(out, "");
	free(out);
	ASSERT_INT(tool(&out, "-q", "--cache", rj_test_cache_dir, "verify", NULL), 0);
	ASSERT_STR(out, "");
	free(out);
	/* What a command is asked for is still printed. */
	ASSERT_INT(tool(&out, "-q", "--cache", rj_test_cache_dir, "list", NULL), 0);
	ASSERT_CONTAINS(out, "gfx1030");
	free(out);
	/* Warnings stay (on stderr), failures too. */
	put(bad, sizeof bad, rj_test_dir, "tmpl.hip", tmpl_only);
	ASSERT_INT(tool(&out, "-q", "--cache", rj_test_cache_dir, "compile", bad, "--arch",
			"gfx90a", NULL), 0);
	ASSERT_INT(count(out, "0 kernels"), 1);
	ASSERT_CONTAINS(out, "warning: ");
	free(out);
	put(bad, sizeof bad, rj_test_dir, "bad.hip", "__global__ void k() { undeclared(); }\n");
	ASSERT_INT(tool(&out, "-q", "--cache", rj_test_cache_dir, "compile", bad, "--arch",
			"gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "undeclared");
	ASSERT_CONTAINS(out, "did not compile");
	free(out);
}

TEST(output_to_a_device_or_a_pipe_is_taken)
{
	char src[4300], *out;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "-o to devices");
	put(src, sizeof src, rj_test_dir, "axpy.hip", rj_test_axpy);
	char key[16];

	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", "/dev/null", NULL), 0);
	ASSERT_CONTAINS(out, "[key ");
	ASSERT(!strstr(out, "cannot write"));
	snprintf(key, sizeof key, "%.12s", strstr(out, "[key ") + 5);
	free(out);
	/* /dev/stdout is taken as descriptor 1; here standard output is a pipe. */
	ASSERT_INT(tool(&out, "-q", "--cache", rj_test_cache_dir, "compile", src, "--arch",
			"gfx90a", "-o", "/dev/stdout", NULL), 0);
	ASSERT(memcmp(out, "\177ELF", 4) == 0);
	free(out);
	/* The other aliases of this process's descriptors: taken as the descriptors. */
	{
		static const char *const aliases[] = { "/dev/fd/1", "/proc/self/fd/1",
						       "/dev/stderr" };
		for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
			ASSERT_INT(tool(&out, "-q", "--cache", rj_test_cache_dir, "compile", src,
					"--arch", "gfx90a", "-o", aliases[i], NULL), 0);
			ASSERT(memcmp(out, "\177ELF", 4) == 0);
			free(out);
		}
	}
	/* A descriptor not open, or open for reading only, is no output. */
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", "/dev/fd/47", NULL), 1);
	ASSERT_CONTAINS(out, "not open for writing");
	free(out);
	/* show --extract takes the same outputs. */
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "show", key, "--extract",
			"/dev/null", NULL), 0);
	ASSERT(!strstr(out, "cannot write"));
	free(out);
}

TEST(a_bad_output_path_fails_before_any_compile)
{
	char src[4300], folder[4300], missing[4300], kept[4300], made[4300], link[4300];
	char *out, *text;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "-o checks");
	put(src, sizeof src, rj_test_dir, "axpy.hip", rj_test_axpy);
	snprintf(folder, sizeof folder, "%s/outdir", rj_test_dir);
	ASSERT_INT(mkdir(folder, 0700), 0);
	snprintf(missing, sizeof missing, "%s/nosuch/x.o", rj_test_dir);
	/* Each refused at once: the cache is never even opened, so nothing compiled. */
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", folder, NULL), 1);
	ASSERT_CONTAINS(out, "it is a folder");
	free(out);
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", missing, NULL), 1);
	ASSERT_CONTAINS(out, "its folder does not exist");
	free(out);
	/* A link planted where the output goes (not root's) is still refused. */
	snprintf(link, sizeof link, "%s/planted.o", rj_test_dir);
	snprintf(kept, sizeof kept, "%s/victim", rj_test_dir);
	rj_test_write_file(kept, "victim", 6);
	ASSERT_INT(symlink(kept, link), 0);
	/* Planted by another user: as root, the link is given to nobody. */
	if (geteuid() == 0)
		ASSERT_INT(lchown(link, 65534, 65534), 0);
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", link, NULL), 1);
	ASSERT_CONTAINS(out, "symbolic link");
	free(out);
	/* Nor is any other link, root's included (only the descriptor aliases are taken),
	   nor a chain ending in a planted one: nothing is followed by name. */
	{
		char root_link[4300], chain[4300];
		snprintf(root_link, sizeof root_link, "%s/mine.o", rj_test_dir);
		snprintf(chain, sizeof chain, "%s/chain.o", rj_test_dir);
		ASSERT_INT(symlink(kept, root_link), 0);
		ASSERT_INT(symlink(link, chain), 0);
		ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch",
				"gfx90a", "-o", root_link, NULL), 1);
		ASSERT_CONTAINS(out, "it is a symbolic link, never followed for output");
		ASSERT_CONTAINS(out, "/dev/stdout, /dev/stderr and /dev/fd/N are taken");
		free(out);
		ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch",
				"gfx90a", "-o", chain, NULL), 1);
		ASSERT_CONTAINS(out, "symbolic link");
		free(out);
	}
	/* export: an existing path or a missing folder, before prewarming. */
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "export", "-o", "/dev/null", src,
			"--arch", "gfx90a", NULL), 2);
	ASSERT_CONTAINS(out, "exists (a character device)");
	free(out);
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "export", "-o", missing, src,
			"--arch", "gfx90a", NULL), 1);
	ASSERT_CONTAINS(out, "does not exist");
	free(out);
	ASSERT(!cache_exists());
	text = rj_test_read_file(kept, NULL);
	ASSERT_STR(text, "victim");
	free(text);
	/* A compile that fails keeps an existing -o file as it was and leaves no new one. */
	put(src, sizeof src, rj_test_dir, "bad.hip", "__global__ void k() { undeclared(); }\n");
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", kept, NULL), 1);
	free(out);
	text = rj_test_read_file(kept, NULL);
	ASSERT_STR(text, "victim");
	free(text);
	snprintf(made, sizeof made, "%s/new.o", rj_test_dir);
	ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", src, "--arch", "gfx90a",
			"-o", made, NULL), 1);
	free(out);
	ASSERT(access(made, F_OK) != 0);
}

TEST(a_code_object_without_kernels_is_warned_of_once)
{
	char dir[4300], path[4300], *out;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "0-kernel warnings");
	snprintf(dir, sizeof dir, "%s/set", rj_test_dir);
	put(path, sizeof path, dir, "axpy.hip", rj_test_axpy);
	put(path, sizeof path, dir, "tmpl.hip", tmpl_only);
	/* compile: compiled now, then served from the cache. */
	for (int round = 0; round < 2; round++) {
		ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "compile", path, "--arch",
				"gfx90a", NULL), 0);
		ASSERT_INT(count(out, "holds 0 kernels"), 1);
		ASSERT_INT(count(out, "warning:"), 1);
		free(out);
	}
	/* prewarm a folder, two targets: one warning naming each code object, the remedy
	   said once; cached the same. */
	for (int round = 0; round < 2; round++) {
		ASSERT_INT(tool(&out, "--cache", rj_test_cache_dir, "prewarm", dir, "--arch",
				"gfx90a,gfx1030", "--no-progress", NULL), 0);
		ASSERT_INT(count(out, "warning:"), 1);
		ASSERT_INT(count(out, "2 code objects hold 0 kernels: "), 1);
		ASSERT_INT(count(out, "tmpl.hip (gfx90a)"), 1);
		ASSERT_INT(count(out, "tmpl.hip (gfx1030)"), 1);
		ASSERT_INT(count(out, "likely cause"), 1);
		free(out);
		rj_test_write_file(path, tmpl_only, sizeof tmpl_only - 1); /* same key */
	}
	/* The library's own warning, where the tool is not the client, still exists: an
	   application learns it through the log (not repeated by the tool above). */
}

/*
 * Runs argv on a pseudo-terminal (stdout and stderr both on it, 200 columns) with extra
 * environment entries; everything written into *out.  Returns the exit status.
 */
static int run_on_pty(const char *const argv[], const char *const env[], char **out)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 200 };
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd, status;
	pid_t pid;

	ASSERT(buf != NULL);
	pid = forkpty(&fd, NULL, NULL, &ws);
	ASSERT(pid >= 0);
	if (pid == 0)
		rj_test_exec(argv, env);
	for (;;) {
		ssize_t n;
		if (len + 4096 > cap)
			buf = realloc(buf, cap *= 2);
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) /* EIO: the child closed the terminal */
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	close(fd);
	waitpid(pid, &status, 0);
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(no_message_is_written_over_the_progress_bar)
{
	const char *env[] = { "ROCJIT_LOG=info", NULL };
	char dir[4300], path[4300], name[64], *out;
	const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "prewarm", dir,
			 "--arch", "gfx90a", "--jobs", "2", NULL };
	int messages = 0, over_bar = 0;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "prewarm on a terminal");
	snprintf(dir, sizeof dir, "%s/set", rj_test_dir);
	for (int i = 0; i < 6; i++) {
		char text[512];
		snprintf(name, sizeof name, "k%d.hip", i);
		snprintf(text, sizeof text, "extern \"C\" __global__ void k%d(float *y) "
			 "{ y[threadIdx.x] = %d; }\n", i, i);
		put(path, sizeof path, dir, name, text);
	}
	put(path, sizeof path, dir, "tmpl.hip", tmpl_only);
	ASSERT_INT(run_on_pty(argv, env, &out), 0);
	printf("%s\n", out);
	ASSERT_CONTAINS(out, "ETA"); /* the bar was drawn */
	/* Every message starts a line: after a newline, or after the bar was cleared
	   ("\r" and clear-to-end); never after text of the bar. */
	for (const char *p = strstr(out, "rocjit: "); p; p = strstr(p + 1, "rocjit: ")) {
		int at_line_start = p == out || p[-1] == '\n';
		int after_clear = p - out >= 4 && memcmp(p - 4, "\r\033[K", 4) == 0;
		messages++;
		over_bar += after_clear;
		if (!at_line_start && !after_clear)
			rj_test_fail(__FILE__, __LINE__, "a message written over the bar: \"%.80s\"",
				     p - 40 > out ? p - 40 : out);
	}
	/* The library's info lines came while the bar was shown, and the 0-kernel warning
	   came once. */
	ASSERT(messages > 6);
	ASSERT(over_bar > 0);
	ASSERT_INT(count(out, "holds 0 kernels"), 1);
	free(out);
}

TEST(every_command_has_help_and_the_man_page_holds_it)
{
	char *list, *line, *save = NULL, *man;
	int commands = 0;

	ASSERT_INT(tool(&list, "help", "--commands", NULL), 0);
	man = access(ROCJIT_TEST_MAN, R_OK) == 0 ? rj_test_read_file(ROCJIT_TEST_MAN, NULL)
						  : NULL;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64], heading[128], *a, *b;
		snprintf(name, sizeof name, "%.*s", (int)strcspn(line, ":"), line);
		if (!strcmp(name, "help"))
			continue;
		/* rocjit help NAME and rocjit NAME --help say the same. */
		ASSERT_INT(tool(&a, "help", name, NULL), 0);
		ASSERT_INT(tool(&b, name, "--help", NULL), 0);
		ASSERT_STR(a, b);
		ASSERT_CONTAINS(a, "usage: rocjit ");
		/* Each command (an alias under its command) has its section in the page. */
		snprintf(heading, sizeof heading, ".SS \"rocjit %s\"", name);
		if (man && strncmp(a + 14, name, strlen(name)) == 0)
			ASSERT_CONTAINS(man, heading);
		free(a);
		free(b);
		commands++;
	}
	ASSERT(commands >= 14);
	free(list);
	if (!man) {
		if (ROCJIT_TEST_HAVE_HELP2MAN)
			rj_test_fail(__FILE__, __LINE__, "the build has a man page target but "
				     "%s was not made", ROCJIT_TEST_MAN);
		rj_test_skip("help2man is not installed: no man page was built");
	}
	/* The page is --help: the global options and the text are there. */
	ASSERT_CONTAINS(man, "\\-\\-quiet");
	ASSERT_CONTAINS(man, ".SH COMMANDS");
	ASSERT_CONTAINS(man, ".SH SYNOPSIS");
	free(man);
}

/* COMPREPLY in a real bash with the completion script sourced, for the words given (the
 * last is the one being completed), run in dir. */
static char *complete(const char *dir, const char *words)
{
	char script[8192], *out;
	const char *argv[] = { "/bin/bash", "--norc", "--noprofile", "-c", script, NULL };

	snprintf(script, sizeof script,
		 "cd '%s' && PATH='%s':$PATH && source '%s' && COMP_WORDS=(%s) && "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _rocjit && "
		 "printf '%%s\\n' \"${COMPREPLY[@]}\" | sort | tr '\\n' ' '",
		 dir, ROCJIT_TEST_CLI_DIR, ROCJIT_TEST_BASH_COMPLETION, words);
	ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
	printf("complete %s -> [%s]\n", words, out);
	return out;
}

TEST(bash_completion_offers_commands_options_and_files)
{
	static const struct {
		const char *words, *want;
		int exact; /* else: each of want's words is offered, among others */
	} cases[] = {
		{ "rocjit pre", "prewarm ", 1 },
		{ "rocjit pu", "purge push ", 1 },
		{ "rocjit --cache /tmp/x st", "stats ", 1 }, /* after a global option */
		{ "rocjit --ca", "--cache ", 1 },
		{ "rocjit compile --n", "--name-expr --no-cache ", 1 },
		/* A command's options, and the global ones after the command too. */
		{ "rocjit stats --", "--json --zero --cache --quiet ", 0 },
		{ "rocjit compile ax", "axbz.cu axpy.hip ", 1 },        /* file arguments */
		{ "rocjit prewarm --manifest axp", "axpy.hip ", 1 },   /* an option's value */
		{ "rocjit help li", "list ", 1 },
	};
	char path[4300];

	if (access("/bin/bash", X_OK) != 0)
		rj_test_skip("no bash");
	put(path, sizeof path, rj_test_dir, "axpy.hip", rj_test_axpy);
	put(path, sizeof path, rj_test_dir, "axbz.cu", rj_test_axpy);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = complete(rj_test_dir, cases[i].words);
		if (cases[i].exact)
			ASSERT_STR(out, cases[i].want);
		else
			for (const char *w = cases[i].want; *w; w += strcspn(w, " ") + 1) {
				char one[64];
				snprintf(one, sizeof one, "%.*s ", (int)strcspn(w, " "), w);
				ASSERT_CONTAINS(out, one);
			}
		free(out);
	}
}

/*
 * The zsh script in a real zsh, with the completion system's functions it calls
 * (compadd, _describe, _files) standing in as functions that print what they are given:
 * what it offers for each line, one line per call.
 */
TEST(zsh_completion_offers_commands_options_and_files)
{
	static const struct {
		const char *words, *want;
		int current;
	} cases[] = {
		{ "rocjit pre", "describe prewarm:compile kernels", 2 },
		{ "rocjit --cache d st", "describe prewarm:", 4 },
		{ "rocjit compile --n", "--name-expr", 3 },
		{ "rocjit compile --n", "--no-cache", 3 },
		{ "rocjit stats --z", "--zero", 3 },
		{ "rocjit prewarm --manifest x", "files", 4 },
		{ "rocjit compile a.hip -- -D", "files", 5 },
		{ "rocjit --", "--quiet", 2 },
	};
	const char *zsh = "/usr/bin/zsh";
	char script[8192], *out;
	const char *argv[] = { zsh, "-f", "-c", script, NULL };

	if (access(zsh, X_OK) != 0)
		rj_test_skip("zsh is not installed (Debian: zsh)");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *last = strrchr(cases[i].words, ' ') + 1;
		snprintf(script, sizeof script,
			 "PATH='%s':$PATH\n"
			 "compadd() { if [[ $1 == -a ]]; then shift; local a; for a; do "
			 "print -r -- ${(P)a}; done; else print -r -- \"$@\"; fi }\n"
			 "_describe() { print -r -- \"describe ${(P)2}\" }\n"
			 "_files() { print -r -- files }\n"
			 "words=(%s) CURRENT=%d PREFIX='%s'\n"
			 "source '%s'\n",
			 ROCJIT_TEST_CLI_DIR, cases[i].words, cases[i].current, last,
			 ROCJIT_TEST_ZSH_COMPLETION);
		ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
		printf("zsh: %s -> %s\n", cases[i].words, out);
		ASSERT_CONTAINS(out, cases[i].want);
		free(out);
	}
}
