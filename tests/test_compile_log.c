/*
 * test_compile_log.c - compiler diagnostics rewritten to name the caller's files, for the
 * log forms comgr 2.4 (Debian's HIP 5.2), comgr 2.6 (ROCm 5.7, seen on the GPU box) and
 * NVRTC write.
 */
#include "harness.h"
#include "compile/platform.h"

static void check(const char *log, const char *name, const char *want)
{
	char *got = rj_log_map_names(log, name);
	ASSERT_STR(got, want);
	free(got);
}

TEST(comgr_2_4_compile_source_becomes_the_file_name)
{
	check("/tmp/comgr-bdbc76/input/CompileSource:3:9: error: x\n", "axpy.hip",
	      "axpy.hip:3:9: error: x\n");
	check("In file included from /var/tmp/comgr-0a1b2c/input/CompileSource:1:\n"
	      "/var/tmp/comgr-0a1b2c/include/foo.h:2:11: error: expected expression\n",
	      "main.hip",
	      "In file included from main.hip:1:\nfoo.h:2:11: error: expected expression\n");
}

TEST(comgr_2_6_input_named_by_the_program_keeps_its_name)
{
	check("/tmp/comgr-498f7f/input/kernels-src/axpy.hip:17:10: fatal error: 'x' not found\n",
	      "kernels-src/axpy.hip", "kernels-src/axpy.hip:17:10: fatal error: 'x' not found\n");
}

TEST(text_without_comgr_paths_is_unchanged)
{
	check("1 error generated when compiling for gfx90a.\n", "a.hip",
	      "1 error generated when compiling for gfx90a.\n");
	check("", "a.hip", "");
	check("comgr-only a word\n", "a.hip", "comgr-only a word\n");
}

TEST(nvrtc_line_form_becomes_file_line_col)
{
	char *got = rj_log_map_nvrtc("my.hip(3): error: identifier \"y\" is undefined\n"
				     "   x[0] = y;\n"
				     "          ^\n\n1 error detected.\n");
	ASSERT_CONTAINS(got, "my.hip:3:9: error: identifier \"y\" is undefined\n");
	ASSERT_CONTAINS(got, "1 error detected.");
	free(got);
}
