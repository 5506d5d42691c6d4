/*
 * test_key.c - the cache key: every field changes it, nothing else does; option and
 * target normalization.
 */
#include <unistd.h>

#include "harness.h"
#include "key/key.h"
#include "key/options.h"
#include "key/target.h"

static const char *const base_opts[] = { "-DN=4", "-O3" };
static const rocjit_header base_headers[] = { { "a.h", "#define A 1\n", 0 },
					      { "b.h", "#define B 2\n", 0 } };

struct fields {
	int platform;
	const char *target, *compiler, *source;
	const char *const *opts;
	size_t nopts;
	const rocjit_header *headers;
	size_t nheaders;
	int language;   /* 0 (HIP, the default) unless a test sets it */
	const char *search_dirs; /* text whose digest stands for the -I folders', or NULL */
};

static struct fields base(void)
{
	struct fields f = { ROCJIT_PLATFORM_AMD, "gfx90a:sramecc+:xnack-",
			    "hiprtc 9.0; hip 50221153; comgr 2.4", "__global__ void k() {}",
			    base_opts, 2, base_headers, 2, 0, NULL };
	return f;
}

static rj_key key_of(const struct fields *f)
{
	struct rj_opts o;
	struct rj_key_input in;
	rj_key k;

	ASSERT_INT(rj_opts_normalize(&o, f->opts, f->nopts), 0);
	memset(&in, 0, sizeof in);
	in.platform = f->platform;
	in.target = f->target;
	in.compiler = f->compiler;
	in.options = &o;
	in.headers = f->headers;
	in.num_headers = f->nheaders;
	in.source = rj_digest_of(f->source, strlen(f->source));
	in.language = f->language;
	if (f->search_dirs) {
		in.has_search_dirs = 1;
		in.search_dirs = rj_digest_of(f->search_dirs, strlen(f->search_dirs));
	}
	k = rj_key_compute(&in);
	rj_opts_release(&o);
	return k;
}

static int same(rj_key a, rj_key b)
{
	return memcmp(a.b, b.b, 16) == 0;
}

TEST(key_is_stable_for_equal_fields)
{
	struct fields f = base();
	ASSERT(same(key_of(&f), key_of(&f)));
}

TEST(key_changes_with_every_field)
{
	struct fields f;
	rj_key k0;
	static const char *const other_opts[] = { "-DN=5", "-O3" };
	static const char *const other_level[] = { "-DN=4", "-O2" };
	static const rocjit_header other_content[] = { { "a.h", "#define A 1\n", 0 },
						       { "b.h", "#define B 3\n", 0 } };
	static const rocjit_header other_name[] = { { "a.h", "#define A 1\n", 0 },
						    { "c.h", "#define B 2\n", 0 } };

	f = base();
	k0 = key_of(&f);
	f = base(); f.platform = 2; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.target = "gfx90a:sramecc-:xnack-"; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.target = "gfx90a"; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.target = "gfx1030"; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.compiler = "hiprtc 9.0; hip 50221154; comgr 2.4"; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.compiler = "hiprtc 9.0; hip 50221153; comgr 2.5"; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.opts = other_opts; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.opts = other_level; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.nopts = 0; /* -O3 is the default: only -DN=4 is gone */
	ASSERT(!same(k0, key_of(&f)));
	f = base(); f.headers = other_content; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.headers = other_name; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.nheaders = 1; ASSERT(!same(k0, key_of(&f)));
	f = base(); f.source = "__global__ void k() { }"; ASSERT(!same(k0, key_of(&f)));
}

TEST(key_fields_are_length_prefixed)
{
	/* Moving bytes from one field to the next must change the key. */
	struct fields a = base(), b = base();
	a.target = "gfx90a";
	a.compiler = "xhiprtc";
	b.target = "gfx90ax";
	b.compiler = "hiprtc";
	ASSERT(!same(key_of(&a), key_of(&b)));
}

