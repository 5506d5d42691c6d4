/* The public header compiles alone as pedantic C11 (see tests/CMakeLists.txt). */
#include <rocjit.h>
int rocjit_headertest_c(void);
int rocjit_headertest_c(void)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	return (int)o.version + (int)p.version;
}
