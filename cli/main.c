/*
 * main.c - the rocjit command-line tool's entry point: the global options, the command
 * table (name -> the function that runs it) and dispatch, and the check that all output
 * reached standard output.
 *
 *   rocjit [--cache DIR] [--remote URL] [--quiet] COMMAND [ARGS...]
 *
 * (args.c reads the global options, here and after the command.)  A mistyped command
 * gets the nearest names ("did you mean").
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

/* The command named name or its alias ("ls"), or NULL. */
static const struct command *find_command(const char *name)
{
	const struct cli_help_entry *h = cli_help_find(name);

	for (size_t i = 0; h && i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, h->name) == 0)
			return &commands[i];
	return NULL;
}

/* "; did you mean 'stats'?" for the commands nearest to typed, or "". */
static const char *command_hint(char *buf, size_t size, const char *typed)
{
	size_t n;
	const struct cli_help_entry *e = cli_help_entries(&n);
	struct cli_suggest s;

	cli_suggest_init(&s, typed, strlen(typed));
	for (size_t i = 0; i < n; i++)
		if (!e[i].hidden) {
			cli_suggest_add(&s, e[i].name);
			cli_suggest_add(&s, e[i].alias);
		}
	cli_suggest_add(&s, "help");
	return cli_suggest_text(&s, buf, size, "'");
}

static int not_a_command(const char *typed)
{
	char hint[128];

	return cli_usage_error(NULL, "'%s' is not a rocjit command%s", typed,
			       command_hint(hint, sizeof hint, typed));
}

static int help_command(int argc, char **argv)
{
	if (argc < 2 || (argc == 2 && !strcmp(argv[1], "help")))
		return cli_main_help(stdout);
	if (argc == 2 && !strcmp(argv[1], "--commands"))
		return cli_help_commands(stdout);
	if (argc == 2 && !strcmp(argv[1], "--all"))
		return cli_help_all(stdout);
	if (argc > 2)
		return cli_usage_error(NULL, "help takes one command name");
	if (!cli_help_find(argv[1]))
		return not_a_command(argv[1]);
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
		int g = cli_global_option(argc, argv, &i);
		if (g == 1)
			continue;
		if (g == CLI_ARG_ERROR)
			return CLI_USAGE;
		if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			int v = rocjit_version();
			printf("rocjit %s (library %d.%d.%d)\n", ROCJIT_VERSION_STRING, v / 10000,
			       v / 100 % 100, v % 100);
			return CLI_OK;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return cli_main_help(stdout);
		} else if (!strcmp(a, "--completion-helper")) {
			/* The global options, for the completion scripts (args.c does a
			   command's). */
			cli_print_global_options();
			printf("--version\n--help\n");
			return CLI_OK;
		} else {
			char hint[160] = "";
			struct cli_suggest sg;
			cli_suggest_init(&sg, a + 2, strlen(a + 2));
			cli_suggest_add(&sg, "version");
			cli_suggest_add(&sg, "help");
			for (size_t k = 0; cli_global_names[k]; k++)
				cli_suggest_add(&sg, cli_global_names[k]);
			if (a[1] == '-')
				cli_suggest_text(&sg, hint, sizeof hint, "--");
			if (!hint[0])
				snprintf(hint, sizeof hint, " before the command (a command's "
					 "options go after it: rocjit COMMAND %s)", a);
			return cli_usage_error(NULL, "unknown option %s%s", a, hint);
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s\n", cli_main_usage);
		fprintf(stderr, "rocjit: a command is missing; `rocjit --help` lists them\n");
		return CLI_USAGE;
	}
	cli_log_start();
	/* The first read of a setting says what is wrong with the files and the environment's
	   values (ROCJIT_LOG=verbose), whether or not the command comes to read them. */
	(void)rocjit_config_get("log", NULL);
	if (!strcmp(argv[i], "help"))
		return help_command(argc - i, argv + i);
	c = find_command(argv[i]);
	if (!c)
		return not_a_command(argv[i]);
	return c->run(argc - i, argv + i);
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
