/*
 * cache_internal.h - the cache connection's layout and the helpers the store's files
 * share (one application id, one entry column list, one way to create a rocjit
 * database).  Included by files of src/store (and by white-box tests); nothing outside
 * src/store includes it.
 *
 * The cache's files form layers, each calling only those below it:
 *   cache_schema.c       what the database holds: schema, format and truncation checks,
 *                        pragmas, statements, exec
 *   cache_index.c        the read index: recent entries in a file read without SQLite
 *                        (mapping, finding, the checks of a mapping, following a
 *                        replaced index)
 *   cache_index_board.c  the index's usage board: hits recorded in place (stamped, or
 *                        held hits put), folded into the database, peeked by readers
 *   cache_index_write.c  writing the index and dropping it (folding its board first)
 *   cache_db.c           the connection: the folder, opening through checked descriptors,
 *                        moving a damaged file aside, lock, close, reopen after fork()
 *   cache_usage.c        usage records (batched hits, counters) and the size limit
 *   cache_process.c      the process's open caches, fork(), the usage-record flusher
 *   cache.c              get, put, totals, the compiler memo (the request path)
 *   cache_admin.c        walks, find, remove, verify, compact, counters (rocjit_cache_*)
 * The three index files share the file's layout through cache_index_internal.h, which
 * nothing else includes.
 */
#ifndef ROCJIT_CACHE_INTERNAL_H
#define ROCJIT_CACHE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <time.h>

#include "store/cache.h"

/* The cache database's name in its folder (its -wal and -shm beside it), the format
 * version this library writes, and how long a connection waits for a busy database. */
#define RJ_CACHE_FILE "rocjit-cache.sqlite"
#define RJ_CACHE_FORMAT 2
#define RJ_CACHE_BUSY_MS 5000
/* The read index beside the database (cache_index.c). */
#define RJ_INDEX_FILE "rocjit-cache.index"
/* A process that hits only its index checks it against deletions by programs that do not
 * know it at most this often, in the background (cache.c, cache_process.c). */
#define RJ_CHECK_S 2

/* PRAGMA application_id of every rocjit database, cache or bundle: "rjit". */
#define RJ_CACHE_APP_ID 0x726a6974

/* Every column of an entry, in the order the statements that write whole rows use. */
#define RJ_ENTRY_COLUMNS                                                                   \
	"key, platform, target, compiler, options, source_name, headers, kernels, size, " \
	"checksum, created, last_used, hits, compile_ms, pkey, code"

/* A database file's identity: device and inode, and its birth time where the file system
 * keeps one (an inode number is reused at once after a file is removed). */
struct rj_db_id {
	uint64_t dev, ino;
	int64_t born_ns;
};

/* Hits of an entry whose last use on the read index's board was recent: put on the board
 * (or, when the index is gone, into the database) at close, at exit or by the flusher. */
struct rj_held {
	rj_key key;
	uint64_t hits;
	int64_t last;
	double compile_ms;
};

