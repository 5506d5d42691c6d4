/*
 * context.h - the context and its in-process table of slots (internal layout), and what
 * the request path's files share.
 *
 * A context owns: the platform it uses, its device's target, the handles of its stores
 * (the on-disk cache, the bundles), the registered sources it resolved, and the
 * in-process table: one slot per program and target, holding its code object, loaded
 * module and fetched kernels.  (A slot is not a rocjit_entry, which is a row of the
 * on-disk cache.)  Included by the files of src/request only (context.c, request.c, table.c,
 * lookup.c, sources.c, recent.c, admin.c) and by white-box tests: the layers below never
 * see a context, they get the handle they need (rj_cache *, struct rj_bundle *).
 */
#ifndef ROCJIT_CONTEXT_H
#define ROCJIT_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>

#include "remote/remote.h"
#include "request/signing.h"
#include "store/bundle_lookup.h"
#include "store/cache.h"
#include "key/key.h"
#include "compile/platform.h"
#include "key/target.h"
#include "request/reach.h"

enum rj_state { RJ_PENDING, RJ_READY, RJ_FAILED };

struct rocjit_kernel {
	const struct rj_platform *platform;
	void *function;
	int device;
	unsigned forks;             /* rj_forks when it was loaded (request.c): launchable
	                               only in the process that loaded it */
	struct rj_slot *slot;
	struct rocjit_kernel *next; /* the slot's kernels */
	char name[];
};

/* A slot of the in-process table: one program compiled for one target.  Immutable once
 * READY, but for module/kernels. */
struct rj_slot {
	rj_key key;
	const struct rj_platform *platform; /* the target's */
	enum rj_state state;       /* under ctx->rw */
	int rc;                    /* FAILED: the error code and message */
	char *error;
	rocjit_code code;          /* READY: the public view of code_mem or code_shared */
	void *code_mem;            /* READY: the code object, owned (code.data is const) */
	void *code_shared;         /* READY: or a shared buffer holding it (base/shared.h:
	                              a remote value, which the cache stores later) */
	char target[RJ_TARGET_MAX];
	char built_for[RJ_TARGET_MAX]; /* READY: the target its code was made for: target, or
	                              a less specific one (rj_target_compatible); code.target */
	void *module;              /* loaded on the context's device, or NULL */
	struct rocjit_kernel *kernels;
	char *names;               /* READY: its name expressions and their lowered names
	                              as pairs (rj_names_pairs), or NULL when none */
	int local_refused;         /* its local entry was refused for its signature: the
	                              owner does not look (and verify) again */
	int remote_sig_refused;    /* the remote tier's value was refused for its signature
	                              alone: only a signed value of this node replaces it */
	struct rj_slot *next;      /* hash chain */
};

/* A registered source as this context resolved it (embedded text or ROCJIT_KERNEL_PATH). */
struct rj_source {
	char *name;                /* registered name */
	char *display;             /* for diagnostics: the name or the file read */
	const char *text;
	size_t length;
	char *owned;               /* text read from ROCJIT_KERNEL_PATH, else NULL */
	rj_digest digest;
	unsigned expands;          /* rj_key_expansions of its text */
	/* The registered headers it reaches without options (reach.c), found at its first
	   request as a source (sources.c: rj_source_take), under the context's load_mu: */
	atomic_int reached_done;   /* set once, read without the lock */
	struct rj_reached reached;
	struct rj_source *next;
};

struct rocjit_ctx {
	uint64_t gen;               /* unique per context opened in this process (recent.c) */
	const struct rj_platform *platform; /* the device's; NULL until known (AUTO) */
	int requested_platform;     /* ROCJIT_PLATFORM_* as asked (options, environment) */
	int device;
	unsigned int flags;
	char target[RJ_TARGET_MAX]; /* override (ROCJIT_ARCH / options), or "" */
	char *kernel_path;          /* $ROCJIT_KERNEL_PATH or NULL */
	rj_cache *cache;            /* NULL: memory only */
	struct rj_bundle *bundles;  /* prebuilt, read-only; NULL: none.  Read through
	                               rj_ctx_bundles (lookup_local.c): <executable>.rocjit
	                               joins them at the first lookup that reaches them */
	pthread_mutex_t bundles_mu;
	atomic_int bundles_complete;
	struct rj_remote *remote;   /* the remote tier, or NULL: none */
	struct rj_signing signing;  /* signed code: key, trust, rule (signing.c) */
	int unsigned_fleet_chosen;  /* ROCJIT_REQUIRE_SIGNED=none said: a remote tier without
	                               trusted keys is meant (no warning at its hits) */

