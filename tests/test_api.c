/*
 * test_api.c - the public API's contracts: misuse gives ROCJIT_EINVAL and a message, error
 * names, per-thread last error, versions.
 */
#include <elf.h>
#include <pthread.h>

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
		ASSERT_INT(rocjit_kernel_launch(NULL, one, one, 0, NULL, NULL), ROCJIT_EINVAL);
	}
	ASSERT(rocjit_kernel_name(NULL) == NULL);
	rocjit_close(ctx);
	rocjit_close(NULL);
	rocjit_codeobj_free(NULL);
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
