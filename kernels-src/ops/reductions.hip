/*
 * reductions.hip - sum, min, max, argmin and argmax over one dimension of a strided view
 * (the mean is the sum with s.scale = 1/len).
 *
 * Kernels: templates, each instantiated only when a request names it (a name expression;
 * op: sum min max argmin argmax; T a storage type of rj_ops.h as the compiler prints it:
 * float, double, rj_f16, rj_bf16, unsigned char, unsigned int, long long; O = T, or
 * uint32_t indices for argmin/argmax):
 *   reduce_rows<rj_r_<op>, T>(rj_red s, const T *x, O *y, void *ws)
 *       block per output (grid.x, grid-stride), threads along the reduced dim: for long
 *       reductions and for a contiguous reduced dim.  grid.y = s.splits: with splits > 1,
 *       block row b covers elements [b * chunk, (b + 1) * chunk) and writes a partial to
 *       ws (splits * nout values of the compute type, then as many uint32_t indices).
 *   reduce_final<rj_r_<op>, T>(rj_red s, const T *x, O *y, void *ws)
 *       block per output: combines the s.splits partials in ws into y (x unused).
 *   reduce_cols<rj_r_<op>, T>(rj_red s, const T *x, O *y, void *ws)
 *       thread per output (grid.x, grid-stride), each walking the reduced dim: for many
 *       outputs with a strided reduced dim (neighbouring threads read neighbouring
 *       addresses).  grid.y = s.splits splits the reduced dim as rows does.
 * Launch: blocks of exactly RJ_BLOCK (256) threads for rows and final, any 1-D size for
 * cols; no dynamic shared memory.
 *
 * Accumulation is in the compute type (f32 for f16/bf16/f32, f64, u32 for u8/u32, i64),
 * in an order fixed by the launch shape: the same launch gives the same bits every run.
 * min/max/argmin/argmax: a NaN beats every number and the lowest index wins ties, so the
 * result is the first NaN, else the first extreme - whatever order threads met them in.
 * Indices are uint32_t: the reduced dim must be shorter than 2^32 (the host checks).
 */
#include "rj_ops.h"

#define RJ_NONE 0xffffffffu /* no element yet */

/* Is (w, j) a better extreme than (v, i)?  Less: the minimum's order. */
template <bool Less, class C> __device__ static inline bool rj_better(C w, rj_u32 j, C v, rj_u32 i)
{
	if (j == RJ_NONE)
		return false;
	if (i == RJ_NONE)
		return true;
	bool wn = rj_isnan(w), vn = rj_isnan(v);
	if (wn || vn)
		return wn && (!vn || j < i);
	if (w == v)
		return j < i;
	return Less ? w < v : w > v;
}

struct rj_r_sum {
	template <class C> __device__ static void init(C &v, rj_u32 &i) { v = (C)0; i = 0; }
	template <class C> __device__ static void add(C &v, rj_u32 &i, C w, rj_u32 j)
	{
		(void)i;
		(void)j;
		v = rj_add(v, w);
	}
	template <class T, class C> __device__ static T out(C v, rj_u32 i, double scale)
	{
		(void)i;
		return rj_cvt<T>(scale == 1.0 ? v : (C)(v * scale));
	}
};

/* What an extreme reduction writes: the value, or its index. */
template <bool Arg> struct rj_pick {
	template <class T, class C> __device__ static T get(C v, rj_u32 i) { (void)i; return rj_cvt<T>(v); }
};
template <> struct rj_pick<true> {
	template <class T, class C> __device__ static T get(C v, rj_u32 i) { (void)v; return i; }
};

template <bool Less, bool Arg> struct rj_r_ext {
	template <class C> __device__ static void init(C &v, rj_u32 &i) { v = (C)0; i = RJ_NONE; }
	template <class C> __device__ static void add(C &v, rj_u32 &i, C w, rj_u32 j)
	{
		if (rj_better<Less>(w, j, v, i)) {
			v = w;
			i = j;
		}
	}
	template <class T, class C> __device__ static T out(C v, rj_u32 i, double scale)
	{
		(void)scale;
		return rj_pick<Arg>::template get<T>(v, i);
	}
};
/* Structs, not typedefs: a name expression names them, and hipRTC's textual lookup of the
 * lowered name sees "rj_r_ext<true, false>" where a typedef was written, misses, and
 * costs a second compile. */
struct rj_r_min : rj_r_ext<true, false> {};
struct rj_r_max : rj_r_ext<false, false> {};
struct rj_r_argmin : rj_r_ext<true, true> {};
struct rj_r_argmax : rj_r_ext<false, true> {};

/* The block's RJ_BLOCK (v, i) pairs combined into thread 0's, in a fixed tree order. */
template <class Op, class C> __device__ static void rj_block_combine(C *sv, rj_u32 *si, C &v, rj_u32 &i)
{
	unsigned int t = threadIdx.x;

	sv[t] = v;
	si[t] = i;
	__syncthreads();
	for (unsigned int w = RJ_BLOCK / 2; w > 0; w >>= 1) {
		if (t < w) {
			C a = sv[t];
			rj_u32 ai = si[t];
			Op::add(a, ai, sv[t + w], si[t + w]);
			sv[t] = a;
			si[t] = ai;
		}
		__syncthreads();
	}
	v = sv[0];
	i = si[0];
	__syncthreads(); /* the next output reuses sv and si */
}

