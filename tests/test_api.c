/*
 * test_api.c - the public API's contracts: misuse gives ROCJIT_EINVAL and a message, error
 * names, per-thread last error, versions; the conventions bindings rely on (initialisers,
 * versioned results, the renamed calls), the exported symbols, and the log hook.
 */
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "base/error.h"
#include "request/context.h"
#include "harness.h"

TEST(version_matches_header)
{
	ASSERT_INT(rocjit_version(), ROCJIT_VERSION_NUMBER);
	ASSERT_INT(ROCJIT_VERSION_NUMBER, 100);
}

TEST(every_error_code_has_a_name)
{
	for (int c = 0; c >= ROCJIT_ENOTCACHED; c--)
		ASSERT(strcmp(rocjit_strerror(c), "unknown error") != 0);
	ASSERT_STR(rocjit_strerror(-99), "unknown error");
	ASSERT_STR(rocjit_strerror(ROCJIT_ECOMPILE), "compile error");
	/* Pinned values. */
	ASSERT_INT(ROCJIT_EINVAL, -1);
	ASSERT_INT(ROCJIT_ENOTFOUND, -3);
	ASSERT_INT(ROCJIT_ECOMPILE, -4);
	ASSERT_INT(ROCJIT_EUNSUPPORTED, -5);
	ASSERT_INT(ROCJIT_ENODEV, -6);
	ASSERT_INT(ROCJIT_ENOTCACHED, -11);
}

TEST(null_and_bad_arguments_are_einval)
{
	rocjit_ctx *ctx;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { 0 };
	const rocjit_code *code;
	rocjit_kernel *k;
	rocjit_header h = { NULL, "x", 0 };

	ASSERT_INT(rocjit_open(NULL, NULL), ROCJIT_EINVAL);
	o.version = 99;
	ASSERT_INT(rocjit_open(&ctx, &o), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_OPTIONS_INIT");
	o.version = ROCJIT_OPTIONS_VERSION;
	o.flags = 0x100;
	ASSERT_INT(rocjit_open(&ctx, &o), ROCJIT_EINVAL);
	o.flags = ROCJIT_OPEN_NO_CACHE;
	o.platform = 42;
	ASSERT_INT(rocjit_open(&ctx, &o), ROCJIT_EINVAL);
	o.platform = ROCJIT_PLATFORM_AUTO;
	o.target = "gfx90a:";
	ASSERT_INT(rocjit_open(&ctx, &o), ROCJIT_EINVAL);
	o.target = NULL;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);

	ASSERT_INT(rocjit_compile(NULL, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_compile(&code, NULL, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", NULL), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL); /* no source */
	ASSERT_CONTAINS(rocjit_last_error(), "source");
	p.source = "";
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p.source = "x";
	p.version = 0;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p.version = ROCJIT_PROGRAM_VERSION;
	p.num_headers = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p.headers = &h;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p.num_headers = 0;
	ASSERT_INT(rocjit_compile(&code, ctx, "not a target", &p), ROCJIT_EINVAL);
	{
		static const char *const bad[] = { "--offload-arch=gfx90a" };
		p.options = bad;
		p.num_options = 1;
		ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_ARCH");
		p.options = NULL;
		p.num_options = 0;
	}
	ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, NULL), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, ""), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_kernel_get_registered(&k, ctx, NULL, "k", NULL, 0), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_stats_get(&st, ctx), ROCJIT_EINVAL); /* version 0 */
	ASSERT_INT(rocjit_stats_get(NULL, ctx), ROCJIT_EINVAL);
	{
		rocjit_dim3 one = { 1, 1, 1 };
		rocjit_kernel_native nat;
		rocjit_kernel_resources res;
		int v;

		ASSERT_INT(rocjit_kernel_launch(NULL, one, one, 0, NULL, NULL), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_launch_cooperative(NULL, one, one, 0, NULL, NULL),
			   ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_native_init(&nat, ROCJIT_KERNEL_NATIVE_VERSION), 0);
		ASSERT_INT(rocjit_kernel_native_get(&nat, NULL), ROCJIT_EINVAL);
		nat.version = 0;
		ASSERT_INT(rocjit_kernel_native_get(&nat, NULL), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_attribute_get(&v, NULL, ROCJIT_ATTR_NUM_REGS),
			   ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_attribute_set(NULL, ROCJIT_ATTR_NUM_REGS, 1),
			   ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_occupancy_get(&v, NULL, 64, 0), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_block_size_get(&v, NULL, NULL, 0, 0), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_global_get(NULL, NULL, NULL, "x"), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_global_write(NULL, "x", 0, &v, sizeof v, NULL), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_global_read(&v, NULL, "x", 0, sizeof v, NULL), ROCJIT_EINVAL);
		ASSERT_INT(rocjit_kernel_resources_init(&res, ROCJIT_KERNEL_RESOURCES_VERSION), 0);
		ASSERT_INT(rocjit_kernel_resources_get(&res, NULL), ROCJIT_EINVAL);
	}
	ASSERT(rocjit_kernel_name(NULL) == NULL);
	rocjit_close(ctx);
	rocjit_close(NULL);
	rocjit_codeobj_info_free(NULL);
}

static void *other_thread(void *arg)
{
	(void)arg;
	/* A fresh thread sees no error of another thread. */
	ASSERT_STR(rocjit_last_error(), "");
	ASSERT_INT(rocjit_open(NULL, NULL), ROCJIT_EINVAL);
	ASSERT(strlen(rocjit_last_error()) > 0);
	return NULL;
}

