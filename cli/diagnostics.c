/*
 * diagnostics.c - the messages on stderr that end a command or warn: "rocjit: <message>"
 * (a failure, exit status 1), "rocjit: warning: <message>", and a usage error ("rocjit
 * CMD: <message>", the command's usage line and where its help is; exit status 2).  Every
 * message is escaped as cli_text escapes (output.c): it quotes names and paths from
 * outside.
 *
 * Also the one writer of stderr while a status line (progress.c's bar) is shown: every
 * line - the tool's, the library's log lines (the log hook installed here) - clears the
 * bar, is written, and the bar is drawn again below it, under one lock, since the
 * library logs from prewarm's compile threads while the main thread draws.
 *
 * Owns the status line and the lock.  Uses output.c (escaping), help.c (a command's usage
 * line) and global.c (--quiet) only: it knows nothing of the command line, the cache or
 * any command.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static char status[1024]; /* the status line, under err_lock                          */
static int status_shown;  /* it is on the terminal's last line                        */

/* The library's warning of an object without kernels (src/request/lookup.c), which the
 * commands give themselves: see cli_log_start. */
static const char library_no_kernels[] = "into a code object with 0 kernels";

void cli_stderr_text(const char *text)
{
	pthread_mutex_lock(&err_lock);
	if (status_shown)
		fputs("\r\033[K", stderr);
	fputs(text, stderr);
	if (status_shown)
		fprintf(stderr, "%s\033[K", status);
	fflush(stderr);
	pthread_mutex_unlock(&err_lock);
}

void cli_status_show(const char *line)
{
	pthread_mutex_lock(&err_lock);
	snprintf(status, sizeof status, "%s", line);
	/* \r, the line, then clear to its end: a shorter line leaves no tail behind. */
	fprintf(stderr, "\r%s\033[K", status);
	fflush(stderr);
	status_shown = 1;
	pthread_mutex_unlock(&err_lock);
}

void cli_status_clear(void)
{
	pthread_mutex_lock(&err_lock);
	if (status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	status_shown = 0;
	pthread_mutex_unlock(&err_lock);
}

/* "rocjit: <prefix><message>" on stderr, the message escaped. */
static void message(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = cli_vtext(fmt, ap);
	size_t n = strlen(prefix) + strlen(msg) + 16;
	char *line = malloc(n);

	if (!line)
		cli_out_of_memory();
	snprintf(line, n, "rocjit: %s%s\n", prefix, msg);
	cli_stderr_text(line);
	free(line);
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

/*
 * The library's line, as the library itself prints it (rocjit: warning: ...; a quoted
 * compiler line "  | ..." as it is).  The message is escaped by the library already.
 */
void cli_log_line(void *user, int level, const char *msg)
{
	static const char *const tags[] = { "", "", "warning: ", "", "debug: " };
	size_t n = strlen(msg) + 32;
	char *line;

	(void)user;
	if (cli_global.quiet && level > ROCJIT_LOG_WARN)
		return;
	if (level == ROCJIT_LOG_WARN && strstr(msg, library_no_kernels))
		return;
	if (!(line = malloc(n)))
		return;
	if (strncmp(msg, "  | ", 4) == 0)
		snprintf(line, n, "%s\n", msg);
	else
		snprintf(line, n, "rocjit: %s%s\n", level >= 0 && level <= 4 ? tags[level] : "",
			 msg);
	cli_stderr_text(line);
	free(line);
}

/*
 * Why the hook: each condition is said once, by the layer that knows most.  The library
 * warns of a code object without kernels for applications, which have no other way to
 * learn it; the commands inspect every object they report (compiled now or cached) and
 * warn with the tool's remedies (--name-expr), so the library's line would say it twice.
 */
void cli_log_start(void)
{
	rocjit_set_log_callback(cli_log_line, NULL);
}

int cli_usage_verror(const char *cmd, const char *fmt, va_list ap)
{
	const struct cli_help_entry *c = cmd ? cli_help_find(cmd) : NULL;
	char *msg = cli_vtext(fmt, ap);
	size_t n = strlen(msg) + strlen(c ? c->usage : cli_main_usage) + 128;
	char *text = malloc(n);

	if (!text)
		cli_out_of_memory();
	snprintf(text, n, "rocjit%s%s: %s\nusage: %s\nSee `rocjit help%s%s`.\n", c ? " " : "",
		 c ? c->name : "", msg, c ? c->usage : cli_main_usage, c ? " " : "",
		 c ? c->name : "");
	cli_stderr_text(text);
	free(text);
	free(msg);
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
