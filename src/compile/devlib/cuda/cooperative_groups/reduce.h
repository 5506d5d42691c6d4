/*
 * cooperative_groups/reduce.h as rocjit serves it to CUDA-dialect sources compiled by
 * hipRTC (AMD): cg::reduce(group, value, op) and CUDA's function objects cg::plus, less,
 * greater, bit_and, bit_or, bit_xor (as CUDA's, less and greater give the minimum and the
 * maximum: they are reduction operators, not comparisons).
 *
 * The reduction is written against what every group has (size, thread_rank, shfl), so it
 * serves rocjit's groups (hipRTC 5.2) and HIP 5.7's built-in ones alike, for tiles and
 * coalesced groups of any size: a tree towards rank 0 in log2(size) shuffles, then a
 * broadcast.  Every member calls every shuffle, as the group's collectives require.
 * Not provided: reduce_update_async / reduce_store_async (CUDA 12's atomic variants).
 */
#ifndef ROCJIT_CUDA_CG_REDUCE_H
#define ROCJIT_CUDA_CG_REDUCE_H

#include <cooperative_groups.h>

namespace cooperative_groups {
#define ROCJIT_CG_OP(NAME, EXPR)                                                   \
	template <class T> struct NAME {                                           \
		__host__ __device__ T operator()(const T &a, const T &b) const     \
		{                                                                  \
			return EXPR;                                               \
		}                                                                  \
	};
ROCJIT_CG_OP(plus, a + b)
ROCJIT_CG_OP(less, b < a ? b : a)
ROCJIT_CG_OP(greater, a < b ? b : a)
ROCJIT_CG_OP(bit_and, a & b)
ROCJIT_CG_OP(bit_or, a | b)
ROCJIT_CG_OP(bit_xor, a ^ b)
#undef ROCJIT_CG_OP

/* op over the values of all members of g, returned to every member. */
template <class Group, class T, class Op>
__device__ inline T reduce(const Group &g, T value, Op op)
{
	unsigned int n = (unsigned int)g.size(), r = (unsigned int)g.thread_rank();

	for (unsigned int o = 1; o < n; o *= 2) {
		T other = g.shfl(value, r + o < n ? r + o : r);
		if (r % (2 * o) == 0 && r + o < n)
			value = op(value, other);
	}
	return g.shfl(value, 0);
}
} /* namespace cooperative_groups */

#endif
