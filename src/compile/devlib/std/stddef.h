/*
 * stddef.h as rocjit serves it to the device compilers (kernel code only).
 *
 * hipRTC and NVRTC build in size_t; NVRTC also ptrdiff_t.  The types below are declared
 * from what the compiler itself yields, so a repeated typedef names the same type.
 */
#ifndef ROCJIT_DEVLIB_STDDEF_H
#define ROCJIT_DEVLIB_STDDEF_H

typedef decltype(sizeof(0)) size_t;
typedef decltype(static_cast<char *>(0) - static_cast<char *>(0)) ptrdiff_t;

/* The most aligned scalar: both double and long long are 8-byte aligned on every GPU
   target rocjit compiles for. */
typedef struct {
	long long __rocjit_ll __attribute__((aligned(8)));
	double __rocjit_d __attribute__((aligned(8)));
} max_align_t;

#ifndef NULL
#define NULL nullptr
#endif

#ifndef offsetof
#if defined(__clang__)
#define offsetof(type, member) __builtin_offsetof(type, member)
#else
/* NVRTC does not take __builtin_offsetof: the classic address computation (not a
   constant expression there). */
#define offsetof(type, member) \
	((size_t) & reinterpret_cast<const volatile char &>((static_cast<type *>(0))->member))
#endif
#endif

#endif
