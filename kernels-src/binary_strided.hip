/*
 * binary_strided.hip - elementwise out = op(lhs, rhs) over strided f32 tensors of up to 4
 * dimensions.  Broadcasting is a stride of 0; any stride (negative too) is allowed, so
 * transposed and sliced views work without a copy.
 *
 * Kernels (one per op, all with the same signature)
 *   binary_add_f32(binary_shape s, const float *lhs, const float *rhs, float *out)  lhs + rhs
 *   binary_sub_f32(...)                                                              lhs - rhs
 *   binary_mul_f32(...)                                                              lhs * rhs
 *   binary_max_f32(...)                          fmaxf(lhs, rhs): a NaN loses to a number
 *
 * The shape is passed BY VALUE (68 bytes of kernel arguments), so a launch needs no device
 * buffer for it.  The host declares the same layout:
 *
 *   struct binary_shape {
 *       int ndim;            0..4; 0 is a scalar (one element); out of range is clamped
 *       int dims[4];         extents, outermost first (row-major); 0 means no work
 *       int out_strides[4];  strides in ELEMENTS (not bytes) of out, lhs and rhs for each
 *       int lhs_strides[4];  of the first ndim dimensions; entries past ndim are ignored.
 *       int rhs_strides[4];  0 broadcasts along that dimension.
 *   };
 *
 *   The element count is n = dims[0] * ... * dims[ndim-1].  Element (i0, .., i{ndim-1})
 *   reads lhs[sum(ik * lhs_strides[k])] and rhs[...], and writes out[...].  Every offset
 *   and n must fit in an int.  out must not alias lhs or rhs unless it is the same view
 *   (same strides): in-place updates like lhs += rhs are fine; out with a 0 stride races.
 *
 * Launch contract (all kernels)
 *   block:  1-D, any size (256 is a good default).
 *   grid:   1-D, any size; a grid-stride loop covers all n elements
 *           (grid = ceil(n / block), capped, is enough).
 *   shared: 0 bytes.
 *
 * Fast path: when out, lhs and rhs are all dense row-major over dims (the usual
 * contiguous case), the kernel indexes them linearly instead of dividing per element.  The
 * test is on kernel arguments only, so it is uniform across the grid.
 *
 * Portable HIP only: builds with hipRTC (AMD) and with NVRTC behind a HIP preamble.
 */
#include <hip/hip_runtime.h>

#define BINARY_MAX_DIMS 4

struct binary_shape {
	int ndim;
	int dims[BINARY_MAX_DIMS];
	int out_strides[BINARY_MAX_DIMS];
	int lhs_strides[BINARY_MAX_DIMS];
	int rhs_strides[BINARY_MAX_DIMS];
};

struct binary_op_add {
	__device__ static float apply(float a, float b) { return a + b; }
};
struct binary_op_sub {
	__device__ static float apply(float a, float b) { return a - b; }
};
struct binary_op_mul {
	__device__ static float apply(float a, float b) { return a * b; }
};
struct binary_op_max {
	__device__ static float apply(float a, float b) { return fmaxf(a, b); }
};

/* True if strides are the dense row-major strides of the first ndim dims (a dimension of
 * extent 1 matches any stride: it is never stepped along). */
__device__ static bool binary_is_dense(const binary_shape &s, int ndim, const int *strides)
{
	int expect = 1;

	for (int d = ndim - 1; d >= 0; d--) {
		if (s.dims[d] != 1 && strides[d] != expect)
			return false;
		expect *= s.dims[d];
	}
	return true;
}

template <typename Op>
__device__ static void binary_strided(const binary_shape &s, const float *lhs,
				      const float *rhs, float *out)
{
	int ndim = s.ndim < 0 ? 0 : (s.ndim > BINARY_MAX_DIMS ? BINARY_MAX_DIMS : s.ndim);
	int n = 1;
	int stride = (int)(blockDim.x * gridDim.x);
	int first = (int)(blockIdx.x * blockDim.x + threadIdx.x);

	for (int d = 0; d < ndim; d++)
		n *= s.dims[d];

	if (binary_is_dense(s, ndim, s.out_strides) && binary_is_dense(s, ndim, s.lhs_strides) &&
	    binary_is_dense(s, ndim, s.rhs_strides)) {
		for (int i = first; i < n; i += stride)
			out[i] = Op::apply(lhs[i], rhs[i]);
		return;
	}

	for (int i = first; i < n; i += stride) {
		int rest = i, o = 0, l = 0, r = 0;

		/* Peel coordinates from the innermost dimension outwards. */
		for (int d = ndim - 1; d >= 0; d--) {
			int extent = s.dims[d];
			int c = rest % extent;

			rest /= extent;
			o += c * s.out_strides[d];
			l += c * s.lhs_strides[d];
			r += c * s.rhs_strides[d];
		}
		out[o] = Op::apply(lhs[l], rhs[r]);
	}
}

extern "C" __global__ void binary_add_f32(binary_shape s, const float *lhs, const float *rhs,
					  float *out)
{
	binary_strided<binary_op_add>(s, lhs, rhs, out);
}

extern "C" __global__ void binary_sub_f32(binary_shape s, const float *lhs, const float *rhs,
					  float *out)
{
	binary_strided<binary_op_sub>(s, lhs, rhs, out);
}

extern "C" __global__ void binary_mul_f32(binary_shape s, const float *lhs, const float *rhs,
					  float *out)
{
	binary_strided<binary_op_mul>(s, lhs, rhs, out);
}

extern "C" __global__ void binary_max_f32(binary_shape s, const float *lhs, const float *rhs,
					  float *out)
{
	binary_strided<binary_op_max>(s, lhs, rhs, out);
}
