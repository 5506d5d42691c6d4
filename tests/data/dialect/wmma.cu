// wmma.cu - a 16x16x16 tensor-core tile product through nvcuda::wmma (<mma.h>), the way
// CUDA kernels write it.  NVIDIA only: on AMD rocjit's mma.h stops the compile with one
// message naming the header (hipRTC has no WMMA).  One warp: c = a (row-major) * b
// (column-major), fp16 inputs, fp32 accumulate.
#include <mma.h>
#include <cuda_fp16.h>

using namespace nvcuda;

extern "C" __global__ void wmma_16x16x16_f16_f32(const half *a, const half *b, float *c)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;

	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