struct rj_cache {
	sqlite3 *db;
	pthread_mutex_t lock;
	sqlite3_stmt *get, *put, *totals; /* put, totals: NULL until first used */
	int readonly;
	rj_key *hits; /* keys hit and not yet written (batched: cache_usage.c) */
	size_t nhits, caphits;
	double saved_ms;                    /* compile time of those hits */
	uint64_t misses, compiles;          /* reported by the context at close */
	double compile_ms;
	atomic_uint_fast64_t counts[RJ_COUNT_N]; /* failures not yet written (rj_cache_count) */
	char path[4096];
	char dir[4096];
	int dirfd;      /* the checked cache folder (pinned, sqlite_fd.h), or -1 */
	int fs_cow;     /* on a copy-on-write file system (trust.h) */
	int filefd;     /* a cache given as a file: the checked file SQLite reads, or -1 */
	int bad_file;   /* open failed because the file is no usable rocjit cache: move it aside */
	/* Code bytes kept at most (cache_settings.c); 0 no limit.  Written under lock when the
	   stored limit is read again (before each eviction), read without it where a store
	   checks a size first: atomic. */
	_Atomic uint64_t max_bytes;
	int max_from;       /* where max_bytes came from: RJ_FROM_* (base/config.h) or
			       RJ_FROM_CACHE */
	uint64_t max_fallback; /* the limit without a stored one: environment, files, default */
	int max_fallback_from;
	char max_stored[64];   /* the stored limit's text, "" when none */
	/* fork (cache_process.c): the connection is closed before every fork() and opened
	   again, from what rj_cache_open was given, by the first use in parent or child. */
	char opened_as[4096];
	int closed_for_fork;
	int registered;                /* in the process's list of open caches */
	/* the read index (cache_index.c): mapped at open, when present and sound; then the
	   connection is opened at the first use that needs it (deferred) */
	struct rj_index *index;
	int deferred;                  /* opened on the index: no connection opened yet */
	int may_defer;                 /* open: the connection may wait for its first use */
	int index_dirty;               /* a hit or a store the index lacks: write it again */
	time_t index_written;          /* when this process last wrote it (cache_process.c) */
	struct rj_db_id db_id;         /* the database file as the connection opened it */
	int db_id_known;
	time_t checked_at;             /* when the index was last checked for deletions, */
	int check_due;                 /* and the flusher's next round checks it again */
	time_t remap_at;               /* no index mapped: when to look for one again */
	uint64_t index_bad_dev, index_bad_ino; /* an index file found damaged: not mapped */
	int64_t index_bad_written;             /* again */
	struct rj_held *held;          /* hits held for the board (cache_usage.c) */
	size_t nheld, capheld;
	struct rj_later *later;        /* entries to store at the next flush (cache_usage.c) */
	int open_failed;               /* a deferred connection could not be opened: why */
	char open_error[512];
	struct rj_cache *next_open;
};


#define DB_FAIL(c, what)                                                               \
	RJ_FAIL(ROCJIT_EIO, "cache %s: %s failed: %s", (c)->path, (what),             \
		sqlite3_errmsg((c)->db))

/* ---- cache_db.c: the connection ------------------------------------------------------- */

/* Opens a cache that is not in the process's list (cache_process.c lists them). */
/* defer: with a sound index, open the connection at its first use (cache_index.c). */
int rj_cache_open_unregistered(rj_cache **out, const char *dir, int readonly, int defer);
/* Closes c's connection and the descriptors SQLite reads through, keeping the rest of c. */
void rj_cache_close_db(rj_cache *c);
/* Frees a cache whose connection is closed (its pending hits and its lock). */
void rj_cache_free(rj_cache *c);

/*
 * Takes c->lock and makes sure the connection is open (it is closed across fork():
 * cache_process.c).  0 with the lock held; or ROCJIT_EIO (recorded) with the lock let go,
 * when the connection cannot be opened again.
 */
int rj_cache_lock(rj_cache *c);
/* The same for a caller that holds c->lock already: opens the connection again when a
 * fork() closed it.  0, or ROCJIT_EIO recorded; the lock stays held either way. */
int rj_cache_reopen_locked(rj_cache *c);

/* ---- cache_settings.c: the settings kept in the cache (its size limit) ----------------- */

#define RJ_CACHE_DEFAULT_MAX (4ull << 30) /* 4 GiB of code, like the peers' few GiB */
#define RJ_FROM_CACHE 10                  /* max_from: the limit stored in the cache */
#define RJ_CACHE_LIMIT_KEY "cache_maxsize" /* its row in table settings */

/* The limit from the environment, the files or the default, at open. */
void rj_cache_limit_init(rj_cache *c);
/* The stored limit read again into c->max_bytes (caller holds lock, connection open). */
void rj_cache_limit_refresh_locked(rj_cache *c);
/* (cache_admin.c) Stores text as the cache's limit (NULL removes it), then evicts down to
 * the limit in force: 0, or ROCJIT_EIO recorded.  Takes the lock. */
int rj_cache_limit_set(rj_cache *c, const char *text);
/* (cache_admin.c) The limit in force, where it comes from (RJ_FROM_* or RJ_FROM_CACHE)
 * and the stored text (NULL: none; valid until the next call).  Takes the lock. */
int rj_cache_limit_get(rj_cache *c, uint64_t *bytes, int *from, const char **stored);

