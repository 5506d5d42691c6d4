/*
 * assert.h as rocjit serves it to the device compilers (kernel code only).
 *
 * Like C's, this header has no include guard: each inclusion defines assert anew from
 * the NDEBUG of that moment.  NVRTC builds assert in; hipRTC has __assert_fail (the
 * device-side trap glibc's assert calls) but no assert.
 */
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#elif !defined(__clang__)
#define assert(e) \
	((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __func__, sizeof(char)))
#else
#define assert(e) ((e) ? static_cast<void>(0) : __assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
