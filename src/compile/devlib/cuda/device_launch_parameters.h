/* See cuda_runtime.h: blockIdx, threadIdx ... are built into hipRTC. */
#include "cuda_runtime.h"
