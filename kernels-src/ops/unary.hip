/*
 * unary.hip - y = f(x) elementwise over strided views: the unary ops, and the ones with
 * scalar parameters (affine, elu, powf, clamp).
 *
 * Kernels (T the type suffix, see rj_ops.h):
 *   unary_<op>_<T>(rj_ew s, const T *x, T *y)
 *       op: neg abs exp log sqrt sin cos tanh relu gelu gelu_erf silu sigmoid recip sqr
 *           floor ceil round sign for f32 f16 bf16 f64;
 *           sqr sign for u8 u32; neg abs sqr relu sign for i64.
 *   affine_<T>(rj_ew s, const T *x, T *y, double mul, double add)   every type
 *   clamp_<T>(rj_ew s, const T *x, T *y, double lo, double hi)      every type
 *   elu_<T>(rj_ew s, const T *x, T *y, double alpha, double unused)  float types
 *   powf_<T>(rj_ew s, const T *x, T *y, double e, double unused)     float types
 * Operand 0 of s is x, operand 1 is y.  Launch: 1-D blocks of any size, any 1-D grid (a
 * grid-stride loop covers s.n), no shared memory.
 */
#include "rj_ops.h"

/* x < 0, without a comparison an unsigned type would warn about. */
template <class C> __device__ static inline bool rj_neg_p(C x) { return x < (C)0; }
template <> __device__ inline bool rj_neg_p(rj_u32 x) { (void)x; return false; }

#define RJ_OP(name, expr)                                                        \
	struct rj_op_##name {                                                   \
		template <class C> __device__ C operator()(C x) const { return expr; } \
	};

RJ_OP(neg, (C)(rj_mul(x, (C)-1)))
RJ_OP(abs, rj_neg_p(x) ? (C)rj_mul(x, (C)-1) : x)
RJ_OP(exp, rj_exp(x))
RJ_OP(log, rj_log(x))
RJ_OP(sqrt, rj_sqrt(x))
RJ_OP(sin, rj_sin(x))
RJ_OP(cos, rj_cos(x))
RJ_OP(tanh, rj_tanh(x))
RJ_OP(relu, x > (C)0 ? x : (C)0)
RJ_OP(gelu, (C)0.5 * x * ((C)1 + rj_tanh((C)0.7978845608028654 * (x + (C)0.044715 * x * x * x))))
RJ_OP(gelu_erf, (C)0.5 * x * ((C)1 + rj_erf(x * (C)0.7071067811865476)))
RJ_OP(silu, x / ((C)1 + rj_exp(-x)))
RJ_OP(sigmoid, (C)1 / ((C)1 + rj_exp(-x)))
RJ_OP(recip, (C)1 / x)
RJ_OP(sqr, rj_mul(x, x))
RJ_OP(floor, rj_floor(x))
RJ_OP(ceil, rj_ceil(x))
RJ_OP(round, rj_round(x))
/* NaN and zeros come back unchanged (x itself). */
RJ_OP(sign, x > (C)0 ? (C)1 : rj_neg_p(x) ? (C)rj_mul((C)1, (C)-1) : x)

/* ---- Ops with scalar parameters --------------------------------------------------------- */

/* A double parameter in T's compute type: integers convert to T first (as Candle does),
 * floats keep their compute precision. */
template <class T> __device__ static inline typename rj_ct<T>::type rj_param(double v)
{
	typedef typename rj_ct<T>::type C;
	return rj_is_int<T>::value ? rj_cvt<C>(rj_cvt<T>(v)) : rj_cvt<C>(v);
}

template <class C> struct rj_op_affine {
	C mul, add;
	__device__ C operator()(C x) const { return rj_add(rj_mul(x, mul), add); }
};
template <class C> struct rj_op_clamp {
	C lo, hi;
	__device__ C operator()(C x) const
	{
		if (rj_isnan(x))
			return x;
		return x < lo ? lo : x > hi ? hi : x;
	}
};
template <class C> struct rj_op_elu {
	C alpha;
	__device__ C operator()(C x) const { return x > (C)0 ? x : alpha * (rj_exp(x) - (C)1); }
};
template <class C> struct rj_op_powf {
	C e;
	__device__ C operator()(C x) const { return rj_pow(x, e); }
};

