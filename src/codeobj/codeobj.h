/*
 * codeobj.h - reading code objects (AMDGPU ELF, NVIDIA CUBIN).  Internal side of
 * rocjit_codeobj_*.
 *
 * Owns ELF parsing; pure functions over a byte range, no I/O, no global state.  codeobj.c
 * holds the AMDGPU specifics and the calls below over the container elf.c opens; cubin.c
 * the CUBIN target encoding, NVIDIA target rules and what a CUBIN's kernel uses, for
 * codeobj.c and resources.c (rocjit_codeobj_resources_get) only.
 */
#ifndef ROCJIT_CODEOBJ_H
#define ROCJIT_CODEOBJ_H

#include <stddef.h>
#include <stdint.h>
#include "rocjit.h"

/*
 * Checks that data is a well-formed code object for the normalized target id `target`:
 * a "gfx..." target needs an AMDGPU object whose amdhsa.target note and e_flags agree with
 * it, an "sm_XY[a|f]" target a CUBIN for that SM ("sm_90" and "sm_90a" differ; "sm_XYf"
 * accepts an "sm_XY" CUBIN, which is what NVRTC writes for it).  On success, when
 * kernels_out is not NULL, *kernels_out receives a malloc'ed, comma-separated list of the
 * kernel names ("axpy,scale"), which the caller frees.
 * Returns 0, ROCJIT_EINVAL (target is not a target id), ROCJIT_EFORMAT (malformed, built
 * for another target, or for the other platform), ROCJIT_ENOMEM.
 */
int rj_codeobj_check(const void *data, size_t size, const char *target, char **kernels_out);

/*
 * The function an AMDGPU object's pointer variable (a global `const void *variable =
 * &f;`) points to, read from the object's relocations: *func gets the function symbol's
 * name, malloc'ed.  How hipRTC's name expressions are lowered exactly (platform_amd.c).
 * Returns 0, ROCJIT_ENOTFOUND (no such variable, or it points to no function),
 * ROCJIT_EFORMAT, ROCJIT_ENOMEM.
 */
int rj_codeobj_amd_pointee(const void *data, size_t size, const char *variable, char **func);

/*
 * Whether the object defines a variable (an STT_OBJECT symbol: a __device__ or
 * __constant__ variable) named name: what a name expression "&ns::table" lowers to, as a
 * kernel's expression lowers to a kernel.  1 yes, 0 no, ROCJIT_EFORMAT (malformed).
 */
int rj_codeobj_has_variable(const void *data, size_t size, const char *name);

/*
 * The variables the object defines, what a module's variable lookup can find (AMD:
 * those of global binding, kernel descriptors "NAME.kd" left out; CUBIN: its local
 * objects but the toolchain's own, "." and "$" names), each once, comma separated into
 * out[out_size], which ends in "..." when they do not all fit ("" when none).  0 or
 * ROCJIT_EFORMAT.
 */
int rj_codeobj_variables(const void *data, size_t size, char *out, size_t out_size);

/* ---- CUBIN specifics (cubin.c), for codeobj.c ---- */

#define RJ_SHT_CUDA_COMPAT 0x70000086u /* section type of .nv.compat */

/*
 * Reads the records of one .nv.compat section, sec[0..size) (section number `index`, for
 * messages); sets *accel when attribute 0x09, the "a" of sm_90a, is non-zero, and leaves
 * it alone otherwise.  Returns 0 or ROCJIT_EFORMAT (truncated or unknown record).
 */
int rj_cubin_compat_accel(const unsigned char *sec, uint64_t size, unsigned index, int *accel);

/*
 * Writes the target of a CUBIN with these e_flags and EI_ABIVERSION (7 or 8) into out:
 * "sm_90", or "sm_90a" when accel (from .nv.compat) or the e_flags accelerator bit says
 * so.  Returns 0 or ROCJIT_EFORMAT (no plausible SM in e_flags).
 */
int rj_cubin_target(char out[ROCJIT_MAX_TARGET], uint32_t e_flags, unsigned abi, int accel);

struct elf;

/*
 * Fills the NVIDIA fields of *out (whose version is set) for kernel, an entry function of
 * the CUBIN e: registers and stack from .nv.info, its own attributes from the .nv.info
 * section of its .text, static shared memory from .nv.shared.<kernel>.  Returns 0,
 * ROCJIT_ENOTFOUND (no such entry function), ROCJIT_EFORMAT (malformed or missing record).
 */
int rj_cubin_resources(rocjit_kernel_resources *out, const struct elf *e, const char *kernel);

/* Whether target is an NVIDIA target id: "sm_90", "sm_90a", "sm_100f". */
int rj_cubin_target_valid(const char *target);

/* Whether a CUBIN whose target reads `have` serves the valid NVIDIA target `want`. */
int rj_cubin_target_match(const char *have, const char *want);

#endif
