/* memory.h as rocjit serves it to the device compilers: the old name of <string.h>'s
 * memory functions (memcpy, memset, memcmp ...), which some kernel files still include. */
#ifndef ROCJIT_DEVLIB_MEMORY_H
#define ROCJIT_DEVLIB_MEMORY_H

#include <string.h>

#endif