/* ---- cache_schema.c: what the database holds -------------------------------------------- */
/* Each takes a cache whose connection (c->db) is open; 0 or ROCJIT_EIO with the message
 * recorded, unless said otherwise. */

/* Creates the schema in a new (empty) database, or checks an existing one's format. */
int rj_cache_init_schema(rj_cache *c);
/* The connection's pragmas (busy handling, the WAL kept small). */
int rj_cache_set_pragmas(rj_cache *c);
/* Switches a new database to WAL. */
int rj_cache_set_wal(rj_cache *c);
/* Checks an opened file's format in one read (application id, version, truncation),
 * creating the schema in an empty one. */
int rj_cache_check_format(rj_cache *c);
/* Runs step again while SQLite answers busy, for at most RJ_CACHE_BUSY_MS. */
int rj_cache_retry_busy(rj_cache *c, int (*step)(rj_cache *c));
/* The error of a file that is no database (garbage, truncated, foreign): ROCJIT_EIO with
 * a message, or the first failure's code; used after a step above failed. */
int rj_cache_damaged(rj_cache *c);
/* The lookup statement, prepared at open. */
int rj_cache_prepare_statements(rj_cache *c);

/*
 * The store and totals statements, prepared at their first use (only the lookup is
 * prepared at open).  Caller holds c->lock with the connection open.  NULL with the
 * error recorded when it cannot be prepared (or, for put, when the cache is read-only).
 */
sqlite3_stmt *rj_cache_put_stmt(rj_cache *c);
sqlite3_stmt *rj_cache_totals_stmt(rj_cache *c);

/* Runs sql (no results); 0 or ROCJIT_EIO with the message recorded.  Caller holds lock. */
int rj_cache_exec(rj_cache *c, const char *sql);

/* Adds n hits of an entry and its last use (?1 key, ?2 n, ?3 time()). */
#define RJ_USAGE_SQL                                                                     \
	"UPDATE entries SET hits = hits + ?2, last_used = max(last_used, ?3) WHERE key = ?1"
/* Adds ?2 to the counter named ?1 (created at 0). */
#define RJ_ADD_COUNTER_SQL                                                                 \
	"INSERT INTO counters (name, value) VALUES (?1, ?2) ON CONFLICT(name) "           \
	"DO UPDATE SET value = value + excluded.value"
/* Adds to the counters across processes (caller holds lock, in a write transaction;
 * best-effort: statistics). */
void rj_cache_add_counters(rj_cache *c, double disk_hits, double saved_ms, double misses,
			   double compiles, double compile_ms);
/* The shared counters' names of the failures rj_cache_count counts, in enum rj_count's
 * order, and of evictions (cache/FORMAT.md). */
extern const char *const rj_count_names[RJ_COUNT_N];
#define RJ_EVICTIONS_COUNTER "evictions"
/* Adds one counter (caller holds lock, in a write transaction; best-effort). */
void rj_cache_add_counter(rj_cache *c, const char *name, double value);

/* The first column of sql's first row into *value (0 when there is no row): 0, or an
 * SQLite error code (nothing recorded). */
int rj_db_int(sqlite3 *db, const char *sql, int *value);

/*
 * Writes the schema (cache/schema.sql) into the empty database db, marks it a rocjit
 * database of the given format version, then runs more (may be NULL).  SQLITE_OK, or an
 * SQLite code with *msg from sqlite3_exec (sqlite3_free it; may be NULL).
 */
int rj_db_create(sqlite3 *db, int format, const char *more, char **msg);

/*
 * <dir>/locks opened through the checked cache folder dirfd (created 0700, or 0770 in
 * shared mode; never through a link) and checked by the trust rule.  Returns the
 * descriptor, or a negative code with the message recorded.
 */
int rj_cache_locks_dir(int dirfd, const char *dir);

/* ---- cache_index.c: the read index ------------------------------------------------------ */

/* A hit in the index: code is a malloc'ed copy, the caller's (rj_index_find); the other
 * pointers point into the mapping, valid while it stays mapped, and what they give is used
 * once copied and rj_index_broken said no. */
