/*
 * sqlite_fd.h - making SQLite open exactly the file rocjit checked.
 *
 * SQLite opens databases by name, and its unix VFS resolves every symbolic link in the
 * name first, so a file checked through a descriptor could be swapped before SQLite looks
 * again.  Databases opened through the VFS named here are pinned to descriptors:
 *   - a read-only file (a bundle, a cache given as a file, an import source) is read
 *     through the very descriptor that was checked: rj_sqlite_open_fd;
 *   - a cache in WAL mode needs its -wal and -shm beside it, by name: it is opened as
 *     /proc/self/fd/<folder descriptor>/<name>, which the kernel resolves through the
 *     checked folder itself (rj_sqlite_name_in; the VFS passes such names through
 *     unresolved), and SQLite opens each file in it with O_NOFOLLOW.
 * Every name built here is absolute or "./"-prefixed, and the one URI (a descriptor's
 * number) holds no user text, so a user's path is never read as an SQLite URI
 * ("file:/x" is the folder ./file:/x).
 */
#ifndef ROCJIT_SQLITE_FD_H
#define ROCJIT_SQLITE_FD_H

#include <sqlite3.h>
#include <stddef.h>

/* The VFS to pass to sqlite3_open_v2 (registered on first use; never the default). */
const char *rj_sqlite_vfs(void);

/*
 * Opens the checked read-only file fd as an immutable database (a bundle, a cache given
 * as a file), read through fd itself: sqlite3_open_v2 of the URI
 * "file:rocjit-fd:<fd>?immutable=1", read-only, no mutex (the caller serializes), this
 * VFS.  SQLITE_OK or an SQLite code; *db is set as sqlite3_open_v2 sets it (close it
 * either way; NULL when out of memory).  fd must stay open until the database is closed.
 */
int rj_sqlite_open_fd(sqlite3 **db, int fd);

/*
 * The name of name inside the checked folder dirfd: /proc/self/fd/<dirfd>/<name> when
 * /proc is there, else dir/name made unambiguous ("./" before a relative path).  Not a
 * URI: open it without SQLITE_OPEN_URI semantics mattering.  0, or -1 when it does not fit.
 */
int rj_sqlite_name_in(char *out, size_t size, int dirfd, const char *dir, const char *name);

/*
 * Folder descriptors behind /proc/self/fd names, one per folder per process, counted:
 * SQLite keeps the first name it saw for a database's -shm for as long as any connection
 * of the process has it open, so every connection to one folder must use the same
 * descriptor number, kept open until the last is closed.  rj_sqlite_pin_dir takes fd, whose
 * fstat the caller made (st: the folder is known by its device and inode), closes it when
 * the folder is already pinned, and returns the pinned descriptor; rj_sqlite_unpin_dir
 * gives it back after sqlite3_close.
 */
struct stat;
int rj_sqlite_pin_dir(int fd, const struct stat *st);
void rj_sqlite_unpin_dir(int fd);

#endif
