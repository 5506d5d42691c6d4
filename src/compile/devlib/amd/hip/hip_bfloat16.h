/*
 * hip/hip_bfloat16.h as rocjit serves it to hipRTC: HIP's older bfloat16 class,
 * `hip_bfloat16` (public 16-bit `data`, explicit construction from float, implicit
 * conversion to float; arithmetic goes through float).  hipRTC 5.2 has no bfloat16 type,
 * and HIP's header on disk pulls <ostream>, which does not compile for the device;
 * rocPRIM's config.hpp includes this header for its rocprim::bfloat16.  Conversions are
 * rocjit_cvt's (round to nearest even), the ones the CUDA dialect's __nv_bfloat16 uses.
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_BFLOAT16_H
#define ROCJIT_DEVLIB_AMD_HIP_BFLOAT16_H

#include <rocjit_cuda_convert.h>

struct hip_bfloat16 {
	unsigned short data;

	hip_bfloat16() = default;
	__host__ __device__ explicit hip_bfloat16(float f) : data(rocjit_cvt::float_to_bf16(f)) {}
	__host__ __device__ operator float() const { return rocjit_cvt::bf16_to_float(data); }
	__host__ __device__ hip_bfloat16 &operator=(float f)
	{
		data = rocjit_cvt::float_to_bf16(f);
		return *this;
	}
};

#endif
