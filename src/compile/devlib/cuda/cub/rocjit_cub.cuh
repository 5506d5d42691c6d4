/*
 * cub/rocjit_cub.cuh - a device-side subset of CUB's block and warp primitives for
 * hipRTC (AMD), built on rocPRIM (Debian's librocprim-dev, header-only).  Every public
 * cub/... header rocjit serves on AMD includes this one.  CUDA's CUB needs NVCC or NVRTC;
 * rocPRIM is AMD's library of the same primitives, so the subset is names and argument
 * orders, not algorithms:
 *   WarpReduce, WarpScan          rocprim::warp_reduce, rocprim::warp_scan
 *   BlockReduce, BlockScan        rocprim::block_reduce, rocprim::block_scan
 *   BlockLoad, BlockStore         rocprim::block_load, rocprim::block_store
 *   Load/StoreDirectBlocked/Striped  rocprim::block_{load,store}_direct_*
 *   BlockRadixSort                rocprim::block_radix_sort
 *   Sum, Max, Min, NullType       function objects and the "no values" type
 * A logical warp is 32 threads by default, as in CUDA (the sources assume it; a 64-wide
 * wavefront holds two).  Results CUB defines only in thread or lane 0 are defined there
 * and nowhere else, as in CUB.
 *
 * rocPRIM must be on hipRTC's search path (/usr/include holds it where the package is
 * installed).  rocPRIM leans on host headers: its includes of <iterator>, <tuple>,
 * <functional> and <atomic> find rocjit's (devlib/amd); std::min and std::memcpy are used
 * without their headers, so those are included first; and host_warp_size(), a host
 * function of intrinsics/thread.hpp, names the HIP runtime API that hipRTC 5.2's built-in
 * header lacks: the names are macros for the length of rocPRIM's text only (the function
 * is host code, never compiled for the device).
 *
 * Owns: namespace cub on AMD.  Must not: define anything rocPRIM or HIP define.
 */
#ifndef ROCJIT_CUB_CUH
#define ROCJIT_CUB_CUH

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

/* rocPRIM 5.3 knows gfx10's limits on DPP (no row broadcasts) but not gfx11's, and its
 * warp reductions and scans then use broadcasts there ("Invalid dpp_ctrl value", HIP 5.7,
 * gfx1100): on gfx11 and later they take rocPRIM's shuffle-based path. */
#if (defined(__GFX11__) || defined(__GFX12__)) && !defined(ROCPRIM_DISABLE_DPP)
#define ROCPRIM_DISABLE_DPP 1
#define ROCPRIM_DETAIL_USE_DPP false
#endif

#define hipError_t int
#define hipSuccess 0
#define hipDeviceProp_t rocjit_cub_device_prop
struct rocjit_cub_device_prop {
	int warpSize;
};
#define hipGetDevice(p) (*(p) = 0, 0)
#define hipGetDeviceProperties(p, d) ((p)->warpSize = 64, 0)
#include <rocprim/block/block_load.hpp>
#include <rocprim/block/block_radix_sort.hpp>
#include <rocprim/block/block_reduce.hpp>
#include <rocprim/block/block_scan.hpp>
#include <rocprim/block/block_store.hpp>
#include <rocprim/warp/warp_reduce.hpp>
#include <rocprim/warp/warp_scan.hpp>
#undef hipGetDeviceProperties
#undef hipGetDevice
#undef hipDeviceProp_t
#undef hipSuccess
#undef hipError_t

#define ROCJIT_CUB_FN __host__ __device__ __forceinline__

