/*
 * stdlib.h as rocjit serves it to the device compilers (kernel code only).  Device code
 * has abs, labs, llabs, malloc and free, built into hipRTC and NVRTC; nothing is
 * declared again here.  There is no device exit, getenv or qsort.
 */
#ifndef ROCJIT_DEVLIB_STDLIB_H
#define ROCJIT_DEVLIB_STDLIB_H

#include <stddef.h>

#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif

#endif
