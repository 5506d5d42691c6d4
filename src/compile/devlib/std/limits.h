/*
 * limits.h as rocjit serves it to the device compilers (kernel code only): the C limits
 * of the integer types, as literals (NVRTC predefines none of GCC's __INT_MAX__ family).
 * char is signed unless the compiler says otherwise; long is 64 bits on every target.
 */
#ifndef ROCJIT_DEVLIB_LIMITS_H
#define ROCJIT_DEVLIB_LIMITS_H

/* Under NVRTC, libcu++ (CUDA's include/cccl, where it is on the include path) defines
   these macros too, unguarded and spelled its own way: taking its definitions first
   keeps a later <cuda/std/climits> free of "incompatible redefinition" warnings. */
#if defined(__CUDACC_RTC__) && !defined(__clang__) && defined(__has_include)
#if __has_include(<cuda/std/climits>)
#include <cuda/std/climits>
#endif
#endif

#ifndef CHAR_BIT
#define CHAR_BIT 8
#endif
#ifndef SCHAR_MAX
#define SCHAR_MAX 127
#define SCHAR_MIN (-SCHAR_MAX - 1)
#define UCHAR_MAX 255
#endif
#ifndef CHAR_MAX
#ifdef __CHAR_UNSIGNED__
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#else
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#endif
#endif
#ifndef SHRT_MAX
#define SHRT_MAX 32767
#define SHRT_MIN (-SHRT_MAX - 1)
#define USHRT_MAX 65535
#endif
#ifndef INT_MAX
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX 4294967295U
#endif
#ifndef LONG_MAX
#define LONG_MAX 9223372036854775807L
#define LONG_MIN (-LONG_MAX - 1L)
#define ULONG_MAX 18446744073709551615UL
#endif
#ifndef LLONG_MAX
#define LLONG_MAX 9223372036854775807LL
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define ULLONG_MAX 18446744073709551615ULL
#endif
#ifndef MB_LEN_MAX
#define MB_LEN_MAX 16
#endif

#endif
