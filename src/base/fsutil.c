/*
 * fsutil.c - descriptor-based file operations (see fsutil.h for the rule they keep).
 *
 * Owns nothing but these calls; no library state, errno for errors (a message buffer for
 * the folders' check), so the CLI compiles this file in as well.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rj_fs_open_dir(int at, const char *path, int nofollow)
{
	return openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
}

int rj_fs_make_dir_at(int at, const char *name, mode_t mode, int *created)
{
	int made = mkdirat(at, name, mode) == 0;
	int fd;

	if (!made && errno != EEXIST)
		return -1;
	fd = rj_fs_open_dir(at, name, 1);
	if (created)
		*created = made && fd >= 0;
	return fd;
}

int rj_fs_make_dirs(const char *path, mode_t mode, int *created)
{
	char part[4096];
	const char *p = path;
	int fd, made = 0;

	if (created)
		*created = 0;
	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	fd = rj_fs_open_dir(AT_FDCWD, *path == '/' ? "/" : ".", 0);
	while (fd >= 0) {
		size_t n;
		int next;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n >= sizeof part) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, p, n);
		part[n] = 0;
		p += n;
		made = mkdirat(fd, part, mode) == 0;
		if (!made && errno != EEXIST) {
			int e = errno;
			/* An existing folder we may not create in (EACCES on "/home") is fine. */
			next = rj_fs_open_dir(fd, part, 0);
			if (next < 0) {
				close(fd);
				errno = e;
				return -1;
			}
		} else {
			next = rj_fs_open_dir(fd, part, 0);
		}
		close(fd);
		fd = next;
	}
	if (fd >= 0 && created)
		*created = made;
	return fd;
}

const char *rj_fs_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a folder";
	case S_IFLNK: return "a symbolic link";
	case S_IFIFO: return "a FIFO (named pipe)";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	}
	return "not a regular file";
}

int rj_fs_open_regular(int at, const char *name, int flags, mode_t mode, struct stat *st)
{
	int fd, e;

	memset(st, 0, sizeof *st);
	fd = openat(at, name, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
	if (fd < 0) {
		/* Say what is there: a symbolic link not followed, a FIFO without a writer
		   (ENXIO), the file an O_EXCL create found. */
		e = errno;
		if (e != ENOENT &&
		    fstatat(at, name, st, flags & (O_NOFOLLOW | O_EXCL) ? AT_SYMLINK_NOFOLLOW : 0))
			memset(st, 0, sizeof *st);
		errno = e;
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		e = S_ISDIR(st->st_mode) ? EISDIR : (st->st_mode & S_IFMT) ? EINVAL : errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int rj_fs_join(char *out, size_t size, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = name ? strlen(name) + 1 : 0;

	if (a + b >= size) {
		if (size)
			out[0] = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, dir, a);
	if (name) {
		out[a] = '/';
		memcpy(out + a + 1, name, b - 1);
	}
	out[a + b] = 0;
	return 0;
}

const char *rj_fs_why(int err, const struct stat *st)
{
	mode_t type = st ? st->st_mode & S_IFMT : 0;

	if (err == EEXIST)
		return type == S_IFLNK ? "it exists, as a symbolic link (not followed)"
				       : "it exists";
	if (type == S_IFLNK)
		return "it is a symbolic link, which is not followed here";
	if (type && type != S_IFREG && type != S_IFDIR)
		return type == S_IFIFO ? "it is a FIFO (named pipe), not a regular file" :
		       type == S_IFSOCK ? "it is a socket, not a regular file" :
		       "it is a device, not a regular file";
	if (type == S_IFDIR && err != ENOENT)
		return "it is a folder, not a regular file";
	return strerror(err);
}

int rj_fs_read_all(int fd, size_t size, char **out)
{
	char *buf = malloc(size + 1);
	size_t got = 0;

	*out = NULL;
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	while (got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			free(buf);
			errno = e;
			return -1;
		}
		got += (size_t)n;
	}
	buf[size] = 0;
	*out = buf;
	return 0;
}

/* Whether one folder on the way may be trusted; why says why not. */
static int folder_ok(const char *dir, const struct stat *st, char *why, size_t size)
{
	uid_t me = geteuid();
	int others = (st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != 0);

	if (st->st_uid != me && st->st_uid != 0)
		snprintf(why, size, "its folder %s is owned by user %u, not by you (%u) or root, "
			 "who could put another file in its place; use a folder of your own",
			 dir, (unsigned)st->st_uid, (unsigned)me);
	else if (others && !(st->st_mode & S_ISVTX))
		snprintf(why, size, "its folder %s is writable by %s (mode %04o), who could put "
			 "another file in its place; make it yours alone with chmod go-w %s",
			 dir, (st->st_mode & S_IWOTH) ? "every user" : "its group",
			 (unsigned)(st->st_mode & 07777), dir);
	else
		return 1;
	return 0;
}

int rj_fs_folders_safe(int fd, const char *path, char *why, size_t size)
{
	char real[PATH_MAX], proc[64], *slash;
	struct stat st;
	ssize_t n;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof real - 1);
	if (n > 0 && real[0] == '/')
		real[n] = 0;
	else if (!realpath(path, real)) {
		snprintf(why, size, "its folders cannot be checked: %s", strerror(errno));
		return -1;
	}
	/* Each folder up to /; a sticky one is fine because the entry below it, checked
	   one step before, is this user's or root's: nobody else can rename it away. */
	while ((slash = strrchr(real, '/'))) {
		slash[slash == real] = 0;
		if (stat(real, &st) != 0) {
			snprintf(why, size, "its folder %s cannot be checked: %s", real,
				 strerror(errno));
			return -1;
		}
		if (!folder_ok(real, &st, why, size))
			return -1;
		if (slash == real)
			break;
	}
	return 0;
}
