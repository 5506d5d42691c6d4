/*
 * rj_ops.h - what every file of the ops kernel set shares: the element types, the one
 * conversion between any two of them, the launch shapes passed by value, and the index
 * arithmetic of strided views.
 *
 * Element types (storage, the C API's dtype name, compute type):
 *   float     f32   float          rj_f16    f16   float    (IEEE binary16 bits)
 *   double    f64   double         rj_bf16   bf16  float    (bfloat16 bits)
 *   uint8_t   u8    unsigned int   uint32_t  u32   unsigned int
 *   int64_t   i64   long long
 * The kernels are templates over these types, compiled one instantiation at a time: a
 * name expression spells a type as the compiler prints it (float, double, rj_f16,
 * rj_bf16, unsigned char, unsigned int, long long), so that hipRTC's textual lookup of
 * the lowered name matches and no second compile is needed.
 * f16 and bf16 are computed in float and rounded once per result.  Integer arithmetic
 * wraps (it is done in unsigned or 64-bit types, so there is no undefined overflow).
 *
 * Conversions (rj_cvt<To>(from)) follow Rust's `as`: float -> integer truncates toward zero
 * and saturates, NaN gives 0; integer -> integer keeps the low bits; every conversion to
 * f16, bf16 or f32 is ONE correctly rounded step (nearest, ties to even) - f64 -> f16 does
 * not go through f32, which would round twice.
 *
 * Portable HIP: hipRTC compiles it for AMD, NVRTC behind rocjit's HIP preamble for NVIDIA
 * (which defines __HIP_PLATFORM_NVIDIA__).  Only f16 <-> f32 uses a vendor type, for the
 * hardware conversion; the rest is plain C++ on bits.
 */
#pragma once
#include <hip/hip_runtime.h>

#define RJ_MAX_DIMS 6
#define RJ_BLOCK 256 /* threads per block of every kernel but argsort (the host's contract) */

typedef unsigned char rj_u8;
typedef unsigned int rj_u32;
typedef long long rj_i64;
typedef unsigned long long rj_u64;

struct rj_f16 {
	unsigned short bits;
};
struct rj_bf16 {
	unsigned short bits;
};

/* ---- Launch shapes (the host declares the same layouts) ------------------------------- */

/*
 * Elementwise work over up to 4 operands of one shape: element i (row-major over dims)
 * of operand k is at sum(coord_d * st[k][d]).  contig != 0: every operand is dense and
 * the offset of element i is i (the host decides; the kernel trusts it).
 */
struct rj_ew {
	rj_i64 n;
	int ndim;
	int contig;
	rj_i64 dims[RJ_MAX_DIMS];
	rj_i64 st[4][RJ_MAX_DIMS];
};

/*
 * A reduction: nout outputs (dense, row-major over the kept dims), each over len elements
 * len_stride apart.  Output o's first element is at sum(coord_d * st[d]) over the kept
 * dims.  A split launch (splits = gridDim.y > 1) covers chunk elements per block row and
 * leaves partials in the workspace for the final kernel; scale multiplies a sum (the
 * mean).
 */
struct rj_red {
	rj_i64 nout;
	rj_i64 len;
	rj_i64 len_stride;
	rj_i64 chunk;
	rj_i64 splits;
	double scale;
	int ndim;
	int pad_;
	rj_i64 dims[RJ_MAX_DIMS];
	rj_i64 st[RJ_MAX_DIMS];
};

/*
 * Row operations along the last dimension: rows x cols, row r of input and output at
 * sum(coord_d * in_st/out_st[d]) over the leading dims, columns in_cs / out_cs apart.
 */
struct rj_rows {
	rj_i64 rows;
	rj_i64 cols;
	rj_i64 in_cs;
	rj_i64 out_cs;
	double eps;
	int ndim;
	int pad_;
	rj_i64 dims[RJ_MAX_DIMS];
	rj_i64 in_st[RJ_MAX_DIMS];
	rj_i64 out_st[RJ_MAX_DIMS];
	rj_i64 aux_cs; /* column stride of alpha (and beta_cs of beta), 0 when absent   */
	rj_i64 beta_cs;
};

