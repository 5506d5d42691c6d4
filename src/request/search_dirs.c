/*
 * search_dirs.c - the -I folders of a request's options, as a digest for its key.
 *
 * A compiler reads any file of an -I folder that an include names, and the options hold
 * only the folder's path: without this, an edited header there was served from the
 * cache as the old code, and one key meant other code on another machine.  So the key
 * holds a digest of what each -I folder holds: every file's path relative to the folder,
 * size and XXH3-128, in name order, recursively (links followed, as the compiler follows
 * them).  Any change in a folder changes the key of every request naming it: a needless
 * recompile at worst, never a stale hit.  It is computed per key, so a large folder costs
 * each request its read (the CUDA cccl folder, 17 MB: some milliseconds); a folder past
 * SEARCH_BYTES_MAX or SEARCH_FILES_MAX gets a key no other request has (compiled each
 * time, with a warning), never one that covers part of it.
 *
 * Reads folders only; knows nothing of stores or compilers.  The include scan
 * (compile/inputs.c) refuses what no key covers: absolute and escaping includes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsutil.h"
#include "request/search_dirs.h"

#define SEARCH_BYTES_MAX (256u << 20)
#define SEARCH_FILES_MAX 100000
#define SEARCH_DEPTH_MAX 32

struct walk {
	char *buf; /* the records: path, NUL, size (8 bytes), digest (16 bytes) */
	size_t len, cap;
	size_t bytes, files;
	int oom, cut;
};

static void put(struct walk *w, const void *data, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n > w->cap) {
		size_t cap = (w->len + n) * 2 + 4096;
		char *nb = realloc(w->buf, cap);
		if (!nb) {
			w->oom = 1;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, data, n);
	w->len += n;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the file name (relative path rel) of the folder dfd. */
static void add_file(struct walk *w, int dfd, const char *name, const char *rel,
		     const struct stat *st)
{
	uint64_t size = (uint64_t)st->st_size;
	rj_digest d = { { 0 } };
	struct stat now;
	char *text = NULL;
	int fd;

	if (w->files >= SEARCH_FILES_MAX || w->bytes + size > SEARCH_BYTES_MAX) {
		w->cut = 1;
		return;
	}
	w->files++;
	w->bytes += size;
	fd = rj_fs_open_regular(dfd, name, O_RDONLY, 0, &now);
	if (fd >= 0 && (uint64_t)now.st_size == size && rj_fs_read_all(fd, (size_t)size, &text) == 0)
		d = rj_digest_of(text, (size_t)size);
	else
		size = UINT64_MAX; /* unreadable: the compiler cannot read it either */
	if (fd >= 0)
		close(fd);
	free(text);
	put(w, rel, strlen(rel) + 1);
	put(w, &size, sizeof size);
	put(w, d.b, sizeof d.b);
}

static void walk_dir(struct walk *w, int dfd, const char *rel, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap * 2 + 32) * sizeof *names);
			if (!nn) {
				w->oom = 1;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name))) {
			w->oom = 1;
			break;
		}
		n++;
	}
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char sub[4096];
		struct stat st;

		snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
		if (fstatat(dirfd(d), names[i], &st, 0) != 0)
			continue; /* a dangling link: nothing the compiler can read */
		if (S_ISDIR(st.st_mode) && depth < SEARCH_DEPTH_MAX) {
			int sfd = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (sfd >= 0)
				walk_dir(w, sfd, sub, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			add_file(w, dirfd(d), names[i], sub, &st);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
}

int rj_search_dirs_digest(const struct rj_opts *opts, rj_digest *out)
{
	struct walk w = { 0 };
	int any = 0;

	for (const char *o = rj_opts_next(opts, NULL); o; o = rj_opts_next(opts, o)) {
		int fd;

		if (strncmp(o, "-I", 2) != 0 || !o[2])
			continue;
		any = 1;
		put(&w, o, strlen(o) + 1);
		fd = open(o + 2, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			walk_dir(&w, fd, "", 0);
		put(&w, "", 1); /* the folder's end */
	}
	if (!any)
		return 0;
	if (w.cut)
		rj_warn_once("search-dirs-cut", "an -I folder holds more than %u files or %u MiB: "
			     "the cache key cannot cover it, so its kernels are compiled anew "
			     "each time and never served from the cache; pass the headers a kernel "
			     "uses as registered headers (rocjit_program.headers) instead",
			     SEARCH_FILES_MAX, SEARCH_BYTES_MAX >> 20);
	if (w.oom || w.cut) {
		/* A key that cannot describe the folders must match nothing, ever: not a
		   constant (a later request would hit what this one stores, compiled from
		   other files), but one no other request computes. */
		static _Atomic unsigned long long n;
		struct {
			pid_t pid;
			struct timespec ts;
			unsigned long long n;
		} once;
		memset(&once, 0, sizeof once);
		once.pid = getpid();
		clock_gettime(CLOCK_REALTIME, &once.ts);
		once.n = n++;
		*out = rj_digest_of(&once, sizeof once);
	} else {
		*out = rj_digest_of(w.buf, w.len);
	}
	free(w.buf);
	return 1;
}
