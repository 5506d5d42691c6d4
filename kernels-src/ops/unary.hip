/*
 * unary.hip - y = f(x) elementwise over strided views: the unary ops, and the ones with
 * scalar parameters (affine, elu, powf, clamp).
 *
 * Kernels: templates, each op x type compiled only when a request names it (a name
 * expression; T a storage type of rj_ops.h, spelled as the compiler prints it: float,
 * double, rj_f16, rj_bf16, unsigned char, unsigned int, long long):
 *   unary<rj_op_<op>, T>(rj_ew s, const T *x, T *y)
 *       op: neg abs exp log sqrt sin cos tanh relu gelu gelu_erf silu sigmoid recip sqr
 *           floor ceil round sign for the float types;
 *           sqr sign for unsigned char and unsigned int; neg abs sqr relu sign for long long.
 *   unary_param<rj_op_<op>, T>(rj_ew s, const T *x, T *y, double p0, double p1)
 *       affine (y = x * p0 + p1) and clamp (to [p0, p1]) for every type;
 *       elu (alpha p0) and powf (exponent p0) for the float types.
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

/* The parameter ops: tags whose make<C>(p0, p1) builds the functor in compute type C. */
struct rj_op_affine {
	template <class C> struct fn {
		C mul, add;
		__device__ C operator()(C x) const { return rj_add(rj_mul(x, mul), add); }
	};
	template <class C> __device__ static fn<C> make(C p0, C p1) { return fn<C>{ p0, p1 }; }
};
struct rj_op_clamp {
	template <class C> struct fn {
		C lo, hi;
		__device__ C operator()(C x) const
		{
			if (rj_isnan(x))
				return x;
			return x < lo ? lo : x > hi ? hi : x;
		}
	};
	template <class C> __device__ static fn<C> make(C p0, C p1) { return fn<C>{ p0, p1 }; }
};
struct rj_op_elu {
	template <class C> struct fn {
		C alpha;
		__device__ C operator()(C x) const { return x > (C)0 ? x : alpha * (rj_exp(x) - (C)1); }
	};
	template <class C> __device__ static fn<C> make(C p0, C) { return fn<C>{ p0 }; }
};
struct rj_op_powf {
	template <class C> struct fn {
		C e;
		__device__ C operator()(C x) const { return rj_pow(x, e); }
	};
	template <class C> __device__ static fn<C> make(C p0, C) { return fn<C>{ p0 }; }
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

/* ---- The kernels: templates, each instantiated only when a request names it ---------- */

template <class Op, class T> __global__ void unary(rj_ew s, const T *x, T *y)
{
	rj_map(s, x, y, Op());
}

template <class Op, class T>
__global__ void unary_param(rj_ew s, const T *x, T *y, double p0, double p1)
{
	typedef typename rj_ct<T>::type C;
	rj_map(s, x, y, Op::template make<C>(rj_param<T>(p0), rj_param<T>(p1)));
}