/*
 * Indexing: n work items over dims (the output for gathers; the source with dims[dim] = 1
 * for scatters, which loop over len along dim).  x = the indexed tensor (gather source,
 * scatter destination) of extent xlen along dim; ids and o = the other two operands.
 */
struct rj_idx {
	rj_i64 n;
	int ndim;
	int dim;
	rj_i64 len;
	rj_i64 xlen;
	rj_i64 dims[RJ_MAX_DIMS];
	rj_i64 xs[RJ_MAX_DIMS];
	rj_i64 is[RJ_MAX_DIMS];
	rj_i64 os[RJ_MAX_DIMS];
};

/* ---- Bits ----------------------------------------------------------------------------- */

__device__ static inline unsigned int rj_fbits(float x)
{
	union { float f; unsigned int u; } v;
	v.f = x;
	return v.u;
}
__device__ static inline float rj_bitsf(unsigned int u)
{
	union { float f; unsigned int u; } v;
	v.u = u;
	return v.f;
}
__device__ static inline rj_u64 rj_dbits(double x)
{
	union { double d; rj_u64 u; } v;
	v.d = x;
	return v.u;
}
__device__ static inline double rj_bitsd(rj_u64 u)
{
	union { double d; rj_u64 u; } v;
	v.u = u;
	return v.d;
}

/*
 * x rounded to nearest-even into a binary format with ebits exponent and mbits fraction
 * bits (f16: 5, 10; bf16: 8, 7), as its bits: subnormals, overflow to infinity, NaN kept
 * quiet.  Done on the f64 bits, so f64 -> f16/bf16 rounds once.
 */
__device__ static inline unsigned short rj_round_f64(double x, int ebits, int mbits)
{
	rj_u64 b = rj_dbits(x);
	unsigned int sign = (unsigned int)(b >> 63) << (ebits + mbits);
	int e = (int)((b >> 52) & 0x7ff);
	rj_u64 m = b & ((1ull << 52) - 1);
	unsigned int inf = ((1u << ebits) - 1) << mbits;
	int bias = (1 << (ebits - 1)) - 1;

	if (e == 0x7ff)
		return (unsigned short)(sign | inf | (m ? 1u << (mbits - 1) : 0u));
	if (e == 0) /* zero or an f64 subnormal: far below half the smallest result */
		return (unsigned short)sign;
	rj_u64 sig = (1ull << 52) | m;
	int te = e - 1023 + bias; /* biased exponent in the result format */
	int shift = 52 - mbits;
	rj_u64 high = 0;
	if (te < 1) { /* a subnormal result: shift the implicit bit down */
		shift += 1 - te;
		if (shift > 54)
			return (unsigned short)sign;
	} else {
		high = (rj_u64)(te - 1) << mbits;
	}
	rj_u64 q = sig >> shift;
	rj_u64 rem = sig & ((1ull << shift) - 1);
	rj_u64 half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	/* q holds the implicit bit: adding it to (te - 1) << mbits makes the exponent te,
	 * and a rounding carry moves on into the exponent by itself. */
	rj_u64 r = high + q;
	if (r >= inf)
		r = inf;
	return (unsigned short)(sign | (unsigned int)r);
}

