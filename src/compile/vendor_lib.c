/*
 * vendor_lib.c - loading vendor libraries once, finding them, and reading a compiler's
 * program log: the parts the AMD and NVIDIA platforms share (vendor_lib.h).
 *
 * Owns no library handle and no vendor state: the platforms keep theirs.  Must not know
 * any vendor's API beyond the program-log pair both compilers have.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/trust.h"
#include "compile/vendor_lib.h"

/* The libraries loaded by a path (open_checked), by their link map, with the path they
 * were named by: the loader knows them by the file's own path, symbolic links resolved.
 * Written once per library under the lock, read by rj_vendor_file; kept for the
 * process's life, as the libraries are. */
#define CHECKED_MAX 16
static struct {
	const struct link_map *map;
	char *path;
} checked[CHECKED_MAX];
static int nchecked;
static pthread_mutex_t checked_mu = PTHREAD_MUTEX_INITIALIZER;

void (*rj_vendor_before_load)(const char *path);

/*
 * pthread_once makes every other caller wait for the first load and then see what it
 * wrote (rc, error), so both are read without a lock.
 */
int rj_vendor_load_ready(struct rj_vendor_load *l, void (*load)(void))
{
	pthread_once(&l->once, load);
	RJ_CHECK(l->rc, l->rc, "%s", l->error);
	return 0;
}

void rj_vendor_load_fail(struct rj_vendor_load *l, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->error, sizeof l->error, fmt, ap);
	va_end(ap);
	l->rc = code;
}

void *rj_vendor_loaded(const char *const *names)
{
	for (; *names; names++) {
		void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (h)
			return h;
	}
	return NULL;
}

/*
 * The device of the file system fd lies on as /proc/self/maps writes it (the superblock's,
 * from the mount fdinfo names), into *maj, *min: 0, or -1 when /proc does not say.
 * fstat's st_dev is not always that one: btrfs gives each subvolume a device of its own.
 */
static int mount_device(int fd, unsigned *maj, unsigned *min)
{
	char path[64], line[4400];
	int mnt = -1, id, found = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "re")))
		return -1;
	while (mnt < 0 && fgets(line, sizeof line, f))
		if (sscanf(line, "mnt_id: %d", &id) == 1)
			mnt = id;
	fclose(f);
	if (mnt < 0 || !(f = fopen("/proc/self/mountinfo", "re")))
		return -1;
	while (!found && fgets(line, sizeof line, f))
		found = sscanf(line, "%d %*d %u:%u", &id, maj, min) == 3 && id == mnt;
	fclose(f);
	return found ? 0 : -1;
}

/*
 * 1 when the file map was loaded from is the file fd is open on (st: its fstat).
 * /proc/self/maps gives the device and inode of what is mapped where map's dynamic section
 * is, which no rename after the load can change; the device is the file system's
 * (mount_device).  overlayfs (containers) shows there, before Linux 6.8, the file of the
 * layer beneath, which nothing on the overlay gives: there the loader's name for the
 * library is looked at again instead, which a rename could still fool.
 */
static int same_file(const struct link_map *map, const struct stat *st, int fd)
{
	unsigned long lo, hi, ino, want = (unsigned long)(uintptr_t)map->l_ld;
	unsigned dmaj, dmin, mmaj, mmin;
	char line[4400];
	struct statfs fs;
	struct stat now;
	int found = 0, same = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && !found && fgets(line, sizeof line, f))
		if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &lo, &hi, &dmaj, &dmin, &ino) == 5 &&
		    want >= lo && want < hi)
			found = ino == (unsigned long)st->st_ino ? 1 : -1;
	if (f)
		fclose(f);
	if (found == 1)
		same = (dmaj == major(st->st_dev) && dmin == minor(st->st_dev)) ||
		       (mount_device(fd, &mmaj, &mmin) == 0 && dmaj == mmaj && dmin == mmin);
	if (!same && fstatfs(fd, &fs) == 0 && fs.f_type == OVERLAYFS_SUPER_MAGIC &&
	    stat(map->l_name, &now) == 0)
		same = now.st_dev == st->st_dev && now.st_ino == st->st_ino;
	return same;
}

