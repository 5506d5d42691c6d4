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

#include "compile/compiler_id.h"
#include "base/error.h"

#define MEMO_VERSION "rocjit-compiler-memo-1"
#define MEMO_MAX 8192

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Per platform id: the identity this process settled on, written once under lock and
   then read without it (the hit path). */
static char known[3][128];
static _Atomic(const char *) settled[3];

struct sbuf {
	char *s;
	size_t len, cap;
	int overflow;
};

static void add(struct sbuf *b, const char *fmt, const char *a, const struct stat *st)
{
	int n;

	if (b->overflow)
		return;
	if (st)
		n = snprintf(b->s + b->len, b->cap - b->len, "%s=%s:%llu:%llu:%llu:%lld.%09ld\n",
			     fmt, a, (unsigned long long)st->st_dev,
			     (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
			     (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	else
		n = snprintf(b->s + b->len, b->cap - b->len, "%s=%s\n", fmt, a ? a : "");
	if (n < 0 || (size_t)n >= b->cap - b->len)
		b->overflow = 1;
	else
		b->len += (size_t)n;
}

static void add_path(struct sbuf *b, const char *tag, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		add(b, tag, path, &st);
	else
		add(b, tag, path, NULL);
}

/*
 * What picks and what is the compiler: the environment, the loader's cache, each
 * LD_LIBRARY_PATH folder (its mtime changes when a library appears in it) and the files.
 */
static int fingerprint(char *out, size_t size, const char *const *files, size_t nfiles)
{
	static const char *const vars[] = { "LD_LIBRARY_PATH", "CUDA_PATH", "CUDA_HOME",
					    "ROCM_PATH", "ROCJIT_NVRTC_LIBRARY",
					    "ROCJIT_HIP_LIBRARY" };
	struct sbuf b = { out, 0, size, 0 };
	const char *ld = getenv("LD_LIBRARY_PATH");

	out[0] = 0;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		add(&b, vars[i], getenv(vars[i]), NULL);
	add_path(&b, "ldcache", "/etc/ld.so.cache");
	if (ld) {
		char dir[4096];
		const char *p = ld;
		while (*p) {
			size_t n = strcspn(p, ":");
			if (n && n < sizeof dir) {
				memcpy(dir, p, n);
				dir[n] = 0;
				add_path(&b, "lddir", dir);
			}
			p += n;
			if (*p == ':')
				p++;
		}
	}
	for (size_t i = 0; i < nfiles; i++)
		add_path(&b, "file", files[i]);
	return b.overflow ? -1 : 0;
}

/* The file paths listed in a memo, in order. */
static size_t memo_files(const char *memo, char paths[][4096], size_t max)
{
	size_t n = 0;

	for (const char *p = strstr(memo, "\nfile="); p && n < max; p = strstr(p + 1, "\nfile=")) {
		const char *start = p + 6, *end = strchr(start, ':');
		const char *nl = strchr(start, '\n');
		if (!end || (nl && nl < end))
			end = nl ? nl : start + strlen(start);
		if ((size_t)(end - start) >= 4096)
			continue;
		memcpy(paths[n], start, (size_t)(end - start));
		paths[n][end - start] = 0;
		n++;
	}
	return n;
}

/* Copies the identity a memo holds when its fingerprint still matches: 0, else -1. */
static int memo_valid(const char *memo, char *id, size_t idsize)
{
	char (*paths)[4096] = malloc(RJ_COMPILER_MAX_FILES * sizeof *paths);
	const char *ptrs[RJ_COMPILER_MAX_FILES];
	char now[MEMO_MAX];
	const char *idline, *fp, *nl;
	size_t n;
	int rc = -1;

	if (!paths || strncmp(memo, MEMO_VERSION "\n", sizeof MEMO_VERSION) != 0)
		goto out;
	idline = memo + sizeof MEMO_VERSION;
	if (strncmp(idline, "id=", 3) != 0 || !(nl = strchr(idline, '\n')))
		goto out;
	fp = nl + 1;
	n = memo_files(nl, paths, RJ_COMPILER_MAX_FILES);
	for (size_t i = 0; i < n; i++)
		ptrs[i] = paths[i];
	if (fingerprint(now, sizeof now, ptrs, n) != 0 || strcmp(now, fp) != 0 ||
	    (size_t)(nl - idline - 3) >= idsize)
		goto out;
	memcpy(id, idline + 3, (size_t)(nl - idline - 3));
	id[nl - idline - 3] = 0;
	rc = 0;
out:
	free(paths);
	return rc;
}

const char *rj_compiler_id(const struct rj_platform *p, rj_cache *cache)
{
	char memo[MEMO_MAX], id[128];
	char *stored = NULL;
	const char *loaded;
	const char *files[RJ_COMPILER_MAX_FILES];
	size_t nfiles, len;
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
	nfiles = p->compiler_files(files, RJ_COMPILER_MAX_FILES);
	if (cache && nfiles > 0) {
		len = (size_t)snprintf(memo, sizeof memo, MEMO_VERSION "\nid=%s\n", id);
		if (len < sizeof memo &&
		    fingerprint(memo + len, sizeof memo - len, files, nfiles) == 0)
			rj_cache_memo_put(cache, p->name, memo);
	}
settle:
	pthread_mutex_lock(&lock);
	if (!known[slot][0]) {
		snprintf(known[slot], sizeof known[slot], "%s", id);
		atomic_store_explicit(&settled[slot], known[slot], memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return known[slot];
}