__device__ static inline unsigned short rj_f32_to_bf16(float x)
{
	unsigned int u = rj_fbits(x);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (unsigned short)((u >> 16) | 0x40);
	return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

#ifdef __HIP_PLATFORM_NVIDIA__
__device__ static inline float rj_f16_to_f32(unsigned short h)
{
	return __half2float(__ushort_as_half(h));
}
__device__ static inline unsigned short rj_f32_to_f16(float x)
{
	return __half_as_ushort(__float2half_rn(x));
}
#else
__device__ static inline float rj_f16_to_f32(unsigned short h)
{
	union { _Float16 f; unsigned short u; } v;
	v.u = h;
	return (float)v.f;
}
__device__ static inline unsigned short rj_f32_to_f16(float x)
{
	union { _Float16 f; unsigned short u; } v;
	v.f = (_Float16)x; /* v_cvt_f16_f32: round to nearest even */
	return v.u;
}
#endif

/* An i64 as an f64 that rounds to the same narrow result as the i64 itself: exact below
 * 2^53; above, the bits shifted out are folded into a sticky bit first. */
__device__ static inline double rj_i64_sticky(rj_i64 x)
{
	rj_u64 a = x < 0 ? 0ull - (rj_u64)x : (rj_u64)x;
	double d;

	if (a < (1ull << 53))
		d = (double)a;
	else
		d = (double)((a >> 11) | ((a & 0x7ff) != 0)) * 2048.0;
	return x < 0 ? -d : d;
}

/* ---- Conversions: rj_cvt<To>(from) ------------------------------------------------------ */

__device__ static inline float rj_to_f32(float x) { return x; }
__device__ static inline float rj_to_f32(double x) { return (float)x; }
__device__ static inline float rj_to_f32(rj_f16 x) { return rj_f16_to_f32(x.bits); }
__device__ static inline float rj_to_f32(rj_bf16 x) { return rj_bitsf((unsigned int)x.bits << 16); }
__device__ static inline float rj_to_f32(rj_u8 x) { return (float)x; }
__device__ static inline float rj_to_f32(rj_u32 x) { return (float)x; }
__device__ static inline float rj_to_f32(rj_i64 x) { return (float)x; }

__device__ static inline double rj_to_f64(float x) { return x; }
__device__ static inline double rj_to_f64(double x) { return x; }
__device__ static inline double rj_to_f64(rj_f16 x) { return rj_to_f32(x); }
__device__ static inline double rj_to_f64(rj_bf16 x) { return rj_to_f32(x); }
__device__ static inline double rj_to_f64(rj_u8 x) { return x; }
__device__ static inline double rj_to_f64(rj_u32 x) { return x; }
__device__ static inline double rj_to_f64(rj_i64 x) { return (double)x; }

/* Integers take the f32 path without a double rounding: below 2^24 the f32 is exact, and
 * at or above 65520 both the f32 and the integer round to infinity. */
__device__ static inline rj_f16 rj_to_f16(float x) { rj_f16 r = { rj_f32_to_f16(x) }; return r; }
__device__ static inline rj_f16 rj_to_f16(double x) { rj_f16 r = { rj_round_f64(x, 5, 10) }; return r; }
__device__ static inline rj_f16 rj_to_f16(rj_f16 x) { return x; }
__device__ static inline rj_f16 rj_to_f16(rj_bf16 x) { return rj_to_f16(rj_to_f32(x)); }
__device__ static inline rj_f16 rj_to_f16(rj_u8 x) { return rj_to_f16((float)x); }
__device__ static inline rj_f16 rj_to_f16(rj_u32 x) { return rj_to_f16((float)x); }
__device__ static inline rj_f16 rj_to_f16(rj_i64 x) { return rj_to_f16((float)x); }

__device__ static inline rj_bf16 rj_to_bf16(float x) { rj_bf16 r = { rj_f32_to_bf16(x) }; return r; }
__device__ static inline rj_bf16 rj_to_bf16(double x) { rj_bf16 r = { rj_round_f64(x, 8, 7) }; return r; }
__device__ static inline rj_bf16 rj_to_bf16(rj_f16 x) { return rj_to_bf16(rj_to_f32(x)); }
__device__ static inline rj_bf16 rj_to_bf16(rj_bf16 x) { return x; }
__device__ static inline rj_bf16 rj_to_bf16(rj_u8 x) { return rj_to_bf16((float)x); }
__device__ static inline rj_bf16 rj_to_bf16(rj_u32 x) { return rj_to_bf16((double)x); }
__device__ static inline rj_bf16 rj_to_bf16(rj_i64 x) { return rj_to_bf16(rj_i64_sticky(x)); }

/* Float -> integer: toward zero, saturating, NaN -> 0 (through f64: exact for f32). */
__device__ static inline rj_u64 rj_sat_u(double x, double limit, rj_u64 max)
{
	if (!(x > 0.0)) /* NaN, zero and negatives */
		return 0;
	return x >= limit ? max : (rj_u64)x;
}
__device__ static inline rj_i64 rj_sat_i64(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775808.0)
		return 0x7fffffffffffffffll;
	if (x < -9223372036854775808.0)
		return -0x7fffffffffffffffll - 1;
	return (rj_i64)x;
}

