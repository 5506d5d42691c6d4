/*
 * sqlite_fd.c - an SQLite VFS that opens what rocjit checked, not what a name resolves to
 * later (see sqlite_fd.h).
 *
 * It is the default unix VFS with two changes: names under /proc/self/fd/ are used as
 * given (the unix VFS would replace the folder link by the path it points to, which names
 * the folder again, raceably), and "rocjit-fd:<n>" opens a read-only file on a duplicate
 * of descriptor n, read with pread.  Everything else is the unix VFS's.
 *
 * Owns the VFS and the process's table of pinned folder descriptors.  Knows nothing of
 * rocjit's databases (schema, caches, bundles) and checks nothing itself: its callers
 * hand it descriptors they have checked (trust.c).
 */
#include "store/sqlite_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROC_FD "/proc/self/fd/"
#define FD_NAME "rocjit-fd:"

static sqlite3_vfs *base;
static sqlite3_vfs vfs;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int have_proc;

struct fd_file {
	sqlite3_file file;
	int fd;
};

static int fd_close(sqlite3_file *f)
{
	close(((struct fd_file *)f)->fd);
	return SQLITE_OK;
}

static int fd_read(sqlite3_file *f, void *buf, int amount, sqlite3_int64 offset)
{
	int fd = ((struct fd_file *)f)->fd;
	size_t got = 0;

	while (got < (size_t)amount) {
		ssize_t n = pread(fd, (char *)buf + got, (size_t)amount - got, (off_t)((size_t)offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return SQLITE_IOERR_READ;
		if (n == 0) {
			/* SQLite's contract: zero the rest and say it was short. */
			memset((char *)buf + got, 0, (size_t)amount - got);
			return SQLITE_IOERR_SHORT_READ;
		}
		got += (size_t)n;
	}
	return SQLITE_OK;
}

static int fd_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	(void)f, (void)b, (void)n, (void)o;
	return SQLITE_READONLY;
}

static int fd_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	(void)f, (void)size;
	return SQLITE_READONLY;
}

static int fd_sync(sqlite3_file *f, int flags)
{
	(void)f, (void)flags;
	return SQLITE_OK;
}

static int fd_size(sqlite3_file *f, sqlite3_int64 *size)
{
	struct stat st;

	if (fstat(((struct fd_file *)f)->fd, &st) != 0)
		return SQLITE_IOERR_FSTAT;
	*size = st.st_size;
	return SQLITE_OK;
}

/* Read-only and opened immutable: nobody writes it through rocjit, nothing to lock. */
static int fd_lock(sqlite3_file *f, int level)
{
	(void)f, (void)level;
	return SQLITE_OK;
}

static int fd_reserved(sqlite3_file *f, int *out)
{
	(void)f;
	*out = 0;
	return SQLITE_OK;
}

static int fd_control(sqlite3_file *f, int op, void *arg)
{
	(void)f, (void)op, (void)arg;
	return SQLITE_NOTFOUND;
}

static int fd_sector(sqlite3_file *f)
{
	(void)f;
	return 4096;
}

static int fd_device(sqlite3_file *f)
{
	(void)f;
	return SQLITE_IOCAP_IMMUTABLE;
}

static const sqlite3_io_methods fd_methods = {
	1, fd_close, fd_read, fd_write, fd_truncate, fd_sync, fd_size, fd_lock, fd_lock,
	fd_reserved, fd_control, fd_sector, fd_device,
	NULL, NULL, NULL, NULL, NULL, NULL,
};

static int fd_number(const char *name)
{
	char *end;
	long n;

	if (!name || strncmp(name, FD_NAME, sizeof FD_NAME - 1) != 0)
		return -1;
	n = strtol(name + sizeof FD_NAME - 1, &end, 10);
	return *end || n < 0 || n > 1 << 30 ? -1 : (int)n;
}

