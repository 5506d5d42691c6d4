/*
 * progress.c - prewarm's progress on stderr: on a terminal, one bar redrawn in place
 * (done/total, the kernel started last, elapsed, ETA); otherwise one plain line per
 * finished job, so logs and CI output stay readable.
 *
 * The bar is diagnostics.c's status line: a warning or a library log line written
 * meanwhile clears it, is printed, and the bar is drawn again below it.  --quiet: none.
 *
 * Owns only the state the caller passes in.  Uses diagnostics.c, output.c, global.c and
 * clock.c only; it knows nothing of jobs or workers beyond the labels it is given.
 */
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

void cli_progress_start(struct cli_progress *pr, int enabled, size_t total)
{
	memset(pr, 0, sizeof *pr);
	pr->total = total;
	pr->t0 = cli_now_ms();
	if (enabled && total > 0 && !cli_global.quiet)
		pr->mode = isatty(STDERR_FILENO) ? 2 : 1;
}

/* "1:05" or "1:02:05". */
static void clock_text(char *buf, size_t size, double ms)
{
	long s = (long)(ms / 1e3 + 0.5);

	if (s >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

static int terminal_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 80;
}

static void draw(struct cli_progress *pr)
{
	char line[1024], elapsed[32], eta[32], bar[64];
	double now = cli_now_ms(), ms = now - pr->t0;
	int width = terminal_width(), cells = 24, filled, n;

	filled = pr->total ? (int)((double)cells * (double)pr->done / (double)pr->total) : 0;
	for (int i = 0; i < cells; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[cells] = 0;
	clock_text(elapsed, sizeof elapsed, ms);
	/* Jobs finish at the pace so far; the first result gives the first estimate. */
	if (pr->done > 0 && pr->done < pr->total)
		clock_text(eta, sizeof eta, ms / (double)pr->done * (double)(pr->total - pr->done));
	else
		snprintf(eta, sizeof eta, "--:--");
	n = snprintf(line, sizeof line, "[%s] %zu/%zu  %s elapsed  ETA %s  %s", bar, pr->done,
		     pr->total, elapsed, eta, pr->current);
	if (n >= width)
		line[width - 1] = 0;
	cli_status_show(line);
	pr->last_draw = now;
}

void cli_progress_started(struct cli_progress *pr, const char *label)
{
	snprintf(pr->current, sizeof pr->current, "%s", cli_text(label));
	if (pr->mode == 2)
		draw(pr);
}

void cli_progress_finished(struct cli_progress *pr, const char *label, const char *what,
			   double ms)
{
	char t[32];

	pr->done++;
	if (pr->mode == 1) {
		char line[1024];
		snprintf(line, sizeof line, "[%zu/%zu] %s %s (%s)\n", pr->done, pr->total, what,
			 cli_text(label), cli_fmt_ms(t, sizeof t, ms));
		cli_stderr_text(line);
	} else if (pr->mode == 2) {
		draw(pr);
	}
}

void cli_progress_tick(struct cli_progress *pr)
{
	if (pr->mode == 2 && cli_now_ms() - pr->last_draw >= 250)
		draw(pr);
}

void cli_progress_end(struct cli_progress *pr)
{
	if (pr->mode == 2)
		cli_status_clear();
	pr->mode = 0;
}