TEST(last_error_is_per_thread_and_cleared_by_success)
{
	pthread_t t;
	rocjit_ctx *ctx;
	char before[1024];

	ASSERT_INT(rocjit_open(NULL, NULL), ROCJIT_EINVAL);
	snprintf(before, sizeof before, "%s", rocjit_last_error());
	ASSERT(before[0]);
	pthread_create(&t, NULL, other_thread, NULL);
	pthread_join(t, NULL);
	ASSERT_STR(rocjit_last_error(), before);
	setenv("ROCJIT_DISABLE_CACHE", "1", 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	ASSERT_STR(rocjit_last_error(), "");
	rocjit_close(ctx);
}

TEST(platform_names)
{
	ASSERT_STR(rocjit_platform_name(ROCJIT_PLATFORM_AMD), "amd");
	ASSERT_STR(rocjit_platform_name(ROCJIT_PLATFORM_AUTO), "auto");
	ASSERT_STR(rocjit_platform_name(77), "unknown");
	setenv("ROCJIT_PLATFORM", "vulkan", 1);
	{
		rocjit_ctx *ctx;
		ASSERT_INT(rocjit_open(&ctx, NULL), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_PLATFORM=vulkan");
	}
}

/* rocjit_open makes the context's locks from static initializers (context.c): they are
 * byte for byte what the init calls make, the read-write lock preferring writers. */
TEST(context_locks_are_the_ones_the_init_calls_make)
{
	rocjit_ctx *ctx = rj_test_open();
	pthread_rwlockattr_t attr;
	pthread_rwlock_t rw;
	pthread_mutex_t mu;
	pthread_cond_t cv;

	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&rw, &attr);
	pthread_rwlockattr_destroy(&attr);
	pthread_mutex_init(&mu, NULL);
	pthread_cond_init(&cv, NULL);
	ASSERT(memcmp(&ctx->rw, &rw, sizeof rw) == 0);
	ASSERT(memcmp(&ctx->wait_mu, &mu, sizeof mu) == 0);
	ASSERT(memcmp(&ctx->load_mu, &mu, sizeof mu) == 0);
	ASSERT(memcmp(&ctx->store_mu, &mu, sizeof mu) == 0);
	ASSERT(memcmp(&ctx->bundles_mu, &mu, sizeof mu) == 0);
	ASSERT(memcmp(&ctx->wait_cv, &cv, sizeof cv) == 0);
	rocjit_close(ctx);
}

/* The dynamic section's DT_FLAGS and DT_FLAGS_1 of the ELF file at path (64-bit, native). */
static void dynamic_flags(const char *path, uint64_t *flags, uint64_t *flags_1)
{
	size_t size;
	char *f = rj_test_read_file(path, &size);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;

	*flags = *flags_1 = 0;
	ASSERT(size >= sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64);
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(f + eh->e_phoff) + i;
		ASSERT((size_t)((const char *)(ph + 1) - f) <= size);
		if (ph->p_type != PT_DYNAMIC)
			continue;
		ASSERT(ph->p_offset + ph->p_filesz <= size);
		for (const Elf64_Dyn *d = (const Elf64_Dyn *)(f + ph->p_offset);
		     (const char *)(d + 1) <= f + ph->p_offset + ph->p_filesz && d->d_tag != DT_NULL;
		     d++) {
			if (d->d_tag == DT_FLAGS)
				*flags = d->d_un.d_val;
			else if (d->d_tag == DT_FLAGS_1)
				*flags_1 = d->d_un.d_val;
		}
	}
	free(f);
}

/* The shared library is linked with full RELRO (CMakeLists.txt): imports bound at load, so
 * a new process's first request pays no lazy binding, and the table is read-only. */
TEST(shared_library_binds_every_import_at_load)
{
	uint64_t flags, flags_1;

	dynamic_flags(ROCJIT_TEST_SHARED_LIB, &flags, &flags_1);
	ASSERT((flags & DF_BIND_NOW) || (flags_1 & DF_1_NOW));
}

/* ---- Initialisers (issue 17): what bindings use instead of the *_INIT macros --------- */

/* Every rocjit_*_init, called through one shape: (struct, version) -> rc. */
struct init_case {
	const char *name;
	int (*init)(void *p, unsigned int version);
	size_t size;
	unsigned int version;     /* the header's ROCJIT_<STRUCT>_VERSION */
	const void *macro;        /* what the ROCJIT_<STRUCT>_INIT macro gives, or NULL: zeroes */
};

#define INIT_FN(fn, type)                                                    \
	static int call_##fn(void *p, unsigned int version)                  \
	{                                                                    \
		return fn((type *)p, version);                               \
	}
INIT_FN(rocjit_options_init, rocjit_options)
INIT_FN(rocjit_program_init, rocjit_program)
INIT_FN(rocjit_registered_options_init, rocjit_registered_options)
INIT_FN(rocjit_stats_init, rocjit_stats)
INIT_FN(rocjit_counters_init, rocjit_counters)
INIT_FN(rocjit_remote_counters_init, rocjit_remote_counters)
INIT_FN(rocjit_remote_info_init, rocjit_remote_info)
INIT_FN(rocjit_prefetch_options_init, rocjit_prefetch_options)
INIT_FN(rocjit_prefetch_status_init, rocjit_prefetch_status)
INIT_FN(rocjit_kernel_native_init, rocjit_kernel_native)
INIT_FN(rocjit_kernel_resources_init, rocjit_kernel_resources)