template <class Op, class T, class O>
__device__ static void rj_red_rows(const rj_red &s, const T *x, O *y, void *ws)
{
	typedef typename rj_ct<T>::type C;
	__shared__ C sv[RJ_BLOCK];
	__shared__ rj_u32 si[RJ_BLOCK];
	rj_i64 lo = (rj_i64)blockIdx.y * s.chunk;
	rj_i64 hi = lo + s.chunk < s.len ? lo + s.chunk : s.len;

	for (rj_i64 o = blockIdx.x; o < s.nout; o += gridDim.x) {
		const T *p = x + rj_row_offset(o, s.ndim, s.dims, s.st);
		C v;
		rj_u32 i;

		Op::init(v, i);
		if (s.len_stride == 1) {
#pragma unroll 4
			for (rj_i64 r = lo + threadIdx.x; r < hi; r += RJ_BLOCK)
				Op::add(v, i, rj_load(p + r), (rj_u32)r);
		} else {
#pragma unroll 4
			for (rj_i64 r = lo + threadIdx.x; r < hi; r += RJ_BLOCK)
				Op::add(v, i, rj_load(p + r * s.len_stride), (rj_u32)r);
		}
		rj_block_combine<Op>(sv, si, v, i);
		if (threadIdx.x == 0) {
			if (s.splits == 1) {
				y[o] = Op::template out<O>(v, i, s.scale);
			} else {
				rj_i64 k = o * s.splits + blockIdx.y;
				((C *)ws)[k] = v;
				((rj_u32 *)((C *)ws + s.nout * s.splits))[k] = i;
			}
		}
	}
}

template <class Op, class T, class O>
__device__ static void rj_red_final(const rj_red &s, O *y, const void *ws)
{
	typedef typename rj_ct<T>::type C;
	__shared__ C sv[RJ_BLOCK];
	__shared__ rj_u32 si[RJ_BLOCK];
	const C *pv = (const C *)ws;
	const rj_u32 *pi = (const rj_u32 *)(pv + s.nout * s.splits);

	for (rj_i64 o = blockIdx.x; o < s.nout; o += gridDim.x) {
		C v;
		rj_u32 i;

		Op::init(v, i);
		for (rj_i64 k = threadIdx.x; k < s.splits; k += RJ_BLOCK)
			Op::add(v, i, pv[o * s.splits + k], pi[o * s.splits + k]);
		rj_block_combine<Op>(sv, si, v, i);
		if (threadIdx.x == 0)
			y[o] = Op::template out<O>(v, i, s.scale);
	}
}

template <class Op, class T, class O>
__device__ static void rj_red_cols(const rj_red &s, const T *x, O *y, void *ws)
{
	typedef typename rj_ct<T>::type C;
	rj_i64 lo = (rj_i64)blockIdx.y * s.chunk;
	rj_i64 hi = lo + s.chunk < s.len ? lo + s.chunk : s.len;

	RJ_GRID_LOOP(o, s.nout) {
		const T *p = x + rj_row_offset(o, s.ndim, s.dims, s.st);
		C v;
		rj_u32 i;

		Op::init(v, i);
		for (rj_i64 r = lo; r < hi; r++)
			Op::add(v, i, rj_load(p + r * s.len_stride), (rj_u32)r);
		if (s.splits == 1) {
			y[o] = Op::template out<O>(v, i, s.scale);
		} else {
			rj_i64 k = o * s.splits + blockIdx.y;
			((C *)ws)[k] = v;
			((rj_u32 *)((C *)ws + s.nout * s.splits))[k] = i;
		}
	}
}

/* What a reduction stores: T, or the index for argmin and argmax. */
template <class Op, class T> struct rj_red_out { typedef T type; };
template <class T> struct rj_red_out<rj_r_argmin, T> { typedef rj_u32 type; };
template <class T> struct rj_red_out<rj_r_argmax, T> { typedef rj_u32 type; };

template <class Op, class T>
__global__ void reduce_rows(rj_red s, const T *x, typename rj_red_out<Op, T>::type *y, void *ws)
{
	rj_red_rows<Op, T, typename rj_red_out<Op, T>::type>(s, x, y, ws);
}

template <class Op, class T>
__global__ void reduce_final(rj_red s, const T *x, typename rj_red_out<Op, T>::type *y, void *ws)
{
	(void)x;
	rj_red_final<Op, T, typename rj_red_out<Op, T>::type>(s, y, ws);
}

template <class Op, class T>
__global__ void reduce_cols(rj_red s, const T *x, typename rj_red_out<Op, T>::type *y, void *ws)
{
	rj_red_cols<Op, T, typename rj_red_out<Op, T>::type>(s, x, y, ws);
}
