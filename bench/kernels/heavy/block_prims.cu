/*
 * block_prims.cu - a header-heavy benchmark kernel set (issue 32): CUB's block-wide
 * primitives (load, reduce, scan, radix sort, store), templated on the block size and
 * items per thread the way kernel libraries use them.
 *
 * Kernels (extern "C"; block of 128 threads; each block handles 128 * 4 items):
 *   block_sum_f32(int n, const float *x, float *out)      one atomicAdd per block
 *   block_scan_i32(int n, const int *x, int *y)           exclusive scan per tile
 *   block_sort_u32(int n, const unsigned *x, unsigned *y) each tile sorted ascending
 */
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

#define THREADS 128
#define ITEMS 4

extern "C" __global__ void block_sum_f32(int n, const float *x, float *out)
{
	typedef cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;
	typedef cub::BlockReduce<float, THREADS> Reduce;
	__shared__ union {
		typename Load::TempStorage load;
		typename Reduce::TempStorage reduce;
	} tmp;
	float items[ITEMS];
	int base = blockIdx.x * THREADS * ITEMS;

	Load(tmp.load).Load(x + base, items, n - base, 0.0f);
	__syncthreads();
	float sum = Reduce(tmp.reduce).Sum(items);
	if (threadIdx.x == 0)
		atomicAdd(out, sum);
}

extern "C" __global__ void block_scan_i32(int n, const int *x, int *y)
{
	typedef cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;
	typedef cub::BlockScan<int, THREADS> Scan;
	typedef cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> Store;
	__shared__ union {
		typename Load::TempStorage load;
		typename Scan::TempStorage scan;
		typename Store::TempStorage store;
	} tmp;
	int items[ITEMS];
	int base = blockIdx.x * THREADS * ITEMS;

	Load(tmp.load).Load(x + base, items, n - base, 0);
	__syncthreads();
	Scan(tmp.scan).ExclusiveSum(items, items);
	__syncthreads();
	Store(tmp.store).Store(y + base, items, n - base);
}

extern "C" __global__ void block_sort_u32(int n, const unsigned *x, unsigned *y)
{
	typedef cub::BlockLoad<unsigned, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE> Load;
	typedef cub::BlockRadixSort<unsigned, THREADS, ITEMS> Sort;
	typedef cub::BlockStore<unsigned, THREADS, ITEMS, cub::BLOCK_STORE_TRANSPOSE> Store;
	__shared__ union {
		typename Load::TempStorage load;
		typename Sort::TempStorage sort;
		typename Store::TempStorage store;
	} tmp;
	unsigned items[ITEMS];
	int base = blockIdx.x * THREADS * ITEMS;

	Load(tmp.load).Load(x + base, items, n - base, 0xffffffffu);
	__syncthreads();
	Sort(tmp.sort).Sort(items);
	__syncthreads();
	Store(tmp.store).Store(y + base, items, n - base);
}