/* Static, so that their padding is zero too and a whole-struct comparison is exact. */
static const rocjit_options options_macro = ROCJIT_OPTIONS_INIT;
static const rocjit_program program_macro = ROCJIT_PROGRAM_INIT;
static const rocjit_registered_options registered_macro = ROCJIT_REGISTERED_OPTIONS_INIT;
static const rocjit_counters counters_macro = ROCJIT_COUNTERS_INIT;
static const rocjit_prefetch_options prefetch_macro = ROCJIT_PREFETCH_OPTIONS_INIT;
static const rocjit_prefetch_status prefetch_status_macro = ROCJIT_PREFETCH_STATUS_INIT;

static const struct init_case init_cases[] = {
	{ "options", call_rocjit_options_init, sizeof(rocjit_options), ROCJIT_OPTIONS_VERSION,
	  &options_macro },
	{ "program", call_rocjit_program_init, sizeof(rocjit_program), ROCJIT_PROGRAM_VERSION,
	  &program_macro },
	{ "registered_options", call_rocjit_registered_options_init,
	  sizeof(rocjit_registered_options), ROCJIT_REGISTERED_OPTIONS_VERSION, &registered_macro },
	{ "stats", call_rocjit_stats_init, sizeof(rocjit_stats), ROCJIT_STATS_VERSION, NULL },
	{ "counters", call_rocjit_counters_init, sizeof(rocjit_counters), ROCJIT_COUNTERS_VERSION,
	  &counters_macro },
	{ "remote_counters", call_rocjit_remote_counters_init, sizeof(rocjit_remote_counters),
	  ROCJIT_REMOTE_COUNTERS_VERSION, NULL },
	{ "remote_info", call_rocjit_remote_info_init, sizeof(rocjit_remote_info),
	  ROCJIT_REMOTE_INFO_VERSION, NULL },
	{ "prefetch_options", call_rocjit_prefetch_options_init, sizeof(rocjit_prefetch_options),
	  ROCJIT_PREFETCH_OPTIONS_VERSION, &prefetch_macro },
	{ "prefetch_status", call_rocjit_prefetch_status_init, sizeof(rocjit_prefetch_status),
	  ROCJIT_PREFETCH_STATUS_VERSION, &prefetch_status_macro },
	{ "kernel_native", call_rocjit_kernel_native_init, sizeof(rocjit_kernel_native),
	  ROCJIT_KERNEL_NATIVE_VERSION, NULL },
	{ "kernel_resources", call_rocjit_kernel_resources_init,
	  sizeof(rocjit_kernel_resources), ROCJIT_KERNEL_RESOURCES_VERSION, NULL },
};
#define NUM_INIT_CASES (sizeof init_cases / sizeof init_cases[0])

TEST(init_functions_refuse_version_0_too_new_and_null)
{
	unsigned char buf[sizeof(rocjit_stats)];

	for (size_t i = 0; i < NUM_INIT_CASES; i++) {
		const struct init_case *c = &init_cases[i];
		printf("%s\n", c->name);
		memset(buf, 0xab, sizeof buf);
		ASSERT_INT(c->init(buf, 0), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "version 0");
		ASSERT_INT(c->init(buf, c->version + 1), ROCJIT_EINVAL);
		ASSERT_INT(c->init(NULL, c->version), ROCJIT_EINVAL);
		/* A refused call writes nothing. */
		for (size_t b = 0; b < sizeof buf; b++)
			ASSERT_INT(buf[b], 0xab);
	}
}

TEST(init_functions_give_what_the_init_macros_give)
{
	unsigned char buf[sizeof(rocjit_stats)], zero[sizeof(rocjit_stats)];

	memset(zero, 0, sizeof zero);
	for (size_t i = 0; i < NUM_INIT_CASES; i++) {
		const struct init_case *c = &init_cases[i];
		printf("%s\n", c->name);
		ASSERT(c->size <= sizeof buf);
		memset(buf, 0xab, sizeof buf);
		ASSERT_INT(c->init(buf, c->version), 0);
		ASSERT_STR(rocjit_last_error(), "");
		ASSERT_INT(*(const unsigned int *)(const void *)buf, c->version);
		if (c->macro) {
			ASSERT(memcmp(buf, c->macro, c->size) == 0);
		} else {
			/* Results the library fills: zeroes but for the version. */
			size_t rest = c->size - sizeof(unsigned int);
			ASSERT(memcmp(buf + sizeof(unsigned int), zero, rest) == 0);
		}
		/* Nothing past the struct is touched. */
		for (size_t b = c->size; b < sizeof buf; b++)
			ASSERT_INT(buf[b], 0xab);
	}
	/* The defaults that are not zero. */
	{
		rocjit_program p;
		ASSERT_INT(rocjit_program_init(&p, ROCJIT_PROGRAM_VERSION), 0);
		ASSERT_INT(p.header_size, sizeof(rocjit_header));
		ASSERT_INT(p.language, ROCJIT_LANG_AUTO);
		ASSERT_INT(ROCJIT_PROGRAM_VERSION, 3);
	}
	{
		rocjit_prefetch_options f;
		ASSERT_INT(rocjit_prefetch_options_init(&f, ROCJIT_PREFETCH_OPTIONS_VERSION), 0);
		ASSERT_INT(f.item_size, sizeof(rocjit_prefetch_item));
		ASSERT_INT(ROCJIT_PREFETCH_OPTIONS_VERSION, 2);
	}
}

