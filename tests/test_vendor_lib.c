/*
 * test_vendor_lib.c - how vendor_lib.c loads a library named by a path (issue 31): checked
 * on a descriptor, then loaded by its own path, so that a library whose RUNPATH is $ORIGIN
 * finds its neighbours (ROCm's libraries find libhsa-runtime64 and comgr so); and a file
 * swapped in between the check and the load is refused.
 *
 * The libraries are the test's own, built here with the system C compiler: liba.so needs
 * libb.so and finds it through RUNPATH $ORIGIN only (no loader path holds either).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile/vendor_lib.h"
#include "harness.h"

/* <dir>/<name>.c holding code, built into <dir>/<name>.so with the flags given. */
static void build_library(const char *dir, const char *name, const char *code,
			  const char *flags)
{
	char path[4400], cmd[9800];

	snprintf(path, sizeof path, "%s/%s.c", dir, name);
	rj_test_write_file(path, code, strlen(code));
	snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s/%s.so' '%s' %s", dir, name, path,
		 flags);
	if (system(cmd) != 0)
		rj_test_skip("no C compiler builds shared libraries here (%s)", cmd);
}

/* liba.so (a_value(): libb's b_value() + 1, libb found through $ORIGIN) and libb.so
 * (b_value(): 42) in <rj_test_dir>/<rel>, which is created; its path in dir. */
static void build_pair(char *dir, size_t size, const char *rel)
{
	char flags[4400], cmd[4400];

	snprintf(dir, size, "%s/%s", rj_test_dir, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	ASSERT_INT(system(cmd), 0);
	build_library(dir, "libb", "int b_value(void) { return 42; }\n", "-Wl,-soname,libb.so");
	snprintf(flags, sizeof flags, "-Wl,-soname,liba.so -L'%s' -lb -Wl,--enable-new-dtags "
		 "-Wl,-rpath,'$ORIGIN'", dir);
	build_library(dir, "liba",
		      "int b_value(void);\nint a_value(void) { return b_value() + 1; }\n", flags);
}

static int a_value(void *h)
{
	int (*fn)(void);

	*(void **)&fn = rj_vendor_sym(h, "a_value");
	ASSERT(fn != NULL);
	return fn();
}

TEST(library_with_origin_runpath_loads_by_path_as_by_fd_it_cannot)
{
	char dir[4300], file[4400], proc[64];
	const char *const names[] = { "liba.so", NULL };
	void *h;
	int fd;

	build_pair(dir, sizeof dir, "libs");
	/* The hazard itself: through /proc/self/fd/N, $ORIGIN is /proc/self/fd. */
	snprintf(file, sizeof file, "%s/liba.so", dir);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	ASSERT(fd >= 0);
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	ASSERT(dlopen(proc, RTLD_NOW | RTLD_LOCAL) == NULL);
	printf("by descriptor: %s\n", dlerror());
	close(fd);
	/* Through the loader of vendor libraries: found, with its neighbour. */
	h = rj_vendor_open(dir, strlen(dir), names);
	ASSERT(h != NULL);
	ASSERT_INT(a_value(h), 43);
	ASSERT_STR(rj_vendor_file(rj_vendor_sym(h, "a_value")), file);
	ASSERT_INT(rj_test_mapped_copies("liba.so"), 1);
}

/* The library pair of <rj_test_dir>/real (into dir), and the folder <rj_test_dir>/tree
 * (into tree) holding a link to dir/name (into link). */
static void pair_and_link(char *dir, char *tree, char *link, const char *name)
{
	char target[4500];

	build_pair(dir, 4300, "real");
	snprintf(tree, 4400, "%s/tree", rj_test_dir);
	ASSERT_INT(mkdir(tree, 0755), 0);
	snprintf(target, sizeof target, "%s/%s", dir, name);
	snprintf(link, 4500, "%s/%s", tree, name);
	ASSERT_INT(symlink(target, link), 0);
}

/* Named through a link in another folder (a ROCm tree of links): $ORIGIN is the folder of
 * the file itself, where its neighbour is; it is reported by the name it was given. */
TEST(library_named_through_a_link_finds_its_neighbours_in_its_own_folder)
{
	char dir[4300], tree[4400], link[4500];
	const char *const names[] = { "liba.so", NULL };
	void *h;

	pair_and_link(dir, tree, link, "liba.so");
	h = rj_vendor_open(tree, strlen(tree), names);
	ASSERT(h != NULL);
	ASSERT_INT(a_value(h), 43);
	ASSERT_STR(rj_vendor_file(rj_vendor_sym(h, "a_value")), link);
}

/* A library unloaded (rj_vendor_close) is forgotten with the name it was loaded by: loaded
 * again under another name, it is known by that one. */
TEST(library_closed_is_known_by_its_new_name_when_loaded_again)
{
	char dir[4300], tree[4400], link[4500], file[4500];
	const char *const names[] = { "libb.so", NULL };
	void *h;

	pair_and_link(dir, tree, link, "libb.so");
	h = rj_vendor_open(tree, strlen(tree), names);
	ASSERT(h != NULL);
	ASSERT_STR(rj_vendor_file(rj_vendor_sym(h, "b_value")), link);
	rj_vendor_close(h);
	snprintf(file, sizeof file, "%s/libb.so", dir);
	ASSERT(dlopen(file, RTLD_NOW | RTLD_NOLOAD) == NULL);
	h = rj_vendor_open(dir, strlen(dir), names);
	ASSERT(h != NULL);
	ASSERT_STR(rj_vendor_file(rj_vendor_sym(h, "b_value")), file);
}

/* Loading by path does not loosen the trust rule: a library others may write is refused. */
TEST(library_writable_by_others_is_still_refused)
{
	char dir[4300], file[4400];
	const char *const names[] = { "liba.so", NULL };

	build_pair(dir, sizeof dir, "open");
	snprintf(file, sizeof file, "%s/liba.so", dir);
	ASSERT_INT(chmod(file, 0757), 0);
	ASSERT(rj_vendor_open(dir, strlen(dir), names) == NULL);
	ASSERT_INT(chmod(file, 0755), 0);
	ASSERT(rj_vendor_open(dir, strlen(dir), names) != NULL);
}

/* Between the check and the load, another library is put where the checked one was: what
 * the loader mapped is not what was checked, so it is refused and unloaded. */
static char swap_from[4400];
static void swap_in(const char *path)
{
	ASSERT_INT(rename(swap_from, path), 0);
}

TEST(library_swapped_between_check_and_load_is_refused)
{
	char dir[4300];
	const char *const names[] = { "liba.so", NULL };

	build_pair(dir, sizeof dir, "swap");
	build_library(dir, "other", "int a_value(void) { return 666; }\n",
		      "-Wl,-soname,other.so");
	snprintf(swap_from, sizeof swap_from, "%s/other.so", dir);
	rj_vendor_before_load = swap_in;
	ASSERT(rj_vendor_open(dir, strlen(dir), names) == NULL);
	rj_vendor_before_load = NULL;
	ASSERT(dlopen("other.so", RTLD_NOW | RTLD_NOLOAD) == NULL);
	ASSERT_INT(rj_test_mapped_copies("liba.so"), 0);
}
