/*
 * common.c - what every command needs around the library: opening a context on the chosen
 * cache (and saying what to do when it cannot be used), files, memory, clocks.
 *
 * Owns nothing; allocation failures end the process with a message (a CLI has nothing
 * better to do with them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/base/fsutil.h"
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
	if (need_cache && rocjit_env_flag("ROCJIT_DISABLE_CACHE"))
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

/* Why the last cli_read_file failed, for its callers' messages. */
static char read_why[128];

const char *cli_read_error(int err)
{
	return read_why[0] ? read_why : strerror(err);
}

/*
 * Opened O_NONBLOCK and checked with fstat before reading (fsutil.h): a FIFO, a socket or
 * a device given as a kernel file fails at once with what it is, instead of blocking.
 */
char *cli_read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd, e;

	read_why[0] = 0;
	fd = rj_fs_open_regular(AT_FDCWD, path, O_RDONLY, 0, &st);
	if (fd < 0) {
		e = errno;
		snprintf(read_why, sizeof read_why, "%s", rj_fs_why(e, &st));
		errno = e;
		return NULL;
	}
	if (rj_fs_read_all(fd, (size_t)st.st_size, &buf) != 0) {
		e = errno == ENOMEM ? ENOMEM : errno;
		close(fd);
		if (e == ENOMEM) {
			fprintf(stderr, "rocjit: out of memory\n");
			exit(CLI_FAIL);
		}
		errno = e;
		return NULL;
	}
	close(fd);
	if (len)
		*len = (size_t)st.st_size;
	return buf;
}

/*
 * "-" is stdout.  Otherwise the file is opened without following a symbolic link and
 * O_NONBLOCK, and must be a regular file: output never goes where a planted link points,
 * and a FIFO never blocks the command.
 */
int cli_write_file(const char *path, const void *data, size_t size)
{
	struct stat st;
	FILE *f = stdout;
	int ok, fd;

	if (strcmp(path, "-") != 0) {
		fd = rj_fs_open_regular(AT_FDCWD, path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644, &st);
		if (fd < 0 || ftruncate(fd, 0) != 0 || !(f = fdopen(fd, "wb"))) {
			cli_fail("cannot write %s: %s; check the folder exists and is writable, "
				 "and give a new or regular file", path, rj_fs_why(errno, &st));
			if (fd >= 0)
				close(fd);
			return -1;
		}
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
