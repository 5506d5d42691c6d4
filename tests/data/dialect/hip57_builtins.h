// hip57_builtins.h - what HIP 5.7's hipRTC builds in and 5.2's lacks, as plain (non-template)
// functions declared before rocjit's CUDA-dialect prelude, the way the newer HIP declares
// them.  Each is marked deprecated so the compiler says when overload resolution picks it:
// test_dialect checks that these win over the prelude's fallback templates (and that
// nothing is ambiguous or redefined), i.e. that the headers adapt to a newer HIP unchanged.
#define HIP57_BUILTIN __device__ inline __attribute__((deprecated("hip57 built-in chosen")))

HIP57_BUILTIN __half __hmax(const __half x, const __half y)
{
	return __half2float(x) > __half2float(y) ? x : y;
}
HIP57_BUILTIN __half __hmin(const __half x, const __half y)
{
	return __half2float(x) < __half2float(y) ? x : y;
}
HIP57_BUILTIN __half __hmax_nan(const __half x, const __half y) { return __hmax(x, y); }
HIP57_BUILTIN __half __hmin_nan(const __half x, const __half y) { return __hmin(x, y); }
HIP57_BUILTIN long long atomicMax(long long *address, long long val)
{
	return __hip_atomic_fetch_max(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
HIP57_BUILTIN long long atomicMin(long long *address, long long val)
{
	return __hip_atomic_fetch_min(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
