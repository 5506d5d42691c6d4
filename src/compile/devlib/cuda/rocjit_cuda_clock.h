/*
 * rocjit_cuda_clock.h - CUDA's clock_t for CUDA-dialect sources compiled by hipRTC (AMD).
 * The prelude includes it: CUDA kernels time themselves with `clock_t t = clock();` or
 * clock64() and no include (nvcc's runtime header brings <time.h>; NVRTC builds clock_t
 * in).  hipRTC builds clock() and clock64() in (both long long: the shader clock counter,
 * whose rate is not fixed; wall_clock64() is the constant-rate one) but not clock_t.
 * clock_t is long, as glibc's; whoever else defines it (an implicit runtime header, a
 * device <time.h>) defines ROCJIT_CLOCK_T_DEFINED so that it is declared once.
 */
#ifndef ROCJIT_CUDA_CLOCK_H
#define ROCJIT_CUDA_CLOCK_H

#ifndef ROCJIT_CLOCK_T_DEFINED
#define ROCJIT_CLOCK_T_DEFINED
typedef long clock_t;
#endif

#endif
