/*
 * cubin.c - NVIDIA CUBINs: where their target is written, and "sm_XY" target rules.
 *
 * Owns the CUBIN target encoding (e_flags layouts, the .nv.compat attributes) and the
 * syntax and matching of NVIDIA target ids, for codeobj.c, which owns the ELF container
 * (header identification, section table, symbol tables and the CUBIN entry-symbol rule)
 * and the public calls.  Pure functions over the caller's bytes and strings: no I/O, no
 * global state, any thread.  Calls no module but error.c.
 *
 * Where a CUBIN keeps its target, measured on CUDA 13.0 output (NVRTC, nvcc -cubin and
 * ptxas write the same header) for sm_75, 80, 86, 87, 89, 90, 90a, 100, 100a, 100f, 103,
 * 103a, 110, 120, 120a, 121, 121a:
 *  - OS/ABI 65, ABI version 8 for every SM.  e_flags = 0x06000000 | SM << 8 | 0x04 up to
 *    sm_90, 0x02 from sm_100 (sm_80 0x06005004, sm_90 0x06005a04, sm_100 0x06006402,
 *    sm_120 0x06007802): the SM is bits 8-15 (LLVM's EF_CUDA_SM_MASK), the rest unread.
 *  - ABI version 7 (OS/ABI 51, CUDA 12 and older; from LLVM, not measured here): the SM is
 *    the low byte (EF_CUDA_SM); 0x400 is 64-bit addressing, bits 16-23 the virtual SM.
 *  - The "a" (sm_90a, sm_100a, sm_120a) is NOT in CUDA 13.0's e_flags: the headers of
 *    sm_90 and sm_90a objects are byte-identical.  It is attribute 0x09 ("accelerator
 *    target") set to 1 in the SHT_CUDA_COMPAT section .nv.compat (0 for sm_90, sm_100;
 *    no .nv.compat at all below sm_90).  LLVM also defines it as e_flags bit 0x8 (ABI 8,
 *    EF_CUDA_ACCELERATORS) and 0x800 (ABI 7, EF_CUDA_ACCELERATORS_V1): any source sets it.
 *  - "sm_100f" is not recorded: its object equals sm_100's but for the compile options
 *    in .note.nv.tkinfo, and reads as "sm_100" (rj_cubin_target_match allows for it).
 */
#include "codeobj/codeobj.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"

/*
 * .nv.compat records are as in .nv.info: a format byte, an attribute byte and a 16-bit
 * little-endian field, the value for formats 1..3 (none, byte, half-word), for format 4
 * the length of the bytes that follow.  Any other format byte is an error rather than the
 * end of the walk, so a damaged section never silently drops the "a".
 */
int rj_cubin_compat_accel(const unsigned char *sec, uint64_t size, unsigned index, int *accel)
{
	uint64_t pos = 0, val;

	while (pos < size) {
		RJ_CHECK(size - pos < 4, ROCJIT_EFORMAT,
			 "CUBIN's .nv.compat (section %u) is truncated at byte %llu", index,
			 (unsigned long long)pos);
		val = (uint64_t)sec[pos + 2] | (uint64_t)sec[pos + 3] << 8;
		RJ_CHECK(sec[pos] < 1 || sec[pos] > 4, ROCJIT_EFORMAT,
			 "CUBIN's .nv.compat (section %u) has a record of unknown format %u at "
			 "byte %llu", index, sec[pos], (unsigned long long)pos);
		if (sec[pos] == 4) {
			RJ_CHECK(val > size - pos - 4, ROCJIT_EFORMAT,
				 "CUBIN's .nv.compat record at byte %llu of section %u overflows "
				 "the section", (unsigned long long)pos, index);
			pos += val;
		} else if (sec[pos + 1] == 0x09 && val) {
			*accel = 1;
		}
		pos += 4;
	}
	return 0;
}

/* The SM of an ABI 8 header is bits 8-15, of an ABI 7 header the low byte: see the top. */
int rj_cubin_target(char out[ROCJIT_MAX_TARGET], uint32_t e_flags, unsigned abi, int accel)
{
	unsigned sm = abi == 7 ? e_flags & 0xff : (e_flags >> 8) & 0xff;

	RJ_CHECK(sm < 20, ROCJIT_EFORMAT,
		 "CUBIN is for an unknown NVIDIA architecture (SM %u from e_flags 0x%x, ABI "
		 "version %u)", sm, (unsigned)e_flags, abi);
	if (e_flags & (abi == 7 ? 0x800u : 0x8u))
		accel = 1;
	snprintf(out, ROCJIT_MAX_TARGET, "sm_%u%s", sm, accel ? "a" : "");
	return 0;
}

/* "sm_" and 2 or 3 digits without a leading 0, then "a", "f" or nothing: lower case only,
 * as rocjit_target_normalize writes it. */
int rj_cubin_target_valid(const char *target)
{
	size_t n;

	if (strncmp(target, "sm_", 3) != 0)
		return 0;
	target += 3;
	n = strspn(target, "0123456789");
	return n >= 2 && n <= 3 && target[0] != '0' &&
	       (!target[n] || ((target[n] == 'a' || target[n] == 'f') && !target[n + 1]));
}

/*
 * The same target exactly ("sm_90" and "sm_90a" differ both ways), except that "sm_XYf"
 * accepts the plain "sm_XY" object, since CUBINs do not record the "f" (see the top).
 */
int rj_cubin_target_match(const char *have, const char *want)
{
	size_t n = strlen(want);

	return strcmp(have, want) == 0 ||
	       (n > 0 && want[n - 1] == 'f' && strlen(have) == n - 1 &&
		strncmp(have, want, n - 1) == 0);
}
