/*
 * alloc.c - memory for the whole tool: allocations that end the process with "rocjit: out
 * of memory" instead of returning NULL (a command-line tool has nothing better to do with
 * a failed allocation, and every caller is spared the check).
 *
 * Owns nothing.  The lowest file of the tool: it uses no other file of cli/, so every
 * file may use it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_out_of_memory(void)
{
	fprintf(stderr, "rocjit: out of memory\n");
	exit(CLI_FAIL);
}

void *cli_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		cli_out_of_memory();
	return p;
}

void *cli_realloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		cli_out_of_memory();
	return p;
}

char *cli_strdup(const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	char *d = cli_alloc(n);

	memcpy(d, s ? s : "", n);
	return d;
}