/*
 * A library named by a path (ROCJIT_HIP_LIBRARY, ROCJIT_NVRTC_LIBRARY, a toolkit's or a
 * ROCm folder) is code this process runs, so it falls under the trust rule
 * (base/trust.h): opened without blocking (a FIFO would hold every compile of the process
 * in the one-time load, a cache hit's included), a regular file owned by this user or
 * root and writable by nobody else, checked on the descriptor.
 *
 * The loader is then given the checked file's own path (the kernel's name for the
 * descriptor: symbolic links resolved), not the descriptor: a library loaded as
 * /proc/self/fd/N has $ORIGIN /proc/self/fd, and ROCm's libraries find theirs
 * (libhsa-runtime64, comgr) through $ORIGIN in their RUNPATH.  The loader names that path
 * again, so what it mapped is compared with what was checked (same_file): what the
 * loader maps must be what was checked, not whatever the path names a moment later.
 * Another file there is unloaded and refused, as a race.
 *
 * NULL, with a warning saying why, when it is refused; NULL silently when the file is not
 * there (the next name is tried).
 */
static void *open_checked(const char *file)
{
	char proc[64], real[4096];
	struct stat st;
	struct link_map *map = NULL;
	void *h = NULL;
	ssize_t n;
	int fd;

	if (access(file, F_OK) != 0)
		return NULL;
	fd = rj_trust_open(file, "the compiler library", 0, &st);
	if (fd < 0) {
		rj_log(RJ_LOG_WARN, "%s; it is not loaded%s", rocjit_last_error(),
		       strstr(rocjit_last_error(), "cannot open it") ?
			       ": name a regular library file of yours or root's" : "");
		return NULL;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof real - 1);
	if (n <= 0 || (size_t)n >= sizeof real - 1 || real[0] != '/') {
		rj_log(RJ_LOG_WARN, "the compiler library %s: cannot tell its path from %s (is "
		       "/proc mounted?); it is not loaded", file, proc);
		goto out;
	}
	real[n] = 0;
	if (rj_vendor_before_load)
		rj_vendor_before_load(real);
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		goto out; /* dlerror() says why, for the caller */
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map || !same_file(map, &st, fd)) {
		dlclose(h);
		h = NULL;
		rj_log(RJ_LOG_WARN, "the compiler library %s changed while it was loaded: %s is "
		       "another file than the one checked, so it is not loaded; let only you "
		       "or root write its folder", file, real);
		goto out;
	}
	pthread_mutex_lock(&checked_mu);
	{
		int known = 0;
		for (int i = 0; i < nchecked; i++)
			known |= checked[i].map == map;
		if (!known && nchecked < CHECKED_MAX && (checked[nchecked].path = strdup(file)))
			checked[nchecked++].map = map;
	}
	pthread_mutex_unlock(&checked_mu);
out:
	close(fd);
	return h;
}

