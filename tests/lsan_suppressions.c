/*
 * lsan_suppressions.c - LeakSanitizer's suppressions, built into every executable of a
 * build with ROCJIT_SANITIZE=address (CMakeLists.txt adds this file to each one).  Not
 * part of the library.
 *
 * They name vendor libraries, not rocjit's memory: hipRTC 5.2 keeps per-thread state that
 * it never frees, and a process that loads it only to read the compiler's identity (the
 * parent of compile workers) keeps some blocks of it too; NVRTC keeps a block for its life.
 * Built in rather than passed through LSAN_OPTIONS, every sanitized process applies them:
 * the tests, and the rocjit tool when the build itself runs it (the bundles that
 * rocjit_add_kernels makes), where no test environment is set.
 */

const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libamdhip64.so\n"
	       "leak:libamd_comgr.so\n"
	       "leak:libhsa-runtime64.so\n"
	       "leak:libnvrtc.so\n";
}
