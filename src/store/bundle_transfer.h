/*
 * bundle_transfer.h - moving entries between an open user cache and a bundle file
 * (bundle_transfer.c): the work behind rocjit_bundle_export and rocjit_bundle_import_v2,
 * on the rj_cache that src/request/admin.c finds in the context.  Each behaves as its
 * public call documents in rocjit.h; the caller has checked the context and cleared the
 * out-parameters.
 */
#ifndef ROCJIT_BUNDLE_TRANSFER_H
#define ROCJIT_BUNDLE_TRANSFER_H

#include <stddef.h>

#include "rocjit.h"
#include "store/cache.h"

/* rocjit_bundle_export: the entries of keys (32 hex digits each) in cache c, into a new
 * bundle file path; *count (may be NULL) gets how many were copied. */
int rj_bundle_export(rj_cache *c, const char *path, const char *const *keys, size_t n,
		     size_t *count);

struct rj_sig_trust;

/* rocjit_bundle_import_v2: the good entries of bundle path, into cache c, with their
 * signatures; with trust (not NULL), only entries signed by a key in it (the others
 * are rejected, saying why). */
int rj_bundle_import(rj_cache *c, const char *path, const struct rj_sig_trust *trust,
		     size_t *copied, size_t *rejected, rocjit_reject_fn fn, void *user);

#endif
