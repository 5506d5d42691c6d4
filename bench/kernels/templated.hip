/*
 * templated.hip - a templated kernel file with 18 entry points, for the benchmarks: one
 * elementwise and one reduction template, instantiated for float, double and int.
 *
 * Kernels (T is float for _f32, double for _f64, int for _i32)
 *   ew_add_<t>(int n, T alpha, const T *x, const T *y, T *z)   z[i] = alpha * (x[i] + y[i])
 *   ew_sub_<t>(int n, T alpha, const T *x, const T *y, T *z)   z[i] = alpha * (x[i] - y[i])
 *   ew_mul_<t>(int n, T alpha, const T *x, const T *y, T *z)   z[i] = alpha * (x[i] * y[i])
 *   red_sum_<t>(int n, const T *x, T *partial)   partial[b] = sum of block b's share of x
 *   red_min_<t>(int n, const T *x, T *partial)   partial[b] = min of block b's share of x
 *   red_max_<t>(int n, const T *x, T *partial)   partial[b] = max of block b's share of x
 *
 * Launch contract
 *   ew_*:   block 1-D, any size; grid 1-D, any size (a grid-stride loop covers all n).
 *           x, y and z may be the same buffer.  n <= 0 does nothing.
 *   red_*:  block 1-D, a power of two, at most TK_MAX_BLOCK (256); grid 1-D, any size G;
 *           partial holds G values; an empty share gives the identity (0, the type's
 *           largest value for min, its lowest for max).
 *   shared: 0 bytes of dynamic shared memory (static: TK_MAX_BLOCK * sizeof(T)).
 *
 * Portable HIP only: the bodies use nothing but threadIdx, blockIdx, blockDim, gridDim,
 * __shared__ and __syncthreads, so the file also compiles as plain CUDA once the include
 * line is removed (bench/cupy_baseline.py does that for CuPy's RawModule).
 */
#include <hip/hip_runtime.h>

#define TK_MAX_BLOCK 256

enum { TK_ADD, TK_SUB, TK_MUL, TK_MIN, TK_MAX };

/* The binary operators, one specialization per OP. */
template <typename T, int OP> struct tk_op;
template <typename T> struct tk_op<T, TK_ADD> {
	__device__ static T apply(T a, T b) { return a + b; }
};
template <typename T> struct tk_op<T, TK_SUB> {
	__device__ static T apply(T a, T b) { return a - b; }
};
template <typename T> struct tk_op<T, TK_MUL> {
	__device__ static T apply(T a, T b) { return a * b; }
};
template <typename T> struct tk_op<T, TK_MIN> {
	__device__ static T apply(T a, T b) { return b < a ? b : a; }
};
template <typename T> struct tk_op<T, TK_MAX> {
	__device__ static T apply(T a, T b) { return a < b ? b : a; }
};

/* The largest and lowest finite values, without <limits> or <cfloat>. */
template <typename T> struct tk_limits;
template <> struct tk_limits<float> {
	__device__ static float highest() { return 3.402823466e+38f; }
	__device__ static float lowest() { return -3.402823466e+38f; }
};
template <> struct tk_limits<double> {
	__device__ static double highest() { return 1.7976931348623157e+308; }
	__device__ static double lowest() { return -1.7976931348623157e+308; }
};
template <> struct tk_limits<int> {
	__device__ static int highest() { return 2147483647; }
	__device__ static int lowest() { return -2147483647 - 1; }
};

/* The identity of each reduction operator. */
template <typename T, int OP> struct tk_identity;
template <typename T> struct tk_identity<T, TK_ADD> {
	__device__ static T value() { return T(0); }
};
template <typename T> struct tk_identity<T, TK_MIN> {
	__device__ static T value() { return tk_limits<T>::highest(); }
};
template <typename T> struct tk_identity<T, TK_MAX> {
	__device__ static T value() { return tk_limits<T>::lowest(); }
};

/* z = alpha * op(x, y), grid-stride, four elements in flight per thread. */
template <typename T, int OP>
__device__ static void tk_elementwise(int n, T alpha, const T *x, const T *y, T *z)
{
	int stride = (int)(blockDim.x * gridDim.x);
	int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);

	for (; i + 3 * stride < n; i += 4 * stride) {
		T r[4];
#pragma unroll
		for (int k = 0; k < 4; k++)
			r[k] = alpha * tk_op<T, OP>::apply(x[i + k * stride], y[i + k * stride]);
#pragma unroll
		for (int k = 0; k < 4; k++)
			z[i + k * stride] = r[k];
	}
	for (; i < n; i += stride)
		z[i] = alpha * tk_op<T, OP>::apply(x[i], y[i]);
}

