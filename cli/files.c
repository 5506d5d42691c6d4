/*
 * files.c - the files a user names on the command line: reading a kernel file or a
 * manifest, writing a code object (-o, --extract), through the descriptor-based checks of
 * src/base/fsutil.c (compiled into the tool): a FIFO or a device given as input is
 * refused, never waited on; output goes to a regular file, a character device (/dev/null)
 * or a pipe, is opened before the work it will hold, and never follows a planted link.
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

/* Why an output could not be opened, and what to do, into buf. */
static const char *output_why(char *buf, size_t size, int err, const struct stat *st)
{
	if (err == EISDIR)
		snprintf(buf, size, "it is a folder: give a file's path inside it");
	else if (err == ENOENT || err == ENOTDIR)
		snprintf(buf, size, "its folder does not exist: create it first");
	else if (err == EACCES || err == EPERM || err == EROFS)
		snprintf(buf, size, "%s: choose a path you can write", strerror(err));
	else if (err == ENXIO)
		snprintf(buf, size, "%s with nothing reading it: start the reader first",
			 rj_fs_kind(st->st_mode));
	else if (err == ELOOP)
		snprintf(buf, size, "it is a symbolic link, never followed for output (one "
			 "planted there would send the output elsewhere): give the real path "
			 "(/dev/stdout, /dev/stderr and /dev/fd/N are taken as the descriptors "
			 "they name)");
	else if (err == EBADF)
		snprintf(buf, size, "it names a descriptor this process has not open for "
			 "writing: redirect it (e.g. 3>FILE) or give a file's path");
	else if (err == EINVAL)
		snprintf(buf, size, "it is %s: give a regular file, a character device "
			 "(/dev/null) or a pipe", rj_fs_kind(st->st_mode));
	else
		snprintf(buf, size, "%s", strerror(err));
	return buf;
}

/*
 * The descriptor a well-known alias names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1 for any other path.  Those are links root made, to this
 * process's own descriptors: taken as the descriptor itself, so that no link (nor a
 * chain of them) is ever followed by name.
 */
static int alias_fd(const char *path)
{
	const char *n = !strncmp(path, "/dev/fd/", 8) ? path + 8 :
			!strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
	long fd = 0;

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if (!n || !*n || strspn(n, "0123456789") != strlen(n) || strlen(n) > 9)
		return -1;
	fd = strtol(n, NULL, 10);
	return (int)fd;
}

/*
 * Opened before the work, so that a folder, a missing folder or a path that cannot be
 * written fails at once, not after a compile.  Taken: a regular file (created when
 * missing, emptied only when written), a character device (/dev/null, a terminal) or a
 * pipe that has a reader.  O_NONBLOCK: a FIFO without a reader fails instead of blocking.
 * A symbolic link is never followed (O_NOFOLLOW, on the one open that is used: no lstat
 * before it to race): one someone planted where the output goes is refused.  The aliases
 * of this process's descriptors are taken as those descriptors (alias_fd), written where
 * they stand, never emptied: they are shared with whoever opened them (`>>` appends).
 */
int cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;
	char why[320];
	int flags = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, fd, err, alias;

	memset(o, 0, sizeof *o);
	o->path = path;
	o->fd = -1;
	if (strcmp(path, "-") == 0)
		return 0;
	memset(&st, 0, sizeof st);
	if ((alias = alias_fd(path)) >= 0) {
		fd = fcntl(alias, F_DUPFD_CLOEXEC, 0);
		if (fd >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
			close(fd);
			fd = -1;
			errno = EBADF;
		}
	} else {
		fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
		if (fd >= 0)
			o->created = 1;
		else if (errno == EEXIST)
			fd = open(path, flags | O_NOFOLLOW);
	}
	err = errno == EMLINK ? ELOOP : errno;
	if (fd < 0 && lstat(path, &st) != 0)
		memset(&st, 0, sizeof st);
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) &&
	    !S_ISFIFO(st.st_mode)) {
		close(fd);
		fd = -1;
		err = EINVAL;
	}
	if (fd < 0)
		return cli_fail("cannot write %s: %s", path, output_why(why, sizeof why, err, &st)),
		       -1;
	/* Writes may block from now on (a pipe's reader is slow): that is output's way.  A
	   descriptor shared with the caller keeps its flags, which are the caller's too. */
	if (alias < 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	o->fd = fd;
	o->regular = alias < 0 && S_ISREG(st.st_mode);
	return 0;
}

int cli_output_write(struct cli_output *o, const void *data, size_t size)
{
	const char *p = data;
	size_t left = size;
	int fd = o->fd >= 0 ? o->fd : STDOUT_FILENO, ok = 1;

	if (o->fd < 0 && fflush(stdout) != 0)
		ok = 0;
	if (ok && o->regular && ftruncate(fd, 0) != 0)
		ok = 0;
	while (ok && left) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = 0;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	if (o->fd >= 0 && close(o->fd) != 0)
		ok = 0;
	o->fd = -1;
	o->created = 0;
	if (!ok)
		return cli_fail("cannot write %s: %s; check the free space", o->path,
				strerror(errno)), -1;
	return 0;
}

void cli_output_abandon(struct cli_output *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		if (o->created)
			unlink(o->path);
	}
	o->fd = -1;
	o->created = 0;
}

int cli_write_file(const char *path, const void *data, size_t size)
{
	struct cli_output o;

	if (cli_output_open(&o, path) != 0)
		return -1;
	return cli_output_write(&o, data, size);
}

/* export -o: a bundle is a database written whole to a new file, so the path must not
 * exist and its folder must take a new file: checked before the prewarm. */
int cli_output_new_check(const char *cmd, const char *path)
{
	struct stat st;
	char *dir = cli_strdup(path), *slash = strrchr(dir, '/');
	int rc = CLI_OK;

	/* lstat: a symbolic link (even dangling) counts as existing; the library refuses it. */
	if (lstat(path, &st) == 0)
		rc = cli_usage_error(cmd, "%s exists (%s): a bundle is a database written whole, "
				     "to a new file; remove it first or give a new path", path,
				     rj_fs_kind(st.st_mode));
	else if (slash == dir)
		dir[1] = 0;
	else if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	if (rc == CLI_OK && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		rc = cli_fail("cannot write %s: its folder %s does not exist: create it first",
			      path, dir);
	else if (rc == CLI_OK && access(dir, W_OK | X_OK) != 0)
		rc = cli_fail("cannot write %s: its folder %s is not writable (%s): choose a "
			      "path you can write", path, dir, strerror(errno));
	free(dir);
	return rc;
}