	pthread_rwlock_t rw;        /* table, slot states, module pointers, kernel lists,
	                               sources */
	pthread_mutex_t wait_mu;    /* with wait_cv: waiting for a PENDING slot */
	pthread_cond_t wait_cv;
	pthread_mutex_t load_mu;    /* serializes module loads and device detection */
	struct rj_slot **buckets;
	size_t nbuckets, nslots;
	struct rj_source *sources;
	/* Every registered header (.h .hpp .cuh .inc), of which each registered source is
	   given those it reaches (reach.c); resolved once (sources.c), under load_mu. */
	atomic_int headers_resolved; /* set once under load_mu, read without it */
	size_t num_headers;
	rocjit_header *headers;
	rj_digest *header_digests;
	unsigned header_expands;    /* rj_key_expansions of the registered headers, or'ed */

	atomic_int device_state;    /* 0 unknown, 1 known (device_target), <0 the error;
	                               set once under load_mu, read without it */
	char device_target[RJ_TARGET_MAX];
	char device_error[1024];    /* why there is no device (device_state < 0) */

	atomic_uint_fast64_t memory_hits, disk_hits, misses, compiles, compile_errors,
		cache_errors, index_hits;
	atomic_uint_fast64_t compile_us; /* total compile time */
	/* What became of compiled code objects (rocjit_stats version 3). */
	atomic_uint_fast64_t stores, store_failures;
	atomic_uint_fast64_t empty_objects; /* compiled objects with no kernel (version 4) */
	atomic_uint_fast64_t worker_compiles;    /* compiles that ran in a worker (version 5) */
	atomic_uint_fast64_t worker_overhead_us; /* their time outside the compiler        */
	pthread_mutex_t store_mu;   /* guards store_error */
	char store_error[1024];     /* why the last store failed, or "" */
	char cache_error[1024];     /* why no cache is open (open failed), or "" */

	/* fork (context.c): the process's open contexts, and the kernels a fork child must
	   not launch (loaded by its parent; freed at close, never unloaded). */
	struct rocjit_ctx *next_open;
	struct rocjit_kernel *stale_kernels;
};

/* context.c: the fork()s since the first open; a kernel keeps the count it was loaded
 * at, and one from before a fork does not launch in the child. */
extern atomic_uint rj_forks;

/* lookup.c: a compiled code object was stored (ok) or not (!ok; why in rocjit_last_error()). */
void rj_note_store(rocjit_ctx *ctx, int ok);

/* table.c: the in-process table.  Callers hold ctx->rw (read for find, write for add). */
struct rj_slot *rj_table_find(const rocjit_ctx *ctx, const rj_key *key);
/* Adds a PENDING slot for key. NULL on out of memory. */
struct rj_slot *rj_table_add(rocjit_ctx *ctx, const rj_key *key);
/* Frees every slot (unloading modules). No locking: only at close. */
void rj_table_free(rocjit_ctx *ctx);

/* A validated request: what enters the key, plus the name diagnostics give it. */
struct rj_request {
	const char *source;
	size_t length;
	const char *name;
	const rocjit_header *headers;    /* packed (sizeof(rocjit_header) apart) */
	size_t num_headers;
	rocjit_header *owned_headers;    /* headers, when they were copied out of a program
	                                    whose header_size differs; freed with the
	                                    request, else NULL */
	const rj_digest *header_digests; /* precomputed, or NULL */
	struct rj_opts opts;
	rj_digest digest;
	unsigned expands;                /* rj_key_expansions of the source and headers */
	int has_search_dirs;             /* the options name -I folders, whose digest is: */
	rj_digest search_dirs;           /* (rj_search_dirs_digest, read once per request) */
	int language;                    /* ROCJIT_LANG_HIP or _CUDA, resolved */
	const char *const *name_expressions; /* the program's, checked */
	size_t num_name_expressions;
};

