/*
 * signing.c - `rocjit keygen NAME` (an ed25519 key pair for signing code objects) and
 * `rocjit sign` (sign the entries of a cache, or of a bundle given with --cache FILE).
 *
 * The key pair is written by the library's key module (src/sign via rocjit_keygen's
 * files: NAME.secret, mode 0600, and NAME.pub); signing is rocjit_cache_sign with the
 * key of $ROCJIT_SIGNING_KEY or --key FILE (rocjit_bundle_sign for a bundle named with
 * --cache FILE).  Uses the files below the commands only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"

enum { OPT_DIR = 1, OPT_KEY };

static const struct cli_opt keygen_opts[] = {
	{ "dir", 'd', 1, OPT_DIR },
	{ NULL, 0, 0, 0 }
};

int cli_keygen(int argc, char **argv)
{
	struct cli_parser p;
	const char *v, *name = NULL, *dir = ".";
	char line[256];
	int id;

	cli_parser_init(&p, "keygen", argc, argv, keygen_opts, 0);
	while ((id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: return cli_help("keygen");
		case CLI_ARG_ERROR: return CLI_USAGE;
		case OPT_DIR: dir = v; break;
		case CLI_ARG_POSITIONAL:
			if (name)
				return cli_usage_error("keygen", "one key name, not '%s' too", v);
			name = v;
			break;
		}
	}
	if (!name)
		return cli_usage_error("keygen", "give the key's name (letters, digits, '.', '_', "
				       "'-'; e.g. ci-2026)");
	/* A folder for keys is made private, as ssh-keygen makes ~/.ssh; only the last
	   component: a mistyped path should not grow a tree. */
	if (mkdir(dir, 0700) == 0)
		fprintf(stderr, "rocjit: created the folder %s (mode 0700)\n", dir);
	if (rocjit_keygen(name, dir, line, sizeof line) != 0)
		return cli_fail("keygen: %s", rocjit_last_error());
	fprintf(stderr, "rocjit: wrote %s/%s.secret (keep it secret: mode 0600) and %s/%s.pub\n"
		"rocjit: producers sign with ROCJIT_SIGNING_KEY=%s/%s.secret; consumers trust it "
		"with ROCJIT_TRUSTED_KEYS=%s\n", dir, name, dir, name, dir, name, line);
	printf("%s\n", line);
	return CLI_OK;
}

static const struct cli_opt sign_opts[] = {
	{ "key", 'k', 1, OPT_KEY },
	{ NULL, 0, 0, 0 }
};

int cli_sign(int argc, char **argv)
{
	struct cli_parser p;
	const char *v, *key = NULL;
	const char **keys = NULL;
	size_t n = 0, count = 0;
	rocjit_ctx *ctx = NULL;
	struct stat st;
	int id, rc, bundle;

	keys = calloc((size_t)argc + 1, sizeof *keys);
	if (!keys)
		cli_out_of_memory();
	cli_parser_init(&p, "sign", argc, argv, sign_opts, 0);
	while ((id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: free(keys); return cli_help("sign");
		case CLI_ARG_ERROR: free(keys); return CLI_USAGE;
		case OPT_KEY: key = v; break;
		case CLI_ARG_POSITIONAL: keys[n++] = v; break;
		}
	}
	if (key)
		setenv("ROCJIT_SIGNING_KEY", key, 1);
	if (!rocjit_config_get("ROCJIT_SIGNING_KEY", NULL) || !*rocjit_config_get("ROCJIT_SIGNING_KEY", NULL)) {
		free(keys);
		return cli_usage_error("sign", "no key: give --key FILE or set ROCJIT_SIGNING_KEY "
				       "(rocjit keygen NAME writes one)");
	}
	/* A bundle named with --cache FILE is signed as a file (a signed copy renamed over
	   it): processes map bundles as immutable, so none is changed in place. */
	bundle = cli_global.cache_dir && stat(cli_global.cache_dir, &st) == 0 &&
		 S_ISREG(st.st_mode);
	rc = cli_open(&ctx, ROCJIT_OPEN_NO_COMPILE | (bundle ? ROCJIT_OPEN_NO_CACHE : 0),
		      bundle ? 0 : CLI_EXISTING);
	if (rc == CLI_MISSING)
		rc = cli_fail("sign: there is no cache at %s", cli_global.cache_dir ?
			      cli_global.cache_dir : "the default folder");
	if (rc != CLI_OK) {
		free(keys);
		return rc;
	}
	rc = bundle ? rocjit_bundle_sign(ctx, cli_global.cache_dir, n ? keys : NULL, n, &count)
		    : rocjit_cache_sign(ctx, n ? keys : NULL, n, &count);
	if (rc != 0)
		rc = cli_fail("sign: %s", rocjit_last_error());
	else if (!cli_global.quiet)
		fprintf(stderr, "rocjit: signed %zu entries\n", count);
	rocjit_close(ctx);
	free(keys);
	return rc == 0 ? CLI_OK : CLI_FAIL;
}
