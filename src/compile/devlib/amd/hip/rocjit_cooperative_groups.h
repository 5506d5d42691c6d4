/*
 * hip/rocjit_cooperative_groups.h - rocjit's cooperative groups for a hipRTC that builds none
 * in (5.2), served through <hip/hip_cooperative_groups.h> to HIP sources and, through
 * <cooperative_groups.h>, to CUDA-dialect sources.
 *
 * Why not HIP's own header from disk: 5.2's copy lacks what CUDA code and newer HIP code
 * call (thread_block_tile::meta_group_rank/meta_group_size, num_threads, the tile votes
 * any/all/ballot, grid_group::block_rank ...), a class cannot be extended from outside, and
 * the file is only there where libamdhip64-dev is installed.  This is the same API in
 * namespace cooperative_groups, small enough to read:
 *
 *   - thread_block, grid_group, multi_grid_group (HIP's), coalesced_group, thread_group;
 *   - thread_block_tile<N, Parent> for N a power of two up to the wavefront (64 on gfx9,
 *     32 on gfx10+): a tile is a lane-aligned slice of one wavefront, so it needs no
 *     memory and its sync() is a wavefront barrier;
 *   - tiled_partition<N>(group) and tiled_partition(group, n), this_thread_block(),
 *     this_grid(), this_thread(), coalesced_threads(), and the free sync/thread_rank/
 *     group_size/num_threads/is_valid;
 *   - binary_partition, labeled_partition and match_any/match_all (CUDA 11), through one
 *     broadcast per lane of the wavefront (AMD has no match instruction).
 * The collectives (cooperative_groups/reduce.h, scan.h, memcpy_async.h) are generic over
 * any group with size/thread_rank/shfl, so they serve HIP 5.7's built-in groups as well.
 * Not provided: tiles larger than the wavefront, tiled_partition<N> of a coalesced_group
 * (the run-time tiled_partition(coalesced, n) is).  Grid and multi-grid sync need a
 * cooperative launch, as in CUDA.
 *
 * Owns: namespace cooperative_groups (helpers in cooperative_groups::details).
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_ROCJIT_COOPERATIVE_GROUPS_H
#define ROCJIT_DEVLIB_AMD_HIP_ROCJIT_COOPERATIVE_GROUPS_H

/* HIP's guard: code that tests it (or a later include of HIP's file) sees groups present. */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H
#endif

#define ROCJIT_CG_FN __device__ inline __attribute__((always_inline))
#define ROCJIT_CG_STATIC __device__ static inline __attribute__((always_inline))

