/*
 * rocm_paths.c - where ROCm is installed: the folders the AMD platform looks in for its
 * libraries (hipRTC, comgr, the HIP runtime) after ROCJIT_HIP_LIBRARY and before the
 * loader's search path, in ROCm's own order: $ROCM_PATH/lib, then the standard install
 * folders <root>/rocm/lib and <root>/rocm-X.Y.Z/lib, newest version first (root: /opt).
 *
 * Owns the order and the version comparison only; loads nothing (platform_amd.c and
 * driver_amd.c load from the folders given, and say which one served).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compile/rocm_paths.h"

const char *rj_rocm_root = "/opt";

/* The version of a folder name "rocm-X.Y.Z" (or "rocm-X.Y", "rocm-X", any of them with a
 * suffix such as "-rc1" or ".1", which only breaks ties) into v[3]: 1, or 0 when the name
 * is no such folder. */
static int folder_version(const char *name, long v[3])
{
	const char *p = name + 5;

	if (strncmp(name, "rocm-", 5) != 0 || *p < '0' || *p > '9')
		return 0;
	v[0] = v[1] = v[2] = 0;
	for (int i = 0; i < 3; i++) {
		char *end;
		v[i] = strtol(p, &end, 10);
		p = end;
		if (p[0] != '.' || p[1] < '0' || p[1] > '9')
			break;
		p++;
	}
	return 1;
}

int rj_rocm_version_cmp(const char *a, const char *b)
{
	long va[3], vb[3];
	int ka = folder_version(a, va), kb = folder_version(b, vb);

	if (ka != kb)
		return ka - kb; /* a versioned name after any other */
	for (int i = 0; ka && i < 3; i++)
		if (va[i] != vb[i])
			return va[i] < vb[i] ? -1 : 1;
	return strcmp(a, b);
}

/* Newest first. */
static int newest_first(const void *a, const void *b)
{
	return rj_rocm_version_cmp(*(char *const *)b, *(char *const *)a);
}

/* Adds dir unless it is listed already ($ROCM_PATH may be /opt/rocm). */
static size_t add_place(struct rj_rocm_place *out, size_t n, size_t max, const char *dir,
			const char *why)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i].dir, dir))
			return n;
	if (n >= max || snprintf(out[n].dir, sizeof out[n].dir, "%s", dir) >=
			(int)sizeof out[n].dir)
		return n;
	snprintf(out[n].why, sizeof out[n].why, "%s", why);
	return n + 1;
}

size_t rj_rocm_places(struct rj_rocm_place *out, size_t max)
{
	const char *env = getenv("ROCM_PATH");
	char dir[4200], why[4200];
	char *names[64];
	size_t n = 0, nv = 0;
	struct dirent *e;
	DIR *d;

	if (env && *env) {
		snprintf(dir, sizeof dir, "%s/lib", env);
		snprintf(why, sizeof why, "ROCM_PATH=%s", env);
		n = add_place(out, n, max, dir, why);
	}
	snprintf(dir, sizeof dir, "%s/rocm/lib", rj_rocm_root);
	snprintf(why, sizeof why, "the standard install folder %s/rocm", rj_rocm_root);
	n = add_place(out, n, max, dir, why);
	if (!(d = opendir(rj_rocm_root)))
		return n;
	while ((e = readdir(d)) && nv < sizeof names / sizeof names[0]) {
		long v[3];
		if (folder_version(e->d_name, v) && (names[nv] = strdup(e->d_name)))
			nv++;
	}
	closedir(d);
	qsort(names, nv, sizeof names[0], newest_first);
	for (size_t i = 0; i < nv; i++) {
		snprintf(dir, sizeof dir, "%s/%s/lib", rj_rocm_root, names[i]);
		snprintf(why, sizeof why, "the versioned install folder %s/%s%s", rj_rocm_root,
			 names[i], i ? " (a newer one had none)" : nv > 1 ? " (the newest)" : "");
		n = add_place(out, n, max, dir, why);
		free(names[i]);
	}
	return n;
}

int rj_rocm_has_any(const char *dir, const char *const *names)
{
	char path[4400];
	struct stat st;

	for (; *names; names++) {
		snprintf(path, sizeof path, "%s/%s", dir, *names);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return 1;
	}
	return 0;
}