TEST(key_ignores_working_directory_and_program_name)
{
	struct fields f = base();
	rj_key k0 = key_of(&f);
	ASSERT_INT(chdir(rj_test_dir), 0);
	ASSERT(same(k0, key_of(&f)));
	/* Pinned value: the key depends on nothing of this process.  If the key format
	   changes on purpose, bump RJ_KEY_FORMAT and update this value (4: issue 31). */
	{
		char hex[33];
		rj_key_hex(&k0, hex);
		ASSERT_STR(hex, "ad96cdc64b8eb22506512066ec1c338f");
	}
}

TEST(key_changes_with_the_served_headers)
{
	/* The digest of the headers rocjit serves (compile/devlib.c) is a field of both keys:
	   another device library must miss, with and without a compiler identity. */
	struct rj_opts o;
	struct rj_key_input in;
	rj_key a, b, pa, pb;

	ASSERT_INT(rj_opts_normalize(&o, base_opts, 2), 0);
	memset(&in, 0, sizeof in);
	in.platform = ROCJIT_PLATFORM_AMD;
	in.target = "gfx90a";
	in.compiler = "hiprtc 9.0";
	in.options = &o;
	in.source = rj_digest_of("k", 1);
	in.served = rj_digest_of("devlib one", 10);
	a = rj_key_compute(&in);
	pa = rj_key_compute_portable(&in);
	in.served = rj_digest_of("devlib two", 10);
	b = rj_key_compute(&in);
	pb = rj_key_compute_portable(&in);
	ASSERT(!same(a, b));
	ASSERT(!same(pa, pb));
	rj_opts_release(&o);
}

TEST(key_default_opt_level_equals_explicit_o3)
{
	static const char *const implicit[] = { "-DN=4" };
	static const char *const explicit3[] = { "-O3", "-DN=4" };
	static const char *const spaced[] = { "-D", "N=4" };
	static const char *const spaced2[] = { " -D N=4 " };
	struct fields f = base(), g = base();

	f.opts = implicit; f.nopts = 1;
	g.opts = explicit3; g.nopts = 2;
	ASSERT(same(key_of(&f), key_of(&g)));
	g.opts = spaced; g.nopts = 2;
	ASSERT(same(key_of(&f), key_of(&g)));
	g.opts = spaced2; g.nopts = 1;
	ASSERT(same(key_of(&f), key_of(&g)));
}

static char *joined(const char *const *opts, size_t n, int *rc)
{
	struct rj_opts o;
	char *s;
	*rc = rj_opts_normalize(&o, opts, n);
	if (*rc)
		return NULL;
	s = rj_opts_join(&o);
	rj_opts_release(&o);
	return s;
}

TEST(options_normalize_forms)
{
	static const char *const a[] = { "-O1", "-D", "X=1", "", "  ", "-ffast-math", "-O2",
					 "-U Y" };
	int rc;
	char *s = joined(a, 8, &rc);
	ASSERT_INT(rc, 0);
	ASSERT_STR(s, "-DX=1 -ffast-math -UY -O2");
	free(s);
	s = joined(NULL, 0, &rc);
	ASSERT_STR(s, "-O3");
	free(s);
}

TEST(options_refuse_targets_and_bad_levels)
{
	static const char *const bad[][1] = { { "--offload-arch=gfx90a" }, { "-mcpu=gfx90a" },
					      { "--gpu-architecture=sm_90" }, { "-arch=sm_90" },
					      { "-O9" }, { "-D" } };
	int rc;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT(joined(bad[i], 1, &rc) == NULL);
		ASSERT_INT(rc, ROCJIT_EINVAL);
		ASSERT(strlen(rocjit_last_error()) > 0);
	}
	{
		const char *nul[] = { NULL };
		ASSERT(joined(nul, 1, &rc) == NULL);
		ASSERT_INT(rc, ROCJIT_EINVAL);
		ASSERT(joined(NULL, 3, &rc) == NULL);
		ASSERT_INT(rc, ROCJIT_EINVAL);
	}
}

