// A header shared with host code, as kernel libraries write them (rocjit's fixture):
// helpers without __host__/__device__ that nvcc compiles for the host, a constexpr one
// the kernels call, and host-only parts behind the usual guard.
#pragma once
#ifndef __HIPCC_RTC__
#include <vector>
#include <string>
#include <cublas_v2.h>
inline std::string describe(const std::vector<int> &v) { return std::to_string(v.size()); }
#endif

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
struct launch_shape {
	int blocks, threads;
	int total() const { return blocks * threads; }
};
inline launch_shape shape_for(int n) { return launch_shape{ ceil_div(n, 256), 256 }; }
constexpr int tile_of(int width) { return width >= 128 ? 128 : 32; }