void *rj_vendor_open(const char *dir, size_t dirlen, const char *const *names)
{
	char path[4096];

	for (; *names; names++) {
		const char *file = *names;
		void *h;

		if (dir) {
			int n = snprintf(path, sizeof path, "%.*s/%s", (int)dirlen, dir, *names);
			if (n < 0 || (size_t)n >= sizeof path)
				continue;
			file = path;
		}
		/* A bare name is the loader's to find, in the folders root set up. */
		h = strchr(file, '/') ? open_checked(file) : dlopen(file, RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

/* The entry is dropped first: were the library unloaded, another could get its link map's
 * address, and with it this one's name. */
void rj_vendor_close(void *handle)
{
	struct link_map *map = NULL;

	if (!handle)
		return;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0) {
		pthread_mutex_lock(&checked_mu);
		for (int i = 0; i < nchecked; i++)
			if (checked[i].map == map) {
				free(checked[i].path);
				checked[i] = checked[--nchecked];
				break;
			}
		pthread_mutex_unlock(&checked_mu);
	}
	dlclose(handle);
}

void *rj_vendor_sym(void *handle, const char *name)
{
	return handle ? dlsym(handle, name) : NULL;
}

const char *rj_vendor_file(void *symbol)
{
	Dl_info info;
	struct link_map *map = NULL;
	const char *path = NULL;

	if (!symbol || !dladdr1(symbol, &info, (void **)&map, RTLD_DL_LINKMAP))
		return NULL;
	pthread_mutex_lock(&checked_mu);
	for (int i = 0; i < nchecked && !path; i++)
		if (checked[i].map == map)
			path = checked[i].path;
	pthread_mutex_unlock(&checked_mu);
	return path ? path : info.dli_fname;
}

char *rj_vendor_program_log(rj_vendor_program prog, int (*size)(rj_vendor_program, size_t *),
			    int (*get)(rj_vendor_program, char *))
{
	size_t n = 0;
	char *log;

	if (size(prog, &n) != 0)
		n = 0;
	log = calloc(1, n + 1);
	if (log && n && get(prog, log) != 0)
		log[0] = 0;
	return log;
}

int rj_vendor_add_names(rj_vendor_program prog, int (*add)(rj_vendor_program, const char *),
			const char *const *exprs, size_t n, const char *source_name)
{
	RJ_CHECK(n && !add, ROCJIT_ECOMPILE, "%s: this compiler has no name expressions "
		 "(AddNameExpression and GetLoweredName): declare the kernels extern \"C\", or "
		 "instantiate them explicitly and ask for their mangled names", source_name);
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(add(prog, exprs[i]) != 0, ROCJIT_ECOMPILE,
			 "%s: the compiler refused the name expression \"%s\": give a kernel "
			 "template instantiation such as \"k<float, 4>\"", source_name, exprs[i]);
	return 0;
}

void rj_vendor_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int rj_vendor_lowered_names(char ***out, rj_vendor_program prog,
			    int (*lower)(rj_vendor_program, const char *, const char **),
			    const char *const *exprs, size_t n, const char *source_name,
			    const char *fix)
{
	char **names;

	*out = NULL;
	if (!n)
		return 0;
	names = calloc(n, sizeof *names);
	RJ_CHECK(!names, ROCJIT_ENOMEM, "out of memory compiling %s", source_name);
	for (size_t i = 0; i < n; i++) {
		const char *lowered = NULL;
		if (lower(prog, exprs[i], &lowered) != 0 || !lowered || !*lowered) {
			rj_vendor_names_free(names, n);
			RJ_FAIL(ROCJIT_ECOMPILE, "%s compiled, but the compiler cannot lower the "
				"name expression \"%s\" (no kernel instantiation matches it): %s",
				source_name, exprs[i], fix);
		}
		names[i] = strdup(lowered);
		if (!names[i]) {
			rj_vendor_names_free(names, n);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", source_name);
		}
	}
	*out = names;
	return 0;
}

int rj_vendor_failed_name(const char *log, const char *source, size_t length,
			  const char *const *exprs, size_t n)
{
	const char *e = log ? strstr(log, "error") : NULL, *line, *end;
	size_t len;

	if (!e || !(line = strchr(e, '\n')))
		return -1;
	line++;
	while (*line == ' ' || *line == '\t')
		line++;
	end = strchr(line, '\n');
	len = end ? (size_t)(end - line) : strlen(line);
	if (!len || (source && memmem(source, length, line, len)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(exprs[i]);
		if (k && k <= len && memmem(line, len, exprs[i], k))
			return (int)i;
	}
	return -1;
}

char *rj_vendor_log_error(char *log, const char *source_name)
{
	const char *msg = rocjit_last_error();
	size_t old = log ? strlen(log) : 0;
	size_t len = old + strlen(source_name) + strlen(msg) + 16;
	char *n = realloc(log, len);

	if (!n)
		return log;
	snprintf(n + old, len - old, "%s%s: error: %s\n", old && n[old - 1] != '\n' ? "\n" : "",
		 source_name, msg);
	return n;
}
