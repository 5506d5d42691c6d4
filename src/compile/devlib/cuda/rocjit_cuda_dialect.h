/*
 * rocjit_cuda_dialect.h - the prelude rocjit force-includes (hipRTC `-include`) in front of
 * every CUDA-dialect source it compiles for an AMD GPU.  It makes CUDA kernel code see what
 * nvcc/NVRTC would give it, on top of what hipRTC builds in (HIP's runtime header, already
 * preprocessed, with __half, atomics, __shfl*, __ldg ...):
 *
 *   - the compiler-identity macros CUDA code tests (__CUDA_ARCH__, __CUDACC__, ...);
 *   - the *_sync warp intrinsics, mapped onto HIP's whole-wave ones;
 *   - the atomics and SIMD-in-a-word intrinsics some HIP versions lack.
 *
 * The types live in the headers named as CUDA's (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h ...),
 * served from the same folder.  Device code only; C++14 (hipRTC's default).
 *
 * Version handling (HIP 5.2 on Debian 12, 5.7 on the GPU box, later ones): an intrinsic that
 * one HIP version has and another lacks is declared as a *fallback template*
 * (ROCJIT_CUDA_FALLBACK below).  A non-template function of the same signature - HIP's own,
 * where it exists - wins overload resolution over a template, so the HIP version decides
 * with no version table and no redefinition.  Intrinsics that no HIP release we target
 * declares (the *_sync family without HIP_ENABLE_WARP_SYNC_BUILTINS, __activemask, __dp4a,
 * __vsubss4 ...) are plain definitions.
 *
 * Owns: macros and functions named as CUDA's; helpers in namespace rocjit_cuda.
 * Must not: include host headers, or define anything for the HIP dialect (rocjit includes
 * this only for CUDA sources).
 */
#ifndef ROCJIT_CUDA_DIALECT_H
#define ROCJIT_CUDA_DIALECT_H

/* ---- Compiler identity ----------------------------------------------------------------
 * __CUDA_ARCH__ = 800 (an "sm_80", Ampere-class device).  CUDA code gates features on it,
 * and when it is undefined (hipRTC's default) takes its fallbacks for *old* GPUs, which
 * either vanish the fp16/bf16 kernels (`#if __CUDA_ARCH__ >= 530`, `>= 800`) or redefine
 * what HIP has (`#if __CUDA_ARCH__ < 600` -> a user atomicAdd(double*)).  800 is the
 * smallest value that turns every such fallback off and compiles the half/bf16/fp8 paths,
 * and stays below 890/900, so code for sm_89/sm_90 only (fp8 conversion instructions, wgmma,
 * TMA, clusters) stays off.  gfx90a/gfx1030 match sm_80 in the features this gates: fast
 * fp16, 64-bit atomics, bf16 through float.  Caveat: a `>= 800` branch that holds inline
 * PTX (cp.async, ldmatrix, mma.sync) cannot compile for AMD whatever the value.
 * __CUDACC__ is defined (a CUDA compiler: code tests it to see __device__ & co.).
 * __NVCC__ is not (NVRTC does not define it either), and neither is __CUDACC_RTC__: code
 * under it adapts to NVRTC's own environment (its built-in assert and std::move, its
 * missing <cstdint>), which is not hipRTC's; rocjit's devlib/std tells NVRTC from hipRTC by
 * it too.  Host includes guarded by `#ifndef __CUDACC_RTC__` are mostly standard headers,
 * which rocjit's device standard library serves on AMD.
 * __CUDACC_VER_*__ and CUDA_VERSION (cuda.h) claim CUDA 12.0: the API level these headers
 * provide. */
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 800
#endif
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#endif
#define ROCJIT_CUDA_DIALECT 1

/* CUDA code calls assert without including <assert.h>: NVRTC builds it in, and nvcc's
 * runtime header includes it.  So does this prelude (rocjit's device assert.h, or the
 * caller's own; -DNDEBUG turns it off as usual). */
#include <assert.h>

/* What nvcc's implicit cuda_runtime.h gives a kernel file that includes nothing
 * (INFINITY, UINT_MAX, NULL, clock_t, std::is_same_v ...): devlib/std says which. */
#include <rocjit_cuda_implicit.h>