/* A caller built with an older header has a smaller struct: its version's part alone is
 * written, so the bytes after it (the caller's next variable) stay as they were. */
TEST(init_with_an_older_version_writes_only_that_versions_part)
{
	union {
		rocjit_program p;
		unsigned char b[sizeof(rocjit_program)];
	} u;
	union {
		rocjit_options o;
		unsigned char b[sizeof(rocjit_options)];
	} v;
	union {
		rocjit_stats s;
		unsigned char b[sizeof(rocjit_stats)];
	} w;
	union {
		rocjit_prefetch_options f;
		unsigned char b[sizeof(rocjit_prefetch_options)];
	} x;
	size_t end;

	memset(u.b, 0xab, sizeof u.b);
	ASSERT_INT(rocjit_program_init(&u.p, 2), 0);
	ASSERT_INT(u.p.version, 2);
	ASSERT(u.p.source == NULL && u.p.name_expressions == NULL && u.p.num_name_expressions == 0);
	for (end = offsetof(rocjit_program, header_size); end < sizeof u.b; end++)
		ASSERT_INT(u.b[end], 0xab);
	memset(u.b, 0xab, sizeof u.b);
	ASSERT_INT(rocjit_program_init(&u.p, 1), 0);
	for (end = offsetof(rocjit_program, language); end < sizeof u.b; end++)
		ASSERT_INT(u.b[end], 0xab);

	memset(v.b, 0xab, sizeof v.b);
	ASSERT_INT(rocjit_options_init(&v.o, 1), 0);
	ASSERT(v.o.cache_dir == NULL && v.o.flags == 0 && v.o.platform == ROCJIT_PLATFORM_AUTO);
	for (end = offsetof(rocjit_options, bundles); end < sizeof v.b; end++)
		ASSERT_INT(v.b[end], 0xab);

	memset(w.b, 0xab, sizeof w.b);
	ASSERT_INT(rocjit_stats_init(&w.s, 7), 0);
	ASSERT_INT(w.s.version, 7);
	ASSERT_INT(w.s.remote_ms, 0);
	for (end = offsetof(rocjit_stats, require_signed); end < sizeof w.b; end++)
		ASSERT_INT(w.b[end], 0xab);

	memset(x.b, 0xab, sizeof x.b);
	ASSERT_INT(rocjit_prefetch_options_init(&x.f, 1), 0);
	ASSERT_INT(x.f.version, 1);
	ASSERT(x.f.threads == 0 && x.f.progress == NULL && x.f.user == NULL);
	for (end = offsetof(rocjit_prefetch_options, item_size); end < sizeof x.b; end++)
		ASSERT_INT(x.b[end], 0xab);
}

/* What the initialisers give is what the calls take. */
TEST(initialised_structs_are_accepted_by_the_calls)
{
	rocjit_options o;
	rocjit_stats st;
	rocjit_counters n;
	rocjit_ctx *ctx;

	ASSERT_INT(rocjit_options_init(&o, ROCJIT_OPTIONS_VERSION), 0);
	o.cache_dir = rj_test_cache_dir;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_stats_init(&st, ROCJIT_STATS_VERSION), 0);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.cache_open, 1);
	ASSERT_INT(rocjit_counters_init(&n, ROCJIT_COUNTERS_VERSION), 0);
	ASSERT_INT(rocjit_counters_get(&n, ctx), 0);
	{
		rocjit_prefetch_options po;
		rocjit_prefetch_status ps;
		rocjit_prefetch *pf;
		ASSERT_INT(rocjit_prefetch_options_init(&po, ROCJIT_PREFETCH_OPTIONS_VERSION), 0);
		ASSERT_INT(rocjit_prefetch_start(&pf, ctx, NULL, 0, &po), 0);
		ASSERT_INT(rocjit_prefetch_status_init(&ps, ROCJIT_PREFETCH_STATUS_VERSION), 0);
		ASSERT_INT(rocjit_prefetch_status_get(&ps, pf), 0);
		ASSERT_INT(ps.version, ROCJIT_PREFETCH_STATUS_VERSION);
		ASSERT_INT(ps.finished, 1);
		rocjit_prefetch_free(pf);
	}
	rocjit_close(ctx);
}

/* ---- rocjit_counters: versioned, out first ------------------------------------------- */