/* ---- The loop ------------------------------------------------------------------------ */

template <class T, class F> __device__ static void rj_map(const rj_ew &s, const T *x, T *y, F f)
{
	typedef typename rj_ct<T>::type C;

	if (s.contig) {
		C v[4];
#define RJ_LOAD(k, i) v[k] = rj_cvt<C>(x[i])
#define RJ_STORE(k, i) y[i] = rj_cvt<T>(f(v[k]))
		RJ_DENSE_LOOP(s.n, RJ_LOAD, RJ_STORE);
#undef RJ_LOAD
#undef RJ_STORE
	} else {
		RJ_GRID_LOOP(i, s.n) {
			rj_i64 o[2];
			rj_offsets<2>(s, i, o);
			y[o[1]] = rj_cvt<T>(f(rj_cvt<C>(x[o[0]])));
		}
	}
}

#define RJ_UNARY(op, T, t)                                                            \
	extern "C" __global__ void unary_##op##_##t(rj_ew s, const T *x, T *y)        \
	{                                                                             \
		rj_map(s, x, y, rj_op_##op());                                        \
	}

#define RJ_FLOAT_UNARY(T, t)                                                          \
	RJ_UNARY(neg, T, t) RJ_UNARY(abs, T, t) RJ_UNARY(exp, T, t) RJ_UNARY(log, T, t) \
	RJ_UNARY(sqrt, T, t) RJ_UNARY(sin, T, t) RJ_UNARY(cos, T, t)                    \
	RJ_UNARY(tanh, T, t) RJ_UNARY(relu, T, t) RJ_UNARY(gelu, T, t)                  \
	RJ_UNARY(gelu_erf, T, t) RJ_UNARY(silu, T, t) RJ_UNARY(sigmoid, T, t)           \
	RJ_UNARY(recip, T, t) RJ_UNARY(sqr, T, t) RJ_UNARY(floor, T, t)                 \
	RJ_UNARY(ceil, T, t) RJ_UNARY(round, T, t) RJ_UNARY(sign, T, t)
RJ_EACH_FLOAT(RJ_FLOAT_UNARY)

RJ_UNARY(sqr, rj_u8, u8)
RJ_UNARY(sign, rj_u8, u8)
RJ_UNARY(sqr, rj_u32, u32)
RJ_UNARY(sign, rj_u32, u32)
RJ_UNARY(neg, rj_i64, i64)
RJ_UNARY(abs, rj_i64, i64)
RJ_UNARY(sqr, rj_i64, i64)
RJ_UNARY(relu, rj_i64, i64)
RJ_UNARY(sign, rj_i64, i64)

#define RJ_PARAM2(name, T, t, init)                                                   \
	extern "C" __global__ void name##_##t(rj_ew s, const T *x, T *y, double p0,   \
					      double p1)                               \
	{                                                                             \
		typedef typename rj_ct<T>::type C;                                    \
		rj_op_##name<C> f = init;                                             \
		(void)p1;                                                             \
		rj_map(s, x, y, f);                                                   \
	}

#define RJ_EVERY_TYPE_PARAM(T, t)                                                      \
	RJ_PARAM2(affine, T, t, (rj_op_affine<C>{ rj_param<T>(p0), rj_param<T>(p1) }))   \
	RJ_PARAM2(clamp, T, t, (rj_op_clamp<C>{ rj_param<T>(p0), rj_param<T>(p1) }))
#define RJ_FLOAT_PARAM(T, t)                                                           \
	RJ_PARAM2(elu, T, t, (rj_op_elu<C>{ rj_param<T>(p0) }))                          \
	RJ_PARAM2(powf, T, t, (rj_op_powf<C>{ rj_param<T>(p0) }))
RJ_EACH_TYPE(RJ_EVERY_TYPE_PARAM)
RJ_EACH_FLOAT(RJ_FLOAT_PARAM)