namespace cub {

/* ---- function objects (CUB before 3.0; CUDA 13 spells them cuda::std::plus<>...) ---- */
struct Sum {
	template <class T> ROCJIT_CUB_FN T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
	template <class T> ROCJIT_CUB_FN T operator()(const T &a, const T &b) const
	{
		return a < b ? b : a;
	}
};
struct Min {
	template <class T> ROCJIT_CUB_FN T operator()(const T &a, const T &b) const
	{
		return b < a ? b : a;
	}
};
typedef ::rocprim::empty_type NullType;

/* ---- warp ---- */

template <class T, int LOGICAL_WARP_THREADS = 32> class WarpReduce {
	typedef ::rocprim::warp_reduce<T, LOGICAL_WARP_THREADS> impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN WarpReduce(TempStorage &t) : s(t) {}
	template <class Op> ROCJIT_CUB_FN T Reduce(T x, Op op)
	{
		T r;
		impl().reduce(x, r, s, op);
		return r;
	}
	template <class Op> ROCJIT_CUB_FN T Reduce(T x, Op op, int valid_items)
	{
		T r;
		impl().reduce(x, r, valid_items, s, op);
		return r;
	}
	ROCJIT_CUB_FN T Sum(T x) { return Reduce(x, cub::Sum()); }
	ROCJIT_CUB_FN T Sum(T x, int valid_items) { return Reduce(x, cub::Sum(), valid_items); }
};

template <class T, int LOGICAL_WARP_THREADS = 32> class WarpScan {
	typedef ::rocprim::warp_scan<T, LOGICAL_WARP_THREADS> impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN WarpScan(TempStorage &t) : s(t) {}
	template <class Op> ROCJIT_CUB_FN void InclusiveScan(T x, T &out, Op op)
	{
		impl().inclusive_scan(x, out, s, op);
	}
	template <class Op> ROCJIT_CUB_FN void InclusiveScan(T x, T &out, Op op, T &warp_aggregate)
	{
		impl().inclusive_scan(x, out, warp_aggregate, s, op);
	}
	template <class Op> ROCJIT_CUB_FN void ExclusiveScan(T x, T &out, T initial, Op op)
	{
		impl().exclusive_scan(x, out, initial, s, op);
	}
	template <class Op>
	ROCJIT_CUB_FN void ExclusiveScan(T x, T &out, T initial, Op op, T &warp_aggregate)
	{
		impl().exclusive_scan(x, out, initial, warp_aggregate, s, op);
	}
	ROCJIT_CUB_FN void InclusiveSum(T x, T &out) { InclusiveScan(x, out, cub::Sum()); }
	ROCJIT_CUB_FN void InclusiveSum(T x, T &out, T &warp_aggregate)
	{
		InclusiveScan(x, out, cub::Sum(), warp_aggregate);
	}
	ROCJIT_CUB_FN void ExclusiveSum(T x, T &out) { ExclusiveScan(x, out, T(), cub::Sum()); }
	ROCJIT_CUB_FN void ExclusiveSum(T x, T &out, T &warp_aggregate)
	{
		ExclusiveScan(x, out, T(), cub::Sum(), warp_aggregate);
	}
};

/* ---- block reduce and scan ---- */

enum BlockReduceAlgorithm {
	BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
	BLOCK_REDUCE_RAKING,
	BLOCK_REDUCE_WARP_REDUCTIONS,
};

template <BlockReduceAlgorithm A> struct rocjit_reduce_algorithm {
	static constexpr ::rocprim::block_reduce_algorithm value =
		A == BLOCK_REDUCE_RAKING ? ::rocprim::block_reduce_algorithm::raking_reduce
		: A == BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY
			? ::rocprim::block_reduce_algorithm::raking_reduce_commutative_only
			: ::rocprim::block_reduce_algorithm::using_warp_reduce;
};

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
	  int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
	typedef ::rocprim::block_reduce<T, BLOCK_DIM_X, rocjit_reduce_algorithm<ALGORITHM>::value,
					BLOCK_DIM_Y, BLOCK_DIM_Z>
		impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN BlockReduce(TempStorage &t) : s(t) {}
	template <class Op> ROCJIT_CUB_FN T Reduce(T x, Op op)
	{
		T r;
		impl().reduce(x, r, s, op);
		return r;
	}
	template <class Op> ROCJIT_CUB_FN T Reduce(T x, Op op, int num_valid)
	{
		T r;
		impl().reduce(x, r, (unsigned int)num_valid, s, op);
		return r;
	}
	template <int N, class Op> ROCJIT_CUB_FN T Reduce(T (&items)[N], Op op)
	{
		T r;
		impl().reduce(items, r, s, op);
		return r;
	}
	ROCJIT_CUB_FN T Sum(T x) { return Reduce(x, cub::Sum()); }
	ROCJIT_CUB_FN T Sum(T x, int num_valid) { return Reduce(x, cub::Sum(), num_valid); }
	template <int N> ROCJIT_CUB_FN T Sum(T (&items)[N]) { return Reduce(items, cub::Sum()); }
};

enum BlockScanAlgorithm {
	BLOCK_SCAN_RAKING,
	BLOCK_SCAN_RAKING_MEMOIZE,
	BLOCK_SCAN_WARP_SCANS,
};

