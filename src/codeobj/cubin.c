/*
 * cubin.c - NVIDIA CUBINs: where their target is written, "sm_XY" target rules, and
 * what each kernel uses.
 *
 * Owns the CUBIN target encoding (e_flags layouts, the .nv.compat attributes), the
 * syntax and matching of NVIDIA target ids, and the .nv.info attributes and .nv.shared
 * sections that say what a kernel uses (for resources.c), for codeobj.c, which owns the
 * CUBIN entry-symbol rule and the public calls; elf.c owns the container.  Pure functions
 * over the caller's bytes and strings: no I/O, no global state, any thread.  Calls no
 * module but error.c and elf.c.
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
#include "codeobj/elf.h"

/*
 * .nv.compat and .nv.info hold the same records: a format byte, an attribute byte and a
 * 16-bit little-endian field, the value for formats 1..3 (none, byte, half-word), for
 * format 4 the length of the bytes that follow.  Any other format byte is an error rather
 * than the end of the walk, so a damaged section never silently drops a record.
 */
struct nv_rec {
	unsigned fmt, attr;
	uint64_t val;              /* formats 1..3: the value; format 4: the length of data */
	const unsigned char *data; /* format 4: the record's bytes                          */
};

/* Reads the record at *pos of section `what` (number `index`) into *r and moves *pos past
 * it.  0, or ROCJIT_EFORMAT (truncated, overflowing or of unknown format). */
static int nv_next(const unsigned char *sec, uint64_t size, uint64_t *pos, struct nv_rec *r,
		   const char *what, unsigned index)
{
	uint64_t at = *pos;

	RJ_CHECK(size - at < 4, ROCJIT_EFORMAT, "CUBIN's %s (section %u) is truncated at byte "
		 "%llu", what, index, (ull)at);
	r->fmt = sec[at];
	r->attr = sec[at + 1];
	r->val = (uint64_t)sec[at + 2] | (uint64_t)sec[at + 3] << 8;
	r->data = sec + at + 4;
	RJ_CHECK(r->fmt < 1 || r->fmt > 4, ROCJIT_EFORMAT, "CUBIN's %s (section %u) has a "
		 "record of unknown format %u at byte %llu", what, index, r->fmt, (ull)at);
	RJ_CHECK(r->fmt == 4 && r->val > size - at - 4, ROCJIT_EFORMAT, "CUBIN's %s record at "
		 "byte %llu of section %u overflows the section", what, (ull)at, index);
	*pos = at + 4 + (r->fmt == 4 ? r->val : 0);
	return 0;
}

