/*
 * cache.h - the on-disk SQLite cache of code objects.
 *
 * Best-effort by contract: every function here reports failure to its caller, which
 * treats it as a miss and goes on; none of them can fail a kernel request.  Internally
 * locked: one connection per rj_cache, shared by the context's threads.
 *
 * The tier's interface, for the request path (src/request) and the compiler memo
 * (src/compile).  Defined across the cache's files (see cache_internal.h for their
 * layers): opening and closing in cache_process.c, the accessors in cache_db.c, the
 * counters in cache_usage.c (failures counted in cache_process.c), get, put, totals and
 * the memo in cache.c.
 */
#ifndef ROCJIT_CACHE_H
#define ROCJIT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "key/key.h"
#include "store/origins.h"
#include "store/signatures.h"

typedef struct rj_cache rj_cache;

/* The readable columns of an entry (see cache/schema.sql). */
struct rj_cache_meta {
	const char *platform;
	const char *target;
	const char *compiler;
	const char *options;
	const char *source_name;
	const char *headers;
	const char *kernels;
	double compile_ms;
	rj_key pkey;              /* the portable key: the key less the compiler identity */
	const char *signer;       /* its signature (signatures.h), or NULL: unsigned */
	const unsigned char *sig; /* RJ_SIG_BYTES when signer is set */
	int origin;               /* where it came from (origins.h: RJ_ORIGIN_*), recorded
	                             with it; RJ_ORIGIN_UNKNOWN records none */
	const char *origin_signer; /* the trusted key whose signature was checked when it
	                              arrived, or NULL */
};

/* The signature subject (sign.h) of an entry stored with meta m under key, and its code:
 * every field m holds (pointers kept: m and code must outlive e).  What rj_signing_sign
 * signs and a verifier of a stored entry checks. */
void rj_cache_meta_subject(struct rj_sig_subject *e, const rj_key *key,
			   const struct rj_cache_meta *m, const void *code, size_t size);

/* The cache folder's rule is public: rocjit_cache_dir() (rocjit.h), defined in cache_db.c. */

/*
 * Opens (creating folder and database as needed) the cache in folder dir.  readonly:
 * never write.  Returns 0 or a negative code with a message saying why the cache cannot be
 * used; the caller then runs without one.
 */
int rj_cache_open(rj_cache **out, const char *dir, int readonly);

/* Adds a context's misses, compiles and compile time to the counters written at close. */
void rj_cache_note_counts(rj_cache *c, uint64_t misses, uint64_t compiles, double compile_ms);

/*
 * Failures counted across processes (the counters table, cache/FORMAT.md), each where it
 * happens: compiles that failed, entries refused for their signature, remote tier
 * commands that failed.  (Evictions are counted by the eviction itself, cache_usage.c.)
 */
enum rj_count {
	RJ_COUNT_COMPILE_ERROR,
	RJ_COUNT_SIGNATURE_REJECT,
	RJ_COUNT_REMOTE_ERROR,
	RJ_COUNT_N
};

/*
 * Counts n events of kind what: an atomic add in memory, written with the usage records
 * (by the flusher within seconds, at close, at exit), so that a monitor reading the
 * counters sees every process's failures, each once.  For failure paths: it never takes
 * the cache's lock or touches the database.  c NULL: nothing.  Any thread.
 */
void rj_cache_count(rj_cache *c, enum rj_count what, uint64_t n);

/* Flushes pending hit counts and counters, and closes. NULL is a no-op. */
void rj_cache_close(rj_cache *c);

/* The database file's path, and the folder it is in. */
const char *rj_cache_path(const rj_cache *c);
const char *rj_cache_dir_of(const rj_cache *c);
/* The checked cache folder's descriptor, valid while c is open (files in it are opened
 * with openat and O_NOFOLLOW, see fsutil.h); -1 for a cache given as a file. */
int rj_cache_dirfd(const rj_cache *c);
/* 1 when the cache is never written (opened read-only, or a file named directly). */
int rj_cache_readonly(const rj_cache *c);
/* The size limit in force (ROCJIT_CACHE_MAXSIZE), 0 for none. */
uint64_t rj_cache_max_bytes(const rj_cache *c);

/*
 * The kernels column and the name expressions it carries (kernel_names.c; FORMAT.md):
 * "sym1,sym2", then for a program with name expressions "\nexpr\tlowered" per expression.
 */
/* The column for kernels (comma separated) and n expressions with their lowered names;
 * malloc'ed, NULL when out of memory. */
char *rj_kernels_column(const char *kernels, const char *const *exprs, char *const *lowered,
			size_t n);
/* How many bytes of column are the comma-separated symbols. */
size_t rj_kernels_symbols_len(const char *column);
/* The "expr\tlowered" lines of column ("" when none): a pointer into it. */
const char *rj_kernels_names(const char *column);
/* Those lines as NUL-separated pairs "expr\0lowered\0...\0\0", malloc'ed (NULL: no
 * memory), for rj_names_lowered. */
char *rj_names_pairs(const char *names);
/* The lowered name of expr in pairs (rj_names_pairs; NULL ok), or NULL. */
const char *rj_names_lowered(const char *pairs, const char *expr);
/* 0 when every line of column's name part is "expr\tlowered" with lowered one of the
 * symbols[symbols_len] (comma separated, the kernels) or a variable the code object
 * code[0..code_size) defines (an expression "&var"), else -1: what a bundle import and a
 * remote value are checked for. */
