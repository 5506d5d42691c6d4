/*
 * cooperative_groups/scan.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC
 * (AMD): cg::inclusive_scan and cg::exclusive_scan over a tile or coalesced group, with an
 * operator (cg::plus by default, see reduce.h).  Written against size/thread_rank/shfl
 * (Hillis-Steele, log2(size) shuffles), like reduce.h; rank 0 of an exclusive scan gets
 * T() (0 for the arithmetic sums it is used for).
 */
#ifndef ROCJIT_CUDA_CG_SCAN_H
#define ROCJIT_CUDA_CG_SCAN_H

#include <cooperative_groups/reduce.h>

namespace cooperative_groups {
template <class Group, class T, class Op>
__device__ inline T inclusive_scan(const Group &g, T value, Op op)
{
	unsigned int n = (unsigned int)g.size(), r = (unsigned int)g.thread_rank();

	for (unsigned int o = 1; o < n; o *= 2) {
		T other = g.shfl(value, r >= o ? r - o : r);
		if (r >= o)
			value = op(other, value);
	}
	return value;
}
template <class Group, class T> __device__ inline T inclusive_scan(const Group &g, T value)
{
	return inclusive_scan(g, value, plus<T>());
}
template <class Group, class T, class Op>
__device__ inline T exclusive_scan(const Group &g, T value, Op op)
{
	unsigned int r = (unsigned int)g.thread_rank();
	T inclusive = inclusive_scan(g, value, op);
	T before = g.shfl(inclusive, r > 0 ? r - 1 : 0);
	return r > 0 ? before : T();
}
template <class Group, class T> __device__ inline T exclusive_scan(const Group &g, T value)
{
	return exclusive_scan(g, value, plus<T>());
}
} /* namespace cooperative_groups */

#endif
