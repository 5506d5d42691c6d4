/*
 * common.c - what every command needs around the library: opening a context on the chosen
 * cache (and saying what to do when it cannot be used), files, memory, clocks.
 *
 * Owns nothing; allocation failures end the process with a message (a CLI has nothing
 * better to do with them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

void *cli_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "rocjit: out of memory\n");
		exit(CLI_FAIL);
	}
	return p;
}

void *cli_realloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		fprintf(stderr, "rocjit: out of memory\n");
		exit(CLI_FAIL);
	}
	return p;
}

char *cli_strdup(const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	char *d = cli_alloc(n);

	memcpy(d, s ? s : "", n);
	return d;
}

double cli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int64_t cli_now_s(void)
{
	return (int64_t)time(NULL);
}

static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

/* The library's rule (rocjit_options.cache_dir), repeated for messages only. */
void cli_cache_dir(char *buf, size_t size)
{
	const char *v;

	if (cli_global.cache_dir)
		snprintf(buf, size, "%s", cli_global.cache_dir);
	else if ((v = getenv("ROCJIT_CACHE_DIR")) && *v)
		snprintf(buf, size, "%s", v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v)
		snprintf(buf, size, "%s/rocjit", v);
	else
		snprintf(buf, size, "%s/.cache/rocjit", getenv("HOME") ? getenv("HOME") : "~");
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
	return stat(db, &st) == 0 || errno != ENOENT;
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
	if (need_cache && env_on("ROCJIT_DISABLE_CACHE"))
		return cli_fail("ROCJIT_DISABLE_CACHE=%s turns the on-disk cache off, and this "
				"command works on it: unset ROCJIT_DISABLE_CACHE",
				getenv("ROCJIT_DISABLE_CACHE"));
	if (need_cache == CLI_EXISTING && !cache_exists(dir))
		return CLI_MISSING;
	o.cache_dir = cli_global.cache_dir;
	o.flags = flags;
	rc = rocjit_open(out, &o);
	if (rc != 0)
		return cli_fail("cannot open rocjit: %s (%s); check ROCJIT_ARCH and "
				"ROCJIT_PLATFORM", rocjit_last_error(), rocjit_strerror(rc));
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

char *cli_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) != 0) {
		int e = errno;
		fclose(f);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		fclose(f);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	n = (size_t)st.st_size;
	buf = cli_alloc(n + 1);
	if (fread(buf, 1, n, f) != n) {
		int e = ferror(f) ? errno : EIO;
		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int cli_write_file(const char *path, const void *data, size_t size)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
	int ok;

	if (!f) {
		cli_fail("cannot write %s: %s; check the folder exists and is writable", path,
			 strerror(errno));
		return -1;
	}
	ok = fwrite(data, 1, size, f) == size;
	if (f == stdout)
		ok = fflush(f) == 0 && ok;
	else
		ok = fclose(f) == 0 && ok;
	if (!ok) {
		cli_fail("cannot write %s: %s; check the free space", path, strerror(errno));
		return -1;
	}
	return 0;
}
