// convert.cu - elementwise conversions and arithmetic on the 16- and 8-bit float types.
// Each kernel: out[i] = f(in[i]) for i < n, one thread per element.  CPU references: round
// to nearest even for every narrowing conversion; fp8 constructors saturate to the largest
// finite value (e4m3: 448, e5m2: 57344).
#include "dialect.cuh"

template <typename T>
__device__ void cast_from_f32(const unsigned int n, const float *in, T *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = dl::from_float<T>(in[i]);
}

template <typename T>
__device__ void cast_to_f32(const unsigned int n, const T *in, float *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = dl::to_float(in[i]);
}

// out = x * mul + add, in the element type's own arithmetic (half and bf16 operators).
template <typename T>
__device__ void affine(const unsigned int n, const T *x, T *out, const float mul, const float add)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		T m = static_cast<T>(mul);
		T a = static_cast<T>(add);
		out[i] = x[i] * m + a;
	}
}

// out = max(x, 0) with __hmax; NaN in, 0 out (__hmax returns the non-NaN operand).
template <typename T>
__device__ void relu(const unsigned int n, const T *x, T *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		T zero = 0;
		out[i] = __hmax(x[i], zero);
	}
}

#define CAST_OP(T, SUFFIX)                                                                 \
	extern "C" __global__ void cast_f32_to_##SUFFIX(const unsigned int n, const float *in, \
							T *out)                                \
	{                                                                                  \
		cast_from_f32<T>(n, in, out);                                              \
	}                                                                                  \
	extern "C" __global__ void cast_##SUFFIX##_to_f32(const unsigned int n, const T *in,   \
							  float *out)                          \
	{                                                                                  \
		cast_to_f32<T>(n, in, out);                                                \
	}

CAST_OP(__half, f16)
#if DL_HAVE_BF16
CAST_OP(__nv_bfloat16, bf16)
CAST_OP(__nv_fp8_e4m3, f8e4m3)
CAST_OP(__nv_fp8_e5m2, f8e5m2)
#endif

#define AFFINE_OP(T, SUFFIX)                                                                \
	extern "C" __global__ void affine_##SUFFIX(const unsigned int n, const T *x, T *out, \
						   const float mul, const float add)          \
	{                                                                                   \
		affine<T>(n, x, out, mul, add);                                             \
	}
AFFINE_OP(float, f32)
AFFINE_OP(__half, f16)
#if DL_HAVE_BF16
AFFINE_OP(__nv_bfloat16, bf16)
#endif

extern "C" __global__ void relu_f16(const unsigned int n, const __half *x, __half *out)
{
	relu(n, x, out);
}
#if DL_HAVE_BF16
extern "C" __global__ void relu_bf16(const unsigned int n, const __nv_bfloat16 *x, __nv_bfloat16 *out)
{
	relu(n, x, out);
}
#endif

// double -> half / bf16 with a single rounding (no double rounding through float).
extern "C" __global__ void cast_f64_to_f16(const unsigned int n, const double *in, __half *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __double2half(in[i]);
}
extern "C" __global__ void cast_f64_to_bf16(const unsigned int n, const double *in, __nv_bfloat16 *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __double2bfloat16(in[i]);
}

// Raw fp8 bytes -> float, with the interpretation chosen at run time: every one of the 256
// codes of both formats (NaN codes give NaN; e5m2 0x7c/0xfc give +-inf).
extern "C" __global__ void fp8_bits_to_f32(const unsigned int n, const unsigned char *bits,
					   const int e5m2, float *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __half2float(__nv_cvt_fp8_to_halfraw(bits[i], e5m2 ? __NV_E5M2 : __NV_E4M3));
}

// float -> fp8 bytes without saturation: overflow gives NaN (e4m3) or infinity (e5m2).
extern "C" __global__ void f32_to_fp8_bits_nosat(const unsigned int n, const float *in,
						 const int e5m2, unsigned char *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __nv_cvt_float_to_fp8(in[i], __NV_NOSAT, e5m2 ? __NV_E5M2 : __NV_E4M3);
}

// bf16 <-> integers: truncation towards zero with saturation, NaN -> 0.
extern "C" __global__ void cast_bf16_to_i32(const unsigned int n, const __nv_bfloat16 *in, int *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}
extern "C" __global__ void cast_u32_to_bf16(const unsigned int n, const unsigned int *in, __nv_bfloat16 *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}

// Grid-stride fill with 64-bit sizes: out[i] = min(i, cap) for i < n.
extern "C" __global__ void iota_capped_u64(const size_t n, const size_t cap, size_t *out)
{
	size_t stride = size_t(gridDim.x) * blockDim.x;
	for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = min(i, cap);
}

#if __CUDA_ARCH__ >= 890
// sm_89+ only: the hardware conversion of two floats to packed e4m3 (inline PTX).  Must
// never be compiled for AMD (rocjit's __CUDA_ARCH__ there is 800).
extern "C" __global__ void cast_f32x2_to_f8e4m3_ptx(const unsigned int n, const float2 *in,
						    unsigned short *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		unsigned short r;
		asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(in[i].y), "f"(in[i].x));
		out[i] = r;
	}
}
#endif
