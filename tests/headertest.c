/* The public header compiles alone as pedantic C11 (see tests/CMakeLists.txt), and its
 * initialiser macros leave no field out (-Wmissing-field-initializers is in -Wextra). */
#include <rocjit.h>
int rocjit_headertest_c(void);
int rocjit_headertest_c(void)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_registered_options r = ROCJIT_REGISTERED_OPTIONS_INIT;
	rocjit_counters c = ROCJIT_COUNTERS_INIT;
	rocjit_prefetch_options f = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status s = ROCJIT_PREFETCH_STATUS_INIT;
	return (int)(o.version + p.version + r.version + c.version + f.version + s.version);
}
