/*
 * search_dirs.h - the digest of a request's -I folders, for its key (search_dirs.c).
 */
#ifndef ROCJIT_SEARCH_DIRS_H
#define ROCJIT_SEARCH_DIRS_H

#include "key/key.h"

/* 1 with *out the digest of what opts's -I folders hold (their files' relative paths,
 * sizes and texts), or 0 when opts name no -I folder.  Any thread. */
int rj_search_dirs_digest(const struct rj_opts *opts, rj_digest *out);

#endif
