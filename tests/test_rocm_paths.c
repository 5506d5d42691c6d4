/*
 * test_rocm_paths.c - finding ROCm where ROCm installs itself (issue 31): ROCJIT_HIP_LIBRARY,
 * then $ROCM_PATH/lib, then /opt/rocm/lib and /opt/rocm-X.Y.Z/lib (newest version first),
 * then the loader's search path; for hipRTC and comgr alike, each library reported with
 * the rule that found it (rocjit_compiler_libraries_get, `rocjit targets`).
 *
 * The trees are the test's own: folders holding symbolic links to this machine's real
 * libraries (Debian 12's HIP 5.2 has hipRTC inside libamdhip64.so.5) and to the stand-in
 * libhiprtc.so.5 (fake_hiprtc.c, version 77.7, which no loader path here holds: found,
 * it can only have been found by the rule under test).  The standard folders' root is
 * pointed at a tree in the test's folder (rj_rocm_root); /opt is never written.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile/rocm_paths.h"
#include "harness.h"

/* Where this machine's copy of a system library is, found without loading it (a library
 * this process had loaded would be the one any later load of the same file returns, under
 * its first name), or skip. */
static const char *system_library(const char *name)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu" };
	static char path[2][4096];
	static int slot;
	char *p = path[slot++ % 2];

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof path[0], "%s/%s", dirs[i], name);
		if (access(p, R_OK) == 0)
			return p;
	}
	rj_test_skip("%s is not installed (Debian: libamdhip64-dev)", name);
}

/* <rj_test_dir>/<rel>, created with its parents when dir is set. */
static const char *test_path(char *out, size_t size, const char *rel, int dir)
{
	ASSERT((size_t)snprintf(out, size, "%s/%s", rj_test_dir, rel) < size);
	if (dir) {
		char cmd[8400];
		snprintf(cmd, sizeof cmd, "mkdir -p '%s'", out);
		ASSERT_INT(system(cmd), 0);
	}
	return out;
}

/* A symbolic link <rj_test_dir>/<rel> to target (its folder created). */
static void link_in_tree(const char *rel, const char *target)
{
	char folder[4300], path[4300];

	snprintf(folder, sizeof folder, "%s", rel);
	*strrchr(folder, '/') = 0;
	test_path(path, sizeof path, folder, 1);
	ASSERT_INT(symlink(target, test_path(path, sizeof path, rel, 0)), 0);
}

/* The AMD platform's libraries report (rocjit_compiler_libraries_get), printed. */
static const char *amd_libraries(int want_rc)
{
	static char buf[16384];

	ASSERT_INT(rocjit_compiler_libraries_get(buf, sizeof buf, ROCJIT_PLATFORM_AMD), want_rc);
	printf("%s", buf);
	return buf;
}

/* The line of the report for name ("hiprtc", "comgr", "hip"), or fail. */
static const char *line_of(const char *report, const char *name)
{
	static char line[4096];
	char key[32];
	const char *p;

	snprintf(key, sizeof key, "%s\t", name);
	for (p = report; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, strlen(key))) {
			snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
			return line;
		}
	rj_test_fail(__FILE__, __LINE__, "no %s line in:\n%s", name, report);
}