struct rj_index_hit {
	const void *code;
	void *owned;           /* code, the copy (rj_index_find) */
	size_t size;
	double compile_ms;
	const char *kernels;
	uint32_t ordinal;      /* its place on the usage board */
	const char *signer;    /* its signature as the database held it when the index was
	                          written (a valid name), or NULL: unsigned then */
	const unsigned char *sig; /* RJ_SIG_BYTES when signer is set */
	const unsigned char *described; /* RJ_SIG_DIGEST_BYTES: what the signature covers of
	                                   the descriptive fields (sign.h) */
};

/* The identity of the database file now named in folder dirfd: 0, or -1. */
int rj_db_identity(int dirfd, struct rj_db_id *id);
/* Records the identity of the database file c's connection just opened (cache_db.c). */
void rj_index_note_database(rj_cache *c);
/* $ROCJIT_CACHE_INDEX_SIZE: the index's size at most (0: no index is read or written). */
uint64_t rj_index_max_bytes(void);
/* Maps the index of c's folder into c->index when it is there, trusted, sound and written
 * from the database file now in the folder: 0; else -1 (then there is none to use). */
int rj_index_map(rj_cache *c);
void rj_index_unmap(struct rj_index *ix);
/* Stops c's use of its index and unmaps it (caller holds c->lock, or c is being freed):
 * nothing points into it once the lookup that used it returns (a hit's code is a copy). */
void rj_index_retire(rj_cache *c);
/* Whether ix was written from the database file now in folder dirfd. */
int rj_index_matches(const struct rj_index *ix, int dirfd);
/* 1 and *hit when key is in the index and its entry passes every check (hit->code then a
 * malloc'ed copy of the code, checked, the caller's), 0 when it is not there or the
 * mapping broke (rj_index_broken), -1 when it is there but damaged (then stop using the
 * index), -2 when out of memory. */
int rj_index_find(const struct rj_index *ix, const rj_key *key, struct rj_index_hit *hit);
/* Whether the file under ix's mapping was shortened and an access went past its end: then
 * the mapping reads as zeros, and whatever was taken from it since it was mapped is not to
 * be used unless a checksum vouches for it (base/mapguard.h). */
int rj_index_broken(const struct rj_index *ix);
/* The signature c's current index holds for key's entry (caller holds c->lock; pointers
 * into the mapping, *signer NULL when it holds the entry unsigned; copy them, then ask
 * rj_index_broken), and the description digest beside it (*described): 1 when that index
 * holds a sound entry of key, else 0.  The code is not checked (a hit did; a signature is
 * checked against the code itself). */
int rj_index_signature(const rj_cache *c, const rj_key *key, const char **signer,
		       const unsigned char **sig, const unsigned char **described);
/* 1 when ix held every entry of the database when it was written (it was not full): a
 * key it lacks was stored after it was written, or is not stored. */
int rj_index_complete(const struct rj_index *ix);
/* c's index failed a check: c stops using it and never maps that file again (it is
 * written anew). */
void rj_index_reject(rj_cache *c);
/* Whether c's index was retired by a writer that replaced or removed it: then c stops
 * using it and maps the folder's current one, if any (caller holds c->lock). */
int rj_index_stale(rj_cache *c);
/* The compiler memo of platform in the index (a pointer into it), or NULL. */
const char *rj_index_memo(const struct rj_index *ix, const char *platform);

/* ---- cache_index_board.c: the index's usage board --------------------------------------- */

/*
 * Records a hit of the entry at ordinal on ix's usage board: 1.  2 (nothing written) when
 * may_hold and the entry's last use there is recent: the caller holds the hit in memory
 * (rj_cache_hold_hit).  0 when ix has no board (mapped read-only): the hit goes to the
 * pending usage records instead.
 */
int rj_index_stamp(struct rj_index *ix, uint32_t ordinal, double compile_ms, int may_hold);
/* Adds hits of key's entry, last used at last, to ix's board: 1; 0 when ix is NULL,
 * read-only or retired, or lacks the entry. */
int rj_index_put_hits(struct rj_index *ix, const rj_key *key, uint64_t hits, int64_t last,
		      double compile_ms);
/* Writes the usage board of the folder's index into the database (caller holds c->lock,
 * the connection open; in its write transaction, or one of its own). */
