// The public header compiles as C++ (see tests/CMakeLists.txt).
#include <rocjit.h>
int rocjit_headertest_cpp();
int rocjit_headertest_cpp()
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	return static_cast<int>(o.version + p.version);
}
