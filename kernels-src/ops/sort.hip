/*
 * sort.hip - argsort along the last dimension: a bitonic sort of each row's indices in
 * shared memory, one block per row.
 *
 * Kernels: templates, each instantiated only when a request names it (a name expression;
 * T a storage type of rj_ops.h as the compiler prints it):
 *   argsort_asc<T>(rj_rows s, const T *x, uint32_t *y)
 *   argsort_desc<T>(rj_rows s, const T *x, uint32_t *y)
 * Row r of x as in rows.hip (in_st, in_cs); y row r at out_st, its indices out_cs apart.
 * The order is total: values, then the index, so equal values keep their order (the
 * result is the stable sort's); NaN goes after every number ascending, before them
 * descending.  Values are read from x at each comparison, only indices live in shared
 * memory.
 * Launch: a power-of-two block of at most 1024 threads (at most P, below), any 1-D grid
 * (grid-stride over rows), dynamic shared memory of P * 4 bytes, P the smallest power of
 * two >= s.cols (8192 columns fit in 32 KiB).
 */
#include "rj_ops.h"

/* Does element a come before element b?  Indices past the row are padding: last. */
template <bool Desc, class T>
__device__ static inline bool rj_before(const T *p, rj_i64 cs, rj_i64 cols, rj_u32 a, rj_u32 b)
{
	typedef typename rj_ct<T>::type C;

	if (a >= cols)
		return false;
	if (b >= cols)
		return true;
	C va = rj_load(p + a * cs), vb = rj_load(p + b * cs);
	bool an = rj_isnan(va), bn = rj_isnan(vb);
	if (an || bn)
		return an && bn ? a < b : Desc ? an : bn;
	if (va == vb)
		return a < b;
	return Desc ? va > vb : va < vb;
}

template <bool Desc, class T> __device__ static void rj_argsort(const rj_rows &s, const T *x, rj_u32 *y)
{
	extern __shared__ rj_u32 rj_sort_idx[];
	rj_u32 pad = 1;

	while (pad < (rj_u64)s.cols)
		pad <<= 1;
	for (rj_i64 r = blockIdx.x; r < s.rows; r += gridDim.x) {
		const T *p = x + rj_row_offset(r, s.ndim, s.dims, s.in_st);
		rj_u32 *q = y + rj_row_offset(r, s.ndim, s.dims, s.out_st);

		for (rj_u32 i = threadIdx.x; i < pad; i += blockDim.x)
			rj_sort_idx[i] = i;
		__syncthreads();
		for (rj_u32 k = 2; k <= pad; k <<= 1) {
			for (rj_u32 j = k >> 1; j > 0; j >>= 1) {
				for (rj_u32 i = threadIdx.x; i < pad; i += blockDim.x) {
					rj_u32 l = i ^ j;
					if (l <= i)
						continue;
					rj_u32 a = rj_sort_idx[i], b = rj_sort_idx[l];
					/* The lower half of each k-run ascends, the upper descends. */
					bool swap = (i & k) == 0 ? rj_before<Desc>(p, s.in_cs, s.cols, b, a)
								 : rj_before<Desc>(p, s.in_cs, s.cols, a, b);
					if (swap) {
						rj_sort_idx[i] = b;
						rj_sort_idx[l] = a;
					}
				}
				__syncthreads();
			}
		}
		for (rj_u32 i = threadIdx.x; i < s.cols; i += blockDim.x)
			q[i * s.out_cs] = rj_sort_idx[i];
		__syncthreads(); /* the next row reuses the indices */
	}
}

template <class T> __global__ void argsort_asc(rj_rows s, const T *x, rj_u32 *y)
{
	rj_argsort<false>(s, x, y);
}

template <class T> __global__ void argsort_desc(rj_rows s, const T *x, rj_u32 *y)
{
	rj_argsort<true>(s, x, y);
}
