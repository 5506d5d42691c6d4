/*
 * trust.h - whether a file rocjit opened may feed code to the GPU (see trust.c).
 *
 * Asked by the store's files about descriptors they opened, before SQLite reads anything.
 */
#ifndef ROCJIT_TRUST_H
#define ROCJIT_TRUST_H

/*
 * The trust rule, applied to the descriptor fd that is then used (what: "cache",
 * "bundle", ... for the message).  0, or ROCJIT_EIO saying why it must not be used and
 * what to do.  RJ_TRUST_CACHE: a cache (its hints name ROCJIT_CACHE_DIR and
 * ROCJIT_CACHE_SHARED); with RJ_TRUST_SHARED, a cache shared by a group of this user.
 */
#define RJ_TRUST_CACHE 1
#define RJ_TRUST_SHARED 2
int rj_trust_check(int fd, const char *path, const char *what, int flags);
/* The same rule on what fstatat said of a file that is not opened here (see check_files
 * in cache_db.c: closing a descriptor drops the process's locks on the file). */
struct stat;
int rj_trust_check_stat(const struct stat *st, const char *path, const char *what, int flags);

/* RJ_TRUST_CACHE, plus RJ_TRUST_SHARED when $ROCJIT_CACHE_SHARED is on. */
int rj_cache_trust_flags(void);

/* 0, or ROCJIT_EIO when folder dirfd is on a network file system (and not allowed).
 * *cow: whether it is a copy-on-write one (btrfs, ZFS, bcachefs), where a write to a
 * mapped page of a file allocates (cache_index.c maps no board writable there). */
int rj_cache_check_local(int dirfd, const char *dir, int *cow);

#endif
