/*
 * import.c - `rocjit import FILE.rocjit`: copy a bundle's entries into the cache.  The
 * library checks every entry before it is copied (rocjit_bundle_import_v2); entries
 * already in the cache are kept.  (`rocjit export` writes bundles: prewarm.c.)
 *
 * Owns nothing beyond one context.  Uses the files below the commands only.
 */
#include <string.h>

#include "cli.h"
#include "commands.h"

int cli_import(int argc, char **argv)
{
	rocjit_ctx *ctx;
	size_t n = 0, rejected = 0;
	int rc;

	static const struct cli_opt no_opts[] = { { NULL, 0, 0, 0 } };
	struct cli_parser p;
	const char *v, *file = NULL;

	/* No option of its own; the parser takes the global ones and --help. */
	cli_parser_init(&p, "import", argc, argv, no_opts, 0);
	while ((rc = cli_next(&p, &v)) != CLI_ARG_END) {
		if (rc == CLI_ARG_HELP)
			return cli_help("import");
		if (rc == CLI_ARG_ERROR)
			return CLI_USAGE;
		if (file)
			return cli_usage_error("import", "name one bundle file to import");
		file = v;
	}
	if (!file)
		return cli_usage_error("import", "name one bundle file to import");
	rc = cli_open(&ctx, 0, 1);
	if (rc != CLI_OK)
		return rc;
	rc = rocjit_bundle_import_v2(ctx, file, &n, &rejected, NULL, NULL);
	if (rc == ROCJIT_EFORMAT && rejected) {
		/* The message is "N copied, M rejected: <first reasons>". */
		printf("import: %s\n", cli_text(rocjit_last_error()));
		rc = CLI_FAIL;
	} else if (rc != 0) {
		fprintf(stderr, "rocjit import: %s\n", cli_text(rocjit_last_error()));
		rc = CLI_FAIL;
	} else if (!cli_global.quiet) {
		printf("import: %zu entries copied into the cache (entries already there kept)\n", n);
	}
	rocjit_close(ctx);
	return rc;
}
