/*
 * test_env.c - the values people write: every switch parsed one way, every size refused
 * the same way, and the environment variables that choose libraries and folders.
 */
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/cache.h"
#include "harness.h"
#include "store/keylock.h"

static rocjit_stats stats_of(rocjit_ctx *ctx)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	return st;
}

TEST(switches_mean_the_same_in_every_spelling)
{
	static const char *const on[] = { "1", "true", "TRUE", "yes", "Yes", "on", "ON" };
	static const char *const off[] = { "", "0", "false", "False", "no", "NO", "off" };
	static const char *const junk[] = { "2", "maybe", " 1", "1 ", "enable", "-1" };

	unsetenv("ROCJIT_TEST_SWITCH");
	ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 0);
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
		setenv("ROCJIT_TEST_SWITCH", on[i], 1);
		ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 1);
	}
	for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
		setenv("ROCJIT_TEST_SWITCH", off[i], 1);
		ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 0);
	}
	/* Not a switch: off, the safe reading of every switch rocjit has. */
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		setenv("ROCJIT_TEST_SWITCH", junk[i], 1);
		ASSERT_INT(rocjit_env_flag("ROCJIT_TEST_SWITCH"), 0);
	}
	ASSERT_INT(rocjit_env_flag(NULL), 0);
}

/* "" and "0" and "false" turn a switch off: the cache stays on, compiling stays allowed. */
TEST(empty_zero_and_false_leave_the_cache_and_compiler_on)
{
	static const char *const off[] = { "", "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
		rocjit_ctx *ctx;
		setenv("ROCJIT_DISABLE_CACHE", off[i], 1);
		setenv("ROCJIT_NO_COMPILE", off[i], 1);
		ctx = rj_test_open();
		ASSERT_INT(stats_of(ctx).cache_open, 1);
		rj_test_compile_variant(ctx, "gfx90a", "SWITCH", (int)i);
		rocjit_close(ctx);
	}
	setenv("ROCJIT_DISABLE_CACHE", "yes", 1);
	{
		rocjit_ctx *ctx = rj_test_open();
		ASSERT_INT(stats_of(ctx).cache_open, 0);
		rocjit_close(ctx);
	}
}

TEST(sizes_take_units_and_refuse_everything_else)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "64k", 65536 }, { "64KB", 65536 },
		{ "500MiB", 500ull << 20 }, { "2G", 2ull << 30 }, { "1.5g", 3ull << 29 },
		{ "1T", 1ull << 40 }, { "0.5K", 512 }, { ".5K", 512 }, { "7.", 7 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "nan", "NaN", "inf", "infinity", "0x10", "0X10", "1e9", "1E3", "-1", "+1",
		" 5", "5 ", "G", "K5", "1.5.5", "5Q", "5GG", "5GiBs", "18446744073709551616",
		"16384P", "99999999999T", "1,000", "\t1",
	};
	uint64_t n;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		n = 12345;
		if (rocjit_parse_size(&n, good[i].text) != 0 || n != good[i].bytes)
			rj_test_fail(__FILE__, __LINE__, "\"%s\" -> %llu, want %llu (%s)",
				     good[i].text, (unsigned long long)n,
				     (unsigned long long)good[i].bytes, rocjit_last_error());
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (rocjit_parse_size(&n, bad[i]) != ROCJIT_EINVAL)
			rj_test_fail(__FILE__, __LINE__, "\"%s\" was taken as a size (%llu)",
				     bad[i], (unsigned long long)n);
		ASSERT_CONTAINS(rocjit_last_error(), "size");
	}
	ASSERT_INT(rocjit_parse_size(&n, NULL), ROCJIT_EINVAL);
}