TEST(rocm_folders_order_by_version_as_numbers)
{
	char root[4300], tmp[4300], env[9000];
	struct rj_rocm_place p[16];
	size_t n;

	ASSERT(rj_rocm_version_cmp("rocm-5.7.1", "rocm-5.10.0") < 0);
	ASSERT(rj_rocm_version_cmp("rocm-5.10.0", "rocm-6.0.0") < 0);
	ASSERT(rj_rocm_version_cmp("rocm-6.0.0", "rocm-5.7.1") > 0);
	ASSERT(rj_rocm_version_cmp("rocm-5.10.0", "rocm-5.9.12") > 0);
	ASSERT(rj_rocm_version_cmp("rocm-6.1", "rocm-6.0.2") > 0);
	ASSERT(rj_rocm_version_cmp("rocm-6.0.0", "rocm-6.0.0") == 0);
	ASSERT(rj_rocm_version_cmp("rocm-latest", "rocm-1.0.0") < 0); /* not a version */
	ASSERT(rj_rocm_version_cmp("rocm-6.0.0", "rocm-6.0.0.1") < 0);   /* a suffix: ties */
	ASSERT(rj_rocm_version_cmp("rocm-6.0.0-rc1", "rocm-5.10.0") > 0);
	ASSERT(rj_rocm_version_cmp("rocm-", "rocm-0") < 0);

	/* The folders listed: ROCM_PATH's, /opt/rocm, then the versioned ones newest first
	   (others ignored). */
	test_path(root, sizeof root, "opt", 1);
	test_path(tmp, sizeof tmp, "opt/rocm-5.7.1/lib", 1);
	test_path(tmp, sizeof tmp, "opt/rocm-6.0.0/lib", 1);
	test_path(tmp, sizeof tmp, "opt/rocm-5.10.0/lib", 1);
	test_path(tmp, sizeof tmp, "opt/rocm-old", 1);
	test_path(tmp, sizeof tmp, "opt/rocm-.5", 1);
	test_path(tmp, sizeof tmp, "opt/rocmfoo-9.0.0", 1);
	rj_rocm_root = root;
	setenv("ROCM_PATH", "/somewhere/rocm", 1);
	n = rj_rocm_places(p, 16);
	ASSERT_INT(n, 5);
	ASSERT_STR(p[0].dir, "/somewhere/rocm/lib");
	ASSERT_CONTAINS(p[0].why, "ROCM_PATH=/somewhere/rocm");
	snprintf(env, sizeof env, "%s/rocm/lib", root);
	ASSERT_STR(p[1].dir, env);
	snprintf(env, sizeof env, "%s/rocm-6.0.0/lib", root);
	ASSERT_STR(p[2].dir, env);
	snprintf(env, sizeof env, "%s/rocm-5.10.0/lib", root);
	ASSERT_STR(p[3].dir, env);
	snprintf(env, sizeof env, "%s/rocm-5.7.1/lib", root);
	ASSERT_STR(p[4].dir, env);
	unsetenv("ROCM_PATH");
	ASSERT_INT(rj_rocm_places(p, 16), 4);
	ASSERT_INT(rj_rocm_places(p, 2), 2); /* bounded */
}

/* hipRTC in libamdhip64 (HIP 5.2), linked into a ROCM_PATH tree: found there first, with
 * the tree's comgr, and it compiles. */
TEST(rocm_path_is_searched_before_the_loader_path)
{
	const char *hip = system_library("libamdhip64.so.5");
	const char *comgr = system_library("libamd_comgr.so.2");
	char rocm[4300], want[13000];
	const char *r;
	rocjit_ctx *ctx;

	link_in_tree("rocm/lib/libamdhip64.so.5", hip);
	link_in_tree("rocm/lib/libamd_comgr.so.2", comgr);
	setenv("ROCM_PATH", test_path(rocm, sizeof rocm, "rocm", 0), 1);
	unsetenv("ROCJIT_HIP_LIBRARY");
	r = amd_libraries(0);
	snprintf(want, sizeof want, "hiprtc\t%s/lib/libamdhip64.so.5\tROCM_PATH=%s\n", rocm, rocm);
	ASSERT_CONTAINS(r, want);
	snprintf(want, sizeof want, "comgr\t%s/lib/libamd_comgr.so.2\tROCM_PATH=%s\n", rocm, rocm);
	ASSERT_CONTAINS(r, want);
	snprintf(want, sizeof want, "hip\t%s/lib/libamdhip64.so.5\tROCM_PATH=%s\n", rocm, rocm);
	ASSERT_CONTAINS(r, want);
	ASSERT(!strstr(r, "note\t"));
	ctx = rj_test_open();
	ASSERT(rj_test_compile_variant(ctx, "gfx90a", "FROM_ROCM_PATH", 1)->size > 0);
	rocjit_close(ctx);
}

/* A libhiprtc.so that only the ROCM_PATH tree holds (the loader path has none here). */
TEST(rocm_path_hiprtc_is_one_the_loader_path_lacks)
{
	const char *hip = system_library("libamdhip64.so.5");
	char rocm[4300];
	const char *id;

	ASSERT(dlopen("libhiprtc.so.5", RTLD_NOW | RTLD_NOLOAD) == NULL);
	link_in_tree("rocm/lib/libamdhip64.so.5", hip);
	link_in_tree("rocm/lib/libhiprtc.so.5", ROCJIT_TEST_FAKE_HIPRTC);
	setenv("ROCM_PATH", test_path(rocm, sizeof rocm, "rocm", 0), 1);
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(id, "hiprtc 77.7");
	ASSERT_CONTAINS(line_of(amd_libraries(0), "hiprtc"), "/rocm/lib/libhiprtc.so.5\tROCM_PATH=");
}