namespace cooperative_groups {
class coalesced_group;
namespace details {
typedef unsigned long long lane_mask;
struct partitions;

/* The calling thread's rank in its block, x fastest (CUDA's thread_block::thread_rank). */
ROCJIT_CG_FN unsigned int block_rank()
{
	return (unsigned int)threadIdx.x +
	       (unsigned int)blockDim.x *
		       ((unsigned int)threadIdx.y + (unsigned int)blockDim.y * (unsigned int)threadIdx.z);
}
ROCJIT_CG_FN unsigned int block_size()
{
	return (unsigned int)blockDim.x * (unsigned int)blockDim.y * (unsigned int)blockDim.z;
}
ROCJIT_CG_FN unsigned long long block_index()
{
	return (unsigned long long)blockIdx.x +
	       (unsigned long long)gridDim.x *
		       ((unsigned long long)blockIdx.y +
			(unsigned long long)gridDim.y * (unsigned long long)blockIdx.z);
}
ROCJIT_CG_FN unsigned long long num_blocks()
{
	return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
/* Lanes of the wavefront below the calling one. */
ROCJIT_CG_FN lane_mask lanes_below()
{
	return (1ull << __lane_id()) - 1ull;
}
/* The lane holding the n-th (from 0) set bit of mask; the calling lane when there is none. */
ROCJIT_CG_FN int nth_lane(lane_mask mask, unsigned int n)
{
	for (int lane = 0; lane < __AMDGCN_WAVEFRONT_SIZE; lane++)
		if ((mask >> lane) & 1ull) {
			if (n == 0)
				return lane;
			n--;
		}
	return (int)__lane_id();
}
/* A wavefront runs in lock step: a tile or coalesced group only has to order memory for
 * the other lanes and keep the compiler from moving accesses across the barrier. */
ROCJIT_CG_FN void wave_sync()
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
	__builtin_amdgcn_wave_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
/* Moves a value of any trivially copyable type through move(int) -> int, a 32-bit
 * shuffle, word by word (HIP's __shfl takes only arithmetic types). */
template <class T> struct words {
	int w[(sizeof(T) + 3) / 4];
};
template <class T, class F> ROCJIT_CG_FN T shuffle(T var, F move)
{
	words<T> in, out;
	__builtin_memcpy(&in, &var, sizeof(T));
	for (unsigned int i = 0; i < sizeof(in.w) / sizeof(int); i++)
		out.w[i] = move(in.w[i]);
	T r;
	__builtin_memcpy(&r, &out, sizeof(T));
	return r;
}
/* The lanes of members (a mask of the wavefront) whose value equals the caller's: one
 * broadcast per lane of the wavefront, every lane taking part in each. */
template <class T> ROCJIT_CG_FN lane_mask same_value(T value, lane_mask members)
{
	words<T> mine;
	lane_mask same = 0;

	__builtin_memcpy(&mine, &value, sizeof(T));
	for (int lane = 0; lane < __AMDGCN_WAVEFRONT_SIZE; lane++) {
		bool equal = true;
		for (unsigned int i = 0; i < sizeof(mine.w) / sizeof(int); i++)
			equal &= __shfl(mine.w[i], lane, __AMDGCN_WAVEFRONT_SIZE) == mine.w[i];
		if (equal && ((members >> lane) & 1ull))
			same |= 1ull << lane;
	}
	return same;
}
/* A tile's vote mask: 32 bits as CUDA's, 64 for a 64-lane tile (gfx9 wavefront). */
template <unsigned int N> struct tile_mask {
	typedef unsigned int type;
};
template <> struct tile_mask<64> {
	typedef unsigned long long type;
};
} /* namespace details */

/* HIP's names for the kinds of group (thread_group::cg_type()). */
namespace internal {
typedef enum {
	cg_invalid,
	cg_multi_grid,
	cg_grid,
	cg_workgroup,
	cg_tiled_group,
	cg_coalesced_group
} group_type;
} /* namespace internal */

/* Any group, its kind known at run time: what tiled_partition(group, n) returns and what
 * every group converts to. */
class thread_group {
protected:
	unsigned int _type;
	unsigned int _size;
	details::lane_mask _mask;	/* coalesced groups: their lanes */
	unsigned int _meta_rank, _meta_size;

