/*
 * cast.hip - moving and making elements: type conversions, strided copies, copy2d, fill
 * and arange.
 *
 * Kernels: templates, each instantiated only when a request names it (a name expression;
 * F, T storage types of rj_ops.h as the compiler prints them: float, double, rj_f16,
 * rj_bf16, unsigned char, unsigned int, long long; B the unsigned type of the element's
 * bytes: unsigned char, unsigned short, unsigned int, unsigned long long):
 *   cast<F, T>(rj_ew s, const F *x, T *y)       every pair of distinct types (42);
 *                                               rounding as rj_ops.h's rj_cvt says
 *   copy<B>(rj_ew s, const B *x, B *y)          y = x between any two views
 *   copy2d<B>(rj_i64 rows, rj_i64 cols, rj_i64 src_stride, rj_i64 dst_stride,
 *             const B *src, B *dst)            Candle's copy2d, strides in elements
 *   fill<B>(rj_ew s, B *y, rj_u64 value)        the low bytes of value into every element
 *   arange<T>(rj_ew s, T *y, rj_u64 start, rj_u64 step)
 *       element i (row-major) = start + i * step; start and step are the bits of an f64
 *       for float types (computed in f64, rounded once), of an i64 for integer types
 *       (computed in 64 bits, wrapped to T)
 * Operands of s: x, y (casts, copies); y alone (fill, arange).
 * Launch: 1-D blocks of any size, any 1-D grid, no shared memory.
 */
#include "rj_ops.h"

/* The dense loops of casts and copies: x's four items into v, then out to y. */
#define RJ_LOAD(k, i) v[k] = x[i]
#define RJ_STORE_CAST(k, i) y[i] = rj_cvt<T>(v[k])
#define RJ_STORE_COPY(k, i) y[i] = v[k]

template <class F, class T> __device__ static void rj_cast(const rj_ew &s, const F *x, T *y)
{
	if (s.contig) {
		F v[4];
		RJ_DENSE_LOOP(s.n, RJ_LOAD, RJ_STORE_CAST);
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[2];
			rj_offsets<2>(s, i, o);
			y[o[1]] = rj_cvt<T>(x[o[0]]);
		}
	}
}

template <class F, class T> __global__ void cast(rj_ew s, const F *x, T *y)
{
	rj_cast(s, x, y);
}

/* ---- Bytes: copy, copy2d, fill ------------------------------------------------------------- */

template <class B> __device__ static void rj_copy(const rj_ew &s, const B *x, B *y)
{
	if (s.contig) {
		B v[4];
		RJ_DENSE_LOOP(s.n, RJ_LOAD, RJ_STORE_COPY);
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[2];
			rj_offsets<2>(s, i, o);
			y[o[1]] = x[o[0]];
		}
	}
}

#undef RJ_LOAD
#undef RJ_STORE_CAST
#undef RJ_STORE_COPY

template <class B>
__device__ static void rj_copy2d(rj_i64 rows, rj_i64 cols, rj_i64 ss, rj_i64 ds, const B *src,
				 B *dst)
{
	RJ_GRID_LOOP(i, rows * cols) {
		rj_i64 r = i / cols;
		rj_i64 c = i - r * cols;
		dst[r * ds + c] = src[r * ss + c];
	}
}

template <class B> __device__ static void rj_fill(const rj_ew &s, B *y, rj_u64 value)
{
	B v = (B)value;

	if (s.contig) {
		RJ_GRID_LOOP(i, s.n)
			y[i] = v;
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[1];
			rj_offsets<1>(s, i, o);
			y[o[0]] = v;
		}
	}
}

template <class B> __global__ void copy(rj_ew s, const B *x, B *y)
{
	rj_copy(s, x, y);
}

template <class B>
__global__ void copy2d(rj_i64 rows, rj_i64 cols, rj_i64 ss, rj_i64 ds, const B *src, B *dst)
{
	rj_copy2d(rows, cols, ss, ds, src, dst);
}

template <class B> __global__ void fill(rj_ew s, B *y, rj_u64 value)
{
	rj_fill(s, y, value);
}

/* ---- arange ------------------------------------------------------------------------------ */

template <class T> __device__ static inline T rj_arange_at(rj_i64 i, rj_u64 start, rj_u64 step)
{
	if (rj_is_int<T>::value)
		return rj_cvt<T>((rj_i64)(start + (rj_u64)i * step));
	return rj_cvt<T>(rj_bitsd(start) + (double)i * rj_bitsd(step));
}

template <class T> __device__ static void rj_arange(const rj_ew &s, T *y, rj_u64 start, rj_u64 step)
{
	if (s.contig) {
		RJ_GRID_LOOP(i, s.n)
			y[i] = rj_arange_at<T>(i, start, step);
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[1];
			rj_offsets<1>(s, i, o);
			y[o[0]] = rj_arange_at<T>(i, start, step);
		}
	}
}

template <class T> __global__ void arange(rj_ew s, T *y, rj_u64 start, rj_u64 step)
{
	rj_arange(s, y, start, step);
}