/* ROCM_PATH naming nothing usable (no folder, an empty one, a file that is no library):
 * the next rule serves, and a note says which place was passed over and why. */
static void falls_through(const char *rel, const char *what)
{
	char rocm[4300], want[13000];
	const char *r;

	setenv("ROCM_PATH", test_path(rocm, sizeof rocm, rel, 0), 1);
	unsetenv("ROCJIT_HIP_LIBRARY");
	rj_rocm_root = rj_test_dir; /* no standard install there */
	r = amd_libraries(0);
	ASSERT_CONTAINS(line_of(r, "hiprtc"), "the loader's search path");
	snprintf(want, sizeof want, "note\t\tROCM_PATH=%s: %s/lib %s", rocm, rocm, what);
	ASSERT_CONTAINS(r, want);
	ASSERT_CONTAINS(r, "passed over");
}

TEST(rocm_path_that_does_not_exist_falls_through_with_a_note)
{
	system_library("libamdhip64.so.5");
	falls_through("no-such-rocm", "holds no hipRTC");
}

TEST(rocm_path_without_hiprtc_falls_through_with_a_note)
{
	char dir[4300];

	system_library("libamdhip64.so.5");
	test_path(dir, sizeof dir, "empty-rocm/lib", 1);
	falls_through("empty-rocm", "holds no hipRTC");
}

TEST(rocm_path_with_a_broken_hiprtc_falls_through_with_a_note)
{
	char file[4300];

	system_library("libamdhip64.so.5");
	test_path(file, sizeof file, "broken-rocm/lib", 1);
	test_path(file, sizeof file, "broken-rocm/lib/libhiprtc.so.5", 0);
	rj_test_write_file(file, "not a library", 13);
	falls_through("broken-rocm", "holds hipRTC's files, but they could not be loaded");
}

/* No ROCM_PATH: the standard folders, <root>/rocm first, then the newest version that
 * holds hipRTC (one newer that holds none is passed over with a note). */
TEST(standard_folders_serve_the_newest_version_that_holds_hiprtc)
{
	const char *hip = system_library("libamdhip64.so.5");
	char root[4300], dir[4300], want[13000];
	const char *id, *r;

	unsetenv("ROCM_PATH");
	unsetenv("ROCJIT_HIP_LIBRARY");
	test_path(root, sizeof root, "opt", 1);
	test_path(dir, sizeof dir, "opt/rocm-6.0.0/lib", 1); /* newest, but empty */
	link_in_tree("opt/rocm-5.10.0/lib/libhiprtc.so.5", ROCJIT_TEST_FAKE_HIPRTC);
	link_in_tree("opt/rocm-5.10.0/lib/libamdhip64.so.5", hip);
	link_in_tree("opt/rocm-5.7.1/lib/libamdhip64.so.5", hip); /* older: not reached */
	rj_rocm_root = root;
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(id, "hiprtc 77.7");
	r = amd_libraries(0);
	snprintf(want, sizeof want, "hiprtc\t%s/rocm-5.10.0/lib/libhiprtc.so.5\tthe versioned "
		 "install folder %s/rocm-5.10.0", root, root);
	ASSERT_CONTAINS(r, want);
	snprintf(want, sizeof want, "note\t\tthe versioned install folder %s/rocm-6.0.0", root);
	ASSERT_CONTAINS(r, want);
}

TEST(standard_rocm_folder_comes_before_versioned_ones)
{
	const char *hip = system_library("libamdhip64.so.5");
	char root[4300], want[13000];
	const char *r;

	unsetenv("ROCM_PATH");
	test_path(root, sizeof root, "opt", 1);
	link_in_tree("opt/rocm/lib/libamdhip64.so.5", hip);
	link_in_tree("opt/rocm-6.0.0/lib/libhiprtc.so.5", ROCJIT_TEST_FAKE_HIPRTC);
	rj_rocm_root = root;
	r = amd_libraries(0);
	snprintf(want, sizeof want, "hiprtc\t%s/rocm/lib/libamdhip64.so.5\tthe standard install "
		 "folder %s/rocm\n", root, root);
	ASSERT_CONTAINS(r, want);
}