int rj_names_check(const char *column, const char *symbols, size_t symbols_len,
		   const void *code, size_t code_size);

/*
 * Looks key up: in the read index first (cache_index.c), then in the database.  On a hit
 * *code is the code object and *size its length, a malloc'ed copy, also in *owned, that
 * the caller frees: from the database (returns 1) or from the index (returns 2; copied out
 * of the mapping, which the file's writers can change or shorten, issue 27).  *compile_ms
 * is what it took to compile, and *kernels (when kernels is not NULL) a malloc'ed copy of
 * the kernels column (NULL when out of memory).  The checksum is checked: a mismatch drops
 * the row and is a miss (returns 0, with a warning).  Returns 0 on a miss, negative on a
 * database error.  The hit is counted in memory and written in a batch.
 */
int rj_cache_get(rj_cache *c, const rj_key *key, const void **code, void **owned,
		 size_t *size, double *compile_ms, char **kernels);

/* Stores a code object under key (replacing any row with that key).  0 when it is
 * stored and kept; negative when the write failed, or the size limit refuses or evicts
 * it at once (then it is not in the cache). */
int rj_cache_put(rj_cache *c, const rj_key *key, const struct rj_cache_meta *meta,
		 const void *code, size_t size);

/*
 * As rj_cache_put, off the request path: the entry is kept and stored with the next
 * batch of usage records (by the flusher when it runs for other records, at close, at
 * exit; no thread is started for it).  Its code is not copied when it lies in shared, a
 * buffer of rj_shared_alloc (the entry holds a reference until it is stored); NULL: it
 * is copied.  For an entry another tier served (the remote tier): a failure to store it
 * later, or a process killed first, only costs the next process that tier's request.
 * 0, or negative with why (read-only, larger than the size limit, out of memory).
 */
int rj_cache_put_later(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
		       const void *code, size_t size, void *shared);

/*
 * The read index alone, never the database: 2 and a hit as rj_cache_get gives one (from
 * the index); 0 when the index held every entry of the database when it was written and
 * lacks key (so the key is not stored, or was stored since: a tier asked before the
 * database may be asked for nothing); 1 when only the database can say (no index, or a
 * full one).  Negative when out of memory.
 */
int rj_cache_probe(rj_cache *c, const rj_key *key, const void **code, void **owned,
		   size_t *size, double *compile_ms, char **kernels);

/*
 * The compiler memo of a platform (compiler_id.c): 1 and a malloc'ed *memo when there is
 * one, 0 when not, negative on error.  Put replaces it.  Both are rare (once a process).
 */
int rj_cache_memo_get(rj_cache *c, const char *platform, char **memo);
int rj_cache_memo_put(rj_cache *c, const char *platform, const char *memo);

/* 1 when a statfs f_type names a network file system (NFS, Lustre, SMB, ...): trust.c. */
int rj_fs_is_network(unsigned long type);

/*
 * The signature the read index holds for key's entry, for a hit: code is the hit's (NULL:
 * none), a copy, so the signature comes from the current index, which may have replaced
 * the one the hit was read from: it is checked against the code, never taken on trust.
 * 1 and *sig, with the description digest the index holds beside it (rj_sig_describe of
 * the entry's options, source name and header names: the index keeps the digest, not the
 * texts) in described; 0 (sig->len 0, described zeros) when the index holds the entry
 * unsigned, lacks it, or its mapping broke meanwhile (a file shortened under it: issue
 * 27).  Never opens the
 * database, and says nothing the database would not: the index holds the signature as
 * the database held it when the index was written, so whoever finds it not trusted asks
 * rj_cache_signed_get, whose answer is the current one.
 */
int rj_cache_index_signature(rj_cache *c, const rj_key *key, const void *code,
			     struct rj_stored_sig *sig,
			     unsigned char described[RJ_SIG_DIGEST_BYTES]);

/*
 * What key's entry was signed with, for a verifier (src/request/signing.c): its fields
 * that a signature covers, copied into *e (the code, kernels column and compile time are
 * the caller's: it has them from the hit, and they are what it uses, so they are what is
 * checked), and its signature (none: out->sig.len 0).  1, 0 when the database has no such
 * entry, negative on a database error.  Opens the connection when it is deferred.  When
 * the read index holds the entry with another signature (changed since it was written,
 * by a program that left the index), the index is written anew at the next occasion.
 */
struct rj_cache_signed {
	rj_key pkey;
	char platform[16];
	char target[128];
	char compiler[1024];
	unsigned char described[RJ_SIG_DIGEST_BYTES]; /* of its options, source name and
							 header names (rj_sig_describe) */
	struct rj_stored_sig sig;
};
int rj_cache_signed_get(rj_cache *c, const rj_key *key, struct rj_cache_signed *e);

/* key's origin (origins.h) into *o: 1 when recorded, 0 when not (unknown origin),
 * negative on a database error.  Opens the connection when it is deferred. */
int rj_cache_origin_get(rj_cache *c, const rj_key *key, struct rj_stored_origin *o);

/* Entries and code bytes in the database. 0 or negative. */
int rj_cache_totals(rj_cache *c, uint64_t *entries, uint64_t *bytes);

#endif
