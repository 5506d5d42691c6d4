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

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return cli_help("import");
	if (argc != 2 || argv[1][0] == '-')
		return cli_usage_error("import", "name one bundle file to import");
	rc = cli_open(&ctx, 0, 1);
	if (rc != CLI_OK)
		return rc;
	rc = rocjit_bundle_import_v2(ctx, argv[1], &n, &rejected, NULL, NULL);
	if (rc == ROCJIT_EFORMAT && rejected) {
		/* The message is "N copied, M rejected: <first reasons>". */
		printf("import: %s\n", cli_text(rocjit_last_error()));
		rc = CLI_FAIL;
	} else if (rc != 0) {
		fprintf(stderr, "rocjit import: %s\n", cli_text(rocjit_last_error()));
		rc = CLI_FAIL;
	} else {
		printf("import: %zu entries copied into the cache (entries already there kept)\n", n);
	}
	rocjit_close(ctx);
	return rc;
}