int rj_cubin_compat_accel(const unsigned char *sec, uint64_t size, unsigned index, int *accel)
{
	uint64_t pos = 0;
	struct nv_rec r;

	while (pos < size) {
		RJ_FORWARD(nv_next(sec, size, &pos, &r, ".nv.compat", index));
		if (r.fmt != 4 && r.attr == 0x09 && r.val)
			*accel = 1;
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

/* ---- What a kernel uses (rocjit_codeobj_resources_get) ----
 *
 * Measured on CUDA 13.0 (nvcc -cubin and NVRTC write the same; sm_75, 80, 90, 100, 120),
 * each figure compared with `ptxas -v` on the same code:
 *  - The kernel is its STO_CUDA_ENTRY symbol; its code is .text.<kernel> (the symbol's
 *    section).  The SHT_CUDA_INFO section whose sh_info is that section's index is
 *    .nv.info.<kernel>, the kernel's own attributes; the one with sh_info 0 is .nv.info,
 *    attributes of every function keyed by symbol index.
 *  - In .nv.info: EIATTR_REGCOUNT (0x2f), EIATTR_FRAME_SIZE (0x11) and
 *    EIATTR_MIN_STACK_SIZE (0x12), each format 4 with 8 bytes: the symbol's index (u32),
 *    then the value (u32).  REGCOUNT is ptxas's "Used N registers"; FRAME_SIZE its "bytes
 *    stack frame" (1496 for a kernel spilling under __launch_bounds__(1024, 2)); the
 *    stack size is the frame plus what calls need ("cumulative stack size"): scratch is
 *    the larger of the two.  CUDA 13 leaves the top byte of .text.<kernel>'s sh_info 0;
 *    older CUDA kept the register count there, read only when REGCOUNT is absent.
 *  - In .nv.info.<kernel>: EIATTR_MAX_THREADS (0x05, format 4, 12 bytes: x, y, z as u32)
 *    from __launch_bounds__ / .maxntid (256 -> 256, 1, 1); EIATTR_REQNTID (0x10, same
 *    layout) from .reqntid; EIATTR_CBANK_PARAM_SIZE (0x19, format 3) the parameter bytes
 *    (25 for (float *, int, double, char)), else the top half-word of EIATTR_PARAM_CBANK
 *    (0x0a, format 4, 8 bytes: a symbol index, then offset and size as u16).  Absent
 *    when the kernel has no parameters or no bound.
 *  - Static shared memory is the size of the SHT_NOBITS section .nv.shared.<kernel>.  From
 *    sm_90 on (the CUBIN then has .nv.shared.reserved.0) that section starts with the
 *    1 KB the system reserves per block: `__shared__ float t[1024]` gives 5120 bytes,
 *    ptxas reports 4096, a kernel with none 1024 or no section at all.  rocjit reports
 *    ptxas's figure.
 *  - Other attributes (0x17 KPARAM_INFO, 0x1b MAXREG_COUNT, 0x1c EXIT_INSTR_OFFSETS, 0x37
 *    the CUDA API version, 0x4c, 0x50, 0x55, 0x5f, 0x36, ...) are skipped.
 */
#define SHT_CUDA_INFO 0x70000000u
#define EIATTR_MAX_THREADS 0x05
#define EIATTR_PARAM_CBANK 0x0a
#define EIATTR_REQNTID 0x10
#define EIATTR_FRAME_SIZE 0x11
#define EIATTR_MIN_STACK_SIZE 0x12
#define EIATTR_CBANK_PARAM_SIZE 0x19
#define EIATTR_REGCOUNT 0x2f
#define NV_RESERVED_SHARED 1024

/* Whether record r is of format 4 with n bytes; any other shape of an attribute read is
 * an error, since reading it would give a wrong figure. */
static int nv_sized(const struct nv_rec *r, uint64_t n, unsigned index)
{
	RJ_CHECK(r->fmt != 4 || r->val != n, ROCJIT_EFORMAT, "CUBIN's .nv.info (section %u) "
		 "has attribute 0x%02x of format %u and %llu bytes, expected format 4 and %llu "
		 "bytes", index, r->attr, r->fmt, (ull)(r->fmt == 4 ? r->val : 0), (ull)n);
	return 0;
}

/* x * y * z of a 12-byte thread-count record, at most UINT32_MAX. */
static unsigned nv_threads(const unsigned char *d)
{
	uint64_t n = le(d, 4) * le(d + 4, 4);

	n = n > 0xffffffffu ? 0xffffffffu : n * le(d + 8, 4);
	return n > 0xffffffffu ? 0xffffffffu : (unsigned)n;
}

/* Reads the .nv.info section sh (number index): the global one (sh_info 0) for the
 * records keyed by symbol sym, or the kernel's own. */
static int nv_info(rocjit_kernel_resources *out, const struct elf *e, const struct shdr *sh,
		   unsigned index, uint64_t sym, int *regs_seen)
{
	const unsigned char *sec = e->p + sh->off;
	uint64_t pos = 0, frame = 0, stack = 0, reqntid = 0;
	struct nv_rec r;

	while (pos < sh->size) {
		RJ_FORWARD(nv_next(sec, sh->size, &pos, &r, ".nv.info", index));
		if (sh->info == 0) {
			if (r.attr != EIATTR_REGCOUNT && r.attr != EIATTR_FRAME_SIZE &&
			    r.attr != EIATTR_MIN_STACK_SIZE)
				continue;
			RJ_FORWARD(nv_sized(&r, 8, index));
			if (le(r.data, 4) != sym)
				continue;
			if (r.attr == EIATTR_REGCOUNT) {
				out->registers = (unsigned)le(r.data + 4, 4);
				*regs_seen = 1;
			} else if (r.attr == EIATTR_FRAME_SIZE) {
				frame = le(r.data + 4, 4);
			} else {
				stack = le(r.data + 4, 4);
			}
		} else if (r.attr == EIATTR_MAX_THREADS || r.attr == EIATTR_REQNTID) {
			RJ_FORWARD(nv_sized(&r, 12, index));
			if (r.attr == EIATTR_MAX_THREADS)
				out->max_threads = nv_threads(r.data);
			else
				reqntid = nv_threads(r.data);
		} else if (r.attr == EIATTR_CBANK_PARAM_SIZE) {
			RJ_CHECK(r.fmt != 3, ROCJIT_EFORMAT, "CUBIN's .nv.info (section %u) has "
				 "EIATTR_CBANK_PARAM_SIZE of format %u, not 3", index, r.fmt);
			out->param_bytes = r.val;
		} else if (r.attr == EIATTR_PARAM_CBANK && !out->param_bytes) {
			RJ_FORWARD(nv_sized(&r, 8, index));
			out->param_bytes = le(r.data + 6, 2);
		}
	}
	if (sh->info == 0)
		out->scratch_bytes = frame > stack ? frame : stack;
	else if (!out->max_threads)
		out->max_threads = (unsigned)reqntid;
	return 0;
}

int rj_cubin_resources(rocjit_kernel_resources *out, const struct elf *e, const char *kernel)
{
	struct rj_sym sym;
	struct shdr sh, text;
	uint64_t shared = 0;
	unsigned i;
	int rc, regs_seen = 0, reserved = 0;
	const char *name;

	rc = rj_elf_sym_find(e, STT_FUNC, kernel, 0, &sym);
	RJ_FORWARD(rc < 0 ? rc : 0);
	RJ_CHECK(rc || !(sym.other & STO_CUDA_ENTRY), ROCJIT_ENOTFOUND, "CUBIN has no kernel "
		 "\"%.200s\"%s", kernel, rc ? "" : " (a __device__ function of that name, not a "
		 "__global__ one)");
	RJ_CHECK(sym.shndx >= e->shnum, ROCJIT_EFORMAT, "CUBIN's kernel \"%.200s\" is in "
		 "section %u, which does not exist", kernel, sym.shndx);
	shdr_get(e, sym.shndx, &text);
	out->platform = ROCJIT_PLATFORM_NVIDIA;
	out->wavefront = 32;
	for (i = 1; i < e->shnum; i++) {
		shdr_get(e, i, &sh);
		if (sh.type == SHT_CUDA_INFO && (sh.info == 0 || sh.info == sym.shndx)) {
			RJ_FORWARD(nv_info(out, e, &sh, i, sym.index, &regs_seen));
			continue;
		}
		if (sh.type != SHT_NOBITS || !(name = rj_elf_section_name(e, &sh)) ||
		    strncmp(name, ".nv.shared.", 11) != 0)
			continue;
		if (strncmp(name + 11, "reserved.", 9) == 0)
			reserved = 1;
		else if (strcmp(name + 11, kernel) == 0)
			shared = sh.size;
	}
	if (!regs_seen)
		out->registers = text.info >> 24;
	RJ_CHECK(!out->registers, ROCJIT_EFORMAT, "CUBIN records no register count for kernel "
		 "\"%.200s\" (no EIATTR_REGCOUNT in .nv.info)", kernel);
	if (reserved && shared) {
		RJ_CHECK(shared < NV_RESERVED_SHARED, ROCJIT_EFORMAT, "CUBIN's .nv.shared.%.200s "
			 "(%llu bytes) is smaller than the %d reserved bytes it starts with",
			 kernel, (ull)shared, NV_RESERVED_SHARED);
		shared -= NV_RESERVED_SHARED;
	}
	out->shared_bytes = shared;
	return 0;
}
