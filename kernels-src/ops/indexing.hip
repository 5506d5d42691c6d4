/*
 * indexing.hip - gathers (index_select, gather) and scatters (scatter_add, index_add).
 *
 * Kernels: templates, each instantiated only when a request names it (a name expression;
 * I: the index type, unsigned char, unsigned int or long long; B the unsigned type of the
 * element's bytes: unsigned char, unsigned short, unsigned int, unsigned long long; T a
 * storage type of rj_ops.h as the compiler prints it):
 *   gather<I, B>(rj_idx s, const I *ids, const B *x, B *y)
 *       one work item per element of y (s.dims, s.n): y[e] = x[e with coordinate dim
 *       replaced by ids[e]], or 0 when that index is outside [0, s.xlen).  index_select
 *       is the same with ids' strides 0 except along dim (a 1-D ids read by coordinate).
 *   scatter_add<I, T>(rj_idx s, const I *ids, const T *src, T *dst)
 *       one work item per position of src outside dim (s.dims with dims[dim] = 1), each
 *       walking dim in order: dst[p with dim = ids[p, j]] += src[p, j] for j < s.len;
 *       indices outside [0, s.xlen) are skipped.  index_add: ids' strides 0 except along
 *       dim.  Work items touch disjoint dst elements (only coordinate dim varies), so
 *       there are no atomics and the result is the same every run.
 * Strides (elements): xs = x or dst, is = ids, os = y or src.
 * Launch: 1-D blocks of any size, any 1-D grid, no shared memory.
 */
#include "rj_ops.h"

template <class I> __device__ static inline bool rj_in_range(I id, rj_i64 len)
{
	return (rj_u64)id < (rj_u64)len; /* a negative i64 becomes huge */
}

/* Offsets of work item e in x (without dim), ids and the other operand. */
__device__ static inline void rj_idx_offsets(const rj_idx &s, rj_i64 e, rj_i64 *ox, rj_i64 *oi,
					     rj_i64 *oo)
{
	*ox = *oi = *oo = 0;
	for (int d = s.ndim - 1; d >= 0; d--) {
		rj_i64 q = e / s.dims[d];
		rj_i64 c = e - q * s.dims[d];
		if (d != s.dim)
			*ox += c * s.xs[d];
		*oi += c * s.is[d];
		*oo += c * s.os[d];
		e = q;
	}
}

template <class I, class B>
__device__ static void rj_gather(const rj_idx &s, const I *ids, const B *x, B *y)
{
	RJ_GRID_LOOP(e, s.n) {
		rj_i64 ox, oi, oy;
		rj_idx_offsets(s, e, &ox, &oi, &oy);
		I id = ids[oi];
		y[oy] = rj_in_range(id, s.xlen) ? x[ox + (rj_i64)id * s.xs[s.dim]] : (B)0;
	}
}

template <class I, class T>
__device__ static void rj_scatter_add(const rj_idx &s, const I *ids, const T *src, T *dst)
{
	rj_i64 is = s.is[s.dim], os = s.os[s.dim], xs = s.xs[s.dim];

	RJ_GRID_LOOP(e, s.n) {
		rj_i64 ox, oi, oo;
		rj_idx_offsets(s, e, &ox, &oi, &oo);
		for (rj_i64 j = 0; j < s.len; j++) {
			I id = ids[oi + j * is];
			if (!rj_in_range(id, s.xlen))
				continue;
			T *d = dst + ox + (rj_i64)id * xs;
			*d = rj_cvt<T>(rj_add(rj_load(d), rj_load(src + oo + j * os)));
		}
	}
}

template <class I, class B> __global__ void gather(rj_idx s, const I *ids, const B *x, B *y)
{
	rj_gather(s, ids, x, y);
}

template <class I, class T>
__global__ void scatter_add(rj_idx s, const I *ids, const T *src, T *dst)
{
	rj_scatter_add(s, ids, src, dst);
}
