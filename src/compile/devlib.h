/*
 * devlib.h - the headers rocjit serves to the compilers: a device standard library
 * (devlib/std/), stand-ins for the HIP headers each platform lacks or has built in
 * (devlib/amd/, devlib/nvidia/) and the CUDA headers served on AMD (devlib/cuda/), all
 * embedded at build time (CMakeLists.txt, rocjit_embed_folder).
 */
#ifndef ROCJIT_DEVLIB_H
#define ROCJIT_DEVLIB_H

#include <stddef.h>

#include "key/key.h"
#include "rocjit.h"

/* What one platform serves: each file under its include name ("cstdint",
 * "hip/hip_fp16.h"), NUL-terminated static text; and the digest of the whole set, which is
 * part of every key of that platform (key.h, field "served"). */
struct rj_served {
	const rocjit_source_file *const *files;
	size_t n;
	size_t n_named; /* the last n_named files (the host-only stand-ins of host-only.txt)
			   are passed only to a compile whose texts include them by name, or
			   that has -I folders, whose files can include anything: hipRTC
			   writes every in-memory header to a file, per compile.  0 on
			   NVIDIA, where NVRTC reads them from memory: all are passed */
	rj_digest digest;
};

/*
 * The set served on platform (ROCJIT_PLATFORM_AMD or _NVIDIA; any other id gets an empty
 * set), built on first use.  Static, immutable: any thread.
 */
const struct rj_served *rj_devlib_served(int platform);

/*
 * Whether some platform serves a header named name.  A caller's header of that name
 * replaces rocjit's wherever it is included, from rocjit's own headers too (headers.c),
 * so a registered header of such a name is reached by every source (request/reach.c).
 * Any thread.
 */
int rj_devlib_serves(const char *name);

#endif
