/* See cuda_runtime.h: device code gets everything from there. */
#include "cuda_runtime.h"
