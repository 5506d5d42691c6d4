/*
 * <hipcub/hipcub.hpp> as rocjit serves it to hipRTC: hipCUB's spelling of rocjit's CUB
 * subset over rocPRIM (cub/rocjit_cub.cuh says what it holds).  hipCUB's names are CUB's
 * in namespace hipcub; Debian has no hipCUB package.
 */
#ifndef ROCJIT_DEVLIB_HIPCUB_HPP
#define ROCJIT_DEVLIB_HIPCUB_HPP

#include <cub/rocjit_cub.cuh>

namespace hipcub {
using namespace ::cub;
}

#endif
