// implicit_types.hip - what hipRTC gives a HIP kernel with no include at all, used the way
// HIP kernels use it: the OpenCL-style short unsigned names, the exact-width integers,
// std::size_t.  No #include: on AMD hipRTC builds these in; on NVIDIA rocjit's
// pre-included hip/hip_runtime.h declares them.

template <class T> __device__ T rotl(T v, unsigned int s)
{
	const unsigned int bits = 8u * sizeof(T);
	s %= bits;
	return s ? (T)((v << s) | (v >> (bits - s))) : v;
}

// out[i] = rotl(x[i], i) as 32 and 64 bits, with the 16-bit lane count in the top bits.
extern "C" __global__ void implicit_rotl(const uint n, const uint32_t *x, uint64_t *out)
{
	uint i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		ushort lanes = (ushort)(blockDim.x & 0xffffu);
		ulong wide = (ulong)rotl<uint32_t>(x[i], i);
		out[i] = (uint64_t)rotl<ullong>(wide, 32u) ^ ((uint64_t)lanes << 48);
	}
}

// out[i] = x[i] - 2^31 as signed, widened: std:: names and the signed exact-width types.
extern "C" __global__ void implicit_signed(const std::size_t n, const uint *x, int64_t *out)
{
	std::size_t i = (std::size_t)blockIdx.x * blockDim.x + threadIdx.x;
	static_assert(sizeof(int64_t) == 8 && (int64_t)-1 < 0, "int64_t");
	static_assert(sizeof(std::uint32_t) == 4 && sizeof(uchar) == 1, "widths");
	if (i < n)
		out[i] = (int64_t)(int32_t)(x[i] ^ 0x80000000u);
}