/* HIP_VERSION_MAJOR/MINOR come from hipRTC's own -D options (5.2 and 5.7 both pass them). */
#if defined(HIP_VERSION_MAJOR) && defined(HIP_VERSION_MINOR)
#define ROCJIT_HIP_VERSION (HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR)
#else
#define ROCJIT_HIP_VERSION 0
#endif

/* A fallback: a function template whose signature does not depend on its (unused)
 * parameter, so a non-template of the same signature is preferred where one exists. */
#define ROCJIT_CUDA_FALLBACK template <int rocjit_fallback_ = 0>

#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif

namespace rocjit_cuda {
/* A load or store the cache need not keep: clang's non-temporal builtins take scalars
 * (and vectors); any other type is copied plainly.  Chosen by specialization, not
 * `if constexpr`, so that -std=c++14 sources take it too. */
template <class T, bool = __is_arithmetic(T)> struct nontemporal {
	__device__ static T load(const T *p) { return *p; }
	__device__ static void store(T *p, T v) { *p = v; }
};
template <class T> struct nontemporal<T, true> {
	__device__ static T load(const T *p) { return __builtin_nontemporal_load(p); }
	__device__ static void store(T *p, T v) { __builtin_nontemporal_store(v, p); }
};

/* Bit-copies a value of any trivially copyable type through 32-bit words. */
template <class T> struct words {
	int w[(sizeof(T) + 3) / 4];
};
} /* namespace rocjit_cuda */

/* ---- Warp intrinsics -------------------------------------------------------------------
 * A CUDA warp is 32 lanes; an AMD wavefront is 64 lanes on gfx9 (gfx90a, gfx942) and 32 on
 * gfx10/gfx11 in hipRTC's default wave32 mode.  `warpSize` is left as HIP defines it (64 on
 * gfx90a, 32 on gfx1030).  The model:
 *   - shuffles take `width` as CUDA does; its default is warpSize, the whole wavefront, as
 *     HIP's own *_sync functions (ROCm 6.2+) and as code written around warpSize expects
 *     (`for (o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(m, v, o)`).  Kernel
 *     libraries that hard-code 32-lane warps pass width 32 and get 32-lane segments;
 *   - votes are per 32-lane segment, because CUDA's masks are 32-bit: __ballot_sync and
 *     __activemask return the half of the wavefront's mask that holds the calling lane (bit
 *     k = lane k of the segment, so `mask & (1u << (threadIdx.x % 32))` works), and
 *     __any_sync/__all_sync/__uni_sync agree with that ballot; the __reduce_*_sync
 *     reductions also work per 32-lane segment.
 * MASKS ARE IGNORED: AMD has no independent thread scheduling; every lane named in a mask
 * must be active (it always is in the convergent code these calls are written for), and the
 * result is undefined as in CUDA when a named lane is not.  Values of any trivially copyable
 * type move through 32-bit shuffles (this also avoids HIP 5.2's ambiguous __shfl(__half)). */
#define ROCJIT_CUDA_WARP 32

__device__ inline unsigned int rocjit_cuda_segment_mask(unsigned long long wave_mask)
{
#if __AMDGCN_WAVEFRONT_SIZE == 64
	return (unsigned int)(wave_mask >> (__lane_id() & 32));
#else
	return (unsigned int)wave_mask;
#endif
}

namespace rocjit_cuda {
/* Moves var word by word through move(int) -> int (one of HIP's 32-bit shuffles). */
template <class T, class F> __device__ inline T shuffle_words(T var, F move)
{
	words<T> in, out;
	__builtin_memcpy(&in, &var, sizeof(T));
	for (unsigned i = 0; i < sizeof(in.w) / sizeof(int); i++)
		out.w[i] = move(in.w[i]);
	T r;
	__builtin_memcpy(&r, &out, sizeof(T));
	return r;
}
} /* namespace rocjit_cuda */

template <class T>
__device__ inline T __shfl_sync(unsigned long long mask, T var, int src_lane,
				int width = warpSize)
{
	(void)mask;
	return rocjit_cuda::shuffle_words(var, [=](int w) { return __shfl(w, src_lane, width); });
}
template <class T>
__device__ inline T __shfl_up_sync(unsigned long long mask, T var, unsigned int delta,
				   int width = warpSize)
{
	(void)mask;
	return rocjit_cuda::shuffle_words(var, [=](int w) { return __shfl_up(w, delta, width); });
}
template <class T>
__device__ inline T __shfl_down_sync(unsigned long long mask, T var, unsigned int delta,
				     int width = warpSize)
{
	(void)mask;
	return rocjit_cuda::shuffle_words(var,
					  [=](int w) { return __shfl_down(w, delta, width); });
}
template <class T>
__device__ inline T __shfl_xor_sync(unsigned long long mask, T var, int lane_mask,
				    int width = warpSize)
{
	(void)mask;
	return rocjit_cuda::shuffle_words(var,
					  [=](int w) { return __shfl_xor(w, lane_mask, width); });
}