TEST(options_spill_to_heap_and_cap_total)
{
	static char big[3000];
	const char *many[200];
	struct rj_opts o;
	memset(big, 'x', sizeof big - 1);
	big[0] = '-';
	for (int i = 0; i < 200; i++)
		many[i] = big;
	ASSERT_INT(rj_opts_normalize(&o, many, 20), 0); /* 60 KB: heap */
	ASSERT_INT(o.count, 21);
	rj_opts_release(&o);
	ASSERT_INT(rj_opts_normalize(&o, many, 200), ROCJIT_EINVAL); /* 600 KB: too much */
}

TEST(target_normalizes_feature_order_and_case)
{
	char out[RJ_TARGET_MAX];
	ASSERT_INT(rj_target_normalize(out, "gfx90a:xnack-:sramecc+"), 0);
	ASSERT_STR(out, "gfx90a:sramecc+:xnack-");
	ASSERT_INT(rj_target_normalize(out, "GFX1030"), 0);
	ASSERT_STR(out, "gfx1030");
	ASSERT_INT(rj_target_normalize(out, "sm_90"), 0);
	ASSERT_STR(out, "sm_90");
	ASSERT_INT(rocjit_target_normalize(out, sizeof out, "gfx908:xnack+"), 0);
	ASSERT_STR(out, "gfx908:xnack+");
	ASSERT_INT(rocjit_target_normalize(out, 4, "gfx908:xnack+"), ROCJIT_EINVAL);
}

TEST(target_rejects_malformed_ids)
{
	static const char *const bad[] = { "", ":xnack-", "gfx90a:", "gfx90a:xnack",
					   "gfx90a:xnack-:xnack+", "gfx90a xnack-",
					   "amdgcn-amd-amdhsa--gfx90a", "gfx90a::xnack-",
					   "gfx90a:xnack-junk" };
	char out[RJ_TARGET_MAX];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_INT(rj_target_normalize(out, bad[i]), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "target");
	}
	ASSERT_INT(rj_target_normalize(out, NULL), ROCJIT_EINVAL);
	{
		char longid[200];
		memset(longid, 'a', sizeof longid - 1);
		longid[sizeof longid - 1] = 0;
		ASSERT_INT(rj_target_normalize(out, longid), ROCJIT_EINVAL);
	}
}

/* The compatible ids of target, joined by spaces (the list rj_target_compatible gives). */
static const char *compatible(const char *target)
{
	static char joined[RJ_TARGET_COMPAT_MAX * RJ_TARGET_MAX];
	char ids[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX], norm[RJ_TARGET_MAX];
	size_t n;

	if (rj_target_normalize(norm, target) != 0)
		return "(invalid)";
	n = rj_target_compatible(ids, norm);
	joined[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, ids[i]);
	}
	return joined;
}

/* Whether an entry made for entry serves a device reporting device (the rule's list holds it). */
static int serves(const char *entry, const char *device)
{
	char ids[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX], norm[RJ_TARGET_MAX], want[RJ_TARGET_MAX];
	size_t n;

	if (rj_target_normalize(norm, device) != 0 || rj_target_normalize(want, entry) != 0)
		return -1;
	n = rj_target_compatible(ids, norm);
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i], want) == 0)
			return 1;
	return 0;
}

