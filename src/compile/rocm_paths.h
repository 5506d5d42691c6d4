/*
 * rocm_paths.h - where ROCm is installed (see rocm_paths.c): the folders, in order, that
 * the AMD platform looks in for its libraries between ROCJIT_HIP_LIBRARY and the loader's
 * search path.  Internal to src/compile/.
 */
#ifndef ROCJIT_ROCM_PATHS_H
#define ROCJIT_ROCM_PATHS_H

#include <stddef.h>

/* The folder the standard installs are in ("/opt": /opt/rocm, /opt/rocm-X.Y.Z).  A
 * variable so that tests can point it at a tree of their own; nothing else writes it. */
extern const char *rj_rocm_root;

struct rj_rocm_place {
	char dir[4096];  /* a lib folder */
	char why[4200];  /* the rule that names it, in words ("ROCM_PATH=/opt/rocm-6.0.0") */
};

/*
 * The folders to look in, in order, into out[max]: $ROCM_PATH/lib (when set), then
 * <root>/rocm/lib, then each <root>/rocm-X.Y.Z/lib, the newest version first (versions
 * compared as numbers: 5.10.0 is newer than 5.7.1).  Folders are listed whether they
 * exist or not; how many were written.  Any thread.
 */
size_t rj_rocm_places(struct rj_rocm_place *out, size_t max);

/* Orders folder names by version: <0, 0 or >0 as a is older, the same or newer than b
 * ("rocm-5.7.1" < "rocm-5.10.0" < "rocm-6.0.0"); a name that is no rocm-X.Y.Z folder is
 * older than any that is. */
int rj_rocm_version_cmp(const char *a, const char *b);

/* 1 when dir holds a regular file (links followed) by one of names (NULL-terminated). */
int rj_rocm_has_any(const char *dir, const char *const *names);

#endif