__device__ static inline rj_u8 rj_to_u8(double x) { return (rj_u8)rj_sat_u(x, 256.0, 255); }
__device__ static inline rj_u8 rj_to_u8(float x) { return rj_to_u8((double)x); }
__device__ static inline rj_u8 rj_to_u8(rj_f16 x) { return rj_to_u8((double)rj_to_f32(x)); }
__device__ static inline rj_u8 rj_to_u8(rj_bf16 x) { return rj_to_u8((double)rj_to_f32(x)); }
__device__ static inline rj_u8 rj_to_u8(rj_u8 x) { return x; }
__device__ static inline rj_u8 rj_to_u8(rj_u32 x) { return (rj_u8)x; }
__device__ static inline rj_u8 rj_to_u8(rj_i64 x) { return (rj_u8)x; }

__device__ static inline rj_u32 rj_to_u32(double x) { return (rj_u32)rj_sat_u(x, 4294967296.0, 0xffffffffu); }
__device__ static inline rj_u32 rj_to_u32(float x) { return rj_to_u32((double)x); }
__device__ static inline rj_u32 rj_to_u32(rj_f16 x) { return rj_to_u32((double)rj_to_f32(x)); }
__device__ static inline rj_u32 rj_to_u32(rj_bf16 x) { return rj_to_u32((double)rj_to_f32(x)); }
__device__ static inline rj_u32 rj_to_u32(rj_u8 x) { return x; }
__device__ static inline rj_u32 rj_to_u32(rj_u32 x) { return x; }
__device__ static inline rj_u32 rj_to_u32(rj_i64 x) { return (rj_u32)x; }

__device__ static inline rj_i64 rj_to_i64(double x) { return rj_sat_i64(x); }
__device__ static inline rj_i64 rj_to_i64(float x) { return rj_sat_i64((double)x); }
__device__ static inline rj_i64 rj_to_i64(rj_f16 x) { return rj_sat_i64((double)rj_to_f32(x)); }
__device__ static inline rj_i64 rj_to_i64(rj_bf16 x) { return rj_sat_i64((double)rj_to_f32(x)); }
__device__ static inline rj_i64 rj_to_i64(rj_u8 x) { return x; }
__device__ static inline rj_i64 rj_to_i64(rj_u32 x) { return x; }
__device__ static inline rj_i64 rj_to_i64(rj_i64 x) { return x; }

template <class To> struct rj_conv;
template <> struct rj_conv<float> {
	template <class F> __device__ static float from(F x) { return rj_to_f32(x); }
};
template <> struct rj_conv<double> {
	template <class F> __device__ static double from(F x) { return rj_to_f64(x); }
};
template <> struct rj_conv<rj_f16> {
	template <class F> __device__ static rj_f16 from(F x) { return rj_to_f16(x); }
};
template <> struct rj_conv<rj_bf16> {
	template <class F> __device__ static rj_bf16 from(F x) { return rj_to_bf16(x); }
};
template <> struct rj_conv<rj_u8> {
	template <class F> __device__ static rj_u8 from(F x) { return rj_to_u8(x); }
};
/* The compute type of u8 and u32: u32 from u32 keeps the bits, which is u8's wrap too. */
template <> struct rj_conv<rj_u32> {
	template <class F> __device__ static rj_u32 from(F x) { return rj_to_u32(x); }
};
template <> struct rj_conv<rj_i64> {
	template <class F> __device__ static rj_i64 from(F x) { return rj_to_i64(x); }
};

