/*
 * devlib.c - the header sets rocjit serves to each platform's compiler.
 *
 * Owns which folders of src/compile/devlib/ a platform serves, in which order a name
 * found in two of them is taken (the platform's own folder first, then std/, then the
 * host-only stand-ins written from devlib/host-only.txt), and the
 * digest of each served set.  Knows nothing of compiling: headers.c merges a set with a
 * request's own headers (the caller's win), lookup.c puts the digest into the key.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compile/devlib.h"
#include "rj_devlib_amd.h"
#include "rj_devlib_cuda.h"
#include "rj_devlib_host.h"
#include "rj_devlib_nvidia.h"
#include "rj_devlib_std.h"

#define COUNT(table) (sizeof(table) / sizeof((table)[0]) - 1) /* less the terminator */
#define AMD_MAX \
	(COUNT(rj_devlib_amd) + COUNT(rj_devlib_cuda) + COUNT(rj_devlib_std) + COUNT(rj_devlib_host))
#define NVIDIA_MAX (COUNT(rj_devlib_nvidia) + COUNT(rj_devlib_std) + COUNT(rj_devlib_host))

/* Each set is built at its platform's first use. */
static pthread_once_t amd_once = PTHREAD_ONCE_INIT, nvidia_once = PTHREAD_ONCE_INIT,
		      empty_once = PTHREAD_ONCE_INIT;
static const rocjit_source_file *amd_files[AMD_MAX + 1], *nvidia_files[NVIDIA_MAX + 1];
static struct rj_served amd_set = { amd_files, 0, 0, { { 0 } } },
			nvidia_set = { nvidia_files, 0, 0, { { 0 } } }, empty_set;

/* Appends table's files to set, but for names it already holds. */
static void add(struct rj_served *set, const rocjit_source_file **files,
		const rocjit_source_file *table)
{
	for (const rocjit_source_file *f = table; f->name; f++) {
		size_t i = 0;

		while (i < set->n && strcmp(files[i]->name, f->name) != 0)
			i++;
		if (i == set->n)
			files[set->n++] = f;
	}
}

/*
 * The set's digest: XXH3-128 over its folders' digests, in serving order.  Each folder's
 * (<table>_digest, made at build time by rocjit_embed.cmake) is a SHA-256 over its files'
 * names and bytes, so any change to a served name or text changes the set's digest, and so
 * every key of the platform: entries compiled against other headers simply miss.  A file
 * that another folder's shadows still counts: changing it changes keys it could not have
 * changed, which costs a recompile and nothing else.  Hashing the text itself here cost
 * a process's first request about 50 us (bench/RESULTS.md, issue 14).
 */
static rj_digest set_digest(const char *const *folders, size_t n)
{
	char all[4 * (64 + 1) + 1];
	size_t len = 0;

	for (size_t i = 0; i < n && len + 65 < sizeof all; i++) {
		memcpy(all + len, folders[i], 64);
		all[len + 64] = '\n';
		len += 65;
	}
	return rj_digest_of(all, len);
}

static void build_amd(void)
{
	add(&amd_set, amd_files, rj_devlib_amd);
	add(&amd_set, amd_files, rj_devlib_cuda);
	add(&amd_set, amd_files, rj_devlib_std);
	amd_set.n_named = amd_set.n;
	add(&amd_set, amd_files, rj_devlib_host);
	amd_set.n_named = amd_set.n - amd_set.n_named;
	amd_set.digest = set_digest((const char *const[]){ rj_devlib_amd_digest,
							   rj_devlib_cuda_digest,
							   rj_devlib_std_digest,
							   rj_devlib_host_digest }, 4);
}

static void build_nvidia(void)
{
	add(&nvidia_set, nvidia_files, rj_devlib_nvidia);
	add(&nvidia_set, nvidia_files, rj_devlib_std);
	add(&nvidia_set, nvidia_files, rj_devlib_host);
	nvidia_set.digest = set_digest((const char *const[]){ rj_devlib_nvidia_digest,
							      rj_devlib_std_digest,
							      rj_devlib_host_digest }, 3);
}

static void build_empty(void)
{
	empty_set.digest = set_digest(NULL, 0);
}

const struct rj_served *rj_devlib_served(int platform)
{
	if (platform == ROCJIT_PLATFORM_AMD) {
		pthread_once(&amd_once, build_amd);
		return &amd_set;
	}
	if (platform == ROCJIT_PLATFORM_NVIDIA) {
		pthread_once(&nvidia_once, build_nvidia);
		return &nvidia_set;
	}
	pthread_once(&empty_once, build_empty);
	return &empty_set;
}

/* Every served name of every platform, sorted, for rj_devlib_serves (built once). */
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static const char *names[AMD_MAX + NVIDIA_MAX];
static size_t num_names;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void build_names(void)
{
	const struct rj_served *sets[] = { rj_devlib_served(ROCJIT_PLATFORM_AMD),
					   rj_devlib_served(ROCJIT_PLATFORM_NVIDIA) };

	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; i < sets[s]->n; i++)
			names[num_names++] = sets[s]->files[i]->name;
	qsort(names, num_names, sizeof *names, name_cmp);
}

int rj_devlib_serves(const char *name)
{
	pthread_once(&names_once, build_names);
	return bsearch(&name, names, num_names, sizeof *names, name_cmp) != NULL;
}
