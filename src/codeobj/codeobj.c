/*
 * codeobj.c - reading code objects: which target they are for, which kernels they hold.
 *
 * Owns the readers of the two ELF64 flavours the compilers return, over the container
 * elf.c opens and checks: which symbols are kernels (".kd" descriptors in AMDGPU objects,
 * STO_CUDA_ENTRY functions in CUBINs), the AMDGPU target (e_flags, the metadata note in
 * MessagePack, walked by msgpack.c), and the public calls.  Where a CUBIN writes its
 * target, and NVIDIA target-id rules, are cubin.c's; what a pointer variable points to is
 * reloc.c's; what each kernel uses is resources.c's.  Pure
 * functions over the caller's byte range: no I/O, no global state, no device, so any
 * thread may call them.
 * Every read is bounds-checked against [data, data+size) with overflow-safe arithmetic and
 * byte-wise loads (no alignment assumed); anything truncated, foreign or self-contradictory
 * is ROCJIT_EFORMAT with a message saying what was wrong.  Calls no module but error.c,
 * elf.c, msgpack.c and cubin.c.
 */
#include "codeobj/codeobj.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "codeobj/elf.h"
#include "codeobj/msgpack.h"

#define TARGET_PREFIX "amdgcn-amd-amdhsa--"

/* EF_AMDGPU_MACH_* (low byte of e_flags) -> processor, as in LLVM's BinaryFormat/ELF.h. */
static const char *const mach_names[] = {
	[0x20] = "gfx600", [0x21] = "gfx601", [0x22] = "gfx700", [0x23] = "gfx701",
	[0x24] = "gfx702", [0x25] = "gfx703", [0x26] = "gfx704", [0x28] = "gfx801",
	[0x29] = "gfx802", [0x2a] = "gfx803", [0x2b] = "gfx810", [0x2c] = "gfx900",
	[0x2d] = "gfx902", [0x2e] = "gfx904", [0x2f] = "gfx906", [0x30] = "gfx908",
	[0x31] = "gfx909", [0x32] = "gfx90c", [0x33] = "gfx1010", [0x34] = "gfx1011",
	[0x35] = "gfx1012", [0x36] = "gfx1030", [0x37] = "gfx1031", [0x38] = "gfx1032",
	[0x39] = "gfx1033", [0x3a] = "gfx602", [0x3b] = "gfx705", [0x3c] = "gfx805",
	[0x3d] = "gfx1035", [0x3e] = "gfx1034", [0x3f] = "gfx90a", [0x40] = "gfx940",
	[0x41] = "gfx1100", [0x42] = "gfx1013", [0x43] = "gfx1150", [0x44] = "gfx1103",
	[0x45] = "gfx1036", [0x46] = "gfx1101", [0x47] = "gfx1102", [0x48] = "gfx1200",
	[0x4a] = "gfx1151", [0x4b] = "gfx941", [0x4c] = "gfx942", [0x4e] = "gfx1201",
	[0x4f] = "gfx950",
};

/* A target id: the processor, and each feature's setting ('+', '-', or 0 when unset). */
struct tid {
	char proc[ROCJIT_MAX_TARGET];
	char sramecc, xnack;
};

/* ---- AMDGPU code objects ---- */

/*
 * Builds the target id that e_flags alone give ("gfx90a:sramecc+:xnack-") into out.  v4/v5
 * have two bits per feature (unsupported, any, off, on: only off and on are written); v3
 * has one bit per feature, set meaning on.
 */
static int flags_target(const struct elf *e, char *out)
{
	unsigned mach = e->flags & 0xff, x, s;
	const char *name = mach < sizeof mach_names / sizeof mach_names[0] ? mach_names[mach] : NULL;

	RJ_CHECK(!name, ROCJIT_EFORMAT,
		 "code object is for an unknown processor (EF_AMDGPU_MACH 0x%02x, e_flags 0x%x)",
		 mach, (unsigned)e->flags);
	if (e->abi == 1) {
		x = e->flags & 0x100 ? 0x300 : 0;
		s = e->flags & 0x200 ? 0xc00 : 0;
	} else {
		x = e->flags & 0x300;
		s = e->flags & 0xc00;
	}
	snprintf(out, ROCJIT_MAX_TARGET, "%s%s%s", name,
		 s == 0x800 ? ":sramecc-" : s == 0xc00 ? ":sramecc+" : "",
		 x == 0x200 ? ":xnack-" : x == 0x300 ? ":xnack+" : "");
	return 0;
}

/*
 * Parses "proc[:sramecc+|-][:xnack+|-]", features in any order, each at most once: the
 * only target features AMDGPU defines.  Returns 0, or -1 for anything else.
 */