TEST(counters_get_honours_the_version_and_the_old_call_still_works)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_counters n = ROCJIT_COUNTERS_INIT, first, old;

	rj_test_compile_variant(ctx, "gfx90a", "COUNTERS", 1);
	rocjit_close(ctx); /* a context adds its misses and compiles when it closes */
	ctx = rj_test_open();
	rj_test_compile_variant(ctx, "gfx90a", "COUNTERS", 1); /* a disk hit */

	ASSERT_INT(rocjit_counters_get(&n, ctx), 0);
	ASSERT_INT(n.version, ROCJIT_COUNTERS_VERSION);
	ASSERT_INT(n.compiles, 1);
	ASSERT_INT(n.misses, 1);
	ASSERT(n.since > 0);
	first = n;

	n.version = 0;
	ASSERT_INT(rocjit_counters_get(&n, ctx), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_COUNTERS_VERSION");
	n.version = ROCJIT_COUNTERS_VERSION + 1;
	ASSERT_INT(rocjit_counters_get(&n, ctx), ROCJIT_EINVAL);
	ASSERT_INT(n.version, ROCJIT_COUNTERS_VERSION + 1); /* refused: untouched */
	ASSERT_INT(rocjit_counters_get(NULL, ctx), ROCJIT_EINVAL);
	n.version = ROCJIT_COUNTERS_VERSION;
	ASSERT_INT(rocjit_counters_get(&n, NULL), ROCJIT_EINVAL);

	/* The deprecated spelling fills version 1 whatever version holds: its callers were
	   built when the struct ended there (issue 31 added version 2). */
	memset(&old, 0xab, sizeof old);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ASSERT_INT(rocjit_cache_counters(ctx, &old), 0);
#pragma GCC diagnostic pop
	ASSERT_INT(old.version, 1);
	ASSERT(old.compile_errors == 0xababababababababull);
	ASSERT_INT(old.compiles, first.compiles);
	ASSERT_INT(old.misses, first.misses);
	ASSERT_INT(old.since, first.since);
	rocjit_close(ctx);
}

/* ---- Renamed calls: the new spelling, and the old one kept ---------------------------- */

