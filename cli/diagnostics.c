/*
 * diagnostics.c - the messages on stderr that end a command or warn: "rocjit: <message>"
 * (a failure, exit status 1), "rocjit: warning: <message>", and a usage error ("rocjit
 * CMD: <message>", the command's usage line and where its help is; exit status 2).  Every
 * message is escaped as cli_text escapes (output.c): it quotes names and paths from
 * outside.
 *
 * Owns nothing.  Uses output.c (escaping) and help.c (a command's usage line) only: it
 * knows nothing of the command line, the cache or any command.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "cli.h"

/* "rocjit: <prefix><message>" on stderr, the message escaped. */
static void message(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = cli_vtext(fmt, ap);

	fprintf(stderr, "rocjit: %s%s\n", prefix, msg);
	free(msg);
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("", fmt, ap);
	va_end(ap);
	return CLI_FAIL;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("warning: ", fmt, ap);
	va_end(ap);
}

int cli_usage_verror(const char *cmd, const char *fmt, va_list ap)
{
	const struct cli_help_entry *c = cmd ? cli_help_find(cmd) : NULL;
	char *msg = cli_vtext(fmt, ap);

	fprintf(stderr, "rocjit%s%s: %s", c ? " " : "", c ? c->name : "", msg);
	free(msg);
	fprintf(stderr, "\nusage: %s\n", c ? c->usage : cli_main_usage);
	fprintf(stderr, "See `rocjit help%s%s`.\n", c ? " " : "", c ? c->name : "");
	return CLI_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_usage_verror(cmd, fmt, ap);
	va_end(ap);
	return CLI_USAGE;
}