template <class To, class From> __device__ static inline To rj_cvt(From x)
{
	return rj_conv<To>::from(x);
}

/* The compute type of each storage type. */
template <class T> struct rj_ct;
template <> struct rj_ct<float> { typedef float type; };
template <> struct rj_ct<double> { typedef double type; };
template <> struct rj_ct<rj_f16> { typedef float type; };
template <> struct rj_ct<rj_bf16> { typedef float type; };
template <> struct rj_ct<rj_u8> { typedef rj_u32 type; };
template <> struct rj_ct<rj_u32> { typedef rj_u32 type; };
template <> struct rj_ct<rj_i64> { typedef rj_i64 type; };

template <class T> __device__ static inline typename rj_ct<T>::type rj_load(const T *p)
{
	return rj_cvt<typename rj_ct<T>::type>(*p);
}

/* NaN test that survives any math flags (x != x is what IEEE promises). */
template <class C> __device__ static inline bool rj_isnan(C x)
{
	return x != x;
}

/* ---- Math on the float compute types ------------------------------------------------ */

__device__ static inline float rj_exp(float x) { return expf(x); }
__device__ static inline double rj_exp(double x) { return exp(x); }
__device__ static inline float rj_log(float x) { return logf(x); }
__device__ static inline double rj_log(double x) { return log(x); }
__device__ static inline float rj_sqrt(float x) { return sqrtf(x); }
__device__ static inline double rj_sqrt(double x) { return sqrt(x); }
__device__ static inline float rj_sin(float x) { return sinf(x); }
__device__ static inline double rj_sin(double x) { return sin(x); }
__device__ static inline float rj_cos(float x) { return cosf(x); }
__device__ static inline double rj_cos(double x) { return cos(x); }
__device__ static inline float rj_tanh(float x) { return tanhf(x); }
__device__ static inline double rj_tanh(double x) { return tanh(x); }
__device__ static inline float rj_erf(float x) { return erff(x); }
__device__ static inline double rj_erf(double x) { return erf(x); }
__device__ static inline float rj_floor(float x) { return floorf(x); }
__device__ static inline double rj_floor(double x) { return floor(x); }
__device__ static inline float rj_ceil(float x) { return ceilf(x); }
__device__ static inline double rj_ceil(double x) { return ceil(x); }
__device__ static inline float rj_round(float x) { return roundf(x); }
__device__ static inline double rj_round(double x) { return round(x); }
__device__ static inline float rj_pow(float x, float e) { return powf(x, e); }
__device__ static inline double rj_pow(double x, double e) { return pow(x, e); }

/* -infinity in a float compute type. */
template <class C> __device__ static inline C rj_neg_inf();
template <> __device__ inline float rj_neg_inf<float>() { return rj_bitsf(0xff800000u); }
template <> __device__ inline double rj_neg_inf<double>() { return rj_bitsd(0xfff0000000000000ull); }

/* ---- Arithmetic shared by the files ------------------------------------------------- */

template <class T> struct rj_is_int { enum { value = 0 }; };
template <> struct rj_is_int<rj_u8> { enum { value = 1 }; };
template <> struct rj_is_int<rj_u32> { enum { value = 1 }; };
template <> struct rj_is_int<rj_i64> { enum { value = 1 }; };

