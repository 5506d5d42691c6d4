// Fixture for test_devlib.c: the C headers rocjit serves (stdint, stddef, limits, float,
// math, assert, stdlib, string, stdio) under their C and C++ names, in kernel code.
#include <stdint.h>
#include <cstdint>
#include <stddef.h>
#include <cstddef>
#include <limits.h>
#include <climits>
#include <float.h>
#include <cfloat>
#include <math.h>
#include <cmath>
#include <assert.h>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <cstdio>

static_assert(sizeof(int8_t) == 1 && sizeof(uint8_t) == 1, "8-bit");
static_assert(sizeof(int16_t) == 2 && sizeof(uint16_t) == 2, "16-bit");
static_assert(sizeof(int32_t) == 4 && sizeof(uint32_t) == 4, "32-bit");
static_assert(sizeof(int64_t) == 8 && sizeof(uint64_t) == 8, "64-bit");
static_assert(sizeof(std::int64_t) == 8 && sizeof(std::uintptr_t) == sizeof(void *), "std");
static_assert(INT8_MIN == -128 && UINT16_MAX == 65535 && INT32_MAX == 2147483647, "limits");
static_assert(INT64_MIN < 0 && UINT64_MAX == 0xffffffffffffffffULL, "64-bit limits");
static_assert(CHAR_BIT == 8 && INT_MAX == 2147483647 && UINT_MAX == 4294967295U, "climits");
static_assert(LLONG_MAX == 9223372036854775807LL && SHRT_MIN == -32768, "climits");
static_assert(FLT_MAX > 3.4e38f && DBL_EPSILON < 1e-15 && FLT_MANT_DIG == 24, "cfloat");
static_assert(INFINITY > FLT_MAX && HUGE_VAL > DBL_MAX, "infinity");
static_assert(sizeof(std::ptrdiff_t) == 8 && sizeof(std::size_t) == 8, "cstddef");

struct two { int a; float b; };

extern "C" __global__ void std_types_ints(int8_t *a, uint8_t *b, int16_t *c, uint16_t *d,
					  int32_t *e, uint32_t *f, int64_t *g, uint64_t *h)
{
	size_t i = threadIdx.x;
	a[i] = INT8_MAX;
	b[i] = UINT8_MAX;
	c[i] = static_cast<int16_t>(INT16_MIN);
	d[i] = UINT16_MAX;
	e[i] = INT32_MIN;
	f[i] = UINT32_MAX;
	g[i] = INT64_MAX;
	h[i] = UINT64_C(1) << 40;
	assert(i < 1024);
}

extern "C" __global__ void std_types_math(float *x, double *y, int *flags, size_t off)
{
	int i = threadIdx.x;
	float v = x[i];
	x[i] = isnanf(v) ? NAN : std::sqrt(v) + static_cast<float>(M_PI) * std::fabs(v);
	y[i] = std::exp(y[i]) * M_2_SQRTPI * M_SQRT1_2 + M_E + M_LN2 + M_LOG2E + M_1_PI;
	flags[i] = isinff(v) + finitef(v) + std::isnan(y[i]) + (v > -INFINITY) +
		   static_cast<int>(std::abs(-3)) + static_cast<int>(offsetof(two, b));
	memcpy(&flags[i + 64], &off, sizeof(int));
	std::memset(&flags[i + 128], 0, sizeof(int));
	if (i == 0 && off == 12345)
		printf("%d %f\n", i, v);
}
