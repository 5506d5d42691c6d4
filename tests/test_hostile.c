/*
 * test_hostile.c - caches that cannot work: a full disk, a read-only file system, no HOME;
 * and absurd input.  The kernel is always still served (from memory), with a warning.
 *
 * The file-system tests mount a small tmpfs; where mounting is not allowed (not root),
 * they are reported as skipped (exit 77).
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char mnt[4300];

static int mount_tmpfs(const char *size)
{
	char opts[64];

	snprintf(mnt, sizeof mnt, "%s/mnt", rj_test_dir);
	mkdir(mnt, 0700);
	snprintf(opts, sizeof opts, "size=%s,mode=0700", size);
	if (mount("tmpfs", mnt, "tmpfs", 0, opts) != 0) {
		rj_test_skip("cannot mount a tmpfs here (needs root)");
	}
	return 1;
}

static void unmount(void)
{
	umount2(mnt, MNT_DETACH);
}

static rocjit_ctx *open_at(const char *dir)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	o.cache_dir = dir;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

static const rocjit_code *compile_variant(rocjit_ctx *ctx, int i)
{
	return rj_test_compile_variant(ctx, "gfx90a", "RJ_HOSTILE", i);
}

TEST(full_disk_still_serves_every_kernel)
{
	char dir[4400];
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx;

	if (!mount_tmpfs("160k"))
		return;
	snprintf(dir, sizeof dir, "%s/cache", mnt);
	ctx = open_at(dir);
	/* Far more code than fits: writes start failing with "disk full". */
	for (int i = 0; i < 40; i++)
		ASSERT(compile_variant(ctx, i)->size > 1000);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	printf("40 kernels served, %llu compiles, %llu cache errors, %llu entries stored\n",
	       (unsigned long long)st.compiles, (unsigned long long)st.cache_errors,
	       (unsigned long long)st.entries);
	ASSERT_INT(st.compiles, 40);
	ASSERT(st.cache_errors > 0);
	rocjit_close(ctx);
	/* What was stored is whole. */
	ctx = open_at(dir);
	{
		uint64_t checked, bad;
		ASSERT_INT(rocjit_cache_verify(ctx, 0, NULL, NULL, &checked, &bad), 0);
		ASSERT_INT(bad, 0);
	}
	rocjit_close(ctx);
	unmount();
}

TEST(read_only_file_system_still_serves_kernels)
{
	char dir[4400];
	rocjit_ctx *ctx;

	if (!mount_tmpfs("4m"))
		return;
	snprintf(dir, sizeof dir, "%s/cache", mnt);
	ctx = open_at(dir);
	compile_variant(ctx, 0);
	rocjit_close(ctx);
	ASSERT_INT(mount("tmpfs", mnt, "tmpfs", MS_REMOUNT | MS_RDONLY, NULL), 0);
	ctx = open_at(dir);
	compile_variant(ctx, 0);
	compile_variant(ctx, 1); /* a miss that cannot be stored */
	rocjit_close(ctx);
	unmount();
}

TEST(no_home_and_no_cache_dir_runs_from_memory)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx;

	unsetenv("HOME");
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.cache_open, 0);
	compile_variant(ctx, 0);
	rocjit_close(ctx);
}

TEST(a_100_mb_source_is_hashed_not_choked_on)
{
	size_t n = 100u << 20;
	char *big = malloc(n + 1);
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;
	rocjit_ctx *ctx;

	ASSERT(big != NULL);
	memset(big, ' ', n);
	memcpy(big, "// huge\n", 8);
	big[n] = 0;
	setenv("ROCJIT_NO_COMPILE", "1", 1);
	ctx = rj_test_open();
	p.source = big;
	p.length = n;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_ENOTCACHED);
	big[n / 2] = 0; /* a NUL inside: refused when compiling, never truncated silently */
	unsetenv("ROCJIT_NO_COMPILE");
	rocjit_close(ctx);
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "NUL");
	rocjit_close(ctx);
	free(big);
}