/* nan used to become a NaN-to-integer cast; hex and infinity were taken as sizes. */
TEST(cache_maxsize_that_is_no_size_keeps_the_default)
{
	static const char *const bad[] = { "nan", "inf", "0x10", "-5G", "1e3", "10 G" };

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rocjit_ctx *ctx;
		setenv("ROCJIT_CACHE_MAXSIZE", bad[i], 1);
		ctx = rj_test_open();
		ASSERT_INT(stats_of(ctx).max_bytes, 4ull << 30);
		rocjit_close(ctx);
	}
	setenv("ROCJIT_CACHE_MAXSIZE", "0", 1);
	{
		rocjit_ctx *ctx = rj_test_open();
		ASSERT_INT(stats_of(ctx).max_bytes, 0);
		rocjit_close(ctx);
	}
	setenv("ROCJIT_CACHE_MAXSIZE", "1.5M", 1);
	{
		rocjit_ctx *ctx = rj_test_open();
		ASSERT_INT(stats_of(ctx).max_bytes, 3ull << 19);
		rocjit_close(ctx);
	}
}

TEST(lock_timeout_that_is_no_number_keeps_the_default)
{
	static const char *const bad[] = { "abc", "10s", "-5", "1e3", "0x10", "99999999999999" };

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("ROCJIT_LOCK_TIMEOUT_MS", bad[i], 1);
		ASSERT_INT(rj_keylock_timeout_ms(), 300000);
	}
	setenv("ROCJIT_LOCK_TIMEOUT_MS", "250", 1);
	ASSERT_INT(rj_keylock_timeout_ms(), 250);
	setenv("ROCJIT_LOCK_TIMEOUT_MS", "0", 1);
	ASSERT_INT(rj_keylock_timeout_ms(), 0);
}

TEST(relative_home_is_named_not_called_unset)
{
	char dir[4096];

	setenv("HOME", "relative/home", 1);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, NULL), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "HOME=relative/home is not an absolute path");
	unsetenv("HOME");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, NULL), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "HOME is not set");
	setenv("HOME", "/somewhere", 1);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, NULL), 0);
	ASSERT_STR(dir, "/somewhere/.cache/rocjit");
}

/* The file the dynamic loader found for name (a system library), or skip. */
static const char *library_file(const char *name, const char *symbol)
{
	static char path[4096];
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL), *sym;
	Dl_info info;

	if (!h)
		rj_test_skip("%s is not installed", name);
	sym = dlsym(h, symbol);
	ASSERT(sym && dladdr(sym, &info) && info.dli_fname);
	snprintf(path, sizeof path, "%s", info.dli_fname);
	return path;
}

/* ROCm >= 5.3 keeps hipRTC in libhiprtc.so beside libamdhip64.so: naming the runtime
 * must not lose its compiler (it used to skip libhiprtc altogether). */
TEST(hip_library_takes_hiprtc_from_its_own_folder)
{
	const char *hip = library_file("libamdhip64.so.5", "hipRuntimeGetVersion");
	char link_hip[4200], link_rtc[4200];
	const char *id;

	snprintf(link_hip, sizeof link_hip, "%s/libamdhip64.so.5", rj_test_dir);
	snprintf(link_rtc, sizeof link_rtc, "%s/libhiprtc.so.5", rj_test_dir);
	ASSERT_INT(symlink(hip, link_hip), 0);
	ASSERT_INT(symlink(ROCJIT_TEST_FAKE_HIPRTC, link_rtc), 0);
	setenv("ROCJIT_HIP_LIBRARY", link_hip, 1);
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(id, "hiprtc 77.7");
}

/* HIP 5.2 has hipRTC inside libamdhip64: named alone, it still compiles. */
TEST(hip_library_before_rocm_5_3_compiles_with_its_builtin_hiprtc)
{
	const char *hip = library_file("libamdhip64.so.5", "hiprtcCompileProgram");
	rocjit_ctx *ctx;
	const char *id;

	setenv("ROCJIT_HIP_LIBRARY", hip, 1);
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT(strstr(id, "hiprtc 77.7") == NULL);
	ctx = rj_test_open();
	ASSERT(rj_test_compile_variant(ctx, "gfx90a", "NAMED_HIP", 1)->size > 0);
	rocjit_close(ctx);
}

TEST(hip_library_that_does_not_exist_means_no_compiler)
{
	const char *id;

	setenv("ROCJIT_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), ROCJIT_ENOCOMPILER);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_HIP_LIBRARY");
}
