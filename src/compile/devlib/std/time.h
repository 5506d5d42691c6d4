/*
 * time.h as rocjit serves it to the device compilers (kernel code only): the type of
 * clock(), which device code reads cycle counts into.  The compilers declare clock() and
 * clock64() themselves (hipRTC's both return long long: the shader clock, whose rate is
 * not fixed; wall_clock64() is the constant-rate one; NVRTC builds in clock_t as well);
 * the rest of time.h is host code.  clock_t is long, as in glibc, so a value converts as
 * it does on the host.
 */
#ifndef ROCJIT_DEVLIB_TIME_H
#define ROCJIT_DEVLIB_TIME_H

#if defined(__clang__) && !defined(ROCJIT_CLOCK_T_DEFINED)
#define ROCJIT_CLOCK_T_DEFINED 1
typedef long clock_t;
#endif

#endif
