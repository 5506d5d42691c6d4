/*
 * compiler_id.c - the compiler identity in the cache key, without loading the compiler
 * on a hit.
 *
 * The key holds the compiler's identity ("nvrtc 13.0 ...", "hiprtc 9.0; hip ...; comgr 2.4"),
 * and learning it means loading the vendor library: 38 ms for NVRTC, 47 ms for
 * libamdhip64 + comgr, far more than a disk hit's 25 us.  So the identity is remembered in
 * the cache with a fingerprint of the files it came from: each library's path, device,
 * inode, size and modification time, and the environment that picks them
 * (LD_LIBRARY_PATH, CUDA_PATH, ..., the stat of /etc/ld.so.cache and of every
 * LD_LIBRARY_PATH folder).  When every part of the fingerprint still holds, the remembered
 * identity is used and nothing is loaded; otherwise the compiler is loaded and the memo
 * rewritten.  A process checks the memo once per platform.
 *
 * Owns the memo format and the process-wide identity per platform.  Knows nothing of
 * vendor APIs (the platform lists its files) nor of SQL (cache.h stores the memo).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/config.h"
#include "compile/compiler_id.h"
#include "compile/rocm_paths.h"
#include "base/error.h"

/* 2: the AMD identity names rocPRIM; 3: the ROCm folders searched (issue 31; a memo of 2
   is not read: the compiler is loaded once and the memo written anew) */
#define MEMO_VERSION "rocjit-compiler-memo-3"
#define MEMO_MAX 8192

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Per platform id: the identity this process settled on, written once under lock and
   then read without it (the hit path). */
static char known[3][128];
static _Atomic(const char *) settled[3];

/*
 * A fingerprint is written into a memo and checked against a stored one by the same code,
 * piece by piece, so that the two never disagree on the format.  Checking compares each
 * piece where it stands in the stored memo: no second fingerprint is made to strcmp, no
 * buffer is filled and no printf runs (this is the hit path of every new process).
 */
struct fp {
	char *out;        /* writing: the text so far, NUL-terminated; NULL when checking */
	const char *memo; /* checking: what is left of the stored fingerprint */
	size_t len, cap;  /* bytes made (written or matched) so far; their bound, NUL included */
	int bad;          /* it overflowed, or it differs from the stored one */
};

static void put(struct fp *b, const char *s, size_t n)
{
	if (b->bad || n >= b->cap - b->len) {
		b->bad = 1;
		return;
	}
	if (b->out) {
		memcpy(b->out + b->len, s, n);
		b->out[b->len + n] = 0;
	} else if (strncmp(b->memo, s, n) != 0) { /* s holds no NUL: a shorter memo differs */
		b->bad = 1;
		return;
	} else {
		b->memo += n;
	}
	b->len += n;
}