	ROCJIT_CG_FN thread_group(unsigned int type, unsigned int size, details::lane_mask mask = 0,
				  unsigned int meta_rank = 0, unsigned int meta_size = 1)
		: _type(type), _size(size), _mask(mask), _meta_rank(meta_rank), _meta_size(meta_size)
	{
	}
	friend ROCJIT_CG_FN thread_group tiled_partition(const thread_group &parent,
							 unsigned int tile_size);

public:
	ROCJIT_CG_FN unsigned int size() const { return _size; }
	ROCJIT_CG_FN unsigned int num_threads() const { return _size; }
	ROCJIT_CG_FN unsigned int cg_type() const { return _type; }
	ROCJIT_CG_FN unsigned int thread_rank() const
	{
		switch (_type) {
		case internal::cg_tiled_group:
			return details::block_rank() & (_size - 1);
		case internal::cg_coalesced_group:
			return (unsigned int)__popcll(_mask & details::lanes_below());
		case internal::cg_grid:
			return (unsigned int)(details::block_index() * details::block_size() +
					      details::block_rank());
		case internal::cg_multi_grid:
			return (unsigned int)__ockl_multi_grid_thread_rank();
		default:
			return details::block_rank();
		}
	}
	ROCJIT_CG_FN bool is_valid() const
	{
		switch (_type) {
		case internal::cg_grid:
			return __ockl_grid_is_valid();
		case internal::cg_multi_grid:
			return __ockl_multi_grid_is_valid();
		default:
			return _type != internal::cg_invalid;
		}
	}
	ROCJIT_CG_FN void sync() const
	{
		switch (_type) {
		case internal::cg_tiled_group:
		case internal::cg_coalesced_group:
			details::wave_sync();
			break;
		case internal::cg_grid:
			__ockl_grid_sync();
			break;
		case internal::cg_multi_grid:
			__ockl_multi_grid_sync();
			break;
		default:
			__syncthreads();
		}
	}
};

/* The block.  Its members are static, as CUDA's (block.sync() and thread_block::sync()). */
class thread_block : public thread_group {
	friend ROCJIT_CG_FN thread_block this_thread_block();
	ROCJIT_CG_FN thread_block() : thread_group(internal::cg_workgroup, details::block_size()) {}

public:
	ROCJIT_CG_STATIC unsigned int thread_rank() { return details::block_rank(); }
	ROCJIT_CG_STATIC unsigned int size() { return details::block_size(); }
	ROCJIT_CG_STATIC unsigned int num_threads() { return details::block_size(); }
	ROCJIT_CG_STATIC bool is_valid() { return true; }
	ROCJIT_CG_STATIC void sync() { __syncthreads(); }
	ROCJIT_CG_STATIC dim3 group_index()
	{
		return dim3((unsigned int)blockIdx.x, (unsigned int)blockIdx.y, (unsigned int)blockIdx.z);
	}
	ROCJIT_CG_STATIC dim3 thread_index()
	{
		return dim3((unsigned int)threadIdx.x, (unsigned int)threadIdx.y,
			    (unsigned int)threadIdx.z);
	}
	ROCJIT_CG_STATIC dim3 group_dim()
	{
		return dim3((unsigned int)blockDim.x, (unsigned int)blockDim.y, (unsigned int)blockDim.z);
	}
	ROCJIT_CG_STATIC dim3 dim_threads() { return group_dim(); }
};
ROCJIT_CG_FN thread_block this_thread_block() { return thread_block(); }

/* The grid; sync() needs a cooperative launch (hipLaunchCooperativeKernel), as in CUDA. */
class grid_group : public thread_group {
	friend ROCJIT_CG_FN grid_group this_grid();
	ROCJIT_CG_FN grid_group()
		: thread_group(internal::cg_grid,
			       (unsigned int)(details::num_blocks() * details::block_size()))
	{
	}

public:
	ROCJIT_CG_STATIC unsigned long long thread_rank()
	{
		return details::block_index() * details::block_size() + details::block_rank();
	}
	ROCJIT_CG_STATIC unsigned long long size()
	{
		return details::num_blocks() * details::block_size();
	}
	ROCJIT_CG_STATIC unsigned long long num_threads() { return size(); }
	ROCJIT_CG_STATIC unsigned long long block_rank() { return details::block_index(); }
	ROCJIT_CG_STATIC unsigned long long num_blocks() { return details::num_blocks(); }
	ROCJIT_CG_STATIC dim3 block_index() { return thread_block::group_index(); }
	ROCJIT_CG_STATIC dim3 group_dim() { return thread_block::group_dim(); }
	ROCJIT_CG_STATIC dim3 dim_blocks()
	{
		return dim3((unsigned int)gridDim.x, (unsigned int)gridDim.y, (unsigned int)gridDim.z);
	}
	ROCJIT_CG_STATIC bool is_valid() { return __ockl_grid_is_valid(); }
	ROCJIT_CG_STATIC void sync() { __ockl_grid_sync(); }
};
ROCJIT_CG_FN grid_group this_grid() { return grid_group(); }

/* HIP's multi-device group (hipLaunchCooperativeKernelMultiDevice). */
class multi_grid_group : public thread_group {
	friend ROCJIT_CG_FN multi_grid_group this_multi_grid();
	ROCJIT_CG_FN multi_grid_group()
		: thread_group(internal::cg_multi_grid, (unsigned int)__ockl_multi_grid_size())
	{
	}

public:
	ROCJIT_CG_FN unsigned int num_grids() { return (unsigned int)__ockl_multi_grid_num_grids(); }
	ROCJIT_CG_FN unsigned int grid_rank() { return (unsigned int)__ockl_multi_grid_grid_rank(); }
	ROCJIT_CG_FN unsigned int thread_rank() const
	{
		return (unsigned int)__ockl_multi_grid_thread_rank();
	}
	ROCJIT_CG_FN bool is_valid() const { return __ockl_multi_grid_is_valid(); }
	ROCJIT_CG_FN void sync() const { __ockl_multi_grid_sync(); }
};
ROCJIT_CG_FN multi_grid_group this_multi_grid() { return multi_grid_group(); }

/* What every tile of N lanes shares, whatever its parent.  Ranks come from the block rank:
 * a block's wavefronts hold consecutive ranks, so an N-lane tile is N consecutive lanes. */
template <unsigned int N> class thread_block_tile_base : public thread_group {
	static_assert(N > 0 && (N & (N - 1)) == 0 && N <= __AMDGCN_WAVEFRONT_SIZE,
		      "rocjit: a tile is a power of two no larger than the wavefront (64 on gfx9, "
		      "32 on gfx10 and later)");

protected:
	ROCJIT_CG_FN thread_block_tile_base(unsigned int meta_rank, unsigned int meta_size)
		: thread_group(internal::cg_tiled_group, N, 0, meta_rank, meta_size)
	{
	}
	template <class T, class F> ROCJIT_CG_STATIC T move(T var, F f)
	{
		return details::shuffle(var, f);
	}

public:
	static constexpr unsigned int numThreads = N;
	typedef typename details::tile_mask<N>::type mask_type;

	ROCJIT_CG_STATIC unsigned int thread_rank() { return details::block_rank() & (N - 1); }
	ROCJIT_CG_STATIC unsigned int size() { return N; }
	ROCJIT_CG_STATIC unsigned int num_threads() { return N; }
	ROCJIT_CG_STATIC bool is_valid() { return true; }
	ROCJIT_CG_STATIC void sync() { details::wave_sync(); }
	/* Which of the tiles partitioned from the parent this is, and how many there are. */
	ROCJIT_CG_FN unsigned int meta_group_rank() const { return _meta_rank; }
	ROCJIT_CG_FN unsigned int meta_group_size() const { return _meta_size; }

	template <class T> ROCJIT_CG_FN T shfl(T var, int src_rank) const
	{
		return move(var, [=](int w) { return __shfl(w, src_rank, (int)N); });
	}
	template <class T> ROCJIT_CG_FN T shfl_down(T var, unsigned int delta) const
	{
		return move(var, [=](int w) { return __shfl_down(w, delta, (int)N); });
	}
	template <class T> ROCJIT_CG_FN T shfl_up(T var, unsigned int delta) const
	{
		return move(var, [=](int w) { return __shfl_up(w, delta, (int)N); });
	}
	template <class T> ROCJIT_CG_FN T shfl_xor(T var, unsigned int lane_mask) const
	{
		return move(var, [=](int w) { return __shfl_xor(w, (int)lane_mask, (int)N); });
	}
	/* The tile's lanes in the wavefront. */
	ROCJIT_CG_STATIC details::lane_mask lanes()
	{
		return (N == 64 ? ~0ull : (1ull << (N & 63)) - 1ull) << (__lane_id() & ~(N - 1));
	}
	/* Bit k = tile rank k. */
	ROCJIT_CG_FN mask_type ballot(int predicate) const
	{
		return (mask_type)((__ballot(predicate) & lanes()) >> (__lane_id() & ~(N - 1)));
	}
	/* The ranks holding the same value as the caller (CUDA's match_any/match_all). */
	template <class T> ROCJIT_CG_FN mask_type match_any(T value) const
	{
		return (mask_type)(details::same_value(value, lanes()) >> (__lane_id() & ~(N - 1)));
	}
	template <class T> ROCJIT_CG_FN mask_type match_all(T value, int &pred) const
	{
		details::lane_mask same = details::same_value(value, lanes());
		pred = same == lanes();
		return pred ? (mask_type)(same >> (__lane_id() & ~(N - 1))) : (mask_type)0;
	}
	ROCJIT_CG_FN int any(int predicate) const { return ballot(predicate) != 0; }
	ROCJIT_CG_FN int all(int predicate) const { return ballot(!predicate) == 0; }
};

template <unsigned int N, class Parent = void> class thread_block_tile
	: public thread_block_tile_base<N> {
	template <unsigned int, class> friend class thread_block_tile;
	template <unsigned int M, class P>
	friend ROCJIT_CG_FN thread_block_tile<M, P> tiled_partition(const P &parent);
	friend ROCJIT_CG_FN thread_block_tile<1, void> this_thread();
	ROCJIT_CG_FN thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
		: thread_block_tile_base<N>(meta_rank, meta_size)
	{
	}

public:
	/* thread_block_tile<N, thread_block> converts to thread_block_tile<N> (CUDA's). */
	template <class P>
	ROCJIT_CG_FN thread_block_tile(const thread_block_tile<N, P> &tile)
		: thread_block_tile_base<N>(tile.meta_group_rank(), tile.meta_group_size())
	{
	}
};

/* The tile of N threads of parent (a thread_block, a tile, a thread_group of whole
 * tiles) that holds the calling thread. */
template <unsigned int N, class Parent>
ROCJIT_CG_FN thread_block_tile<N, Parent> tiled_partition(const Parent &parent)
{
	return thread_block_tile<N, Parent>(parent.thread_rank() / N,
					    ((unsigned int)parent.size() + N - 1) / N);
}
ROCJIT_CG_FN thread_block_tile<1, void> this_thread()
{
	return thread_block_tile<1, void>(details::block_rank(), details::block_size());
}

/* The active lanes of the wavefront (or a part of them), ranked by lane. */
class coalesced_group : public thread_group {
	friend ROCJIT_CG_FN coalesced_group coalesced_threads();
	friend ROCJIT_CG_FN coalesced_group tiled_partition(const coalesced_group &parent,
							    unsigned int tile_size);
	friend struct details::partitions;
	ROCJIT_CG_FN explicit coalesced_group(details::lane_mask mask, unsigned int meta_rank = 0,
					      unsigned int meta_size = 1)
		: thread_group(internal::cg_coalesced_group, (unsigned int)__popcll(mask), mask,
			       meta_rank, meta_size)
	{
	}
	template <class T> ROCJIT_CG_FN T from_lane(T var, int lane) const
	{
		return details::shuffle(var, [=](int w) {
			return __shfl(w, lane, __AMDGCN_WAVEFRONT_SIZE);
		});
	}

public:
	ROCJIT_CG_FN unsigned int size() const { return _size; }
	ROCJIT_CG_FN unsigned int num_threads() const { return _size; }
	ROCJIT_CG_FN unsigned int thread_rank() const
	{
		return (unsigned int)__popcll(_mask & details::lanes_below());
	}
	ROCJIT_CG_FN bool is_valid() const { return _size != 0; }
	ROCJIT_CG_FN void sync() const { details::wave_sync(); }
	ROCJIT_CG_FN unsigned int meta_group_rank() const { return _meta_rank; }
	ROCJIT_CG_FN unsigned int meta_group_size() const { return _meta_size; }

