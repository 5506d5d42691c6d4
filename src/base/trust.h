/*
 * trust.h - whether a file another party could have written may feed code or secrets to
 * this process (see trust.c).  Asked about descriptors already opened, before anything is
 * read from them.
 */
#ifndef ROCJIT_BASE_TRUST_H
#define ROCJIT_BASE_TRUST_H

#include <sys/stat.h>

/*
 * The trust rule, applied to the descriptor fd that is then used (what: "cache",
 * "bundle", "trusted-keys file", ... for the message): owned by this user or root, and
 * writable by nobody else.  Flags:
 *   RJ_TRUST_CACHE   a cache (its hints name ROCJIT_CACHE_DIR and ROCJIT_CACHE_SHARED);
 *   RJ_TRUST_SHARED  with RJ_TRUST_CACHE: a cache shared by a group this user is in (its
 *                    members may own and write it);
 *   RJ_TRUST_SECRET  a secret (password, signing key): readable by nobody else either.
 * 0, or ROCJIT_EIO saying why it must not be used and what to do.
 */
#define RJ_TRUST_CACHE 1
#define RJ_TRUST_SHARED 2
#define RJ_TRUST_SECRET 4
int rj_trust_check(int fd, const char *path, const char *what, int flags);
/* The same rule on what fstat or fstatat said of a file (see check_files in cache_db.c:
 * closing a descriptor drops the process's locks on the file). */
int rj_trust_check_stat(const struct stat *st, const char *path, const char *what, int flags);

/*
 * Opens path (a symbolic link is followed: the path is the caller's choice) read-only as
 * a regular file without blocking (a FIFO or a device is refused at once), and applies
 * the rule above to what was opened.  *st (may be NULL) gets its fstat.  Returns the
 * descriptor (O_CLOEXEC, O_NONBLOCK), or ROCJIT_EIO with a message naming path, what is
 * wrong and what to do.
 */
int rj_trust_open(const char *path, const char *what, int flags, struct stat *st);

/*
 * The rule's owner half, for a unix socket connected as fd (path, what: for the
 * message): the process serving it (SO_PEERCRED, as it was when it listened) must run as
 * this user, root, or service (the socket file's owner where its folder shows that user
 * put it there, see remote/conn.c; (uid_t)-1 for none), since whoever serves it chooses
 * what this process reads.  0, or ROCJIT_EIO saying who serves it and what to do.
 */
int rj_trust_check_peer(int fd, const char *path, const char *what, uid_t service);

#endif