TEST(renamed_calls_and_their_old_spellings_agree)
{
	char a[4096], b[4096];
	int na = -1, nb = -1;

	ASSERT_INT(rocjit_compiler_targets_get(a, sizeof a, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(a, "gfx90a");
	ASSERT_INT(rocjit_compiler_targets_get(a, 8, ROCJIT_PLATFORM_AMD), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_compiler_targets_get(a, sizeof a, 42), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_device_count_get(&na, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_INT(na, 0); /* the test machines have no GPU */
	ASSERT_INT(rocjit_device_count_get(NULL, ROCJIT_PLATFORM_AMD), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_device_target_get(a, sizeof a, ROCJIT_PLATFORM_AMD, 0), ROCJIT_ENODEV);
	ASSERT_INT(rocjit_device_target_get(NULL, 0, ROCJIT_PLATFORM_AMD, 0), ROCJIT_EINVAL);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ASSERT_INT(rocjit_compiler_targets(ROCJIT_PLATFORM_AMD, b, sizeof b), 0);
	ASSERT_INT(rocjit_compiler_targets_get(a, sizeof a, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_STR(a, b);
	ASSERT_INT(rocjit_device_count(ROCJIT_PLATFORM_AMD, &nb), 0);
	ASSERT_INT(nb, na);
	ASSERT_INT(rocjit_device_target(ROCJIT_PLATFORM_AMD, 0, b, sizeof b), ROCJIT_ENODEV);
#pragma GCC diagnostic pop
	/* The verify reasons: new names, old values, old names kept. */
	ASSERT_INT(ROCJIT_VERIFY_CHECKSUM, 1);
	ASSERT_INT(ROCJIT_VERIFY_OBJECT, 2);
	ASSERT_INT(ROCJIT_VERIFY_SIGNATURE, 3);
	ASSERT_INT(ROCJIT_BAD_CHECKSUM, ROCJIT_VERIFY_CHECKSUM);
	ASSERT_INT(ROCJIT_BAD_OBJECT, ROCJIT_VERIFY_OBJECT);
	ASSERT_INT(ROCJIT_BAD_SIGNATURE, ROCJIT_VERIFY_SIGNATURE);
	/* Both free functions free what inspect returned (ASan would say otherwise). */
	{
		rocjit_ctx *ctx = rj_test_open();
		const rocjit_code *code = rj_test_compile_variant(ctx, "gfx90a", "FREE", 1);
		rocjit_codeobj_info *info;
		ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
		rocjit_codeobj_info_free(info);
		ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		rocjit_codeobj_free(info);
#pragma GCC diagnostic pop
		rocjit_codeobj_info_free(NULL);
		rocjit_close(ctx);
	}
}

/* ---- The exported symbols: the header's API, nothing else (issue 17) ------------------ */

struct names {
	char **v;
	size_t n;
};

static void names_add(struct names *s, const char *name, size_t len)
{
	s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
	ASSERT(s->v);
	s->v[s->n] = strndup(name, len);
	ASSERT(s->v[s->n]);
	s->n++;
}

static int names_has(const struct names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return 1;
	return 0;
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* The name of every function include/rocjit.h declares with ROCJIT_API: the identifier
 * before the first '(' of each declaration that starts a line with it. */
static void header_api(struct names *out, const char *path)
{
	size_t size;
	char *h = rj_test_read_file(path, &size);

	for (char *line = h, *next; line && *line; line = next) {
		const char *paren, *end;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (strncmp(line, "ROCJIT_API ", 11) != 0)
			continue;
		paren = strchr(line, '(');
		ASSERT(paren);
		end = paren;
		while (end > line && (end[-1] == '_' || (end[-1] >= 'a' && end[-1] <= 'z') ||
				      (end[-1] >= '0' && end[-1] <= '9')))
			end--;
		ASSERT(paren > end);
		names_add(out, end, (size_t)(paren - end));
	}
	free(h);
}

static const Elf64_Shdr *section(const char *f, size_t size, size_t i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)f;
	const Elf64_Shdr *sh;

	ASSERT(i < eh->e_shnum && eh->e_shentsize == sizeof *sh);
	sh = (const Elf64_Shdr *)(const void *)(f + eh->e_shoff) + i;
	ASSERT((size_t)((const char *)(sh + 1) - f) <= size);
	ASSERT(sh->sh_offset + sh->sh_size <= size);
	return sh;
}

static const Elf64_Shdr *section_of_type(const char *f, size_t size, uint32_t type)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)f;

	for (size_t i = 0; i < eh->e_shnum; i++)
		if (section(f, size, i)->sh_type == type)
			return section(f, size, i);
	return NULL;
}

/*
 * What the shared library exports, read from its ELF file as `nm -D --defined-only`
 * would (without depending on binutils): the defined global symbols of .dynsym, apart
 * from the absolute symbols a version script adds for its nodes, and its soname and
 * version nodes.  Each exported function must carry the API's node.
 */
static void library_exports(struct names *out, const char *path, char *soname,
			    size_t soname_size, char *node, size_t node_size)
{
	size_t size;
	char *f = rj_test_read_file(path, &size);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)f;
	const Elf64_Shdr *dynsym, *dynstr, *dyn, *versym, *verdef;
	const Elf64_Sym *sym;
	const Elf64_Half *vs;
	unsigned api_ndx = 0;

	ASSERT(size >= sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64);
	dynsym = section_of_type(f, size, SHT_DYNSYM);
	versym = section_of_type(f, size, SHT_GNU_versym);
	verdef = section_of_type(f, size, SHT_GNU_verdef);
	dyn = section_of_type(f, size, SHT_DYNAMIC);
	ASSERT(dynsym && versym && verdef && dyn);
	dynstr = section(f, size, dynsym->sh_link);

	/* The soname. */
	soname[0] = 0;
	for (const Elf64_Dyn *d = (const Elf64_Dyn *)(const void *)(f + dyn->sh_offset);
	     (const char *)(d + 1) <= f + dyn->sh_offset + dyn->sh_size && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_SONAME)
			snprintf(soname, soname_size, "%s",
				 f + section(f, size, dyn->sh_link)->sh_offset + d->d_un.d_val);

	/* The version nodes this library defines: the base one (its soname) and the API's. */
	node[0] = 0;
	for (const char *p = f + verdef->sh_offset;;) {
		const Elf64_Verdef *vd = (const Elf64_Verdef *)(const void *)p;
		const Elf64_Verdaux *va = (const Elf64_Verdaux *)(const void *)(p + vd->vd_aux);
		const char *name = f + section(f, size, verdef->sh_link)->sh_offset + va->vda_name;
		if (!(vd->vd_flags & VER_FLG_BASE)) {
			ASSERT(node[0] == 0); /* one node */
			snprintf(node, node_size, "%s", name);
			api_ndx = vd->vd_ndx;
		}
		if (!vd->vd_next)
			break;
		p += vd->vd_next;
	}
	ASSERT(api_ndx != 0);

	sym = (const Elf64_Sym *)(const void *)(f + dynsym->sh_offset);
	vs = (const Elf64_Half *)(const void *)(f + versym->sh_offset);
	for (size_t i = 0; i < dynsym->sh_size / sizeof *sym; i++) {
		const char *name = f + dynstr->sh_offset + sym[i].st_name;
		int bind = ELF64_ST_BIND(sym[i].st_info);
		if (sym[i].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		if (sym[i].st_shndx == SHN_ABS && strcmp(name, node) == 0)
			continue; /* the node itself, as ld writes it */
		if ((vs[i] & 0x7fff) != api_ndx)
			rj_test_fail(__FILE__, __LINE__, "%s is exported outside the %s node", name,
				     node);
		names_add(out, name, strlen(name));
	}
	free(f);
}

/*
 * The shared library exports exactly the functions the header declares with ROCJIT_API
 * (the version script, src/rocjit.map, and -fvisibility=hidden), each under the node
 * ROCJIT_<soname version>, and its soname is the 0.x policy's (CMakeLists.txt).
 */
TEST(shared_library_exports_exactly_the_header_api)
{
	struct names api = { NULL, 0 }, exported = { NULL, 0 };
	char soname[256], node[64];
	int missing = 0, extra = 0;

	header_api(&api, ROCJIT_TEST_HEADER);
	library_exports(&exported, ROCJIT_TEST_SHARED_LIB, soname, sizeof soname, node,
			sizeof node);
	ASSERT(api.n > 50);
	for (size_t i = 0; i < api.n; i++)
		if (!names_has(&exported, api.v[i])) {
			printf("declared with ROCJIT_API, not exported: %s\n", api.v[i]);
			missing++;
		}
	for (size_t i = 0; i < exported.n; i++)
		if (!names_has(&api, exported.v[i])) {
			printf("exported, not declared with ROCJIT_API: %s\n", exported.v[i]);
			extra++;
		}
	ASSERT_INT(missing, 0);
	ASSERT_INT(extra, 0);
	ASSERT_INT(api.n, exported.n);
	ASSERT_STR(soname, ROCJIT_TEST_SONAME);
	ASSERT_STR(node, "ROCJIT_" ROCJIT_TEST_SOVERSION);
	/* The 0.x policy: each 0.y is its own ABI. */
	if (ROCJIT_VERSION_MAJOR == 0) {
		char want[64];
		snprintf(want, sizeof want, "librocjit.so.0.%d", ROCJIT_VERSION_MINOR);
		ASSERT_STR(soname, want);
	}
	names_free(&api);
	names_free(&exported);
}

/* ---- The log hook (rocjit_set_log_callback) -------------------------------------------- */

/* What a hook received, under its own lock (hooks may be called from several threads). */
struct received {
	pthread_mutex_t mu;
	int calls;
	int levels[8];
	char text[64][512];
	int bad;          /* a message with a newline or rocjit's prefix */
};

static struct received got = { PTHREAD_MUTEX_INITIALIZER, 0, { 0 }, { { 0 } }, 0 };

static void record(void *user, int level, const char *message)
{
	struct received *r = user;

	pthread_mutex_lock(&r->mu);
	if (level >= 0 && level < 8)
		r->levels[level]++;
	if (r->calls < 64)
		snprintf(r->text[r->calls], sizeof r->text[0], "%s", message);
	if (strchr(message, '\n') || strncmp(message, "rocjit: ", 8) == 0)
		r->bad++;
	r->calls++;
	pthread_mutex_unlock(&r->mu);
}

static int received_has(struct received *r, const char *needle)
{
	int found = 0;

	pthread_mutex_lock(&r->mu);
	for (int i = 0; i < r->calls && i < 64 && !found; i++)
		found = strstr(r->text[i], needle) != NULL;
	pthread_mutex_unlock(&r->mu);
	return found;
}


/*
 * Real warnings (a malformed switch in the environment, a cache folder that is a file)
 * reach the hook, one line each, without rocjit's prefix, at ROCJIT_LOG_WARN, and
 * nothing reaches stderr; with the hook taken away, stderr has them again.
 */
TEST(log_callback_gets_warnings_and_stderr_stays_silent)
{
	char path[4200], file[4200];
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	char *err;
	int saved;

	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	snprintf(file, sizeof file, "%s/not-a-folder", rj_test_dir);
	rj_test_write_file(file, "x", 1);
	setenv("ROCJIT_TEST_SWITCH", "maybe", 1);
	setenv("ROCJIT_TEST_OTHER_SWITCH", "perhaps", 1);

	rocjit_set_log_callback(record, &got);
	saved = rj_test_stderr_capture(path);
	ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 0);
	o.cache_dir = file;
	ASSERT_INT(rocjit_open(&ctx, &o), 0); /* memory only, with a warning */
	err = rj_test_stderr_restore(saved, path);
	ASSERT_STR(err, "");
	free(err);
	rocjit_close(ctx);

	ASSERT_INT(got.calls, 2);
	ASSERT_INT(got.levels[ROCJIT_LOG_WARN], 2);
	ASSERT_INT(got.bad, 0);
	ASSERT_CONTAINS(got.text[0], "ROCJIT_TEST_SWITCH=maybe is not a switch");
	ASSERT_CONTAINS(got.text[1], "kernels are compiled and kept in memory only");
	ASSERT_CONTAINS(got.text[1], "not-a-folder");

	/* NULL gives the diagnostics back to stderr, as they were. */
	rocjit_set_log_callback(NULL, NULL);
	saved = rj_test_stderr_capture(path);
	ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_OTHER_SWITCH"), 0);
	err = rj_test_stderr_restore(saved, path);
	ASSERT_CONTAINS(err, "rocjit: warning: ROCJIT_TEST_OTHER_SWITCH=perhaps is not a switch");
	ASSERT(err[strlen(err) - 1] == '\n');
	free(err);
	ASSERT_INT(got.calls, 2);
}

/* $ROCJIT_LOG still decides what is made at all: off gives the hook nothing. */
TEST(log_callback_respects_rocjit_log_off)
{
	setenv("ROCJIT_LOG", "off", 1);
	setenv("ROCJIT_TEST_SWITCH", "maybe", 1);
	rocjit_set_log_callback(record, &got);
	ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 0);
	ASSERT_INT(got.calls, 0);
	rocjit_set_log_callback(NULL, NULL);
}

/*
 * At ROCJIT_LOG=info a compile's diagnostics come as several lines (the compiler's log):
 * the hook gets them one call per line, ROCJIT_LOG_INFO, none holding a newline; stderr
 * stays silent though the compile ran in a worker process, whose own output is relayed.
 */
TEST(log_callback_gets_info_lines_one_at_a_time)
{
	static const char *const opts[] = { "-Wunused-variable" };
	char path[4200];
	rocjit_ctx *ctx;
	const rocjit_code *code;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	char *err;
	int saved;

	setenv("ROCJIT_LOG", "info", 1);
	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	rocjit_set_log_callback(record, &got);
	saved = rj_test_stderr_capture(path);
	ctx = rj_test_open();
	p.source = "extern \"C\" __global__ void k(int *x) { int unused; x[0] = 1; }\n";
	p.name = "info.hip";
	p.options = opts;
	p.num_options = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	rocjit_close(ctx);
	err = rj_test_stderr_restore(saved, path);
	ASSERT_STR(err, "");
	free(err);
	rocjit_set_log_callback(NULL, NULL);
	ASSERT_INT(got.bad, 0);
	ASSERT(got.levels[ROCJIT_LOG_INFO] >= 3);
	ASSERT(received_has(&got, "compiler said for info.hip:"));
	ASSERT(received_has(&got, "info.hip:1:"));       /* a line of the log, on its own */
	ASSERT(received_has(&got, "compiled key="));
}

/* Many threads making diagnostics at once: every one arrives, whole, once. */
#define LOG_THREADS 4
#define LOG_OPENS 25

static atomic_int per_thread[LOG_THREADS];
static atomic_int hook_inside, hook_most, hook_stray;

static void count_bundle_warnings(void *user, int level, const char *message)
{
	int inside = atomic_fetch_add(&hook_inside, 1) + 1, most = atomic_load(&hook_most);
	const char *at = strstr(message, "bundle-");

	(void)user;
	while (inside > most && !atomic_compare_exchange_weak(&hook_most, &most, inside))
		;
	if (level == ROCJIT_LOG_WARN && at && at[7] >= '0' && at[7] < '0' + LOG_THREADS &&
	    strstr(message, "is skipped") && !strchr(message, '\n'))
		atomic_fetch_add(&per_thread[at[7] - '0'], 1);
	else
		atomic_fetch_add(&hook_stray, 1);
	usleep(200); /* long enough for other threads' calls to overlap this one */
	atomic_fetch_sub(&hook_inside, 1);
}

static void *open_with_bad_bundle(void *arg)
{
	int id = (int)(intptr_t)arg;
	char bundle[4200];
	rocjit_options o = ROCJIT_OPTIONS_INIT;

	snprintf(bundle, sizeof bundle, "%s/bundle-%d.rocjit", rj_test_dir, id);
	o.flags = ROCJIT_OPEN_NO_CACHE;
	o.bundles = bundle;
	for (int i = 0; i < LOG_OPENS; i++) {
		rocjit_ctx *ctx;
		/* Not a database: skipped with a warning at each open (a context opens its
		   bundles once). */
		ASSERT_INT(rocjit_open(&ctx, &o), 0);
		rocjit_close(ctx);
	}
	return NULL;
}

TEST(log_callback_is_called_from_many_threads_at_once)
{
	pthread_t t[LOG_THREADS];
	char path[4200];
	char *err;
	int saved;

	for (int i = 0; i < LOG_THREADS; i++) {
		char bundle[4200];
		snprintf(bundle, sizeof bundle, "%s/bundle-%d.rocjit", rj_test_dir, i);
		rj_test_write_file(bundle, "this is not a bundle, nor a database at all\n", 44);
	}
	snprintf(path, sizeof path, "%s/stderr.txt", rj_test_dir);
	rocjit_set_log_callback(count_bundle_warnings, NULL);
	saved = rj_test_stderr_capture(path);
	for (int i = 0; i < LOG_THREADS; i++)
		ASSERT(pthread_create(&t[i], NULL, open_with_bad_bundle, (void *)(intptr_t)i) == 0);
	for (int i = 0; i < LOG_THREADS; i++)
		pthread_join(t[i], NULL);
	err = rj_test_stderr_restore(saved, path);
	rocjit_set_log_callback(NULL, NULL);
	ASSERT_STR(err, "");
	free(err);
	for (int i = 0; i < LOG_THREADS; i++)
		ASSERT_INT(atomic_load(&per_thread[i]), LOG_OPENS);
	ASSERT_INT(atomic_load(&hook_stray), 0);
	/* Calls overlap: the hook is not serialized (how many at most depends on timing). */
	printf("at most %d calls at once\n", atomic_load(&hook_most));
}

/*
 * Replacing the hook while other threads log: once rocjit_set_log_callback returns, no
 * thread is still inside the function it replaced (a binding may then free its state).
 */
static atomic_int inside_a, inside_b, calls_a, calls_b, stop_logging;

static void hook_a(void *user, int level, const char *message)
{
	(void)user, (void)level, (void)message;
	atomic_fetch_add(&inside_a, 1);
	atomic_fetch_add(&calls_a, 1);
	usleep(100);
	atomic_fetch_sub(&inside_a, 1);
}

static void hook_b(void *user, int level, const char *message)
{
	(void)user, (void)level, (void)message;
	atomic_fetch_add(&inside_b, 1);
	atomic_fetch_add(&calls_b, 1);
	usleep(100);
	atomic_fetch_sub(&inside_b, 1);
}

static void *keep_logging(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_logging))
		rj_log(RJ_LOG_WARN, "a warning from a thread that keeps logging");
	return NULL;
}

TEST(replaced_log_callback_is_never_running_after_the_call_returns)
{
	pthread_t t[3];

	rocjit_set_log_callback(hook_a, NULL);
	for (int i = 0; i < 3; i++)
		ASSERT(pthread_create(&t[i], NULL, keep_logging, NULL) == 0);
	for (int round = 0; round < 200; round++) {
		rocjit_set_log_callback(hook_b, NULL);
		ASSERT_INT(atomic_load(&inside_a), 0);
		usleep(200);
		rocjit_set_log_callback(hook_a, NULL);
		ASSERT_INT(atomic_load(&inside_b), 0);
		usleep(200);
	}
	atomic_store(&stop_logging, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	rocjit_set_log_callback(NULL, NULL);
	ASSERT(atomic_load(&calls_a) > 0 && atomic_load(&calls_b) > 0);
}