static void put_str(struct fp *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A number in decimal, at least width characters with zeros after the sign (printf's
   "%0*lld"). */
static void put_num(struct fp *b, unsigned long long magnitude, int negative, int width)
{
	char d[24];
	size_t i = sizeof d;

	do {
		d[--i] = (char)('0' + magnitude % 10);
		magnitude /= 10;
	} while (magnitude || (int)(sizeof d - i) < width - negative);
	if (negative)
		d[--i] = '-';
	put(b, d + i, sizeof d - i);
}

static void put_signed(struct fp *b, long long v, int width)
{
	put_num(b, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0, width);
}

/* One line: "tag=value\n", or with st "tag=path:dev:ino:size:sec.nsec\n" (nsec 9 digits). */
static void add(struct fp *b, const char *tag, const char *value, const struct stat *st)
{
	put_str(b, tag);
	put(b, "=", 1);
	put_str(b, value ? value : "");
	if (st) {
		put(b, ":", 1);
		put_num(b, (unsigned long long)st->st_dev, 0, 1);
		put(b, ":", 1);
		put_num(b, (unsigned long long)st->st_ino, 0, 1);
		put(b, ":", 1);
		put_num(b, (unsigned long long)st->st_size, 0, 1);
		put(b, ":", 1);
		put_signed(b, (long long)st->st_mtim.tv_sec, 1);
		put(b, ".", 1);
		put_signed(b, (long long)st->st_mtim.tv_nsec, 9);
	}
	put(b, "\n", 1);
}

static void add_path(struct fp *b, const char *tag, const char *path)
{
	struct stat st;

	add(b, tag, path, stat(path, &st) == 0 ? &st : NULL);
}

/*
 * What picks the compiler: the environment, the loader's cache, the compiler libraries
 * the process had loaded before rocjit (platform.h: used before any search; no line when
 * none, as memos before them were written), each LD_LIBRARY_PATH folder (its mtime
 * changes when a library appears in it) and each ROCm folder searched (rocm_paths.h),
 * with the folder of the standard installs (a new /opt/rocm-X.Y.Z changes it).  The
 * files follow.
 */
static void environment(struct fp *b)
{
	struct rj_rocm_place places[16];
	const char *loaded[4];
	size_t nplaces, nloaded;
	static const char *const vars[] = { "CUDA_PATH", "CUDA_HOME", "ROCM_PATH",
					    "ROCJIT_NVRTC_LIBRARY", "ROCJIT_HIP_LIBRARY" };
	const char *ld = getenv("LD_LIBRARY_PATH");

	add(b, "LD_LIBRARY_PATH", ld, NULL);
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		add(b, vars[i], strncmp(vars[i], "ROCJIT_", 7) ? getenv(vars[i]) :
						     rj_config(vars[i], NULL), NULL);
	add_path(b, "ldcache", "/etc/ld.so.cache");
	nloaded = rj_loaded_before_files(loaded, sizeof loaded / sizeof loaded[0]);
	for (size_t i = 0; i < nloaded; i++)
		add_path(b, "loaded", loaded[i]);
	add_path(b, "rocmroot", rj_rocm_root);
	nplaces = rj_rocm_places(places, sizeof places / sizeof places[0]);
	for (size_t i = 0; i < nplaces; i++)
		add_path(b, "rocmdir", places[i].dir);
	if (ld) {
		char dir[4096];
		const char *p = ld;
		while (*p) {
			size_t n = strcspn(p, ":");
			if (n && n < sizeof dir) {
				memcpy(dir, p, n);
				dir[n] = 0;
				add_path(b, "lddir", dir);
			}
			p += n;
			if (*p == ':')
				p++;
		}
	}
}

/* Writes the fingerprint of files into out (size bytes): 0, or -1 when it does not fit. */
static int fingerprint(char *out, size_t size, const char *const *files, size_t nfiles)
{
	struct fp b = { out, NULL, 0, size, 0 };

	out[0] = 0;
	environment(&b);
	for (size_t i = 0; i < nfiles; i++)
		add_path(&b, "file", files[i]);
	return b.bad ? -1 : 0;
}

/*
 * Whether the stored fingerprint fp is the one these files make now: the environment's
 * lines, then one "file=" line per file it lists (at most RJ_COMPILER_MAX_FILES), each
 * file named by its line, and nothing after them.
 */
static int fingerprint_holds(const char *fp)
{
	struct fp b = { NULL, fp, 0, MEMO_MAX, 0 };
	char path[4096];

	environment(&b);
	for (size_t n = 0; !b.bad && strncmp(b.memo, "file=", 5) == 0; n++) {
		size_t len = strcspn(b.memo + 5, ":\n");
		if (n == RJ_COMPILER_MAX_FILES || len >= sizeof path)
			return 0;
		memcpy(path, b.memo + 5, len);
		path[len] = 0;
		add_path(&b, "file", path);
	}
	return !b.bad && !*b.memo;
}

/* Copies the identity a memo holds when its fingerprint still matches: 0, else -1. */
static int memo_valid(const char *memo, char *id, size_t idsize)
{
	const char *idline, *nl;

	if (strncmp(memo, MEMO_VERSION "\n", sizeof MEMO_VERSION) != 0)
		return -1;
	idline = memo + sizeof MEMO_VERSION;
	if (strncmp(idline, "id=", 3) != 0 || !(nl = strchr(idline, '\n')) ||
	    (size_t)(nl - idline - 3) >= idsize || !fingerprint_holds(nl + 1))
		return -1;
	memcpy(id, idline + 3, (size_t)(nl - idline - 3));
	id[nl - idline - 3] = 0;
	return 0;
}

/* Stores the memo of the identity id, loaded from the files platform p lists (the miss
 * path: its buffer stays off the hit path's stack). */
static void remember(const struct rj_platform *p, rj_cache *cache, const char *id)
{
	char memo[MEMO_MAX];
	const char *files[RJ_COMPILER_MAX_FILES];
	size_t nfiles = p->compiler_files(files, RJ_COMPILER_MAX_FILES), len;

	if (nfiles == 0)
		return;
	len = (size_t)snprintf(memo, sizeof memo, MEMO_VERSION "\nid=%s\n", id);
	if (len < sizeof memo && fingerprint(memo + len, sizeof memo - len, files, nfiles) == 0)
		rj_cache_memo_put(cache, p->name, memo);
}

const char *rj_compiler_id(const struct rj_platform *p, rj_cache *cache)
{
	char id[128];
	char *stored = NULL;
	const char *loaded;
	int slot = p->id;

	const char *done = atomic_load_explicit(&settled[slot], memory_order_acquire);

	if (done)
		return done;

	if (cache && rj_cache_memo_get(cache, p->name, &stored) == 1 &&
	    memo_valid(stored, id, sizeof id) == 0) {
		free(stored);
		RJ_LOG(RJ_LOG_DEBUG, "compiler %s (remembered; not loaded)", id);
		goto settle;
	}
	free(stored);
	loaded = p->compiler_id();
	if (!loaded)
		return NULL;
	snprintf(id, sizeof id, "%s", loaded);
	if (cache)
		remember(p, cache, id);
settle:
	pthread_mutex_lock(&lock);
	if (!known[slot][0]) {
		memcpy(known[slot], id, strlen(id) + 1); /* both 128 bytes */
		atomic_store_explicit(&settled[slot], known[slot], memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return known[slot];
}