	template <class T> ROCJIT_CG_FN T shfl(T var, unsigned int src_rank) const
	{
		return from_lane(var, details::nth_lane(_mask, src_rank % _size));
	}
	/* Out-of-range ranks read the caller's own value, as CUDA's shfl_down/up. */
	template <class T> ROCJIT_CG_FN T shfl_down(T var, unsigned int delta) const
	{
		unsigned int r = thread_rank() + delta;
		return from_lane(var, r < _size ? details::nth_lane(_mask, r) : (int)__lane_id());
	}
	template <class T> ROCJIT_CG_FN T shfl_up(T var, unsigned int delta) const
	{
		unsigned int r = thread_rank();
		return from_lane(var, r >= delta ? details::nth_lane(_mask, r - delta)
						 : (int)__lane_id());
	}
	/* Bit k = group rank k of the member lanes in lanes, compacted; 32 bits as CUDA's,
	 * so ranks from 32 on (a group of more than 32 lanes of a gfx9 wavefront) are left
	 * out. */
	ROCJIT_CG_FN unsigned int by_rank(details::lane_mask lanes) const
	{
		unsigned int r = 0, k = 0;
		for (int lane = 0; lane < __AMDGCN_WAVEFRONT_SIZE && k < 32; lane++)
			if ((_mask >> lane) & 1ull)
				r |= (unsigned int)((lanes >> lane) & 1ull) << k++;
		return r;
	}
	ROCJIT_CG_FN unsigned int ballot(int predicate) const { return by_rank(__ballot(predicate)); }
	template <class T> ROCJIT_CG_FN unsigned int match_any(T value) const
	{
		return by_rank(details::same_value(value, _mask));
	}
	template <class T> ROCJIT_CG_FN unsigned int match_all(T value, int &pred) const
	{
		details::lane_mask same = details::same_value(value, _mask);
		pred = same == _mask;
		return pred ? by_rank(same) : 0u;
	}
	ROCJIT_CG_FN int any(int predicate) const { return (__ballot(predicate) & _mask) != 0; }
	ROCJIT_CG_FN int all(int predicate) const { return (__ballot(!predicate) & _mask) == 0; }
};
ROCJIT_CG_FN coalesced_group coalesced_threads() { return coalesced_group(__ballot(1)); }

/* Run-time partitions.  Of a coalesced group: the members whose ranks share rank / n. */
ROCJIT_CG_FN coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size)
{
	unsigned int first = parent.thread_rank() / tile_size * tile_size, k = 0;
	details::lane_mask mask = 0;
	for (int lane = 0; lane < __AMDGCN_WAVEFRONT_SIZE; lane++)
		if ((parent._mask >> lane) & 1ull) {
			if (k >= first && k < first + tile_size)
				mask |= 1ull << lane;
			k++;
		}
	return coalesced_group(mask, parent.thread_rank() / tile_size,
			       (parent.size() + tile_size - 1) / tile_size);
}
/* binary_partition and labeled_partition (CUDA 11): the members of a tile or coalesced
 * group that share pred (or label), as a coalesced group; meta_group_rank is pred (0 or 1)
 * for a binary partition, 0 for a labeled one (CUDA leaves it unspecified). */
namespace details {
struct partitions {
	static ROCJIT_CG_FN coalesced_group make(lane_mask mask, unsigned int rank,
						 unsigned int size)
	{
		return coalesced_group(mask, rank, size);
	}
	static ROCJIT_CG_FN lane_mask lanes(const coalesced_group &g) { return g._mask; }
	template <unsigned int N, class P>
	static ROCJIT_CG_FN lane_mask lanes(const thread_block_tile<N, P> &g)
	{
		return g.lanes();
	}
};
} /* namespace details */
template <class Group> ROCJIT_CG_FN coalesced_group binary_partition(const Group &parent, bool pred)
{
	details::lane_mask members = details::partitions::lanes(parent);
	details::lane_mask yes = __ballot(pred) & members;
	return details::partitions::make(pred ? yes : members & ~yes, pred ? 1 : 0, 2);
}
template <class Group, class Label>
ROCJIT_CG_FN coalesced_group labeled_partition(const Group &parent, Label label)
{
	return details::partitions::make(
		details::same_value(label, details::partitions::lanes(parent)), 0, 1);
}

/* Of a block or a tile: an n-lane tile (n a power of two up to the wavefront). */
ROCJIT_CG_FN thread_group tiled_partition(const thread_group &parent, unsigned int tile_size)
{
	if (parent.cg_type() == internal::cg_coalesced_group)
		return tiled_partition(static_cast<const coalesced_group &>(parent), tile_size);
	return thread_group(internal::cg_tiled_group, tile_size, 0,
			    parent.thread_rank() / tile_size,
			    (parent.size() + tile_size - 1) / tile_size);
}

template <class G> ROCJIT_CG_FN void sync(const G &g) { g.sync(); }
template <class G> ROCJIT_CG_FN auto thread_rank(const G &g) -> decltype(g.thread_rank())
{
	return g.thread_rank();
}
template <class G> ROCJIT_CG_FN auto group_size(const G &g) -> decltype(g.size())
{
	return g.size();
}
template <class G> ROCJIT_CG_FN auto num_threads(const G &g) -> decltype(g.size())
{
	return g.size();
}
template <class G> ROCJIT_CG_FN bool is_valid(const G &g) { return g.is_valid(); }
} /* namespace cooperative_groups */

#undef ROCJIT_CG_FN
#undef ROCJIT_CG_STATIC

#endif