static int tid_parse(const char *s, struct tid *t)
{
	size_t n = strcspn(s, ":");
	const char *c;
	char *f;

	memset(t, 0, sizeof *t);
	if (n == 0 || n >= sizeof t->proc)
		return -1;
	memcpy(t->proc, s, n);
	for (c = t->proc; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
			return -1;
	for (s += n; *s; s += n) {
		n = strcspn(++s, ":");
		if (n == 8 && strncmp(s, "sramecc", 7) == 0)
			f = &t->sramecc;
		else if (n == 6 && strncmp(s, "xnack", 5) == 0)
			f = &t->xnack;
		else
			return -1;
		if (*f || (s[n - 1] != '+' && s[n - 1] != '-'))
			return -1;
		*f = s[n - 1];
	}
	return 0;
}

/* Whether a and b name the same processor with the same feature settings. */
static int tid_equal(const struct tid *a, const struct tid *b)
{
	return strcmp(a->proc, b->proc) == 0 && a->sramecc == b->sramecc && a->xnack == b->xnack;
}

/*
 * Reads the top-level key "amdhsa.target" of the metadata map into target, prefix
 * "amdgcn-amd-amdhsa--" cut; leaves target "" when the map has no such key (v3).  Every
 * top-level entry must parse, so a damaged note is an error, not a missing key.
 */
static int metadata_target(const unsigned char *d, size_t n, char *target)
{
	static const char key[] = "amdhsa.target";
	const size_t plen = sizeof TARGET_PREFIX - 1;
	struct mp m = { d, n, 0 };
	uint64_t count, len, i;
	struct tid t;

	RJ_CHECK(rj_mp_head(&m, &count) != MP_MAP, ROCJIT_EFORMAT,
		 "code object's metadata note is not a MessagePack map");
	for (i = 0; i < count; i++) {
		size_t at = m.pos;

		if (rj_mp_head(&m, &len) == MP_STR && len == sizeof key - 1 &&
		    memcmp(m.p + m.pos, key, sizeof key - 1) == 0) {
			const char *s;

			RJ_CHECK(target[0], ROCJIT_EFORMAT,
				 "code object's metadata has amdhsa.target twice");
			m.pos += (size_t)len;
			RJ_CHECK(rj_mp_head(&m, &len) != MP_STR, ROCJIT_EFORMAT,
				 "code object's metadata amdhsa.target is not a string");
			s = (const char *)m.p + m.pos;
			m.pos += (size_t)len;
			RJ_CHECK(len <= plen || len - plen >= ROCJIT_MAX_TARGET ||
				 memcmp(s, TARGET_PREFIX, plen) != 0, ROCJIT_EFORMAT,
				 "code object's metadata amdhsa.target (%llu bytes) is not "
				 "\"" TARGET_PREFIX "<target id>\"", (ull)len);
			memcpy(target, s + plen, (size_t)len - plen);
			target[len - plen] = 0;
			RJ_CHECK(strlen(target) != len - plen || tid_parse(target, &t) < 0,
				 ROCJIT_EFORMAT, "code object's metadata amdhsa.target is not a "
				 "valid target id");
			continue;
		}
		m.pos = at;
		RJ_CHECK(rj_mp_skip(&m, 0) < 0 || rj_mp_skip(&m, 0) < 0, ROCJIT_EFORMAT,
			 "code object's metadata note is malformed MessagePack (top-level entry "
			 "%llu, near byte %zu of %zu)", (ull)i, m.pos, n);
	}
	return 0;
}

/* ---- Kernels, inspection and the public calls ---- */

/* Appends kernel name s[0..n) to info unless it is there already. */
static int kernel_add(rocjit_codeobj_info *info, size_t *cap, const char *s, size_t n)
{
	size_t i;
	char *copy;

	for (i = 0; i < info->num_kernels; i++)
		if (strncmp(info->kernels[i], s, n) == 0 && info->kernels[i][n] == 0)
			return 0;
	if (info->num_kernels == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		char **v = realloc(info->kernels, ncap * sizeof *v);

		RJ_CHECK(!v, ROCJIT_ENOMEM, "out of memory listing kernels");
		info->kernels = v;
		*cap = ncap;
	}
	copy = malloc(n + 1);
	RJ_CHECK(!copy, ROCJIT_ENOMEM, "out of memory listing kernels");
	memcpy(copy, s, n);
	copy[n] = 0;
	info->kernels[info->num_kernels++] = copy;
	return 0;
}

/*
 * Appends to info the kernels of every symbol table of section type `type`, in table order,
 * each name once.  AMDGPU: defined STT_OBJECT symbols named "NAME.kd" (the kernel
 * descriptors), as NAME.  CUBIN: defined STT_FUNC symbols whose st_other has
 * STO_CUDA_ENTRY, the __global__ functions (measured: each has its own ".text.NAME";
 * __device__ functions are STT_FUNC with st_other 0, local "$kernel$callee" copies inside
 * the kernel's .text, or global with their own .text under -rdc=true).  Deduplication is
 * linear per name: code objects hold few kernels.
 */
static int read_kernels(const struct elf *e, uint32_t type, rocjit_codeobj_info *info,
			size_t *cap)
{
	struct shdr sh, str;
	unsigned i;
	uint64_t k;

	for (i = 1; i < e->shnum; i++) {
		shdr_get(e, i, &sh);
		if (sh.type != type)
			continue;
		RJ_CHECK(sh.entsize != SYM_SIZE || sh.size % SYM_SIZE, ROCJIT_EFORMAT,
			 "code object's symbol table (section %u) has %llu bytes in entries of "
			 "%llu, not of 24", i, (ull)sh.size, (ull)sh.entsize);
		RJ_CHECK(sh.link == 0 || sh.link >= e->shnum, ROCJIT_EFORMAT,
			 "code object's symbol table (section %u) links to section %u, which does "
			 "not exist", i, (unsigned)sh.link);
		shdr_get(e, sh.link, &str);
		RJ_CHECK(str.type != SHT_STRTAB, ROCJIT_EFORMAT,
			 "code object's symbol table (section %u) links to section %u, which is "
			 "not a string table", i, (unsigned)sh.link);
		for (k = 1; k < sh.size / SYM_SIZE; k++) {
			const unsigned char *q = e->p + sh.off + k * SYM_SIZE;
			uint64_t name = le(q, 4);
			const char *s, *end;
			size_t n;
			int cuda = e->machine == EM_CUDA;

			if ((q[4] & 0xf) != (cuda ? STT_FUNC : STT_OBJECT) || le(q + 6, 2) == 0 ||
			    (cuda && !(q[5] & STO_CUDA_ENTRY)))
				continue;
			RJ_CHECK(name >= str.size, ROCJIT_EFORMAT,
				 "code object's symbol %llu in section %u has its name outside "
				 "its string table", (ull)k, i);
			s = (const char *)e->p + str.off + name;
			end = memchr(s, 0, (size_t)(str.size - name));
			RJ_CHECK(!end, ROCJIT_EFORMAT,
				 "code object's symbol %llu in section %u has an unterminated name",
				 (ull)k, i);
			n = (size_t)(end - s);
			RJ_CHECK(cuda && n == 0, ROCJIT_EFORMAT,
				 "CUBIN's kernel symbol %llu in section %u has an empty name",
				 (ull)k, i);
			if (cuda)
				RJ_FORWARD(kernel_add(info, cap, s, n));
			else if (n > 3 && memcmp(s + n - 3, ".kd", 3) == 0)
				RJ_FORWARD(kernel_add(info, cap, s, n - 3));
		}
	}
	return 0;
}

/*
 * Fills info from a CUBIN.  flags_target is target: CUDA 13 writes the "a" of sm_90a in
 * .nv.compat, not in e_flags, so the two are read together (cubin.c).  A CUBIN has
 * no .dynsym.
 */
static int inspect_cubin(rocjit_codeobj_info *info, const struct elf *e)
{
	struct shdr sh;
	unsigned i;
	int accel = 0;
	size_t cap = 0;

	info->platform = ROCJIT_PLATFORM_NVIDIA;
	for (i = 1; i < e->shnum; i++) {
		shdr_get(e, i, &sh);
		if (sh.type == RJ_SHT_CUDA_COMPAT)
			RJ_FORWARD(rj_cubin_compat_accel(e->p + sh.off, sh.size, i, &accel));
	}
	RJ_FORWARD(rj_cubin_target(info->target, e->flags, e->abi, accel));
	memcpy(info->flags_target, info->target, sizeof info->target);
	return read_kernels(e, SHT_SYMTAB, info, &cap);
}

/* Fills info from the image: the rest of rocjit_codeobj_inspect, which owns the cleanup. */
static int inspect(rocjit_codeobj_info *info, const unsigned char *p, size_t size)
{
	struct elf e;
	struct tid a, b;
	const unsigned char *desc;
	size_t desc_size = 0, cap = 0;

	RJ_FORWARD(rj_elf_open(&e, p, size));
	if (e.machine == EM_CUDA)
		return inspect_cubin(info, &e);
	info->platform = ROCJIT_PLATFORM_AMD;
	RJ_FORWARD(flags_target(&e, info->flags_target));
	RJ_FORWARD(rj_elf_amdgpu_metadata(&e, &desc, &desc_size));
	if (desc)
		RJ_FORWARD(metadata_target(desc, desc_size, info->target));
	if (!info->target[0])
		memcpy(info->target, info->flags_target, sizeof info->target);
	else
		RJ_CHECK(tid_parse(info->target, &a) < 0 || tid_parse(info->flags_target, &b) < 0 ||
			 !tid_equal(&a, &b), ROCJIT_EFORMAT,
			 "code object is inconsistent: its metadata note says %s, its e_flags "
			 "say %s", info->target, info->flags_target);
	/* .symtab first: .dynsym is in hash order, .symtab in definition order. */
	RJ_FORWARD(read_kernels(&e, SHT_SYMTAB, info, &cap));
	return read_kernels(&e, SHT_DYNSYM, info, &cap);
}

ROCJIT_API int rocjit_codeobj_inspect(rocjit_codeobj_info **out, const void *data, size_t size)
{
	rocjit_codeobj_info *info;
	int rc;

	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_codeobj_inspect: out is NULL");
	*out = NULL;
	RJ_CHECK(!data || !size, ROCJIT_EINVAL, "rocjit_codeobj_inspect: no data (NULL or 0 bytes)");
	info = calloc(1, sizeof *info);
	RJ_CHECK(!info, ROCJIT_ENOMEM, "out of memory reading a code object");
	rc = inspect(info, data, size);
	if (rc < 0) {
		rocjit_codeobj_info_free(info);
		return rc;
	}
	rj_error_clear();
	*out = info;
	return 0;
}

ROCJIT_API void rocjit_codeobj_info_free(rocjit_codeobj_info *info)
{
	size_t i;

	if (!info)
		return;
	for (i = 0; i < info->num_kernels; i++)
		free(info->kernels[i]);
	free(info->kernels);
	free(info);
}

/* The name before the API's naming rule (a free function is named after what it frees). */
ROCJIT_API void rocjit_codeobj_free(rocjit_codeobj_info *info)
{
	rocjit_codeobj_info_free(info);
}

/*
 * The platform comes from the target: "sm_..." is NVIDIA's, anything else AMD's, and the
 * object must be of that platform.  An AMDGPU object matches when processor and feature
 * settings are the same: a feature `target` leaves unset must be unset in the object too
 * ("gfx90a" is xnack/sramecc "any", which hipRTC writes without features), so an "any"
 * object never serves a specific target nor the reverse; inspect already made the note and
 * e_flags agree.  A CUBIN matches as rj_cubin_target_match says.
 */
int rj_codeobj_check(const void *data, size_t size, const char *target, char **kernels_out)
{
	static const char *const names[] = { "?", "AMD", "NVIDIA" };
	rocjit_codeobj_info *info;
	struct tid want, have;
	size_t i, len = 1;
	char *list, *w;
	int rc = 0, nvidia = rocjit_target_platform(target) == ROCJIT_PLATFORM_NVIDIA;

	if (kernels_out)
		*kernels_out = NULL;
	RJ_CHECK(!target ||
		 (nvidia ? !rj_cubin_target_valid(target) : tid_parse(target, &want) < 0),
		 ROCJIT_EINVAL, "\"%s\" is not a target id", target ? target : "(null)");
	RJ_FORWARD(rocjit_codeobj_inspect(&info, data, size));
	if (info->platform != (nvidia ? ROCJIT_PLATFORM_NVIDIA : ROCJIT_PLATFORM_AMD))
		rc = rj_error_set(ROCJIT_EFORMAT, __FILE__, __LINE__,
				  "code object is for %s (%s), expected %s (%s): the platforms "
				  "differ", info->target, names[info->platform], target,
				  names[nvidia ? ROCJIT_PLATFORM_NVIDIA : ROCJIT_PLATFORM_AMD]);
	else if (nvidia ? !rj_cubin_target_match(info->target, target)
			: tid_parse(info->target, &have) < 0 || !tid_equal(&have, &want))
		rc = rj_error_set(ROCJIT_EFORMAT, __FILE__, __LINE__,
				  "code object is for %s, expected %s", info->target, target);
	if (rc) {
		rocjit_codeobj_info_free(info);
		return rc;
	}
	if (kernels_out) {
		for (i = 0; i < info->num_kernels; i++)
			len += strlen(info->kernels[i]) + 1;
		list = malloc(len);
		if (!list) {
			rocjit_codeobj_info_free(info);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory listing kernels");
		}
		for (i = 0, w = list; i < info->num_kernels; i++) {
			size_t n = strlen(info->kernels[i]);

			if (i)
				*w++ = ',';
			memcpy(w, info->kernels[i], n);
			w += n;
		}
		*w = 0;
		*kernels_out = list;
	}
	rocjit_codeobj_info_free(info);
	return 0;
}
