// hip57_cg_builtins.h - stands for HIP 5.7's hipRTC, which builds its cooperative groups
// in: HIP's include guard defined and namespace cooperative_groups holding classes of the
// names CUDA uses.  test_dialect_cuda_amd force-includes it to check that rocjit's groups
// for CUDA source do not collide with them (and that the kernels still compile).
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_H
namespace cooperative_groups {
class thread_group {};
class thread_block : public thread_group {};
template <unsigned int size, class ParentCGTy = void> class thread_block_tile;
__device__ inline thread_block this_thread_block() { return thread_block(); }
} // namespace cooperative_groups