template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
	  int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockScan {
	typedef ::rocprim::block_scan<
		T, BLOCK_DIM_X,
		ALGORITHM == BLOCK_SCAN_WARP_SCANS
			? ::rocprim::block_scan_algorithm::using_warp_scan
			: ::rocprim::block_scan_algorithm::reduce_then_scan,
		BLOCK_DIM_Y, BLOCK_DIM_Z>
		impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN BlockScan(TempStorage &t) : s(t) {}

	/* One item a thread (X = T), or a thread's items in blocked order (X = T[N], passed
	   by reference): rocPRIM overloads both the same way. */
#define ROCJIT_CUB_SCANS(IN, OUT, ...)                                                        \
	template <class Op __VA_ARGS__> ROCJIT_CUB_FN void InclusiveScan(IN, OUT, Op op)       \
	{                                                                                     \
		impl().inclusive_scan(in, out, s, op);                                        \
	}                                                                                     \
	template <class Op __VA_ARGS__>                                                       \
	ROCJIT_CUB_FN void InclusiveScan(IN, OUT, Op op, T &block_aggregate)                  \
	{                                                                                     \
		impl().inclusive_scan(in, out, block_aggregate, s, op);                       \
	}                                                                                     \
	template <class Op __VA_ARGS__> ROCJIT_CUB_FN void ExclusiveScan(IN, OUT, T initial, Op op) \
	{                                                                                     \
		impl().exclusive_scan(in, out, initial, s, op);                               \
	}                                                                                     \
	template <class Op __VA_ARGS__>                                                       \
	ROCJIT_CUB_FN void ExclusiveScan(IN, OUT, T initial, Op op, T &block_aggregate)       \
	{                                                                                     \
		impl().exclusive_scan(in, out, initial, block_aggregate, s, op);              \
	}                                                                                     \
	template <class Unused = void __VA_ARGS__> ROCJIT_CUB_FN void InclusiveSum(IN, OUT)     \
	{                                                                                     \
		InclusiveScan(in, out, cub::Sum());                                           \
	}                                                                                     \
	template <class Unused = void __VA_ARGS__>                                            \
	ROCJIT_CUB_FN void InclusiveSum(IN, OUT, T &block_aggregate)                          \
	{                                                                                     \
		InclusiveScan(in, out, cub::Sum(), block_aggregate);                          \
	}                                                                                     \
	template <class Unused = void __VA_ARGS__> ROCJIT_CUB_FN void ExclusiveSum(IN, OUT)     \
	{                                                                                     \
		ExclusiveScan(in, out, T(), cub::Sum());                                      \
	}                                                                                     \
	template <class Unused = void __VA_ARGS__>                                            \
	ROCJIT_CUB_FN void ExclusiveSum(IN, OUT, T &block_aggregate)                          \
	{                                                                                     \
		ExclusiveScan(in, out, T(), cub::Sum(), block_aggregate);                     \
	}
	ROCJIT_CUB_SCANS(T in, T &out)
	ROCJIT_CUB_SCANS(T (&in)[N], T (&out)[N], , int N)
#undef ROCJIT_CUB_SCANS
};

/* ---- block load and store ---- */

template <class T, int N, class It> ROCJIT_CUB_FN void LoadDirectBlocked(int tid, It in, T (&items)[N])
{
	::rocprim::block_load_direct_blocked((unsigned int)tid, in, items);
}
template <class T, int N, class It>
ROCJIT_CUB_FN void LoadDirectBlocked(int tid, It in, T (&items)[N], int valid)
{
	::rocprim::block_load_direct_blocked((unsigned int)tid, in, items, (unsigned int)valid);
}
template <class T, class D, int N, class It>
ROCJIT_CUB_FN void LoadDirectBlocked(int tid, It in, T (&items)[N], int valid, D oob)
{
	::rocprim::block_load_direct_blocked((unsigned int)tid, in, items, (unsigned int)valid, oob);
}
template <int BLOCK_THREADS, class T, int N, class It>
ROCJIT_CUB_FN void LoadDirectStriped(int tid, It in, T (&items)[N])
{
	::rocprim::block_load_direct_striped<BLOCK_THREADS>((unsigned int)tid, in, items);
}
template <int BLOCK_THREADS, class T, int N, class It>
ROCJIT_CUB_FN void LoadDirectStriped(int tid, It in, T (&items)[N], int valid)
{
	::rocprim::block_load_direct_striped<BLOCK_THREADS>((unsigned int)tid, in, items,
							   (unsigned int)valid);
}
template <class T, int N, class It> ROCJIT_CUB_FN void StoreDirectBlocked(int tid, It out, T (&items)[N])
{
	::rocprim::block_store_direct_blocked((unsigned int)tid, out, items);
}
template <class T, int N, class It>
ROCJIT_CUB_FN void StoreDirectBlocked(int tid, It out, T (&items)[N], int valid)
{
	::rocprim::block_store_direct_blocked((unsigned int)tid, out, items, (unsigned int)valid);
}
template <int BLOCK_THREADS, class T, int N, class It>
ROCJIT_CUB_FN void StoreDirectStriped(int tid, It out, T (&items)[N])
{
	::rocprim::block_store_direct_striped<BLOCK_THREADS>((unsigned int)tid, out, items);
}
template <int BLOCK_THREADS, class T, int N, class It>
ROCJIT_CUB_FN void StoreDirectStriped(int tid, It out, T (&items)[N], int valid)
{
	::rocprim::block_store_direct_striped<BLOCK_THREADS>((unsigned int)tid, out, items,
							    (unsigned int)valid);
}

