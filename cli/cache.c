/*
 * cache.c - the cache a command works on: which folder the library will use (--cache DIR,
 * else its default), whether a cache exists there, opening a context on it (and saying
 * what to do when it cannot be used), the database file's size, and whether a compile's
 * code object was stored in it as the library counts it.
 *
 * Owns nothing: the contexts it opens belong to the caller.  Reads cli_global (global.c),
 * reports through diagnostics.c; it runs no command and reads no command line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The library's own rule; where it finds no folder, its reason stands in for one. */
void cli_cache_dir(char *buf, size_t size)
{
	if (rocjit_cache_dir(buf, size, cli_global.cache_dir) != 0)
		snprintf(buf, size, "(none: %s)", rocjit_last_error());
}

/*
 * Whether the cache the library would open exists: its folder with its database, or a
 * file named as the cache.  Asked before opening, so that a command that only reads or
 * trims a cache never creates one (or its folder) where there was none.  Anything
 * other than "not there" counts as there: the library then says what is wrong with it.
 */
static int cache_exists(const char *dir)
{
	char db[4200];
	struct stat st;

	if (stat(dir, &st) != 0)
		return errno != ENOENT;
	if (!S_ISDIR(st.st_mode))
		return 1;
	snprintf(db, sizeof db, "%s/rocjit-cache.sqlite", dir);
	/* lstat: a link there, even a dangling one, is there (and refused, with why). */
	return lstat(db, &st) == 0 || errno != ENOENT;
}

void cli_no_cache_note(void)
{
	char dir[4096];

	cli_cache_dir(dir, sizeof dir);
	fprintf(stderr, "rocjit: no cache at %s (nothing has been stored there; none was "
		"created)\n", cli_text(dir));
}

int cli_open(rocjit_ctx **out, unsigned int flags, int need_cache)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	char dir[4096];
	int rc;

	*out = NULL;
	cli_cache_dir(dir, sizeof dir);
	if (need_cache && rocjit_env_flag("ROCJIT_DISABLE_CACHE"))
		return cli_fail("ROCJIT_DISABLE_CACHE=%s turns the on-disk cache off, and this "
				"command works on it: unset ROCJIT_DISABLE_CACHE",
				rocjit_config_get("ROCJIT_DISABLE_CACHE", NULL));
	if (need_cache == CLI_EXISTING && !cache_exists(dir))
		return CLI_MISSING;
	o.cache_dir = cli_global.cache_dir;
	o.remote = cli_global.remote;
	o.flags = flags;
	rc = rocjit_open(out, &o);
	if (rc != 0)
		return cli_fail("cannot open rocjit: %s (%s); check ROCJIT_ARCH, "
				"ROCJIT_PLATFORM and --remote", rocjit_last_error(),
				rocjit_strerror(rc));
	if (!need_cache)
		return CLI_OK;
	rocjit_stats_get(&st, *out);
	if (!st.cache_open) {
		rocjit_close(*out);
		*out = NULL;
		if (flags & ROCJIT_OPEN_READONLY)
			return cli_fail("cannot read the cache in %s (the warning above says "
					"why): check that it is yours and readable, or choose "
					"another with --cache DIR or ROCJIT_CACHE_DIR", dir);
		return cli_fail("cannot use the cache in %s (the warning above says why): "
				"check that the folder is yours and writable, or choose another "
				"with --cache DIR or ROCJIT_CACHE_DIR", dir);
	}
	return CLI_OK;
}

void cli_remote_counters_text(const rocjit_remote_counters *c, const char *indent)
{
	char a[32], b[32];

	printf("%shits:         %" PRIu64 " (%s read; %s of compiling saved)\n", indent, c->hits,
	       cli_fmt_size(a, sizeof a, c->bytes_read), cli_fmt_ms(b, sizeof b, c->saved_ms));
	printf("%smisses:       %" PRIu64 " (%" PRIu64 " waited for another node's compile)\n",
	       indent, c->misses, c->waits);
	printf("%sputs:         %" PRIu64 " (%s written; %" PRIu64 " refused or failed)\n",
	       indent, c->puts, cli_fmt_size(a, sizeof a, c->bytes_written), c->put_errors);
	printf("%serrors:       %" PRIu64 " (values refused by a check: %" PRIu64 ")\n", indent,
	       c->errors, c->rejected);
	printf("%stime:         %s talking to the servers\n", indent,
	       cli_fmt_ms(a, sizeof a, c->remote_ms));
}

void cli_remote_counters_json(struct cli_json *j, const char *key,
			      const rocjit_remote_counters *c)
{
	cli_json_object(j, key);
	cli_json_uint(j, "hits", c->hits);
	cli_json_uint(j, "misses", c->misses);
	cli_json_uint(j, "errors", c->errors);
	cli_json_uint(j, "rejected", c->rejected);
	cli_json_uint(j, "puts", c->puts);
	cli_json_uint(j, "put_errors", c->put_errors);
	cli_json_uint(j, "waits", c->waits);
	cli_json_uint(j, "bytes_read", c->bytes_read);
	cli_json_uint(j, "bytes_written", c->bytes_written);
	cli_json_num(j, "saved_ms", c->saved_ms);
	cli_json_num(j, "remote_ms", c->remote_ms);
	cli_json_end_object(j);
}

uint64_t cli_cache_file_bytes(const char *db_path)
{
	char wal[4200];
	struct stat st;
	uint64_t n = 0;

	if (!db_path || !*db_path)
		return 0;
	if (stat(db_path, &st) == 0)
		n += (uint64_t)st.st_size;
	snprintf(wal, sizeof wal, "%s-wal", db_path);
	if (stat(wal, &st) == 0)
		n += (uint64_t)st.st_size;
	return n;
}

/*
 * The library's counters before and after: a store that failed (a full disk, a read-only
 * cache, a size limit too small) raises store_failures with its reason in store_error.
 */
int cli_compile_stored(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
		       const rocjit_program *p, int *stored, char *why, size_t why_size)
{
	rocjit_stats before = { .version = ROCJIT_STATS_VERSION };
	rocjit_stats after = { .version = ROCJIT_STATS_VERSION };
	int rc;

	*stored = CLI_NO_STORE;
	why[0] = 0;
	rocjit_stats_get(&before, ctx);
	rc = rocjit_compile(out, ctx, target, p);
	if (rc != 0)
		return rc;
	rocjit_stats_get(&after, ctx);
	if (after.store_failures > before.store_failures) {
		*stored = CLI_NOT_STORED;
		snprintf(why, why_size, "%s", after.store_error[0] ? after.store_error
					      : "the cache did not keep it");
	} else if (after.stores > before.stores || (*out)->from_cache) {
		*stored = CLI_STORED;
	}
	return 0;
}
