// Block loads and stores written the way kernels use CUB: BlockLoad and BlockStore with
// their TempStorage in one shared union, guarded for the last partial tile, and the
// direct functions (LoadDirectBlocked, StoreDirectStriped).
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

#define THREADS 128
#define ITEMS 4
#define TILE (THREADS * ITEMS)

// y = a * x + 1, a tile of 512 a block, the last one partial (n not a multiple of 512).
extern "C" __global__ void cub_load_store_direct_f32(const float *x, float *y, float a, int n)
{
	typedef cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_DIRECT> LoadT;
	typedef cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_DIRECT> StoreT;
	__shared__ union {
		typename LoadT::TempStorage load;
		typename StoreT::TempStorage store;
	} temp;
	int base = blockIdx.x * TILE;
	int valid = n - base < TILE ? n - base : TILE;
	float v[ITEMS];
	LoadT(temp.load).Load(x + base, v, valid, 0.0f);
	for (int k = 0; k < ITEMS; k++)
		v[k] = a * v[k] + 1.0f;
	__syncthreads();
	StoreT(temp.store).Store(y + base, v, valid);
}

// Striped load, transposed store: out[i] = in[i] * (1 + position in the thread's items),
// each thread's k-th item being element base + k * THREADS + threadIdx.x.
extern "C" __global__ void cub_load_striped_scale_i32(const int *in, int *out)
{
	typedef cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_STRIPED> LoadT;
	__shared__ typename LoadT::TempStorage temp;
	int base = blockIdx.x * TILE;
	int v[ITEMS];
	LoadT(temp).Load(in + base, v);
	for (int k = 0; k < ITEMS; k++)
		v[k] *= k + 1;
	cub::StoreDirectStriped<THREADS>(threadIdx.x, out + base, v);
}

// The direct functions: blocked load with a default, blocked store of the valid items.
extern "C" __global__ void cub_direct_blocked_negate_i32(const int *in, int *out, int n)
{
	int base = blockIdx.x * TILE;
	int valid = n - base < TILE ? n - base : TILE;
	int v[ITEMS];
	cub::LoadDirectBlocked(threadIdx.x, in + base, v, valid, 7);
	for (int k = 0; k < ITEMS; k++)
		v[k] = -v[k];
	cub::StoreDirectBlocked(threadIdx.x, out + base, v, valid);
}
