/*
 * cuComplex.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD):
 * CUDA's single- and double-precision complex numbers, over float2 and double2 as in
 * CUDA, with the same functions.  cuCdiv and cuCabs scale by the larger part, as CUDA's
 * do, so that neither overflows where the result does not.  On NVIDIA the toolkit's own
 * is used.
 */
#ifndef ROCJIT_CUDA_CUCOMPLEX_H
#define ROCJIT_CUDA_CUCOMPLEX_H

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

#define ROCJIT_CUCOMPLEX(T, S, R)                                                          \
	__host__ __device__ static inline R cuCreal##S(T x) { return x.x; }                 \
	__host__ __device__ static inline R cuCimag##S(T x) { return x.y; }                 \
	__host__ __device__ static inline T cuConj##S(T x) { return make_##T(x.x, -x.y); } \
	__host__ __device__ static inline T cuCadd##S(T a, T b)                            \
	{                                                                                  \
		return make_##T(a.x + b.x, a.y + b.y);                                       \
	}                                                                                  \
	__host__ __device__ static inline T cuCsub##S(T a, T b)                            \
	{                                                                                  \
		return make_##T(a.x - b.x, a.y - b.y);                                       \
	}                                                                                  \
	__host__ __device__ static inline T cuCmul##S(T a, T b)                            \
	{                                                                                  \
		return make_##T(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);               \
	}                                                                                  \
	__host__ __device__ static inline T cuCdiv##S(T a, T b)                            \
	{                                                                                  \
		R s = fabs(b.x) + fabs(b.y), o = (R)1 / s;                                     \
		R ax = a.x * o, ay = a.y * o, bx = b.x * o, by = b.y * o;                       \
		R q = (R)1 / (bx * bx + by * by);                                              \
		return make_##T((ax * bx + ay * by) * q, (ay * bx - ax * by) * q);             \
	}                                                                                  \
	__host__ __device__ static inline R cuCabs##S(T x)                                 \
	{                                                                                  \
		R a = fabs(x.x), b = fabs(x.y), v = a > b ? a : b, w = a > b ? b : a, t;       \
		if (v == 0 || isinf(v))                                                        \
			return v + w;                                                          \
		t = w / v;                                                                     \
		return v * sqrt((R)1 + t * t);                                                 \
	}

#define make_cuFloatComplex make_float2
#define make_cuDoubleComplex make_double2
#define make_cuComplex make_float2
ROCJIT_CUCOMPLEX(float2, f, float)
ROCJIT_CUCOMPLEX(double2, , double)
#undef ROCJIT_CUCOMPLEX

__host__ __device__ static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c)
{
	return make_double2((double)c.x, (double)c.y);
}
__host__ __device__ static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c)
{
	return make_float2((float)c.x, (float)c.y);
}
__host__ __device__ static inline cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y,
							 cuFloatComplex d)
{
	return make_float2(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}
__host__ __device__ static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y,
							 cuDoubleComplex d)
{
	return make_double2(x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}

#endif
