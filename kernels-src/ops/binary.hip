/*
 * binary.hip - out = a op b elementwise over strided views (broadcasting is a 0 stride),
 * and where(cond, a, b).
 *
 * Kernels: templates, each instantiated only when a request names it (a name expression;
 * T a storage type of rj_ops.h as the compiler prints it: float, double, rj_f16, rj_bf16,
 * unsigned char, unsigned int, long long):
 *   binary<rj_bop_<op>, T>(rj_ew s, const T *a, const T *b, T *out)
 *       op: add sub mul div min max for every type; pow for the float types
 *   binary<rj_bop_<cmp>, T>(rj_ew s, const T *a, const T *b, uint8_t *out)
 *       cmp: eq ne lt le gt ge, every type; out is 0 or 1
 *   where<C, B>(rj_ew s, const C *cond, const B *a, const B *b, B *out)
 *       C: unsigned char, unsigned int, long long; B: unsigned char, unsigned short,
 *       unsigned int, unsigned long long by element bytes (a plain copy of the chosen
 *       element, so one kernel serves every type of that size)
 * Operands of s: a, b, out (binary); cond, a, b, out (where).
 * Integer division by zero gives 0; i64 MIN / -1 wraps to MIN.  min/max: a NaN wins.
 * Launch: 1-D blocks of any size, any 1-D grid, no shared memory.
 */
#include "rj_ops.h"

__device__ static inline float rj_div(float a, float b) { return a / b; }
__device__ static inline double rj_div(double a, double b) { return a / b; }
__device__ static inline rj_u32 rj_div(rj_u32 a, rj_u32 b) { return b ? a / b : 0u; }
__device__ static inline rj_i64 rj_div(rj_i64 a, rj_i64 b)
{
	if (b == 0)
		return 0;
	if (b == -1) /* the one quotient that overflows */
		return (rj_i64)(0ull - (rj_u64)a);
	return a / b;
}

/* Each op: its result in compute type C, and the type it is stored as (out<T>). */
#define RJ_BOP(name, expr)                                                             \
	struct rj_bop_##name {                                                        \
		template <class T> struct out { typedef T type; };                    \
		template <class C> __device__ C operator()(C a, C b) const { return expr; } \
	};
RJ_BOP(add, rj_add(a, b))
RJ_BOP(sub, rj_sub(a, b))
RJ_BOP(mul, rj_mul(a, b))
RJ_BOP(div, rj_div(a, b))
RJ_BOP(min, rj_min(a, b))
RJ_BOP(max, rj_max(a, b))
RJ_BOP(pow, rj_pow(a, b))

#define RJ_CMP(name, expr)                                                             \
	struct rj_bop_##name {                                                        \
		template <class T> struct out { typedef rj_u8 type; };                \
		template <class C> __device__ rj_u8 operator()(C a, C b) const        \
		{                                                                     \
			return (rj_u8)(expr);                                         \
		}                                                                     \
	};
RJ_CMP(eq, a == b)
RJ_CMP(ne, a != b)
RJ_CMP(lt, a < b)
RJ_CMP(le, a <= b)
RJ_CMP(gt, a > b)
RJ_CMP(ge, a >= b)

/* The result of F on compute values, stored as O: T for arithmetic, u8 for comparisons
 * (which are exact, so a u8 converts to itself). */
template <class T, class O, class F>
__device__ static void rj_zip(const rj_ew &s, const T *a, const T *b, O *out, F f)
{
	typedef typename rj_ct<T>::type C;

	if (s.contig) {
		C va[4], vb[4];
#define RJ_LOAD(k, i) (va[k] = rj_cvt<C>(a[i]), vb[k] = rj_cvt<C>(b[i]))
#define RJ_STORE(k, i) out[i] = rj_cvt<O>(f(va[k], vb[k]))
		RJ_DENSE_LOOP(s.n, RJ_LOAD, RJ_STORE);
#undef RJ_LOAD
#undef RJ_STORE
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[3];
			rj_offsets<3>(s, i, o);
			out[o[2]] = rj_cvt<O>(f(rj_cvt<C>(a[o[0]]), rj_cvt<C>(b[o[1]])));
		}
	}
}

template <class Op, class T>
__global__ void binary(rj_ew s, const T *a, const T *b, typename Op::template out<T>::type *out)
{
	rj_zip(s, a, b, out, Op());
}

/* ---- where ------------------------------------------------------------------------------ */

template <class C, class B>
__device__ static void rj_where(const rj_ew &s, const C *cond, const B *a, const B *b, B *out)
{
	if (s.contig) {
		RJ_GRID_LOOP(i, s.n)
			out[i] = cond[i] != 0 ? a[i] : b[i];
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[4];
			rj_offsets<4>(s, i, o);
			out[o[3]] = cond[o[0]] != 0 ? a[o[1]] : b[o[2]];
		}
	}
}

template <class C, class B>
__global__ void where(rj_ew s, const C *cond, const B *a, const B *b, B *out)
{
	rj_where(s, cond, a, b, out);
}