__device__ inline unsigned int __ballot_sync(unsigned long long mask, int predicate)
{
	(void)mask;
	return rocjit_cuda_segment_mask(__ballot(predicate));
}
__device__ inline int __any_sync(unsigned long long mask, int predicate)
{
	return __ballot_sync(mask, predicate) != 0u;
}
__device__ inline int __all_sync(unsigned long long mask, int predicate)
{
	return __ballot_sync(mask, !predicate) == 0u;
}
__device__ inline unsigned int __uni_sync(unsigned long long mask, int predicate)
{
	unsigned int b = __ballot_sync(mask, predicate);
	return b == 0u || b == __ballot_sync(mask, 1);
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __activemask()
{
	return rocjit_cuda_segment_mask(__ballot(1));
}
/* A wavefront runs in lock step: __syncwarp only has to keep the compiler from moving
 * memory accesses across it and order them for the other lanes of the wavefront. */
ROCJIT_CUDA_FALLBACK __device__ inline void __syncwarp(unsigned long long mask = 0xffffffffu)
{
	(void)mask;
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
	__builtin_amdgcn_wave_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

/* Warp-wide integer reductions (sm_80): xor shuffles within the 32-lane warp. */
namespace rocjit_cuda {
template <class T, class F> __device__ inline T reduce_warp(unsigned long long mask, T v, F op)
{
	for (int o = ROCJIT_CUDA_WARP / 2; o > 0; o /= 2)
		v = op(v, __shfl_xor_sync(mask, v, o, ROCJIT_CUDA_WARP));
	return v;
}
} /* namespace rocjit_cuda */
#define ROCJIT_CUDA_REDUCE(NAME, T, EXPR)                                          \
	__device__ inline T NAME(unsigned long long mask, T value)                 \
	{                                                                          \
		return rocjit_cuda::reduce_warp(mask, value, [](T a, T b) { return EXPR; }); \
	}
ROCJIT_CUDA_REDUCE(__reduce_add_sync, unsigned int, a + b)
ROCJIT_CUDA_REDUCE(__reduce_add_sync, int, (int)((unsigned int)a + (unsigned int)b))
ROCJIT_CUDA_REDUCE(__reduce_max_sync, unsigned int, a > b ? a : b)
ROCJIT_CUDA_REDUCE(__reduce_max_sync, int, a > b ? a : b)
ROCJIT_CUDA_REDUCE(__reduce_min_sync, unsigned int, a < b ? a : b)
ROCJIT_CUDA_REDUCE(__reduce_min_sync, int, a < b ? a : b)
ROCJIT_CUDA_REDUCE(__reduce_and_sync, unsigned int, a & b)
ROCJIT_CUDA_REDUCE(__reduce_or_sync, unsigned int, a | b)
ROCJIT_CUDA_REDUCE(__reduce_xor_sync, unsigned int, a ^ b)
#undef ROCJIT_CUDA_REDUCE

/* ---- Atomics ----------------------------------------------------------------------------
 * Device-wide (agent) scope and relaxed order, as CUDA's plain atomics. */

/* 16-bit compare-and-swap (no HIP version we target has it; LLVM widens it to a 32-bit
 * CAS loop where the GPU has no 16-bit one). */
ROCJIT_CUDA_FALLBACK __device__ inline unsigned short atomicCAS(unsigned short *address,
							       unsigned short compare,
							       unsigned short val)
{
	__hip_atomic_compare_exchange_strong(address, &compare, val, __ATOMIC_RELAXED,
					     __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
	return compare;
}

namespace rocjit_cuda {
/* The read-modify-write loop of every atomic built from compare-and-swap: applies
 * next(old) to *address until no other thread wrote in between; returns the old word. */
template <class W, class F> __device__ inline W cas_update(W *address, F next)
{
	W old = __hip_atomic_load(address, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
	W assumed;
	do {
		assumed = old;
		old = atomicCAS(address, assumed, next(assumed));
	} while (old != assumed);
	return old;
}
} /* namespace rocjit_cuda */

/* 64-bit signed max/min (5.2 lacks them; 5.7's win where present). */
ROCJIT_CUDA_FALLBACK __device__ inline long long atomicMax(long long *address, long long val)
{
	return __hip_atomic_fetch_max(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
ROCJIT_CUDA_FALLBACK __device__ inline long long atomicMin(long long *address, long long val)
{
	return __hip_atomic_fetch_min(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned long long atomicMax(unsigned long long *address,
								   unsigned long long val)
{
	return __hip_atomic_fetch_max(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned long long atomicMin(unsigned long long *address,
								   unsigned long long val)
{
	return __hip_atomic_fetch_min(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* CUDA's block- and system-scope spellings: agent scope is at least as strong as block. */
template <class T, class V> __device__ inline T atomicAdd_block(T *address, V val)
{
	return atomicAdd(address, val);
}
template <class T, class V> __device__ inline T atomicMax_block(T *address, V val)
{
	return atomicMax(address, val);
}
template <class T, class V> __device__ inline T atomicMin_block(T *address, V val)
{
	return atomicMin(address, val);
}

/* ---- SIMD within a word (4 x 8-bit lanes) ----------------------------------------------
 * Scalar versions; LLVM turns most into the GPU's packed/byte instructions. */
namespace rocjit_cuda {
__device__ inline int sbyte(unsigned int w, int i) { return (int)(signed char)(w >> (8 * i)); }
__device__ inline unsigned int ubyte(unsigned int w, int i) { return (w >> (8 * i)) & 0xffu; }
__device__ inline unsigned int sat8(int v)
{
	return (unsigned int)(v > 127 ? 127 : v < -128 ? -128 : v) & 0xffu;
}
} /* namespace rocjit_cuda */

/* Per-byte signed saturating subtraction / addition. */
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vsubss4(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++)
		r |= rocjit_cuda::sat8(rocjit_cuda::sbyte(a, i) - rocjit_cuda::sbyte(b, i)) << (8 * i);
	return r;
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vaddss4(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++)
		r |= rocjit_cuda::sat8(rocjit_cuda::sbyte(a, i) + rocjit_cuda::sbyte(b, i)) << (8 * i);
	return r;
}
/* Per-byte wrapping subtraction / addition. */
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vsub4(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++)
		r |= ((rocjit_cuda::ubyte(a, i) - rocjit_cuda::ubyte(b, i)) & 0xffu) << (8 * i);
	return r;
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vadd4(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++)
		r |= ((rocjit_cuda::ubyte(a, i) + rocjit_cuda::ubyte(b, i)) & 0xffu) << (8 * i);
	return r;
}
/* Per-byte absolute value: saturating (|-128| = 127) and wrapping (|-128| = -128). */
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vabsss4(unsigned int a)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++) {
		int v = rocjit_cuda::sbyte(a, i);
		r |= rocjit_cuda::sat8(v < 0 ? -v : v) << (8 * i);
	}
	return r;
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vabs4(unsigned int a)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++) {
		int v = rocjit_cuda::sbyte(a, i);
		r |= ((unsigned int)(v < 0 ? -v : v) & 0xffu) << (8 * i);
	}
	return r;
}
/* Per-byte signed max / min. */
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vmaxs4(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++) {
		int x = rocjit_cuda::sbyte(a, i), y = rocjit_cuda::sbyte(b, i);
		r |= ((unsigned int)(x > y ? x : y) & 0xffu) << (8 * i);
	}
	return r;
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __vmins4(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	for (int i = 0; i < 4; i++) {
		int x = rocjit_cuda::sbyte(a, i), y = rocjit_cuda::sbyte(b, i);
		r |= ((unsigned int)(x < y ? x : y) & 0xffu) << (8 * i);
	}
	return r;
}

/* Dot product of 4 signed (or unsigned) bytes, accumulated in 32 bits without saturation.
 * v_dot4_i32_i8 (dot1-insts) is used where hipRTC 5.2 was seen to compile it (gfx906/908/
 * 90a, gfx1011/1012/103x); elsewhere (gfx900, gfx94x and gfx11 untested) the scalar sum. */
#if defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) ||    \
	defined(__gfx1011__) || defined(__gfx1012__) || defined(__gfx1030__) || \
	defined(__gfx1031__) || defined(__gfx1032__) || defined(__gfx1033__) || \
	defined(__gfx1034__) || defined(__gfx1035__) || defined(__gfx1036__)
#define ROCJIT_CUDA_HAVE_SDOT4 1
#endif
ROCJIT_CUDA_FALLBACK __device__ inline int __dp4a(int a, int b, int c)
{
#ifdef ROCJIT_CUDA_HAVE_SDOT4
	return __builtin_amdgcn_sdot4(a, b, c, false);
#else
	for (int i = 0; i < 4; i++)
		c += rocjit_cuda::sbyte((unsigned int)a, i) * rocjit_cuda::sbyte((unsigned int)b, i);
	return c;
#endif
}
ROCJIT_CUDA_FALLBACK __device__ inline unsigned int __dp4a(unsigned int a, unsigned int b,
							   unsigned int c)
{
	for (int i = 0; i < 4; i++)
		c += rocjit_cuda::ubyte(a, i) * rocjit_cuda::ubyte(b, i);
	return c;
}

/* ---- Integer min/max -------------------------------------------------------------------
 * CUDA declares min/max for every pair of 32- and 64-bit integer types (mixed signed and
 * unsigned give the unsigned type) plus umin, llmin, ullmin ...; HIP only has int, float,
 * double and templates over one T, so `min(unsigned, blockDim.x)` (HIP's blockDim.x is a
 * class with a conversion) or `min(size_t, size_t)` is ambiguous there. */
#define ROCJIT_CUDA_MINMAX(R, A, B)                                                \
	ROCJIT_CUDA_FALLBACK __device__ inline R min(const A a, const B b)         \
	{                                                                          \
		return (R)a < (R)b ? (R)a : (R)b;                                  \
	}                                                                          \
	ROCJIT_CUDA_FALLBACK __device__ inline R max(const A a, const B b)         \
	{                                                                          \
		return (R)a > (R)b ? (R)a : (R)b;                                  \
	}
ROCJIT_CUDA_MINMAX(unsigned int, unsigned int, unsigned int)
ROCJIT_CUDA_MINMAX(unsigned int, int, unsigned int)
ROCJIT_CUDA_MINMAX(unsigned int, unsigned int, int)
ROCJIT_CUDA_MINMAX(long, long, long)
ROCJIT_CUDA_MINMAX(unsigned long, unsigned long, unsigned long)
ROCJIT_CUDA_MINMAX(unsigned long, long, unsigned long)
ROCJIT_CUDA_MINMAX(unsigned long, unsigned long, long)
ROCJIT_CUDA_MINMAX(long long, long long, long long)
ROCJIT_CUDA_MINMAX(unsigned long long, unsigned long long, unsigned long long)
ROCJIT_CUDA_MINMAX(unsigned long long, long long, unsigned long long)
ROCJIT_CUDA_MINMAX(unsigned long long, unsigned long long, long long)
ROCJIT_CUDA_MINMAX(double, float, double)
ROCJIT_CUDA_MINMAX(double, double, float)
#undef ROCJIT_CUDA_MINMAX
#define ROCJIT_CUDA_NAMED_MINMAX(T, MIN, MAX)                                               \
	ROCJIT_CUDA_FALLBACK __device__ inline T MIN(const T a, const T b) { return a < b ? a : b; } \
	ROCJIT_CUDA_FALLBACK __device__ inline T MAX(const T a, const T b) { return a > b ? a : b; }
ROCJIT_CUDA_NAMED_MINMAX(unsigned int, umin, umax)
ROCJIT_CUDA_NAMED_MINMAX(long long, llmin, llmax)
ROCJIT_CUDA_NAMED_MINMAX(unsigned long long, ullmin, ullmax)
#undef ROCJIT_CUDA_NAMED_MINMAX

/* ---- Misc ------------------------------------------------------------------------------- */
ROCJIT_CUDA_FALLBACK __device__ inline void __trap() { __builtin_trap(); }
ROCJIT_CUDA_FALLBACK __device__ inline void __nanosleep(unsigned int ns)
{
	(void)ns;
	__builtin_amdgcn_s_sleep(1);
}

/* ---- Loads and stores with a cache hint ------------------------------------------------
 * __ldcg, __ldca, __ldcs, __ldlu, __ldcv and __stcg, __stcs, __stwb, __stwt choose how
 * NVIDIA's caches treat an access.  HIP has some of the loads for some types (__half, the
 * vector types); for every other type these templates (a non-template of HIP's wins) do
 * the plain access, and the streaming ones (__ldcs, __ldlu, __stcs: read or written once)
 * a non-temporal one, AMD's counterpart of that hint. */
template <class T> __device__ inline T __ldcg(const T *p) { return *p; }
template <class T> __device__ inline T __ldca(const T *p) { return *p; }
template <class T> __device__ inline T __ldcv(const T *p) { return *(const volatile T *)p; }
template <class T> __device__ inline T __ldcs(const T *p)
{
	return rocjit_cuda::nontemporal<T>::load(p);
}
template <class T> __device__ inline T __ldlu(const T *p)
{
	return rocjit_cuda::nontemporal<T>::load(p);
}
template <class T> __device__ inline void __stcg(T *p, T v) { *p = v; }
template <class T> __device__ inline void __stwb(T *p, T v) { *p = v; }
template <class T> __device__ inline void __stwt(T *p, T v) { *(volatile T *)p = v; }
template <class T> __device__ inline void __stcs(T *p, T v)
{
	rocjit_cuda::nontemporal<T>::store(p, v);
}

/* ---- Address spaces ----------------------------------------------------------------------
 * Where a generic pointer points, and a shared address as a number (which CUDA code hands
 * to inline PTX; on AMD it is the LDS offset). */
__device__ inline unsigned int __isShared(const void *p) { return __builtin_amdgcn_is_shared(p); }
__device__ inline unsigned int __isLocal(const void *p) { return __builtin_amdgcn_is_private(p); }
__device__ inline unsigned int __isGlobal(const void *p)
{
	return !__builtin_amdgcn_is_shared(p) && !__builtin_amdgcn_is_private(p);
}
__device__ inline size_t __cvta_generic_to_shared(const void *p)
{
	return (size_t)(const __attribute__((address_space(3))) void *)p;
}

/* ---- Match ----------------------------------------------------------------------------------
 * __match_any_sync: the lanes of the calling lane's 32-lane segment that hold the same
 * value (bit k = lane k of the segment, as __ballot_sync); __match_all_sync: the segment's
 * mask when all hold it (and *pred = 1), else 0. */
template <class T> __device__ inline unsigned int __match_any_sync(unsigned long long mask, T value)
{
	unsigned int same = 0;

	for (int k = 0; k < ROCJIT_CUDA_WARP; k++)
		if (__shfl_sync(mask, value, k, ROCJIT_CUDA_WARP) == value)
			same |= 1u << k;
	return same;
}
template <class T>
__device__ inline unsigned int __match_all_sync(unsigned long long mask, T value, int *pred)
{
	unsigned int all = __ballot_sync(mask, 1);
	int same = __match_any_sync(mask, value) == all;

	*pred = same;
	return same ? all : 0u;
}

/* ---- Misc ------------------------------------------------------------------------------- */
ROCJIT_CUDA_FALLBACK __device__ inline void __prof_trigger(int counter) { (void)counter; }
/* Programmatic dependent launch (sm_90): AMD launches have no such overlap, so the wait
 * has nothing to wait for and the trigger nothing to release. */
ROCJIT_CUDA_FALLBACK __device__ inline void cudaGridDependencySynchronize() {}
ROCJIT_CUDA_FALLBACK __device__ inline void cudaTriggerProgrammaticLaunchCompletion() {}

/* ---- Runtime API types -----------------------------------------------------------------
 * NVRTC declares these for device code (the device runtime's types), and kernel files
 * name them in declarations shared with host code: the error type and its success value,
 * streams, and the device properties (incomplete: device code only passes pointers). */
#ifndef ROCJIT_CUDA_RUNTIME_TYPES
#define ROCJIT_CUDA_RUNTIME_TYPES
typedef enum cudaError { cudaSuccess = 0 } cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
struct cudaDeviceProp;
#endif

/* bf16 beside fp16 without an include, as NVRTC has both. */
#include "cuda_bf16.h"

/* ---- Texture and surface objects -------------------------------------------------------
 * Names NVRTC gives kernel code without an include (rocjit_cuda_texture.h says what and
 * why).  clock_t comes with the implicit runtime headers above (devlib/std/time.h). */
#include "rocjit_cuda_texture.h"

#endif