/* What a request is looked up by: its key, and what the key was made of. */
struct rj_lookup {
	rj_key key;
	const struct rj_platform *platform; /* the target's */
	const char *compiler;               /* its identity (static) */
	const char *target;                 /* normalized */
};

/*
 * lookup_remote.c: set by a thread that has other work to do than wait (a prefetch thread): a
 * request whose key another node of the fleet is compiling now returns RJ_DEFERRED at
 * once instead of waiting for its value.  RJ_DEFERRED never reaches a caller of the
 * public API: only prefetch.c sets the flag, and it takes the item up again later.
 */
extern _Thread_local int rj_fleet_nowait;
#define RJ_DEFERRED (-1000)

/* lookup.c: computes r's lookup for target.  0, ROCJIT_EUNSUPPORTED, ROCJIT_ENOCOMPILER. */
int rj_lookup_init(struct rj_lookup *lk, rocjit_ctx *ctx, const struct rj_request *r,
		   const char *target);

/*
 * lookup.c: the READY slot for r, from the table, the disk cache, a bundle or the
 * compiler, filled once however many threads ask.
 */
int rj_slot_get(struct rj_slot **out, rocjit_ctx *ctx, const struct rj_request *r,
		const struct rj_lookup *lk);

/* lookup.c: the symbol a kernel name stands for in s: the lowered name when it is one of
 * s's name expressions, else the name itself. */
const char *rj_slot_symbol(const struct rj_slot *s, const char *kernel_name);

/* remote_admin.c: adds the context's remote tier counts to its cache's counters (at
 * close). */
void rj_remote_persist_counts(rocjit_ctx *ctx);

/* recent.c: the calling thread's memo of kernels it got (see recent.c). */
rocjit_kernel *rj_recent_find(const rocjit_ctx *ctx, const rocjit_program *p, size_t length,
			      const char *kernel_name);
void rj_recent_add(const rocjit_ctx *ctx, const rocjit_program *p, size_t length,
		   const char *kernel_name, rocjit_kernel *kernel);

/* A request for a registered source with name expressions (registered.c), as asked. */
struct rj_registered_ask {
	const char *source_name;
	const char *kernel_name;
	const char *const *options;
	size_t num_options;
	const char *const *exprs;
	size_t num_exprs;
};

/* recent.c: the calling thread's memo of rocjit_kernel_get_registered_v2 (see recent.c). */
rocjit_kernel *rj_recent_registered_find(const rocjit_ctx *ctx,
					 const struct rj_registered_ask *a);
void rj_recent_registered_add(const rocjit_ctx *ctx, const struct rj_registered_ask *a,
			      rocjit_kernel *kernel);

/* sources.c: resolves a registered name for this context (once); see sources.c. */
int rj_source_resolve(const struct rj_source **out, rocjit_ctx *ctx, const char *name);
void rj_sources_free(rocjit_ctx *ctx);
/* Every registered header for this context (resolved once): sets *headers, *digests, *n,
 * and *expands (may be NULL: what their texts expand, rj_key_expansions). */
int rj_source_headers(rocjit_ctx *ctx, const rocjit_header **headers,
		      const rj_digest **digests, size_t *n, unsigned *expands);
/*
 * sources.c: r's source and headers for the registered source name: its text as this
 * context resolved it (source, length, name, digest, language) and the registered headers
 * it reaches with r->opts (headers, header_digests, num_headers, expands: reach.c).  Those
 * are found once per context for options that leave the reach alone, else for this
 * request, into r->owned_headers (the caller frees it).  r->opts must be normalized.
 */
int rj_source_take(struct rj_request *r, rocjit_ctx *ctx, const char *name);

#endif
