/*
 * rows.hip - operations along the last dimension, one block per row: softmax,
 * log-softmax, layer-norm and rms-norm.
 *
 * Kernels: templates, each instantiated only when a request names it (a name expression;
 * T: float, rj_f16, rj_bf16 or double, see rj_ops.h):
 *   softmax<T>(rj_rows s, const T *x, T *y)
 *   log_softmax<T>(rj_rows s, const T *x, T *y)
 *   layer_norm<T>(rj_rows s, const T *x, const T *alpha, const T *beta, T *y)
 *       y = (x - mean) / sqrt(var + s.eps) * alpha + beta, var biased; alpha and beta may
 *       be NULL (1 and 0), their elements s.aux_cs / s.beta_cs apart
 *   rms_norm<T>(rj_rows s, const T *x, const T *alpha, const T *beta, T *y)
 *       y = x / sqrt(mean(x^2) + s.eps) * alpha (beta unused)
 * Row r of x starts at rj_row_offset(r, s.ndim, s.dims, s.in_st), its columns s.in_cs
 * apart; y likewise with out_st and out_cs.  Computed in f32 (f64 for f64), three passes
 * over the row (max/mean, sum/variance, write): rows of any length.
 * Launch: blocks of exactly RJ_BLOCK (256) threads, any 1-D grid (grid-stride over rows),
 * no dynamic shared memory.
 */
#include "rj_ops.h"

/* Sum or max of every thread's v, returned to all threads; sh holds RJ_BLOCK values. */
template <bool Max, class C> __device__ static C rj_block_all(C v, C *sh)
{
	unsigned int t = threadIdx.x;

	sh[t] = v;
	__syncthreads();
	for (unsigned int w = RJ_BLOCK / 2; w > 0; w >>= 1) {
		if (t < w)
			sh[t] = Max ? rj_max(sh[t], sh[t + w]) : sh[t] + sh[t + w];
		__syncthreads();
	}
	C r = sh[0];
	__syncthreads();
	return r;
}

enum { RJ_SOFTMAX, RJ_LOG_SOFTMAX };

template <int Kind, class T> __device__ static void rj_softmax(const rj_rows &s, const T *x, T *y)
{
	typedef typename rj_ct<T>::type C;
	__shared__ C sh[RJ_BLOCK];

	for (rj_i64 r = blockIdx.x; r < s.rows; r += gridDim.x) {
		const T *p = x + rj_row_offset(r, s.ndim, s.dims, s.in_st);
		T *q = y + rj_row_offset(r, s.ndim, s.dims, s.out_st);
		C m = rj_neg_inf<C>(), sum = 0;

		for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK)
			m = rj_max(m, rj_load(p + c * s.in_cs));
		m = rj_block_all<true>(m, sh);
		for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK)
			sum += rj_exp(rj_load(p + c * s.in_cs) - m);
		sum = rj_block_all<false>(sum, sh);
		if (Kind == RJ_SOFTMAX) {
			C inv = (C)1 / sum;
			for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK)
				q[c * s.out_cs] = rj_cvt<T>(rj_exp(rj_load(p + c * s.in_cs) - m) * inv);
		} else {
			C lse = m + rj_log(sum);
			for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK)
				q[c * s.out_cs] = rj_cvt<T>(rj_load(p + c * s.in_cs) - lse);
		}
	}
}

enum { RJ_LAYER_NORM, RJ_RMS_NORM };

template <int Kind, class T>
__device__ static void rj_norm(const rj_rows &s, const T *x, const T *alpha, const T *beta, T *y)
{
	typedef typename rj_ct<T>::type C;
	__shared__ C sh[RJ_BLOCK];
	C n = (C)s.cols;

	for (rj_i64 r = blockIdx.x; r < s.rows; r += gridDim.x) {
		const T *p = x + rj_row_offset(r, s.ndim, s.dims, s.in_st);
		T *q = y + rj_row_offset(r, s.ndim, s.dims, s.out_st);
		C mean = 0, acc = 0;

		if (Kind == RJ_LAYER_NORM) {
			for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK)
				mean += rj_load(p + c * s.in_cs);
			mean = rj_block_all<false>(mean, sh) / n;
		}
		/* The variance around the mean (two passes: no cancellation). */
		for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK) {
			C d = rj_load(p + c * s.in_cs) - mean;
			acc += d * d;
		}
		C inv = (C)1 / rj_sqrt(rj_block_all<false>(acc, sh) / n + (C)s.eps);
		for (rj_i64 c = threadIdx.x; c < s.cols; c += RJ_BLOCK) {
			C v = (rj_load(p + c * s.in_cs) - mean) * inv;
			if (alpha)
				v *= rj_load(alpha + c * s.aux_cs);
			if (Kind == RJ_LAYER_NORM && beta)
				v += rj_load(beta + c * s.beta_cs);
			q[c * s.out_cs] = rj_cvt<T>(v);
		}
	}
}

template <class T> __global__ void softmax(rj_rows s, const T *x, T *y)
{
	rj_softmax<RJ_SOFTMAX>(s, x, y);
}

template <class T> __global__ void log_softmax(rj_rows s, const T *x, T *y)
{
	rj_softmax<RJ_LOG_SOFTMAX>(s, x, y);
}

template <class T>
__global__ void layer_norm(rj_rows s, const T *x, const T *alpha, const T *beta, T *y)
{
	rj_norm<RJ_LAYER_NORM>(s, x, alpha, beta, y);
}

template <class T>
__global__ void rms_norm(rj_rows s, const T *x, const T *alpha, const T *beta, T *y)
{
	rj_norm<RJ_RMS_NORM>(s, x, alpha, beta, y);
}
