/*
 * pch.c - NVRTC's precompiled headers (CUDA 12.8+), kept in the cache folder.
 *
 * Most of a header-heavy compile is NVRTC parsing headers: CUB's block primitives or
 * cooperative groups cost 1.2-1.4 s of a 1.3-1.6 s compile, and every HIP source parses
 * the pre-included prelude (cuda_fp16.h, cuda_bf16.h).  NVRTC can save the parsed state
 * at the end of a source's leading directives (its "header stop") into a file and load
 * it in a later compile with the same leading part (bench/RESULTS.md, issue 32).
 *
 * The file is named by its key: XXH3-128 of everything that decides the parse up to the
 * header stop - the compiler's identity, the target and every option NVRTC gets (the
 * caller passes them as identity), the in-memory headers (names and texts: the caller's
 * and rocjit's served set), and the source's leading part itself (rj_pch_prefix).  Any
 * change to one of them is another file; NVRTC checks the options again itself and
 * compiles without a file that does not match.  The caller gives no folder for a compile
 * whose options read headers from disk outside the CUDA toolkit (-I, -include): their
 * files are not in the key.  The toolkit's own headers are covered by the compiler
 * identity.
 *
 * A PCH is a memory image NVRTC loads as it is, so it is trusted like code: the folder
 * (<cache>/pch-<uid>) is this user's alone (created 0700; a folder owned by anyone else
 * or open to others is not used), NVRTC is given paths through the checked folder's
 * descriptor (/proc/self/fd/N/...), never by name, and a file is renamed into place only
 * after NVRTC says it created it.  The files are large (10-200 MB: NVRTC's heap image), so
 * the folder is kept within ROCJIT_PCH_MAX_MB, the least recently used removed first
 * (a use touches its file).
 *
 * Cost on a compile that finds no file: the key (one pass of XXH3 over the served
 * headers, tens of microseconds) and an empty mark (<key>.seen); the second compile of
 * the same leading part makes the file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/env.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "compile/pch.h"

#define PCH_DEFAULT_MAX_MB 2048
#define TMP_STALE_S 3600 /* a tmp file this old was left by a worker that died */
#define SEEN_STALE_S (7 * 86400) /* a leading part not compiled again for a week */

/* A backslash-newline (CR LF too) at s[i]: its length, else 0. */
static size_t continuation(const char *s, size_t i)
{
	if (s[i] != '\\')
		return 0;
	return s[i + 1] == '\n' ? 2 : s[i + 1] == '\r' && s[i + 2] == '\n' ? 3 : 0;
}

/* Past the quoted literal starting at s[i] (its opening quote); at a newline or the end
   when it is not closed on its line. */
static size_t past_literal(const char *s, size_t i)
{
	char q = s[i++];

	while (s[i] && s[i] != q && s[i] != '\n')
		i += s[i] == '\\' && s[i + 1] ? (continuation(s, i) ? continuation(s, i) : 2) : 1;
	return s[i] == q ? i + 1 : i;
}

/*
 * The preprocessor's own rules, enough to find the first token that is not part of a
 * directive: comments, blank space, directive lines (# or %: first on the line) with their
 * continuations (backslash LF or CR LF), a directive's literals (a "/ *" inside one starts
 * nothing), and a // comment ending it.  Stops early - which only shortens what the key
 * covers and NVRTC checks against its file - rather than late.
 */
size_t rj_pch_prefix(const char *s)
{
	size_t i = 0, stop = 0;
	int line_start = 1;

	if ((unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb &&
	    (unsigned char)s[2] == 0xbf)
		i = 3;
	for (;;) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
		} else if (continuation(s, i)) {
			i += continuation(s, i);
		} else if (c == '\n') {
			i++;
			line_start = 1;
			stop = i;
		} else if (c == '/' && s[i + 1] == '/') {
			while (s[i] && s[i] != '\n')
				i += continuation(s, i) ? continuation(s, i) : 1;
		} else if (c == '/' && s[i + 1] == '*') {
			const char *end = strstr(s + i + 2, "*/");
			if (!end)
				return stop;
			i = (size_t)(end - s) + 2;
		} else if (line_start && (c == '#' || (c == '%' && s[i + 1] == ':'))) {
			/* The directive to its end. */
			while (s[i] && s[i] != '\n') {
				if (continuation(s, i)) {
					i += continuation(s, i);
				} else if (s[i] == '"' || s[i] == '\'') {
					i = past_literal(s, i);
				} else if (s[i] == '/' && s[i + 1] == '/') {
					while (s[i] && s[i] != '\n')
						i += continuation(s, i) ? continuation(s, i) : 1;
				} else if (s[i] == '/' && s[i + 1] == '*') {
					const char *end = strstr(s + i + 2, "*/");
					if (!end)
						return stop;
					i = (size_t)(end - s) + 2;
				} else {
					i++;
				}
			}
			stop = i;
		} else {
			return c ? stop : i;
		}
	}
}

