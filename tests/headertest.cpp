// The public header compiles as C++ (see tests/CMakeLists.txt), initialiser macros too.
#include <rocjit.h>
int rocjit_headertest_cpp();
int rocjit_headertest_cpp()
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_registered_options r = ROCJIT_REGISTERED_OPTIONS_INIT;
	rocjit_counters c = ROCJIT_COUNTERS_INIT;
	rocjit_prefetch_options f = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status s = ROCJIT_PREFETCH_STATUS_INIT;
	return static_cast<int>(o.version + p.version + r.version + c.version + f.version +
				s.version);
}
