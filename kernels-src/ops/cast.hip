/*
 * cast.hip - moving and making elements: type conversions, strided copies, copy2d, fill
 * and arange.
 *
 * Kernels (T, F type suffixes, see rj_ops.h; N element bytes 1 2 4 8):
 *   cast_<F>_<T>(rj_ew s, const F *x, T *y)     every pair of distinct types (42);
 *                                               rounding as rj_ops.h's rj_cvt says
 *   copy_b<N>(rj_ew s, const B *x, B *y)        y = x between any two views
 *   copy2d_b<N>(rj_i64 rows, rj_i64 cols, rj_i64 src_stride, rj_i64 dst_stride,
 *               const B *src, B *dst)          Candle's copy2d, strides in elements
 *   fill_b<N>(rj_ew s, B *y, rj_u64 value)      the low N bytes of value into every element
 *   arange_<T>(rj_ew s, T *y, rj_u64 start, rj_u64 step)
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

#define RJ_CAST(F, f, T, t)                                                           \
	extern "C" __global__ void cast_##f##_##t(rj_ew s, const F *x, T *y)          \
	{                                                                             \
		rj_cast(s, x, y);                                                     \
	}
/* Every ordered pair of distinct types (the same type is a copy). */
RJ_CAST(float, f32, rj_f16, f16) RJ_CAST(float, f32, rj_bf16, bf16)
RJ_CAST(float, f32, double, f64)
RJ_CAST(float, f32, rj_u8, u8) RJ_CAST(float, f32, rj_u32, u32) RJ_CAST(float, f32, rj_i64, i64)
RJ_CAST(rj_f16, f16, float, f32) RJ_CAST(rj_f16, f16, rj_bf16, bf16)
RJ_CAST(rj_f16, f16, double, f64)
RJ_CAST(rj_f16, f16, rj_u8, u8) RJ_CAST(rj_f16, f16, rj_u32, u32)
RJ_CAST(rj_f16, f16, rj_i64, i64)
RJ_CAST(rj_bf16, bf16, float, f32) RJ_CAST(rj_bf16, bf16, rj_f16, f16)
RJ_CAST(rj_bf16, bf16, double, f64)
RJ_CAST(rj_bf16, bf16, rj_u8, u8) RJ_CAST(rj_bf16, bf16, rj_u32, u32)
RJ_CAST(rj_bf16, bf16, rj_i64, i64)
RJ_CAST(double, f64, float, f32) RJ_CAST(double, f64, rj_f16, f16)
RJ_CAST(double, f64, rj_bf16, bf16)
RJ_CAST(double, f64, rj_u8, u8) RJ_CAST(double, f64, rj_u32, u32)
RJ_CAST(double, f64, rj_i64, i64)
RJ_CAST(rj_u8, u8, float, f32) RJ_CAST(rj_u8, u8, rj_f16, f16) RJ_CAST(rj_u8, u8, rj_bf16, bf16)
RJ_CAST(rj_u8, u8, double, f64) RJ_CAST(rj_u8, u8, rj_u32, u32) RJ_CAST(rj_u8, u8, rj_i64, i64)
RJ_CAST(rj_u32, u32, float, f32) RJ_CAST(rj_u32, u32, rj_f16, f16)
RJ_CAST(rj_u32, u32, rj_bf16, bf16)
RJ_CAST(rj_u32, u32, double, f64) RJ_CAST(rj_u32, u32, rj_u8, u8)
RJ_CAST(rj_u32, u32, rj_i64, i64)
RJ_CAST(rj_i64, i64, float, f32) RJ_CAST(rj_i64, i64, rj_f16, f16)
RJ_CAST(rj_i64, i64, rj_bf16, bf16)
RJ_CAST(rj_i64, i64, double, f64) RJ_CAST(rj_i64, i64, rj_u8, u8)
RJ_CAST(rj_i64, i64, rj_u32, u32)

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

#define RJ_BYTES(B, n)                                                                \
	extern "C" __global__ void copy_b##n(rj_ew s, const B *x, B *y)               \
	{                                                                             \
		rj_copy(s, x, y);                                                     \
	}                                                                             \
	extern "C" __global__ void copy2d_b##n(rj_i64 rows, rj_i64 cols, rj_i64 ss,   \
					       rj_i64 ds, const B *src, B *dst)        \
	{                                                                             \
		rj_copy2d(rows, cols, ss, ds, src, dst);                              \
	}                                                                             \
	extern "C" __global__ void fill_b##n(rj_ew s, B *y, rj_u64 value)             \
	{                                                                             \
		rj_fill(s, y, value);                                                 \
	}
RJ_BYTES(rj_u8, 1)
RJ_BYTES(unsigned short, 2)
RJ_BYTES(rj_u32, 4)
RJ_BYTES(rj_u64, 8)

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

#define RJ_ARANGE(T, t)                                                               \
	extern "C" __global__ void arange_##t(rj_ew s, T *y, rj_u64 start, rj_u64 step) \
	{                                                                             \
		rj_arange(s, y, start, step);                                         \
	}
RJ_EACH_TYPE(RJ_ARANGE)
