/*
 * fsutil.h - file operations on descriptors, for paths another user may be able to change:
 * a cache folder and what is in it, locks, bundles, kernel files, export output.
 *
 * The rule (OpenSSH's StrictModes, git's safe.directory): open a folder once, check what
 * was opened (fstat), then open what is inside relative to that descriptor with
 * O_NOFOLLOW; open files O_NONBLOCK so that a FIFO or a device never blocks, and fstat
 * them before reading; change modes with fchmod.  A path is never checked by name and
 * then opened by name again.
 *
 * Plain POSIX with errno: no library state, so that the library and the CLI (which
 * compiles this file in) both use it.  Every descriptor returned is O_CLOEXEC.
 */
#ifndef ROCJIT_FSUTIL_H
#define ROCJIT_FSUTIL_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Opens path (relative to the folder descriptor at, or AT_FDCWD) as a folder.  nofollow:
 * a symbolic link as the last component is refused (ELOOP) instead of followed.
 * Returns the descriptor, or -1 with errno (ENOTDIR when it is no folder).
 */
int rj_fs_open_dir(int at, const char *path, int nofollow);

/*
 * Opens the folder name inside the folder at, creating it with mode when missing
 * (mkdirat; *created is then 1, and the caller may fchmod it past the umask once it has
 * checked what it opened).  Never follows a symbolic link.  Returns the descriptor, or
 * -1 with errno.
 */
int rj_fs_make_dir_at(int at, const char *name, mode_t mode, int *created);

/*
 * mkdir -p: opens folder path, creating each missing folder with mode.  Symbolic links in
 * path are followed (the path is the user's choice; the caller checks the folder it
 * gets).  *created is 1 when the last folder was created here.  Returns the descriptor,
 * or -1 with errno.
 */
int rj_fs_make_dirs(const char *path, mode_t mode, int *created);

/*
 * Opens name (relative to at, or AT_FDCWD) as a regular file: flags (O_RDONLY, O_RDWR,
 * O_CREAT, O_EXCL, O_NOFOLLOW ...) plus O_NONBLOCK | O_NOCTTY | O_CLOEXEC, so that a FIFO
 * or a device is refused at once instead of blocking the open, then fstat into *st.
 * Returns the descriptor, or -1 with errno: EINVAL (or EISDIR) when name is not a regular
 * file, with *st saying what it is; ELOOP for a symbolic link under O_NOFOLLOW, with *st
 * (lstat) saying so.  Describe a failure with rj_fs_why.
 */
int rj_fs_open_regular(int at, const char *name, int flags, mode_t mode, struct stat *st);

/*
 * dir, then "/" and name when name is not NULL, into out (size bytes): 0, or -1 with
 * ENAMETOOLONG when it does not fit (out then holds "").  What snprintf("%s/%s") makes,
 * without a printf on the paths a new process opens by.
 */
int rj_fs_join(char *out, size_t size, const char *dir, const char *name);

/* A human reason for a failure of the calls above: err (errno) and the *st they filled. */
const char *rj_fs_why(int err, const struct stat *st);

/* "a FIFO (named pipe)", "a folder", "a symbolic link", ... for a st_mode. */
const char *rj_fs_kind(mode_t mode);

/*
 * Reads size bytes of fd from its start into a new malloc'ed buffer with a NUL after
 * them.  Returns 0, or -1 with errno (EIO when the file is shorter than size: it changed
 * while being read).
 */
int rj_fs_read_all(int fd, size_t size, char **out);

/*
 * The trust rule's folder half (base/trust.h; OpenSSH's StrictModes, secure_filename):
 * whoever can write a folder on the way to a file can put another file in its place.
 * Checks every folder from the one holding what fd is (its real path, /proc/self/fd,
 * else realpath(path)) up to /: each owned by this user or root, and writable by nobody
 * else, except a sticky folder (/tmp), whose entries only their owners can rename or
 * remove, and the entry in it on the way (checked one step before) is this user's or
 * root's.  0, or -1 with why[size] naming the folder, what is wrong and the chmod that
 * fixes it.  Here, below the log, so that the configuration files can use it.
 */
int rj_fs_folders_safe(int fd, const char *path, char *why, size_t size);

#endif
