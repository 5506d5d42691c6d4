/* surface_indirect_functions.h as rocjit serves it on AMD: see rocjit_cuda_texture.h. */
#include "rocjit_cuda_texture.h"
