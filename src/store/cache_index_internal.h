/*
 * cache_index_internal.h - what the read index's three files share: the file's layout
 * (cache/FORMAT.md describes it), the mapping of one (struct rj_index), and the helpers
 * both sides of the file compute alike (its checksums, the lookup of a key's entry, the
 * deletion count, mapping the folder's current index).  cache_index.c owns them;
 * cache_index_board.c and cache_index_write.c use them.  Nothing outside those three
 * files includes it: the rest of the cache sees an index only through cache_internal.h,
 * where struct rj_index stays opaque.
 */
#ifndef ROCJIT_CACHE_INDEX_INTERNAL_H
#define ROCJIT_CACHE_INDEX_INTERNAL_H

#include <stdint.h>

#include "store/cache_internal.h"

#define INDEX_MAGIC "rjindex"       /* 8 bytes with its NUL */
/* 4: each entry carries its signature (the signatures table's row), after its kernels
 * column.  5 (issue 27): and the digest of its descriptive fields a signature (version 2)
 * covers.  A file of another version is not used, and is written anew. */
#define INDEX_VERSION 5
/* Entries at most: the slots (twice as many, a power of two) stay within what a reader
 * accepts (2^28). */
#define INDEX_MAX_ENTRIES (1u << 26)

struct index_header {
	char magic[8];
	uint32_t version;       /* INDEX_VERSION */
	uint32_t cache_format;  /* RJ_CACHE_FORMAT of the database it was written from */
	uint64_t db_dev, db_ino; /* that database file, */
	int64_t db_born_ns;     /* and when it was made (0 where the file system does not say) */
	uint64_t size;          /* of the whole file */
	int64_t written;        /* time() at writing */
	uint32_t nslots;        /* a power of two */
	uint32_t nentries;
	uint32_t nmemos;
	uint32_t complete;      /* 1: every entry of the database then is here */
	uint64_t slots_off;     /* nslots struct index_slot */
	uint64_t memos_off;     /* nmemos of: u32 platform bytes, u32 memo bytes (each with
	                           its NUL), the platform, the memo */
	uint64_t memos_size;
	uint64_t deletions;     /* the database's deletion count when it was written */
	uint64_t usage_off;     /* the usage board, right after this header (the page a
	                           reader touches first): struct index_board, then */
	uint64_t usage_size;    /* nentries struct index_usage; the slots follow */
	uint64_t checksum;      /* of the header before this field, the slots and the memos */
};

struct index_slot {
	uint8_t key[16];
	uint64_t off;           /* of its struct index_entry; 0: an empty slot */
};

/* Followed by the kernels column (kernels_len bytes, its NUL included), its signature
 * (signer_len bytes of the signer's name with its NUL, then sig_len bytes of signature),
 * then, at the next multiple of 8, the code object (size bytes). */
struct index_entry {
	uint8_t key[16];
	uint64_t size;
	uint64_t checksum;      /* the code's, as the database stores it */
	double compile_ms;
	uint32_t kernels_len;
	uint32_t ordinal;       /* its struct index_usage on the board */
	uint32_t signer_len;    /* 0: unsigned (as the database said when it was written);
	                           else 2..RJ_SIG_NAME_MAX + 1, a valid key name */
	uint32_t sig_len;       /* 0 when unsigned, else RJ_SIG_BYTES */
	uint8_t described[32];  /* rj_sig_describe of its options, source name and header
	                           names (what its signature covers of them); zeros when
	                           unsigned */
	uint64_t meta_sum;      /* of the fields before it, the kernels column and the
	                           signature */
};

/*
 * The usage board: the one part of the file written after it is made, in place, through
 * shared writable mappings, by every process that hits it (atomics; no checksum covers
 * it).  A hit is recorded here, in the page cache (or held, see rj_index_stamp): it
 * survives the process being killed, and a process that only hit the index needs neither
 * the flusher thread nor a connection at exit.  The index writer and whoever removes the
 * index fold the board into the database (rj_board_fold, under the write lock): hit counts
 * are taken with an exchange, so a count is folded once; last uses are a maximum, folded
 * any number of times.
 */
struct index_board {
	uint64_t retired;       /* 1: replaced or removed; stop using this file (and look
	                           for the current one) */
	uint64_t disk_hits;     /* hits recorded here, for the counters */
	uint64_t saved_us;      /* their compile time, microseconds */
	uint64_t reserved[5];
};

struct index_usage {
	uint64_t hits;
	int64_t last_used;      /* time() of the last hit; 0 none */
};

struct rj_index {
	void *map;
	const unsigned char *base;
	size_t size;
	const struct index_header *h;
	const struct index_slot *slots;
	struct index_board *board;
	struct index_usage *usage;
	int writable;                 /* 0: mapped read-only, hits go through memory */
	int guard;                    /* its rj_mapguard (base/mapguard.h): the file can be
	                                 shortened under the mapping by whoever may write it */
	/* The header's fields as checked at map time: the mapping is writable (the board),
	   so nothing read again from it can move a bound. */
	uint32_t nslots, nentries, nmemos;
	uint64_t slots_off, memos_off, memos_size, deletions;
	uint64_t dev, ino;            /* the file */
	int64_t written;
	int complete;                 /* every entry the database held when it was written */
};

/* Where the layout places things: at multiples of 8 (the slots, each entry, its code). */
static inline uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

/* ---- cache_index.c ---------------------------------------------------------------------- */

/* The checksum a header carries (of the header before its checksum field, the slots and
 * the memos), and the one an entry carries (of its fields before meta_sum, its kernels
 * column and its signature: signer_len + sig_len bytes, the signer's name then the
 * signature): what the writer stores and a reader checks. */
uint64_t rj_index_header_sum(const struct index_header *h, const void *slots, const void *memos);
uint64_t rj_index_entry_sum(const struct index_entry *e, const char *kernels,
			    const unsigned char *signature);
/* Key's entry in ix, its slot and key checked (not yet its fields): NULL when ix has no
 * such key, or *bad set when its slot or entry is damaged. */
const struct index_entry *rj_index_entry_of(const struct rj_index *ix, const rj_key *key,
					    int *bad);
/* The database's deletion count (caller holds c->lock, the connection open): 0, or -1
 * when there is none (no index writer made it). */
int rj_index_read_deletions(rj_cache *c, uint64_t *n);
/* The folder's index, mapped for its board (writable: 1) or to read it: NULL when there
 * is none, it is retired, it was not written from the database c's connection opened, or
 * this process may not write it as asked.  rj_index_unmap it. */
struct rj_index *rj_index_map_current(rj_cache *c, int writable);

/* ---- cache_index_board.c ---------------------------------------------------------------- */

/* The folder's index with its board writable (see rj_index_map_current), or NULL. */
struct rj_index *rj_board_map(rj_cache *c);
/* Writes ix's board into the database (caller holds c->lock, the connection open; in its
 * write transaction, or one of its own). */
void rj_board_fold(rj_cache *c, struct rj_index *ix);

#endif
