// Fixture for test_devlib.c: the C++ headers rocjit serves (limits, type_traits, utility,
// algorithm) in kernel code and in constant expressions.
#include <limits>
#include <type_traits>
#include <utility>
#include <algorithm>
#include <cstdint>

static_assert(std::numeric_limits<float>::max() > 3.4e38f, "float max");
static_assert(std::numeric_limits<float>::lowest() == -std::numeric_limits<float>::max(), "");
static_assert(std::numeric_limits<float>::infinity() > std::numeric_limits<float>::max(), "");
static_assert(std::numeric_limits<double>::infinity() > 1e308, "double infinity");
static_assert(std::numeric_limits<double>::epsilon() < 1e-15, "double epsilon");
static_assert(std::numeric_limits<int>::max() == 2147483647, "int max");
static_assert(std::numeric_limits<int>::lowest() == -2147483647 - 1, "int lowest");
static_assert(std::numeric_limits<unsigned>::max() == 4294967295u, "unsigned max");
static_assert(std::numeric_limits<int8_t>::min() == -128, "int8 min");
static_assert(std::numeric_limits<uint8_t>::max() == 255, "uint8 max");
static_assert(std::numeric_limits<int16_t>::min() == -32768, "int16 min");
static_assert(std::numeric_limits<int64_t>::max() == 9223372036854775807LL, "int64 max");
static_assert(std::numeric_limits<uint64_t>::max() == 18446744073709551615ULL, "uint64 max");
static_assert(std::numeric_limits<const long>::is_signed, "const long");
static_assert(std::numeric_limits<bool>::digits == 1 && std::numeric_limits<int>::digits10 == 9, "");
static_assert(std::numeric_limits<float>::quiet_NaN() != std::numeric_limits<float>::quiet_NaN(), "");

static_assert(std::is_same<std::int64_t, long long>::value, "int64_t is long long");
static_assert(std::is_same<std::conditional<true, int, float>::type, int>::value, "");
static_assert(std::is_same<std::conditional_t<false, int, float>, float>::value, "");
static_assert(std::is_same_v<std::remove_cv_t<const volatile int>, int>, "");
static_assert(std::is_same<std::decay_t<const int (&)[4]>, const int *>::value, "");
static_assert(std::is_same<std::make_unsigned_t<int>, unsigned>::value, "");
static_assert(std::is_same<std::common_type_t<int, float>, float>::value, "");
static_assert(std::is_integral<int>::value && !std::is_integral<float>::value, "");
static_assert(std::is_floating_point<double>::value && std::is_unsigned<uint32_t>::value, "");
static_assert(std::is_signed<int>::value && std::is_pointer<int *>::value, "");
static_assert(std::max(3, 4) == 4 && std::min(3.0f, 4.0f) == 3.0f && std::clamp(9, 0, 5) == 5, "");

template <class T, typename std::enable_if<std::is_floating_point<T>::value, int>::type = 0>
__device__ T twice(T x) { return x + x; }
template <class T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
__device__ T twice(T x) { return x << 1; }

template <class T> __device__ T clamp_to_limits(double v)
{
	return v > static_cast<double>(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max()
	     : v < static_cast<double>(std::numeric_limits<T>::lowest()) ? std::numeric_limits<T>::lowest()
	     : static_cast<T>(v);
}

extern "C" __global__ void std_cpp_limits(const double *in, int8_t *a, int32_t *b, float *c)
{
	int i = threadIdx.x;
	a[i] = clamp_to_limits<int8_t>(in[i]);
	b[i] = twice(clamp_to_limits<int32_t>(in[i]));
	c[i] = twice(std::min(clamp_to_limits<float>(in[i]), std::numeric_limits<float>::infinity()));
}

extern "C" __global__ void std_cpp_utility(int *x, float *y)
{
	int i = threadIdx.x;
	std::pair<int, float> p = std::make_pair(x[i], y[i]);
	std::swap(p.first, x[i + 1]);
	x[i] = std::max(p.first, std::exchange(x[i + 2], 0));
	y[i] = std::move(p.second);
}

static_assert(std::is_same<std::make_index_sequence<3>, std::index_sequence<0, 1, 2>>::value, "");
static_assert(std::make_integer_sequence<int, 5>::size() == 5, "integer_sequence");