/* ROCJIT_HIP_LIBRARY names the library exactly: ROCM_PATH is not looked at. */
TEST(hip_library_comes_before_rocm_path)
{
	const char *hip = system_library("libamdhip64.so.5");
	char rocm[4300];
	const char *r;

	link_in_tree("rocm/lib/libhiprtc.so.5", ROCJIT_TEST_FAKE_HIPRTC);
	setenv("ROCM_PATH", test_path(rocm, sizeof rocm, "rocm", 0), 1);
	setenv("ROCJIT_HIP_LIBRARY", hip, 1);
	r = amd_libraries(0);
	ASSERT_CONTAINS(line_of(r, "hiprtc"), "\tROCJIT_HIP_LIBRARY=");
	ASSERT(!strstr(r, "77.7") && !strstr(r, rocm));
}

/* `rocjit targets` says which file was loaded and which rule found it. */
TEST(targets_shows_each_library_and_the_rule_that_found_it)
{
	const char *hip = system_library("libamdhip64.so.5");
	char rocm[4300], env[9000], want[13000], empty[4300], env2[9000], *out = NULL;
	const char *argv[] = { ROCJIT_TEST_CLI, "targets", "--json", NULL };
	const char *argv_text[] = { ROCJIT_TEST_CLI, "targets", NULL };
	const char *envs[] = { env, NULL }, *envs2[] = { env2, NULL };

	link_in_tree("rocm/lib/libamdhip64.so.5", hip);
	snprintf(env, sizeof env, "ROCM_PATH=%s", test_path(rocm, sizeof rocm, "rocm", 0));
	ASSERT_INT(rj_test_run(argv, envs, &out), 0);
	printf("%s", out);
	snprintf(want, sizeof want, "\"name\": \"hiprtc\",\n          \"file\": \"%s/lib/"
		 "libamdhip64.so.5\",\n          \"found_by\": \"ROCM_PATH=%s\"", rocm, rocm);
	ASSERT_CONTAINS(out, want);
	free(out);
	ASSERT_INT(rj_test_run(argv_text, envs, &out), 0);
	printf("%s", out);
	snprintf(want, sizeof want, "hiprtc:    %s/lib/libamdhip64.so.5 (found by ROCM_PATH=%s)",
		 rocm, rocm);
	ASSERT_CONTAINS(out, want);
	free(out);
	/* An empty ROCM_PATH: the note, in the text and the JSON. */
	snprintf(env2, sizeof env2, "ROCM_PATH=%s", test_path(empty, sizeof empty, "empty", 1));
	ASSERT_INT(rj_test_run(argv_text, envs2, &out), 0);
	printf("%s", out);
	snprintf(want, sizeof want, "note:      ROCM_PATH=%s: %s/lib holds no hipRTC", empty,
		 empty);
	ASSERT_CONTAINS(out, want);
	free(out);
	ASSERT_INT(rj_test_run(argv, envs2, &out), 0);
	ASSERT_CONTAINS(out, "\"notes\": [\n");
	ASSERT_CONTAINS(out, "holds no hipRTC");
	free(out);
}

/* ---- A library the process has loaded already is the one used (no second copy) ---------- */

/* A copy of file at <rj_test_dir>/<rel> (its folder created): another file, the same
 * soname, as another ROCm version's would be. */
static void copy_in_tree(const char *rel, const char *file)
{
	char folder[4300], path[4300], cmd[9000];

	snprintf(folder, sizeof folder, "%s", rel);
	*strrchr(folder, '/') = 0;
	test_path(path, sizeof path, folder, 1);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", file, test_path(path, sizeof path, rel, 0));
	ASSERT_INT(system(cmd), 0);
}

/* The report with ROCM_PATH set to <rj_test_dir>/rocm (into rocm) and no
 * ROCJIT_HIP_LIBRARY. */
static const char *report_with_rocm_path(char *rocm, size_t size)
{
	setenv("ROCM_PATH", test_path(rocm, size, "rocm", 0), 1);
	unsetenv("ROCJIT_HIP_LIBRARY");
	return amd_libraries(0);
}

/* Asserts the report says name's file is file, already loaded (then rest). */
static void assert_loaded(const char *report, const char *name, const char *file,
			  const char *rest)
{
	char want[9000];

	snprintf(want, sizeof want, "%s\t%s\talready loaded by the process%s\n", name, file,
		 rest);
	ASSERT_CONTAINS(report, want);
}

/* The application's HIP runtime (loaded from one folder) while ROCM_PATH names a tree with
 * another copy, and another hipRTC: rocjit uses the loaded runtime and its hipRTC (inside
 * it, HIP 5.2), takes comgr from its folder, and maps no second runtime. */