/* Wrapping integer arithmetic: i64 goes through u64, where overflow is defined. */
template <class C> __device__ static inline C rj_mul(C a, C b) { return a * b; }
template <class C> __device__ static inline C rj_add(C a, C b) { return a + b; }
template <> __device__ inline rj_i64 rj_mul(rj_i64 a, rj_i64 b)
{
	return (rj_i64)((rj_u64)a * (rj_u64)b);
}
template <> __device__ inline rj_i64 rj_add(rj_i64 a, rj_i64 b)
{
	return (rj_i64)((rj_u64)a + (rj_u64)b);
}

template <class C> __device__ static inline C rj_sub(C a, C b) { return a - b; }
template <> __device__ inline rj_i64 rj_sub(rj_i64 a, rj_i64 b)
{
	return (rj_i64)((rj_u64)a - (rj_u64)b);
}

/* min and max where a NaN operand wins (as PyTorch's do). */
template <class C> __device__ static inline C rj_min(C a, C b)
{
	return (rj_isnan(a) || a < b) ? a : b;
}
template <class C> __device__ static inline C rj_max(C a, C b)
{
	return (rj_isnan(a) || a > b) ? a : b;
}

/* ---- Index arithmetic ------------------------------------------------------------------ */

/* Offsets of element i (row-major over dims) in nops operands. */
template <int NOPS>
__device__ static inline void rj_offsets(const rj_ew &s, rj_i64 i, rj_i64 *off)
{
	for (int k = 0; k < NOPS; k++)
		off[k] = 0;
	for (int d = s.ndim - 1; d >= 0; d--) {
		rj_i64 q = i / s.dims[d];
		rj_i64 c = i - q * s.dims[d];
		for (int k = 0; k < NOPS; k++)
			off[k] += c * s.st[k][d];
		i = q;
	}
}

/* Offset of row r over leading dims with strides st. */
__device__ static inline rj_i64 rj_row_offset(rj_i64 r, int ndim, const rj_i64 *dims,
					      const rj_i64 *st)
{
	rj_i64 off = 0;

	for (int d = ndim - 1; d >= 0; d--) {
		rj_i64 q = r / dims[d];
		off += (r - q * dims[d]) * st[d];
		r = q;
	}
	return off;
}

/* First item and step of a 1-D grid-stride loop. */
#define RJ_GRID_LOOP(i, n)                                                              \
	for (rj_i64 i = (rj_i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n);          \
	     i += (rj_i64)gridDim.x * blockDim.x)

/*
 * A grid-stride loop over the dense items [0, n), four at a time: LOAD(k, i) for the four
 * items first, then STORE(k, i) - loads are not held back behind stores that might alias
 * them, so each thread has four loads in flight.  The rest goes one by one.  The items
 * are RJ_GRID_LOOP's; only the order within a thread differs.
 */
#define RJ_DENSE_LOOP(n, LOAD, STORE)                                                   \
	do {                                                                            \
		rj_i64 rj_s_ = (rj_i64)gridDim.x * blockDim.x;                           \
		rj_i64 rj_i_ = (rj_i64)blockIdx.x * blockDim.x + threadIdx.x;            \
		for (; rj_i_ + 3 * rj_s_ < (n); rj_i_ += 4 * rj_s_) {                    \
			LOAD(0, rj_i_);                                                  \
			LOAD(1, rj_i_ + rj_s_);                                          \
			LOAD(2, rj_i_ + 2 * rj_s_);                                      \
			LOAD(3, rj_i_ + 3 * rj_s_);                                      \
			STORE(0, rj_i_);                                                 \
			STORE(1, rj_i_ + rj_s_);                                         \
			STORE(2, rj_i_ + 2 * rj_s_);                                     \
			STORE(3, rj_i_ + 3 * rj_s_);                                     \
		}                                                                       \
		for (; rj_i_ < (n); rj_i_ += rj_s_) {                                    \
			LOAD(0, rj_i_);                                                  \
			STORE(0, rj_i_);                                                 \
		}                                                                       \
	} while (0)
