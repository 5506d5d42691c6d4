/*
 * init.c - the initialisers of the structs a caller allocates (rocjit_*_init): what the
 * ROCJIT_*_INIT macros give C, for bindings that cannot expand a macro.
 *
 * Owns the one rule they share: a caller names the version it knows, and only that
 * version's part of the struct is written (a caller built with an older header has a
 * smaller struct), from the same defaults the macro gives.  Each struct's table of sizes
 * by version is checked against its VERSION macro at compile time, so a field added
 * without a new entry here does not build.  Touches no context.
 */
#include <stddef.h>
#include <string.h>

#include "base/error.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Checks version against the sizes[] of a struct's versions 1..n and copies that
 * version's part of defaults into p; the caller then sets p's version field.
 */
static int init_part(void *p, const void *defaults, const size_t *sizes, size_t n,
		     unsigned int version, const char *fn)
{
	RJ_CHECK(!p, ROCJIT_EINVAL, "%s: the struct is NULL", fn);
	RJ_CHECK(version < 1 || version > n, ROCJIT_EINVAL, "%s: version %u is not one this "
		 "library knows (1..%zu)", fn, version, n);
	memcpy(p, defaults, sizes[version - 1]);
	rj_error_clear();
	return 0;
}

/* Each version's size: where the next version's first field starts, and the whole
 * struct for the current one. */
static const size_t options_sizes[] = {
	offsetof(rocjit_options, bundles), offsetof(rocjit_options, remote),
	offsetof(rocjit_options, signing_key), sizeof(rocjit_options)
};
static const size_t program_sizes[] = {
	offsetof(rocjit_program, language), offsetof(rocjit_program, header_size),
	sizeof(rocjit_program)
};
static const size_t registered_options_sizes[] = { sizeof(rocjit_registered_options) };
static const size_t stats_sizes[] = {
	offsetof(rocjit_stats, max_bytes),     offsetof(rocjit_stats, stores),
	offsetof(rocjit_stats, empty_objects), offsetof(rocjit_stats, worker_compiles),
	offsetof(rocjit_stats, index_hits),    offsetof(rocjit_stats, remote_state),
	offsetof(rocjit_stats, require_signed), sizeof(rocjit_stats)
};
static const size_t counters_sizes[] = { offsetof(rocjit_counters, compile_errors),
					  sizeof(rocjit_counters) };
static const size_t remote_counters_sizes[] = { sizeof(rocjit_remote_counters) };
static const size_t remote_info_sizes[] = { sizeof(rocjit_remote_info) };
static const size_t prefetch_options_sizes[] = {
	offsetof(rocjit_prefetch_options, item_size), sizeof(rocjit_prefetch_options)
};
static const size_t prefetch_status_sizes[] = { sizeof(rocjit_prefetch_status) };
static const size_t kernel_native_sizes[] = { sizeof(rocjit_kernel_native) };
static const size_t kernel_resources_sizes[] = { sizeof(rocjit_kernel_resources) };

_Static_assert(COUNT(options_sizes) == ROCJIT_OPTIONS_VERSION, "rocjit_options versions");
_Static_assert(COUNT(program_sizes) == ROCJIT_PROGRAM_VERSION, "rocjit_program versions");
_Static_assert(COUNT(registered_options_sizes) == ROCJIT_REGISTERED_OPTIONS_VERSION,
	       "rocjit_registered_options versions");
_Static_assert(COUNT(stats_sizes) == ROCJIT_STATS_VERSION, "rocjit_stats versions");
_Static_assert(COUNT(counters_sizes) == ROCJIT_COUNTERS_VERSION, "rocjit_counters versions");
_Static_assert(COUNT(remote_counters_sizes) == ROCJIT_REMOTE_COUNTERS_VERSION,
	       "rocjit_remote_counters versions");
_Static_assert(COUNT(remote_info_sizes) == ROCJIT_REMOTE_INFO_VERSION,
	       "rocjit_remote_info versions");
_Static_assert(COUNT(prefetch_options_sizes) == ROCJIT_PREFETCH_OPTIONS_VERSION,
	       "rocjit_prefetch_options versions");
_Static_assert(COUNT(prefetch_status_sizes) == ROCJIT_PREFETCH_STATUS_VERSION,
	       "rocjit_prefetch_status versions");
_Static_assert(COUNT(kernel_native_sizes) == ROCJIT_KERNEL_NATIVE_VERSION,
	       "rocjit_kernel_native versions");
_Static_assert(COUNT(kernel_resources_sizes) == ROCJIT_KERNEL_RESOURCES_VERSION,
	       "rocjit_kernel_resources versions");

/*
 * One initialiser: type's version's part from its defaults (the INIT macro, or zeroes for
 * a result the library fills), then its version field, which every versioned struct
 * starts with.
 */
#define DEFINE_INIT(type, fn, defaults_init, sizes)                                         \
	ROCJIT_API int fn(type *p, unsigned int version)                                    \
	{                                                                                   \
		static const type defaults = defaults_init;                                 \
		_Static_assert(offsetof(type, version) == 0, #type " starts with its version"); \
		RJ_FORWARD(init_part(p, &defaults, sizes, COUNT(sizes), version, #fn));     \
		p->version = version;                                                       \
		return 0;                                                                   \
	}

#define ZEROES { 0 }

DEFINE_INIT(rocjit_options, rocjit_options_init, ROCJIT_OPTIONS_INIT, options_sizes)
DEFINE_INIT(rocjit_program, rocjit_program_init, ROCJIT_PROGRAM_INIT, program_sizes)
DEFINE_INIT(rocjit_registered_options, rocjit_registered_options_init,
	    ROCJIT_REGISTERED_OPTIONS_INIT, registered_options_sizes)
DEFINE_INIT(rocjit_stats, rocjit_stats_init, ZEROES, stats_sizes)
DEFINE_INIT(rocjit_counters, rocjit_counters_init, ROCJIT_COUNTERS_INIT, counters_sizes)
DEFINE_INIT(rocjit_remote_counters, rocjit_remote_counters_init, ZEROES,
	    remote_counters_sizes)
DEFINE_INIT(rocjit_remote_info, rocjit_remote_info_init, ZEROES, remote_info_sizes)
DEFINE_INIT(rocjit_prefetch_options, rocjit_prefetch_options_init,
	    ROCJIT_PREFETCH_OPTIONS_INIT, prefetch_options_sizes)
DEFINE_INIT(rocjit_prefetch_status, rocjit_prefetch_status_init, ROCJIT_PREFETCH_STATUS_INIT,
	    prefetch_status_sizes)
DEFINE_INIT(rocjit_kernel_native, rocjit_kernel_native_init, ZEROES, kernel_native_sizes)
DEFINE_INIT(rocjit_kernel_resources, rocjit_kernel_resources_init, ZEROES,
	    kernel_resources_sizes)