static uint64_t max_bytes(void)
{
	long mb = rj_env_long("ROCJIT_PCH_MAX_MB", PCH_DEFAULT_MAX_MB, 0, 1L << 30);

	return (uint64_t)mb << 20;
}

/* The folder, this user's alone: opened (created 0700 when missing) and checked.  The
   cache folder above it is the user's choice and is followed; pch-<uid> itself never is
   (in a cache shared by a group, another member could have put a link there to a folder
   of this user's). */
static int open_folder(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	char parent[4200];
	struct stat st;
	int fd, at, created = 0;

	if (!slash || slash == dir || (size_t)(slash - dir) >= sizeof parent)
		return -1;
	memcpy(parent, dir, (size_t)(slash - dir));
	parent[slash - dir] = 0;
	if ((at = rj_fs_open_dir(AT_FDCWD, parent, 0)) < 0)
		return -1;
	fd = rj_fs_make_dir_at(at, slash + 1, 0700, &created);
	close(at);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		RJ_LOG(RJ_LOG_DEBUG, "pch: %s is not this user's alone: no precompiled headers",
		       dir);
		close(fd);
		return -1;
	}
	return fd;
}

int rj_pch_begin(struct rj_pch *p, const char *dir, const char *identity,
		 size_t identity_len, const struct rj_header_arrays *h, const char *source)
{
	XXH3_state_t *st;
	XXH128_hash_t d;
	struct stat fst;
	size_t prefix;
	int fd;

	memset(p, 0, sizeof *p);
	p->dirfd = -1;
	if (!dir || !*dir || max_bytes() == 0)
		return 0;
	prefix = rj_pch_prefix(source);
	if (!(st = XXH3_createState()))
		return 0;
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, "rocjit-pch 1", 13);
	XXH3_128bits_update(st, &identity_len, sizeof identity_len);
	XXH3_128bits_update(st, identity, identity_len);
	XXH3_128bits_update(st, &h->n, sizeof h->n);
	for (size_t i = 0; i < h->n; i++) {
		size_t n = strlen(h->names[i]) + 1, m = strlen(h->src[i]);
		XXH3_128bits_update(st, h->names[i], n);
		XXH3_128bits_update(st, &m, sizeof m);
		XXH3_128bits_update(st, h->src[i], m);
	}
	XXH3_128bits_update(st, &prefix, sizeof prefix);
	XXH3_128bits_update(st, source, prefix);
	d = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	if ((fd = open_folder(dir)) < 0)
		return 0;
	p->dirfd = fd;
	snprintf(p->name, sizeof p->name, "%016llx%016llx.pch", (unsigned long long)d.high64,
		 (unsigned long long)d.low64);
	if (fstatat(fd, p->name, &fst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(fst.st_mode) &&
	    fst.st_uid == geteuid()) {
		/* Used: touched, so that eviction keeps it. */
		utimensat(fd, p->name, NULL, AT_SYMLINK_NOFOLLOW);
		snprintf(p->option, sizeof p->option, "--use-pch=/proc/self/fd/%d/%s", fd,
			 p->name);
		return 1;
	}
	/* A leading part whose file could not be made or kept (NVRTC's heap too small for it,
	   or one file larger than ROCJIT_PCH_MAX_MB) is not tried again for a week. */
	{
		char skip[48];
		snprintf(skip, sizeof skip, "%.32s.skip", p->name);
		if (fstatat(fd, skip, &fst, AT_SYMLINK_NOFOLLOW) == 0) {
			if (time(NULL) - fst.st_mtime < SEEN_STALE_S) {
				close(fd);
				p->dirfd = -1;
				return 0;
			}
			unlinkat(fd, skip, 0);
		}
	}
	/* Made by the second compile of a leading part, not the first: making one costs the
	   compile that makes it 2-10% for a small header set and 30-50% for CUB's or
	   cooperative groups' (NVRTC's parse is slower while it records), which a leading
	   part compiled once would pay for nothing.  The first leaves a mark. */
	{
		char seen[48];
		int m;
		snprintf(seen, sizeof seen, "%.32s.seen", p->name);
		if (fstatat(fd, seen, &fst, AT_SYMLINK_NOFOLLOW) != 0) {
			m = openat(fd, seen, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				   0600);
			if (m >= 0)
				close(m);
			close(fd);
			p->dirfd = -1;
			return 0;
		}
		unlinkat(fd, seen, 0);
	}
	/* A name no other process uses (workers of containers sharing the cache may have the
	   same pid), claimed with O_EXCL; NVRTC writes over it. */
	{
		uint64_t r = 0;
		int t;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			r = (uint64_t)rj_now_ms() ^ ((uint64_t)getpid() << 32);
		snprintf(p->tmp, sizeof p->tmp, "tmp-%016llx.pch", (unsigned long long)r);
		t = openat(fd, p->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (t < 0) {
			close(fd);
			p->dirfd = -1;
			return 0;
		}
		close(t);
	}
	snprintf(p->option, sizeof p->option, "--create-pch=/proc/self/fd/%d/%s", fd, p->tmp);
	p->creating = 1;
	return 1;
}

struct pch_file {
	char name[40];
	off_t size;
	struct timespec mtime;
};

static int by_age(const void *a, const void *b)
{
	const struct pch_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return (x->mtime.tv_nsec > y->mtime.tv_nsec) - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Removes the least recently used files past the limit, stale tmp files and marks. */
static void evict(int dirfd)
{
	uint64_t limit = max_bytes(), total = 0;
	struct pch_file *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	time_t now = time(NULL);
	DIR *d;
	int fd = dup(dirfd);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		size_t len = strlen(e->d_name);

		if (len > 5 && (!strcmp(e->d_name + len - 5, ".seen") ||
				!strcmp(e->d_name + len - 5, ".skip")) &&
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now - st.st_mtime > SEEN_STALE_S) {
			unlinkat(dirfd, e->d_name, 0);
			continue;
		}
		if (len < 5 || len >= sizeof v->name || strcmp(e->d_name + len - 4, ".pch") ||
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (strncmp(e->d_name, "tmp-", 4) == 0) {
			if (now - st.st_mtime > TMP_STALE_S)
				unlinkat(dirfd, e->d_name, 0);
			continue;
		}
		if (n == cap) {
			struct pch_file *w = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!w)
				break;
			v = w;
		}
		memcpy(v[n].name, e->d_name, len + 1);
		v[n].size = st.st_size;
		v[n].mtime = st.st_mtim;
		total += (uint64_t)st.st_size;
		n++;
	}
	closedir(d);
	if (total > limit && v) {
		qsort(v, n, sizeof *v, by_age);
		for (size_t i = 0; i < n && total > limit; i++) {
			if (unlinkat(dirfd, v[i].name, 0) == 0)
				total -= (uint64_t)v[i].size;
		}
	}
	free(v);
}

void rj_pch_discard(struct rj_pch *p)
{
	if (p->dirfd < 0)
		return;
	unlinkat(p->dirfd, p->creating ? p->tmp : p->name, 0);
	close(p->dirfd);
	p->dirfd = -1;
}

void rj_pch_end(struct rj_pch *p, int compiled, int created)
{
	if (p->dirfd < 0)
		return;
	if (p->creating) {
		char skip[48];
		struct stat st;
		int m = -1;

		snprintf(skip, sizeof skip, "%.32s.skip", p->name);
		if (created && renameat(p->dirfd, p->tmp, p->dirfd, p->name) == 0) {
			RJ_LOG(RJ_LOG_DEBUG, "pch: created %s", p->name);
			evict(p->dirfd);
			/* Evicted at once: larger than the limit by itself. */
			if (fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				m = openat(p->dirfd, skip, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
					   0600);
		} else {
			unlinkat(p->dirfd, p->tmp, 0);
			/* The compile failed (an error in the kernel, likely being edited): the
			   next one tries again.  It succeeded without a file: not again. */
			if (!compiled)
				snprintf(skip, sizeof skip, "%.32s.seen", p->name);
			m = openat(p->dirfd, skip, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		}
		if (m >= 0)
			close(m);
	}
	close(p->dirfd);
	p->dirfd = -1;
}