TEST(target_compatible_ids_are_the_less_specific_ones_most_specific_first)
{
	/* A device's full id: itself, each single feature, then the processor alone. */
	ASSERT_STR(compatible("gfx90a:sramecc+:xnack-"),
		   "gfx90a:sramecc+:xnack- gfx90a:xnack- gfx90a:sramecc+ gfx90a");
	ASSERT_STR(compatible("gfx942:xnack+:sramecc-"),
		   "gfx942:sramecc-:xnack+ gfx942:xnack+ gfx942:sramecc- gfx942");
	ASSERT_STR(compatible("gfx908:xnack+"), "gfx908:xnack+ gfx908");
	ASSERT_STR(compatible("gfx1030:xnack-"), "gfx1030:xnack- gfx1030");
	/* No features: the id alone (an entry for a feature never serves it). */
	ASSERT_STR(compatible("gfx1100"), "gfx1100");
	ASSERT_STR(compatible("gfx90a"), "gfx90a");
	/* NVIDIA: the exact id only. */
	ASSERT_STR(compatible("sm_90"), "sm_90");
	ASSERT_STR(compatible("sm_121"), "sm_121");
	/* Three features: all eight, larger subsets first. */
	ASSERT_STR(compatible("gfx90a:a+:b-:c+"),
		   "gfx90a:a+:b-:c+ gfx90a:b-:c+ gfx90a:a+:c+ gfx90a:a+:b- gfx90a:c+ gfx90a:b- "
		   "gfx90a:a+ gfx90a");
	/* More than we enumerate: the exact id only, never a wrong one. */
	ASSERT_STR(compatible("gfx90a:a+:b-:c+:d-"), "gfx90a:a+:b-:c+:d-");
}

TEST(target_entry_that_specifies_a_feature_never_serves_another_setting)
{
	/* The positive cases the issue names. */
	ASSERT_INT(serves("gfx90a", "gfx90a:sramecc+:xnack-"), 1);
	ASSERT_INT(serves("gfx90a:xnack-", "gfx90a:sramecc+:xnack-"), 1);
	ASSERT_INT(serves("gfx90a:sramecc+", "gfx90a:sramecc+:xnack-"), 1);
	ASSERT_INT(serves("gfx942", "gfx942:sramecc-:xnack+"), 1);
	ASSERT_INT(serves("gfx908", "gfx908:xnack+"), 1);
	/* Never the reverse: a specified feature serves only the same setting. */
	ASSERT_INT(serves("gfx90a:xnack+", "gfx90a:xnack-"), 0);
	ASSERT_INT(serves("gfx90a:xnack+", "gfx90a"), 0);
	ASSERT_INT(serves("gfx90a:xnack+", "gfx90a:sramecc+:xnack-"), 0);
	ASSERT_INT(serves("gfx90a:sramecc-", "gfx90a:sramecc+:xnack-"), 0);
	ASSERT_INT(serves("gfx90a:sramecc+:xnack-", "gfx90a:xnack-"), 0);
	ASSERT_INT(serves("gfx942:sramecc+", "gfx942:sramecc-:xnack+"), 0);
	ASSERT_INT(serves("gfx908:xnack-", "gfx908:xnack+"), 0);
	ASSERT_INT(serves("gfx1100:xnack-", "gfx1100"), 0);
	/* Another processor never, whatever its features. */
	ASSERT_INT(serves("gfx90a", "gfx908:xnack+"), 0);
	ASSERT_INT(serves("gfx908", "gfx90a"), 0);
	ASSERT_INT(serves("sm_80", "sm_90"), 0);
	ASSERT_INT(serves("sm_90", "sm_90"), 1);
}

TEST(key_streaming_path_covers_every_byte)
{
	/* Past 1 KiB of key bytes the key is hashed in streaming mode: the last byte of a
	   long option must still count, and the source digest after it too. */
	static char a[3000], b[3000];
	const char *oa[1] = { a }, *ob[1] = { b };
	struct fields f = base(), g = base();

	memset(a, 'x', sizeof a - 1);
	memcpy(a, "-DLONG=", 7);
	memcpy(b, a, sizeof a);
	b[sizeof b - 2] = 'y';
	f.opts = oa;
	f.nopts = 1;
	g.opts = ob;
	g.nopts = 1;
	ASSERT(!same(key_of(&f), key_of(&g)));
	g.opts = oa;
	g.source = "__global__ void other() {}";
	ASSERT(!same(key_of(&f), key_of(&g)));
	g.source = f.source;
	ASSERT(same(key_of(&f), key_of(&g)));
}

