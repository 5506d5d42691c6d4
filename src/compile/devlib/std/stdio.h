/*
 * stdio.h as rocjit serves it to the device compilers (kernel code only).  Device code
 * has printf, built into hipRTC and NVRTC; there are no files or streams.
 */
#ifndef ROCJIT_DEVLIB_STDIO_H
#define ROCJIT_DEVLIB_STDIO_H

#include <stddef.h>

#endif