void rj_index_fold(rj_cache *c);
/*
 * Readers of usage records (rocjit list, show, stats) add what the board holds and was not
 * yet folded: the folder's index mapped read-only (caller holds c->lock, the connection
 * open), NULL when there is none; rj_index_unmap it.  Then, for an entry, its board's
 * hits are added to *hits and a later last use replaces *last_used; for the counters, the
 * board's hits and compile time saved are added.  NULL ix: nothing added.
 */
struct rj_index *rj_index_peek_open(rj_cache *c);
void rj_index_peek_entry(const struct rj_index *ix, const rj_key *key, uint64_t *hits,
			 int64_t *last_used);
void rj_index_peek_counters(const struct rj_index *ix, uint64_t *disk_hits, double *saved_ms);

/* ---- cache_index_write.c: writing and dropping the index -------------------------------- */

/* Whether c should write the index now (caller holds c->lock, the connection open). */
int rj_index_wanted(const rj_cache *c);
/* Writes the index from the database (caller holds c->lock, the connection open, no
 * transaction running): 0, or -1 when it was not written (nothing recorded), among others
 * when the database now in the folder is not the file the connection opened. */
int rj_index_write_locked(rj_cache *c);
/* After the connection opened (caller holds c->lock): drops c's index, and the folder's,
 * when entries were deleted since it was written, by any program. */
void rj_index_check_deletions(rj_cache *c);
/* Removes the folder's index and retires c's: whoever deletes entries calls it under
 * the database's write lock (in the deleting transaction), before the delete. */
void rj_index_drop(rj_cache *c);

/* ---- cache_usage.c: usage records and the size limit ---------------------------------- */

/* Inserts (or replaces) one entry (caller holds lock, the connection open): 0, or
 * ROCJIT_EIO recorded.  The size limit is the caller's to apply. */
int rj_cache_insert_locked(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
			   const void *code, size_t size);
/* Keeps an entry to store at the next flush (caller holds lock): its fields copied, its
 * code referenced when it lies in shared (rj_shared_alloc's), else copied.  0, or
 * ROCJIT_ENOMEM recorded. */
int rj_cache_keep_later_locked(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
			       const void *code, size_t size, void *shared);
/* Forgets the entries kept for later without storing them (caller holds lock): at free,
 * and in a fork child (the parent stores them). */
void rj_cache_forget_later(rj_cache *c);
/* Evicts least recently used entries past max_bytes (caller holds lock). */
void rj_cache_evict_locked(rj_cache *c);
/* Writes the pending hit counts and counters in one transaction (caller holds lock, the
 * connection open); kept pending when the write fails. */
void rj_cache_flush_locked(rj_cache *c);
/* Forgets the pending hits and counts without writing them (caller holds lock). */
void rj_cache_forget_pending(rj_cache *c);
/* Whether failures counted by rj_cache_count wait to be written (any thread, no lock). */
int rj_cache_counts_pending(rj_cache *c);
/* Forgets them (a fork child: they are the parent's to write). */
void rj_cache_forget_counts(rj_cache *c);
/* Holds a hit of key's recent entry in memory (caller holds lock): 0, or -1 when out of
 * memory (then write it to the board at once). */
int rj_cache_hold_hit(rj_cache *c, const rj_key *key, double compile_ms);
/* Puts the held hits on the index's board; those whose entry the index lacks now (it was
 * replaced or removed) are written to the database (caller holds lock): at close, at exit
 * and by the flusher. */
void rj_cache_put_held_locked(rj_cache *c);
/* The child of a fork(): the held hits are the parent's. */
void rj_cache_forget_held(rj_cache *c);

/* ---- cache_process.c: the process's open caches ---------------------------------------- */

/* A cache got its first pending hit: a flush comes within 2 s; now: a batch is full, the
 * flusher writes it at once. */
void rj_cache_arm_flusher(int now);

/* ---- cache_admin.c --------------------------------------------------------------------- */

/* Parses n keys of 32 hex digits into a malloc'ed array (*out, freed by the caller).
 * 0, or ROCJIT_EINVAL naming the first that is not a key, or ROCJIT_ENOMEM. */
int rj_cache_keys_from_hex(rj_key **out, const char *const *keys, size_t n);

#endif