TEST(portable_key_leaves_out_the_compiler_and_nothing_else)
{
	struct fields f = base(), g = base();
	struct rj_opts o;
	struct rj_key_input in;
	rj_key k1, k2, full;

	g.compiler = "nvrtc 99.9";
	ASSERT_INT(rj_opts_normalize(&o, f.opts, f.nopts), 0);
	memset(&in, 0, sizeof in);
	in.platform = f.platform;
	in.target = f.target;
	in.compiler = f.compiler;
	in.options = &o;
	in.headers = f.headers;
	in.num_headers = f.nheaders;
	in.source = rj_digest_of(f.source, strlen(f.source));
	k1 = rj_key_compute_portable(&in);
	full = rj_key_compute(&in);
	in.compiler = g.compiler;
	k2 = rj_key_compute_portable(&in);
	ASSERT(same(k1, k2));      /* the compiler does not count */
	ASSERT(!same(k1, full));   /* and it is not the full key */
	in.target = "gfx1030";
	ASSERT(!same(k1, rj_key_compute_portable(&in))); /* every other field does */
	rj_opts_release(&o);
}

/* The rules the CLI takes from the library (rocjit.h) instead of keeping copies. */
TEST(target_platform_is_decided_by_the_id_alone)
{
	ASSERT_INT(rocjit_target_platform("gfx90a:sramecc+:xnack-"), ROCJIT_PLATFORM_AMD);
	ASSERT_INT(rocjit_target_platform("gfx1100"), ROCJIT_PLATFORM_AMD);
	ASSERT_INT(rocjit_target_platform("sm_90"), ROCJIT_PLATFORM_NVIDIA);
	ASSERT_INT(rocjit_target_platform("sm_100a"), ROCJIT_PLATFORM_NVIDIA);
	ASSERT_INT(rocjit_target_platform("compute_90"), 0);
	ASSERT_INT(rocjit_target_platform("GFX90A"), 0); /* normalize first */
	ASSERT_INT(rocjit_target_platform(""), 0);
	ASSERT_INT(rocjit_target_platform(NULL), 0);
	ASSERT_STR(rocjit_platform_name(rocjit_target_platform("sm_80")), "nvidia");
	ASSERT_STR(rocjit_platform_name(rocjit_target_platform("gfx906")), "amd");
}

TEST(header_names_are_the_ones_every_kernel_key_includes)
{
	const char *yes[] = { "a.h", "ops/rj_ops.h", "x.hpp", "t.cuh", "table.inc", "a.b.h" };
	const char *no[] = { "a.hip", "a.cu", "a.c", ".h", "h", "a.hh", "a.h.bak", "", NULL };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		ASSERT_INT(rocjit_is_header_name(yes[i]), 1);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		ASSERT_INT(rocjit_is_header_name(no[i]), 0);
}

TEST(cache_dir_follows_the_options_then_the_environment)
{
	char dir[4096];

	setenv("HOME", "/home/u", 1);
	unsetenv("ROCJIT_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, NULL), 0);
	ASSERT_STR(dir, "/home/u/.cache/rocjit");
	setenv("XDG_CACHE_HOME", "relative", 1); /* ignored: not absolute */
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, ""), 0);
	ASSERT_STR(dir, "/home/u/.cache/rocjit");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, NULL), 0);
	ASSERT_STR(dir, "/xdg/rocjit");
	setenv("ROCJIT_CACHE_DIR", "/env/cache", 1);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, NULL), 0);
	ASSERT_STR(dir, "/env/cache");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof dir, "/given"), 0);
	ASSERT_STR(dir, "/given");
	ASSERT_INT(rocjit_cache_dir(dir, 4, "/given"), ROCJIT_EINVAL);
}