TEST(hip_runtime_loaded_by_the_application_is_used_not_rocm_paths_copy)
{
	const char *hip = system_library("libamdhip64.so.5");
	char rocm[4300];
	const char *r, *id;
	rocjit_ctx *ctx;

	ASSERT(dlopen(hip, RTLD_NOW | RTLD_LOCAL) != NULL); /* the application's */
	copy_in_tree("rocm/lib/libamdhip64.so.5", hip);
	link_in_tree("rocm/lib/libhiprtc.so.5", ROCJIT_TEST_FAKE_HIPRTC);
	r = report_with_rocm_path(rocm, sizeof rocm);
	assert_loaded(r, "hip", hip, "");
	assert_loaded(r, "hiprtc", hip, ", inside the HIP runtime");
	ASSERT_CONTAINS(line_of(r, "comgr"), "the folder of the HIP runtime");
	ASSERT(!strstr(r, rocm));
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT(!strstr(id, "77.7"));
	ASSERT_INT(rj_test_mapped_copies("libamdhip64.so"), 1);
	ASSERT_INT(rj_test_mapped_copies("libhiprtc.so"), 0);
	ctx = rj_test_open();
	ASSERT(rj_test_compile_variant(ctx, "gfx90a", "LOADED_RUNTIME", 1)->size > 0);
	rocjit_close(ctx);
	ASSERT_INT(rj_test_mapped_copies("libamdhip64.so"), 1);
}

/* The same for hipRTC of its own (ROCm 5.3 on: the stand-in) and for ROCJIT_HIP_LIBRARY:
 * a tree holding other copies does not load them. */
TEST(hiprtc_loaded_by_the_application_is_used_not_rocm_paths_copy)
{
	const char *hip = system_library("libamdhip64.so.5");
	char rocm[4300];
	const char *id;

	ASSERT(dlopen(ROCJIT_TEST_FAKE_HIPRTC, RTLD_NOW | RTLD_LOCAL) != NULL);
	link_in_tree("rocm/lib/libamdhip64.so.5", hip);
	copy_in_tree("rocm/lib/libhiprtc.so.5", ROCJIT_TEST_FAKE_HIPRTC);
	assert_loaded(report_with_rocm_path(rocm, sizeof rocm), "hiprtc", ROCJIT_TEST_FAKE_HIPRTC,
		      "");
	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(id, "hiprtc 77.7");
	ASSERT_INT(rj_test_mapped_copies("libhiprtc.so"), 1);
}

TEST(comgr_loaded_by_the_application_is_used_not_rocm_paths_copy)
{
	const char *hip = system_library("libamdhip64.so.5");
	const char *comgr = system_library("libamd_comgr.so.2");
	char rocm[4300], want[13000];
	const char *r;

	ASSERT(dlopen(comgr, RTLD_NOW | RTLD_LOCAL) != NULL);
	link_in_tree("rocm/lib/libamdhip64.so.5", hip);
	copy_in_tree("rocm/lib/libamd_comgr.so.2", comgr);
	r = report_with_rocm_path(rocm, sizeof rocm);
	assert_loaded(r, "comgr", comgr, "");
	/* The runtime and its hipRTC still come from the tree, as nothing loaded them. */
	snprintf(want, sizeof want, "hip\t%s/lib/libamdhip64.so.5\tROCM_PATH=%s\n", rocm, rocm);
	ASSERT_CONTAINS(r, want);
	ASSERT_INT(rj_test_mapped_copies("libamd_comgr.so"), 1);
}

/* ROCJIT_HIP_LIBRARY naming another copy than the runtime loaded: the loaded one serves
 * (a second runtime would not know the first's modules), with a warning. */
TEST(hip_library_naming_a_second_runtime_is_not_loaded)
{
	const char *hip = system_library("libamdhip64.so.5");
	char copy[4300];

	ASSERT(dlopen(hip, RTLD_NOW | RTLD_LOCAL) != NULL);
	copy_in_tree("other/libamdhip64.so.5", hip);
	setenv("ROCJIT_HIP_LIBRARY", test_path(copy, sizeof copy, "other/libamdhip64.so.5", 0), 1);
	assert_loaded(amd_libraries(0), "hip", hip, "");
	ASSERT_INT(rj_test_mapped_copies("libamdhip64.so"), 1);
}
