/*
 * trust.h - the store's conditions on a cache folder (see trust.c); the trust rule
 * itself is base/trust.h, included here for the store's files.
 */
#ifndef ROCJIT_TRUST_H
#define ROCJIT_TRUST_H

#include "base/trust.h"

/* RJ_TRUST_CACHE, plus RJ_TRUST_SHARED when $ROCJIT_CACHE_SHARED is on. */
int rj_cache_trust_flags(void);

/* 0, or ROCJIT_EIO when folder dirfd is on a network file system (and not allowed).
 * *cow: whether it is a copy-on-write one (btrfs, ZFS, bcachefs), where a write to a
 * mapped page of a file allocates (cache_index.c maps no board writable there). */
int rj_cache_check_local(int dirfd, const char *dir, int *cow);

#endif