/* Each source of the folder, with its suffix, fits exactly or is refused, never cut. */
TEST(cache_dir_too_long_for_the_buffer_is_refused_from_every_source)
{
	char dir[64];

	setenv("HOME", "/home/u", 1);
	unsetenv("ROCJIT_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/home/u/.cache/rocjit", NULL), 0);
	ASSERT_STR(dir, "/home/u/.cache/rocjit");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/home/u/.cache/rocjit" - 1, NULL),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "too long");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/xdg/rocjit", NULL), 0);
	ASSERT_STR(dir, "/xdg/rocjit");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/xdg/rocjit" - 1, NULL), ROCJIT_EINVAL);
	setenv("ROCJIT_CACHE_DIR", "/env/cache", 1);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/env/cache", NULL), 0);
	ASSERT_STR(dir, "/env/cache");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/env/cache" - 1, NULL), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/given", "/given"), 0);
	ASSERT_STR(dir, "/given");
	ASSERT_INT(rocjit_cache_dir(dir, sizeof "/given" - 1, "/given"), ROCJIT_EINVAL);
}

TEST(language_is_by_name_unless_given)
{
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, "k.cu"), ROCJIT_LANG_CUDA);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, "sub/k.cuh"), ROCJIT_LANG_CUDA);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, "k.hip"), ROCJIT_LANG_HIP);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, "k.cu.hip"), ROCJIT_LANG_HIP);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, ".cu"), ROCJIT_LANG_HIP);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, "k.cpp"), ROCJIT_LANG_HIP);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_AUTO, NULL), ROCJIT_LANG_HIP);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_HIP, "k.cu"), ROCJIT_LANG_HIP);
	ASSERT_INT(rocjit_program_language(ROCJIT_LANG_CUDA, "k.hip"), ROCJIT_LANG_CUDA);
	ASSERT_INT(rocjit_program_language(3, "k.hip"), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_program_language(-1, NULL), ROCJIT_EINVAL);
}

TEST(key_differs_by_language_and_hip_keys_did_not_move)
{
	struct fields f = base();
	rj_key hip = key_of(&f);

	f.language = ROCJIT_LANG_HIP;       /* HIP is the default: it adds no field */
	ASSERT(same(hip, key_of(&f)));
	f.language = ROCJIT_LANG_CUDA;
	ASSERT(!same(hip, key_of(&f)));
}

/* Through the API: the name decides AUTO, an explicit language wins, v1 programs are AUTO. */
TEST(program_language_enters_the_key_through_the_api)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;
	char hip[33], cuda[33];

	p.source = rj_test_axpy;
	p.name = "axpy.hip";
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(hip, c->key, 33);
	p.name = "axpy.cu";
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(cuda, c->key, 33);
	ASSERT(strcmp(hip, cuda) != 0);
	p.language = ROCJIT_LANG_HIP;                 /* explicit: the name no longer decides */
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_STR(c->key, hip);
	p.name = "axpy.hip";
	p.language = ROCJIT_LANG_CUDA;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_STR(c->key, cuda);
	p.version = 1;                                /* a v1 program has no language field */
	p.name = "axpy.cu";
	p.language = 99;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_STR(c->key, cuda);
	p.version = ROCJIT_PROGRAM_VERSION;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_LANG_");
	rocjit_close(ctx);
}

TEST(key_holds_what_the_include_folders_hold)
{
	/* An optional field: absent, the key is the one it was; present, it differs with
	   the folders' digest (request/search_dirs.c makes it). */
	struct fields none = base(), a = base(), b = base();
	const char *const opts[] = { "-I/some/dir", "-O3" };

	none.opts = a.opts = b.opts = opts;
	a.search_dirs = "val.h 1";
	b.search_dirs = "val.h 2";
	ASSERT(!same(key_of(&none), key_of(&a)));
	ASSERT(!same(key_of(&a), key_of(&b)));
	ASSERT(same(key_of(&a), key_of(&a)));
}