/* The methods keep CUB's meaning: DIRECT, VECTORIZE, TRANSPOSE and WARP_TRANSPOSE leave a
   thread's items in blocked order, STRIPED in striped order (as rocPRIM's do).  The order
   is rocPRIM's block_load_method's and block_store_method's, which the classes cast to. */
enum BlockLoadAlgorithm {
	BLOCK_LOAD_DIRECT,
	BLOCK_LOAD_STRIPED,
	BLOCK_LOAD_VECTORIZE,
	BLOCK_LOAD_TRANSPOSE,
	BLOCK_LOAD_WARP_TRANSPOSE,
};
enum BlockStoreAlgorithm {
	BLOCK_STORE_DIRECT,
	BLOCK_STORE_STRIPED,
	BLOCK_STORE_VECTORIZE,
	BLOCK_STORE_TRANSPOSE,
	BLOCK_STORE_WARP_TRANSPOSE,
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
	  int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockLoad {
	typedef ::rocprim::block_load<T, BLOCK_DIM_X, ITEMS_PER_THREAD,
				      (::rocprim::block_load_method)ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>
		impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN BlockLoad(TempStorage &t) : s(t) {}
	template <class It> ROCJIT_CUB_FN void Load(It in, T (&items)[ITEMS_PER_THREAD])
	{
		impl().load(in, items, s);
	}
	template <class It> ROCJIT_CUB_FN void Load(It in, T (&items)[ITEMS_PER_THREAD], int valid)
	{
		impl().load(in, items, (unsigned int)valid, s);
	}
	template <class It, class D>
	ROCJIT_CUB_FN void Load(It in, T (&items)[ITEMS_PER_THREAD], int valid, D oob)
	{
		impl().load(in, items, (unsigned int)valid, oob, s);
	}
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
	  int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockStore {
	typedef ::rocprim::block_store<T, BLOCK_DIM_X, ITEMS_PER_THREAD,
				       (::rocprim::block_store_method)ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>
		impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN BlockStore(TempStorage &t) : s(t) {}
	template <class It> ROCJIT_CUB_FN void Store(It out, T (&items)[ITEMS_PER_THREAD])
	{
		impl().store(out, items, s);
	}
	template <class It> ROCJIT_CUB_FN void Store(It out, T (&items)[ITEMS_PER_THREAD], int valid)
	{
		impl().store(out, items, (unsigned int)valid, s);
	}
};

/* ---- block radix sort (RADIX_BITS and the memoize/shared-memory hints are CUB's tuning:
   accepted and left to rocPRIM) ---- */

template <class KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, class ValueT = NullType,
	  int RADIX_BITS = 4, bool MEMOIZE_OUTER_SCAN = true,
	  BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS, int SMEM_CONFIG = 0,
	  int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockRadixSort {
	typedef ::rocprim::block_radix_sort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, ValueT,
					    BLOCK_DIM_Y, BLOCK_DIM_Z>
		impl;
	typename impl::storage_type &s;

public:
	typedef typename impl::storage_type TempStorage;
	ROCJIT_CUB_FN BlockRadixSort(TempStorage &t) : s(t) {}
	ROCJIT_CUB_FN void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
				int end_bit = sizeof(KeyT) * 8)
	{
		impl().sort(keys, s, begin_bit, end_bit);
	}
	ROCJIT_CUB_FN void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
				int begin_bit = 0, int end_bit = sizeof(KeyT) * 8)
	{
		impl().sort(keys, values, s, begin_bit, end_bit);
	}
	ROCJIT_CUB_FN void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
					  int end_bit = sizeof(KeyT) * 8)
	{
		impl().sort_desc(keys, s, begin_bit, end_bit);
	}
	ROCJIT_CUB_FN void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD],
					  ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
					  int end_bit = sizeof(KeyT) * 8)
	{
		impl().sort_desc(keys, values, s, begin_bit, end_bit);
	}
};

} // namespace cub

#undef ROCJIT_CUB_FN

#endif