/* partial[blockIdx.x] = op over the block's grid-stride share of x: a shared-memory tree. */
template <typename T, int OP>
__device__ static void tk_reduce(int n, const T *x, T *partial)
{
	__shared__ T buf[TK_MAX_BLOCK];
	int tid = (int)threadIdx.x;
	int stride = (int)(blockDim.x * gridDim.x);
	T v = tk_identity<T, OP>::value();

	for (int i = (int)(blockIdx.x * blockDim.x) + tid; i < n; i += stride)
		v = tk_op<T, OP>::apply(v, x[i]);
	buf[tid] = v;
	__syncthreads();
	for (int half = (int)blockDim.x / 2; half > 0; half /= 2) {
		if (tid < half)
			buf[tid] = tk_op<T, OP>::apply(buf[tid], buf[tid + half]);
		__syncthreads();
	}
	if (tid == 0)
		partial[blockIdx.x] = buf[0];
}

/* The entry points: extern "C", so they are fetched by these plain names. */
extern "C" __global__ void ew_add_f32(int n, float alpha, const float *x, const float *y, float *z)
{
	tk_elementwise<float, TK_ADD>(n, alpha, x, y, z);
}

extern "C" __global__ void ew_sub_f32(int n, float alpha, const float *x, const float *y, float *z)
{
	tk_elementwise<float, TK_SUB>(n, alpha, x, y, z);
}

extern "C" __global__ void ew_mul_f32(int n, float alpha, const float *x, const float *y, float *z)
{
	tk_elementwise<float, TK_MUL>(n, alpha, x, y, z);
}

extern "C" __global__ void red_sum_f32(int n, const float *x, float *partial)
{
	tk_reduce<float, TK_ADD>(n, x, partial);
}

extern "C" __global__ void red_min_f32(int n, const float *x, float *partial)
{
	tk_reduce<float, TK_MIN>(n, x, partial);
}

extern "C" __global__ void red_max_f32(int n, const float *x, float *partial)
{
	tk_reduce<float, TK_MAX>(n, x, partial);
}

extern "C" __global__ void ew_add_f64(int n, double alpha, const double *x,
				      const double *y, double *z)
{
	tk_elementwise<double, TK_ADD>(n, alpha, x, y, z);
}

extern "C" __global__ void ew_sub_f64(int n, double alpha, const double *x,
				      const double *y, double *z)
{
	tk_elementwise<double, TK_SUB>(n, alpha, x, y, z);
}

extern "C" __global__ void ew_mul_f64(int n, double alpha, const double *x,
				      const double *y, double *z)
{
	tk_elementwise<double, TK_MUL>(n, alpha, x, y, z);
}

extern "C" __global__ void red_sum_f64(int n, const double *x, double *partial)
{
	tk_reduce<double, TK_ADD>(n, x, partial);
}

extern "C" __global__ void red_min_f64(int n, const double *x, double *partial)
{
	tk_reduce<double, TK_MIN>(n, x, partial);
}

extern "C" __global__ void red_max_f64(int n, const double *x, double *partial)
{
	tk_reduce<double, TK_MAX>(n, x, partial);
}

extern "C" __global__ void ew_add_i32(int n, int alpha, const int *x, const int *y, int *z)
{
	tk_elementwise<int, TK_ADD>(n, alpha, x, y, z);
}

extern "C" __global__ void ew_sub_i32(int n, int alpha, const int *x, const int *y, int *z)
{
	tk_elementwise<int, TK_SUB>(n, alpha, x, y, z);
}

extern "C" __global__ void ew_mul_i32(int n, int alpha, const int *x, const int *y, int *z)
{
	tk_elementwise<int, TK_MUL>(n, alpha, x, y, z);
}

extern "C" __global__ void red_sum_i32(int n, const int *x, int *partial)
{
	tk_reduce<int, TK_ADD>(n, x, partial);
}

extern "C" __global__ void red_min_i32(int n, const int *x, int *partial)
{
	tk_reduce<int, TK_MIN>(n, x, partial);
}

extern "C" __global__ void red_max_i32(int n, const int *x, int *partial)
{
	tk_reduce<int, TK_MAX>(n, x, partial);
}