static int vfs_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags,
		    int *out_flags)
{
	int n = fd_number(name);
	struct fd_file *ff = (struct fd_file *)f;

	(void)v;
	if (n < 0)
		return base->xOpen(base, name, f, flags, out_flags);
	/* Only the main database, read-only: journals of an immutable file are never
	   opened, and a write is refused. */
	if (!(flags & SQLITE_OPEN_MAIN_DB) || (flags & SQLITE_OPEN_READWRITE))
		return SQLITE_CANTOPEN;
	ff->fd = fcntl(n, F_DUPFD_CLOEXEC, 0);
	if (ff->fd < 0)
		return SQLITE_CANTOPEN;
	ff->file.pMethods = &fd_methods;
	if (out_flags)
		*out_flags = flags;
	return SQLITE_OK;
}

static int vfs_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
	(void)v;
	/* No journal or WAL exists beside a descriptor. */
	if (strncmp(name, FD_NAME, sizeof FD_NAME - 1) == 0) {
		*out = 0;
		return SQLITE_OK;
	}
	return base->xAccess(base, name, flags, out);
}

static int vfs_full_pathname(sqlite3_vfs *v, const char *name, int size, char *out)
{
	(void)v;
	if (strncmp(name, PROC_FD, sizeof PROC_FD - 1) == 0 ||
	    strncmp(name, FD_NAME, sizeof FD_NAME - 1) == 0) {
		if ((int)strlen(name) >= size)
			return SQLITE_CANTOPEN;
		memcpy(out, name, strlen(name) + 1);
		return SQLITE_OK;
	}
	return base->xFullPathname(base, name, size, out);
}

static void register_vfs(void)
{
	base = sqlite3_vfs_find(NULL);
	if (!base)
		return;
	vfs = *base;
	vfs.pNext = NULL;
	vfs.zName = "rocjit-pinned";
	if (vfs.szOsFile < (int)sizeof(struct fd_file))
		vfs.szOsFile = (int)sizeof(struct fd_file);
	vfs.xOpen = vfs_open;
	vfs.xAccess = vfs_access;
	vfs.xFullPathname = vfs_full_pathname;
	if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK)
		base = NULL;
	have_proc = access(PROC_FD, X_OK) == 0;
}

const char *rj_sqlite_vfs(void)
{
	pthread_once(&once, register_vfs);
	return base ? vfs.zName : NULL;
}

int rj_sqlite_open_fd(sqlite3 **db, int fd)
{
	char uri[64];

	snprintf(uri, sizeof uri, "file:" FD_NAME "%d?immutable=1", fd);
	return sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
			       SQLITE_OPEN_NOMUTEX, rj_sqlite_vfs());
}

int rj_sqlite_name_in(char *out, size_t size, int dirfd, const char *dir, const char *name)
{
	int n;

	pthread_once(&once, register_vfs);
	if (have_proc)
		n = snprintf(out, size, PROC_FD "%d/%s", dirfd, name);
	else /* no /proc: by name, through the folder checked a moment ago */
		n = snprintf(out, size, "%s%s/%s", *dir == '/' ? "" : "./", dir, name);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* ---- Pinned folders ------------------------------------------------------------------ */

struct pin {
	dev_t dev;
	ino_t ino;
	int fd, refs;
	struct pin *next;
};
static struct pin *pins;
static pthread_mutex_t pin_mu = PTHREAD_MUTEX_INITIALIZER;

int rj_sqlite_pin_dir(int fd, const struct stat *st)
{
	struct pin *p;

	pthread_mutex_lock(&pin_mu);
	for (p = pins; p && !(p->dev == st->st_dev && p->ino == st->st_ino); p = p->next)
		;
	if (p) {
		p->refs++;
		close(fd);
		fd = p->fd;
	} else if ((p = calloc(1, sizeof *p)) != NULL) {
		*p = (struct pin){ st->st_dev, st->st_ino, fd, 1, pins };
		pins = p;
	}
	pthread_mutex_unlock(&pin_mu);
	return fd;
}

void rj_sqlite_unpin_dir(int fd)
{
	struct pin **pp, *p;
	int last = 1;

	if (fd < 0)
		return;
	pthread_mutex_lock(&pin_mu);
	for (pp = &pins; *pp && (*pp)->fd != fd; pp = &(*pp)->next)
		;
	p = *pp;
	if (p && --p->refs > 0)
		last = 0;
	else if (p) {
		*pp = p->next;
		free(p);
	}
	pthread_mutex_unlock(&pin_mu);
	if (last)
		close(fd);
}
