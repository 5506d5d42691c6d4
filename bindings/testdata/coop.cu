// Launched as 8 x 128 threads: each writes its slot, the whole grid waits, then each reads
// the slot of the thread one block on, written by another block (without a grid-wide
// barrier the reads race).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ unsigned int slots[1024];
__device__ unsigned int seen[1024];
extern "C" __global__ void rotate(unsigned int round)
{
	cg::grid_group grid = cg::this_grid();
	unsigned int n = (unsigned int)grid.size(), i = (unsigned int)grid.thread_rank();
	slots[i] = i * 7u + round;
	grid.sync();
	seen[i] = slots[(i + blockDim.x) % n];
}
