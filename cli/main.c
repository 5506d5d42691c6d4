/*
 * main.c - the rocjit command-line tool's entry point: the global options, the command
 * table (name -> the function that runs it) and dispatch, and the check that all output
 * reached standard output.
 *
 *   rocjit [--cache DIR] [--remote URL] COMMAND [ARGS...]
 *
 * Owns the command table.  The top of the tool: it calls every command, and nothing calls
 * it.  The commands live in one file each (prewarm.c, purge.c, ...), their help texts in
 * help.c, the global options they read in global.c; the tool uses the public API only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

/* Every command and the function that runs it; help.c has the texts, in --help's order. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name as typed */
} commands[] = {
	{ "prewarm", cli_prewarm }, { "export", cli_export },	{ "import", cli_import },
	{ "purge", cli_purge },	    { "stats", cli_stats },	{ "list", cli_list },
	{ "show", cli_show },	    { "verify", cli_verify },	{ "compile", cli_compile },
	{ "targets", cli_targets }, { "remote", cli_remote },	{ "push", cli_push },
	{ "keygen", cli_keygen },   { "sign", cli_sign },	{ "config", cli_config },
};

/*
 * Whether a --remote URL holds a password (a ':' in the part before its last '@', the
 * rule by which the library masks one): a command line shows in `ps` to every user of
 * the machine, so such a URL is refused before anything runs, pointing to where a
 * password belongs.  A user name alone is allowed (the library masks it in messages).
 */
static int url_has_password(const char *url)
{
	const char *start = strstr(url, "://"), *at;

	if (!start)
		return strchr(url, '@') && strchr(url, ':');
	start += 3;
	at = strrchr(start, '@');
	return at && memchr(start, ':', (size_t)(at - start)) != NULL;
}

/* The command named name or its alias ("ls"), or NULL. */
static const struct command *find_command(const char *name)
{
	const struct cli_help_entry *h = cli_help_find(name);

	for (size_t i = 0; h && i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, h->name) == 0)
			return &commands[i];
	return NULL;
}

static int help_command(int argc, char **argv)
{
	if (argc < 2)
		return cli_main_help(stdout);
	if (argc > 2)
		return cli_usage_error(NULL, "help takes one command name");
	if (!cli_help_find(argv[1]))
		return cli_usage_error(NULL, "'%s' is not a rocjit command", argv[1]);
	return cli_help(argv[1]);
}

/*
 * Output that did not all reach standard output (a full disk, a closed pipe) is a
 * failure, whatever the command: a script must not take a cut listing or JSON document
 * for the whole.  Checked once, here, after every command, as coreutils' close_stdout
 * does: the stream's error flag catches a failed write anywhere before, fclose the last
 * buffered bytes.
 */
static int close_stdout(int rc)
{
	int failed, err;

	errno = 0;
	failed = fflush(stdout) != 0 || ferror(stdout);
	err = errno;
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
	if (!failed)
		return rc;
	fprintf(stderr, "rocjit: cannot write the output: %s; check where standard output "
		"goes (a full disk, a closed pipe) and run the command again\n",
		err ? strerror(err) : "a write failed");
	return rc == CLI_OK ? CLI_FAIL : rc;
}

static int run(int argc, char **argv)
{
	const struct command *c;
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];
		if (!strcmp(a, "--cache") || !strncmp(a, "--cache=", 8)) {
			char *v = a[7] == '=' ? argv[i] + 8 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v || !*v)
				return cli_usage_error(NULL, "--cache needs a folder");
			cli_global.cache_dir = v;
		} else if (!strcmp(a, "--remote") || !strncmp(a, "--remote=", 9)) {
			char *v = a[8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v)
				return cli_usage_error(NULL, "--remote needs a URL (redis://host:port; "
						       "\"\" for none)");
			if (url_has_password(v))
				return cli_usage_error(NULL, "--remote: a password on the command "
						       "line is visible to every user of this "
						       "machine (ps): give the URL without it, and "
						       "the password in a file only you can read, "
						       "ROCJIT_REMOTE_PASSWORD_FILE=FILE (or the "
						       "whole URL in ROCJIT_REMOTE)");
			cli_global.remote = v;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			int v = rocjit_version();
			printf("rocjit %s (library %d.%d.%d)\n", ROCJIT_VERSION_STRING, v / 10000,
			       v / 100 % 100, v % 100);
			return CLI_OK;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return cli_main_help(stdout);
		} else {
			return cli_usage_error(NULL, "unknown option %s", a);
		}
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s\n", cli_main_usage);
		fprintf(stderr, "rocjit: a command is missing; `rocjit --help` lists them\n");
		return CLI_USAGE;
	}
	if (!strcmp(argv[i], "help"))
		return help_command(argc - i, argv + i);
	c = find_command(argv[i]);
	if (!c)
		return cli_usage_error(NULL, "'%s' is not a rocjit command", argv[i]);
	return c->run(argc - i, argv + i);
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
