/*
 * cache_admin.h - administering an open cache (cache_admin.c): the work behind the
 * public rocjit_cache_* calls, on the rj_cache that src/request/admin.c finds in the
 * context.  Each behaves as its public call documents in rocjit.h (return codes, the
 * thread's last error, callbacks run without any lock held); the caller has checked the
 * context and set the out-parameters the public call clears first.
 */
#ifndef ROCJIT_CACHE_ADMIN_H
#define ROCJIT_CACHE_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "rocjit.h"
#include "store/cache.h"

typedef int (*rj_cache_found_fn)(const rocjit_entry *entry, const void *code, size_t size,
				 void *user);
typedef void (*rj_cache_bad_fn)(const rocjit_entry *entry, int reason, const char *message,
				void *user);

struct rj_sig_trust;

/* Entries' signatures (rocjit_entry.signer, .signature) are checked against trust (NULL:
 * no key is trusted). */

/* rocjit_cache_foreach: every entry, in key order. */
int rj_cache_foreach(rj_cache *c, const struct rj_sig_trust *trust, rocjit_entry_fn fn,
		     void *user);
/* rocjit_cache_find: the one entry whose key starts with prefix. */
int rj_cache_find(rj_cache *c, const struct rj_sig_trust *trust, const char *prefix,
		  rj_cache_found_fn fn, void *user);
/* rocjit_cache_remove: removes keys (32 hex digits each); *removed (may be NULL) counts
 * them, and is left alone on an error. */
int rj_cache_remove(rj_cache *c, const char *const *keys, size_t n, size_t *removed);
/* rocjit_cache_compact. */
int rj_cache_compact(rj_cache *c);
/* rocjit_cache_verify (each 0: bad is called for bad entries) and
 * rocjit_cache_verify_each (each 1: for all, reason 0 for the good).  require_all: an
 * entry not signed by a trusted key is bad (ROCJIT_REQUIRE_SIGNED_ALL). */
int rj_cache_verify(rj_cache *c, const struct rj_sig_trust *trust, int require_all, int fix,
		    int each, rj_cache_bad_fn bad, void *user, uint64_t *checked,
		    uint64_t *bad_count);
/* rocjit_cache_counters: fills *out, which the caller has zeroed. */
int rj_cache_counters(rj_cache *c, rocjit_counters *out);
/* rocjit_cache_zero. */
int rj_cache_zero(rj_cache *c);

/*
 * Counters of other tiers kept in the cache across processes, by name (the remote tier's
 * "remote_hits", ...): add adds values[i] to each names[i] in one transaction (zeros are
 * skipped); read sets values[i] to each one's sum since the last rj_cache_zero (0 when
 * none).  0, or ROCJIT_EIO with why.
 */
int rj_cache_counters_add(rj_cache *c, const char *const *names, const double *values, size_t n);
int rj_cache_counters_read(rj_cache *c, const char *const *names, double *values, size_t n);

#endif
