// Block radix sorts written the way kernels use CUB: load a tile, sort it in the block,
// store it blocked; keys alone, keys with values, descending.  Included through the
// umbrella header, as many kernels do.
#include <cub/cub.cuh>

#define THREADS 128
#define ITEMS 4
#define TILE (THREADS * ITEMS)

extern "C" __global__ void cub_block_sort_i32(const int *in, int *out)
{
	typedef cub::BlockRadixSort<int, THREADS, ITEMS> SortT;
	__shared__ typename SortT::TempStorage temp;
	int keys[ITEMS];
	cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * TILE, keys);
	SortT(temp).Sort(keys);
	cub::StoreDirectBlocked(threadIdx.x, out + blockIdx.x * TILE, keys);
}

// Keys with their original index as the value (an argsort of each tile).
extern "C" __global__ void cub_block_argsort_u32(const unsigned *in, unsigned *keys_out,
						 int *index_out)
{
	typedef cub::BlockRadixSort<unsigned, THREADS, ITEMS, int> SortT;
	__shared__ typename SortT::TempStorage temp;
	unsigned keys[ITEMS];
	int idx[ITEMS];
	cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * TILE, keys);
	for (int k = 0; k < ITEMS; k++)
		idx[k] = threadIdx.x * ITEMS + k;
	SortT(temp).Sort(keys, idx);
	cub::StoreDirectBlocked(threadIdx.x, keys_out + blockIdx.x * TILE, keys);
	cub::StoreDirectBlocked(threadIdx.x, index_out + blockIdx.x * TILE, idx);
}

extern "C" __global__ void cub_block_sort_desc_f32(const float *in, float *out)
{
	typedef cub::BlockRadixSort<float, THREADS, ITEMS> SortT;
	__shared__ typename SortT::TempStorage temp;
	float keys[ITEMS];
	cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * TILE, keys);
	SortT(temp).SortDescending(keys);
	cub::StoreDirectBlocked(threadIdx.x, out + blockIdx.x * TILE, keys);
}
