/*
 * string.h as rocjit serves it to the device compilers (kernel code only).  Device code
 * has memcpy and memset, built into hipRTC and NVRTC; neither has memcmp or strlen.
 */
#ifndef ROCJIT_DEVLIB_STRING_H
#define ROCJIT_DEVLIB_STRING_H

#include <stddef.h>

#endif
