// What nvcc's implicit cuda_runtime.h gives a kernel file: no include at all here.
// (rocjit's own fixture; written the way kernels written for nvcc use these names.)

template <typename T> __device__ T lowest_or_zero()
{
	if (std::is_same_v<T, float> || std::is_floating_point<T>::value)
		return -std::numeric_limits<T>::infinity();
	return std::numeric_limits<T>::lowest();
}

extern "C" __global__ void implicit_masked_max(const float *x, const unsigned int *mask,
					       float *out, size_t n)
{
	float best = -INFINITY;
	for (size_t i = threadIdx.x; i < n; i += blockDim.x)
		if (mask == NULL || mask[i] != UINT_MAX)
			best = fmaxf(best, x[i]);
	out[threadIdx.x] = std::max(best, lowest_or_zero<float>());
}

extern "C" __global__ void implicit_int_limits(int *out)
{
	uint32_t u = UINT32_MAX;
	int64_t big = INT64_MAX;
	ptrdiff_t d = &out[3] - &out[0];
	out[0] = INT_MAX;
	out[1] = (int)(u >> 1);
	out[2] = (int)(big >> 33);
	out[3] = (int)d + CHAR_BIT;
	out[4] = lowest_or_zero<int>() == INT_MIN;
	out[5] = std::numeric_limits<unsigned short>::max();
}

extern "C" __global__ void implicit_clock(clock_t *out, long long *out64)
{
	clock_t start = clock();
	long long start64 = clock64();
	out[threadIdx.x] = start >= 0 ? (clock_t)1 : (clock_t)0;
	out64[threadIdx.x] = start64 >= 0 ? 1 : 0;
}

extern "C" __global__ void implicit_math(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = isinf(x[i]) ? NAN : std::abs(x[i]) * (float)M_PI + FLT_EPSILON;
}
