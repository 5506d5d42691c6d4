/*
 * global.c - the global options (`rocjit --cache DIR COMMAND`) and where this executable
 * is: the state every command may read, set once by main.c before the command runs.
 *
 * Owns cli_global.  Uses no other file of cli/; it parses nothing (main.c reads the
 * options) and no command may write cli_global.
 */
#include <limits.h>
#include <unistd.h>

#include "cli.h"

struct cli_global cli_global;

/* /proc/self/exe, else argv[0]: what prewarm's workers start. */
void cli_global_init(const char *argv0)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

	if (n > 0) {
		path[n] = 0;
		cli_global.self = path;
	} else {
		cli_global.self = argv0;
	}
}
