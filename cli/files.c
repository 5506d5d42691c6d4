/*
 * files.c - the files a user names on the command line: reading a kernel file or a
 * manifest, writing a code object (-o, --extract), through the descriptor-based checks of
 * src/base/fsutil.c (compiled into the tool): a FIFO or a device is refused, never waited
 * on, and output never follows a planted link.
 *
 * Owns the reason the last read failed (cli_read_error).  Uses alloc.c and diagnostics.c;
 * it knows nothing of caches or commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/base/fsutil.h"
#include "cli.h"

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
		if (e == ENOMEM)
			cli_out_of_memory();
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
