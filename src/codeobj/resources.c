/*
 * resources.c - what a kernel uses (registers, spills, scratch, static shared memory,
 * arguments, work-group bound, wavefront), read from its code object with no GPU.
 *
 * Owns rocjit_codeobj_resources_get (its init is request/init.c's) and the AMDGPU side:
 * the kernel's map in the metadata note's "amdhsa.kernels" (code object v3..v5, the fields
 * LLVM's AMDGPUUsage documents).  The CUBIN side (.nv.info attributes, .nv.shared
 * sections) is cubin.c's.  Pure functions over the caller's bytes, as codeobj.c: any
 * thread; every read bounded by the note (msgpack.h) or the section (elf.h).
 */
#include <string.h>

#include "base/error.h"
#include "codeobj/codeobj.h"
#include "codeobj/elf.h"
#include "codeobj/msgpack.h"

/* The kernel map's integer fields read, and where each goes.  Those marked required are
 * required by every code object version LLVM writes (v3..v5); the others came later
 * (.agpr_count with gfx908, .uses_dynamic_stack with v5) and read as 0 when absent. */
enum { F_VGPR, F_AGPR, F_SGPR, F_VSPILL, F_SSPILL, F_PRIVATE, F_DYNSTACK, F_GROUP, F_KERNARG,
       F_MAXWG, F_WAVE, F_COUNT };

static const struct {
	const char *key;
	int required;
} fields[F_COUNT] = {
	[F_VGPR] = { ".vgpr_count", 1 },
	[F_AGPR] = { ".agpr_count", 0 },
	[F_SGPR] = { ".sgpr_count", 1 },
	[F_VSPILL] = { ".vgpr_spill_count", 0 },
	[F_SSPILL] = { ".sgpr_spill_count", 0 },
	[F_PRIVATE] = { ".private_segment_fixed_size", 1 },
	[F_DYNSTACK] = { ".uses_dynamic_stack", 0 },
	[F_GROUP] = { ".group_segment_fixed_size", 1 },
	[F_KERNARG] = { ".kernarg_segment_size", 1 },
	[F_MAXWG] = { ".max_flat_workgroup_size", 1 },
	[F_WAVE] = { ".wavefront_size", 1 },
};

/* Whether the MessagePack string s[0..n) is the C string c. */
static int str_is(const unsigned char *s, uint64_t n, const char *c)
{
	return strlen(c) == n && memcmp(s, c, (size_t)n) == 0;
}

/*
 * Reads the kernel map at m->pos (entry `index` of amdhsa.kernels, for messages) and
 * says in *match whether its .name is kernel, or its .symbol kernel + ".kd"; when it is,
 * v[] and seen[] get its fields.  Unknown keys are skipped; a known key with a value of
 * the wrong kind is an error, since a reader that skipped it would report a wrong 0.
 */
static int kernel_map(struct mp *m, uint64_t index, const char *kernel, int *match,
		      uint64_t v[F_COUNT], int seen[F_COUNT])
{
	uint64_t count, len, i;
	size_t klen = strlen(kernel);
	int f;

	*match = 0;
	RJ_CHECK(rj_mp_head(m, &count) != MP_MAP, ROCJIT_EFORMAT,
		 "code object's metadata: amdhsa.kernels entry %llu is not a map", (ull)index);
	memset(seen, 0, F_COUNT * sizeof *seen);
	for (i = 0; i < count; i++) {
		const unsigned char *key;

		RJ_CHECK(rj_mp_head(m, &len) != MP_STR, ROCJIT_EFORMAT,
			 "code object's metadata: amdhsa.kernels entry %llu has a key that is "
			 "not a string (near byte %zu)", (ull)index, m->pos);
		key = m->p + m->pos;
		m->pos += (size_t)len;
		if (str_is(key, len, ".name") || str_is(key, len, ".symbol")) {
			int sym = len == 7;
			uint64_t n;

			RJ_CHECK(rj_mp_head(m, &n) != MP_STR, ROCJIT_EFORMAT,
				 "code object's metadata: amdhsa.kernels entry %llu has a %s that "
				 "is not a string", (ull)index, sym ? ".symbol" : ".name");
			if (n == klen + (sym ? 3 : 0) && memcmp(m->p + m->pos, kernel, klen) == 0 &&
			    (!sym || memcmp(m->p + m->pos + klen, ".kd", 3) == 0))
				*match = 1;
			m->pos += (size_t)n;
			continue;
		}
		for (f = 0; f < F_COUNT && !str_is(key, len, fields[f].key); f++)
			;
		if (f < F_COUNT) {
			RJ_CHECK(rj_mp_uint(m, &v[f]) < 0, ROCJIT_EFORMAT,
				 "code object's metadata: %s of amdhsa.kernels entry %llu is not a "
				 "non-negative integer", fields[f].key, (ull)index);
			seen[f] = 1;
			continue;
		}
		RJ_CHECK(rj_mp_skip(m, 2) < 0, ROCJIT_EFORMAT,
			 "code object's metadata: amdhsa.kernels entry %llu is malformed "
			 "MessagePack (near byte %zu of %zu)", (ull)index, m->pos, m->size);
	}
	return 0;
}

/* Fills out from v[]: every required field must be there, and each must fit. */
static int amd_fill(rocjit_kernel_resources *out, const char *kernel, const uint64_t v[F_COUNT],
		    const int seen[F_COUNT])
{
	int f;

	for (f = 0; f < F_COUNT; f++) {
		RJ_CHECK(fields[f].required && !seen[f], ROCJIT_EFORMAT,
			 "code object's metadata for kernel \"%.200s\" has no %s: the record is "
			 "incomplete", kernel, fields[f].key);
		RJ_CHECK(f != F_PRIVATE && f != F_GROUP && f != F_KERNARG && v[f] > 0xffffffffu,
			 ROCJIT_EFORMAT, "code object's metadata for kernel \"%.200s\" has %s "
			 "%llu, more than 32 bits", kernel, fields[f].key, (ull)v[f]);
	}
	RJ_CHECK(v[F_WAVE] != 32 && v[F_WAVE] != 64, ROCJIT_EFORMAT,
		 "code object's metadata for kernel \"%.200s\" has .wavefront_size %llu, "
		 "neither 32 nor 64", kernel, (ull)v[F_WAVE]);
	out->platform = ROCJIT_PLATFORM_AMD;
	out->registers = (unsigned)v[F_VGPR];
	out->agprs = (unsigned)v[F_AGPR];
	out->sgprs = (unsigned)v[F_SGPR];
	out->vgpr_spills = (unsigned)v[F_VSPILL];
	out->sgpr_spills = (unsigned)v[F_SSPILL];
	out->scratch_bytes = v[F_PRIVATE];
	out->dynamic_stack = v[F_DYNSTACK] != 0;
	out->shared_bytes = v[F_GROUP];
	out->param_bytes = v[F_KERNARG];
	out->max_threads = (unsigned)v[F_MAXWG];
	out->wavefront = (unsigned)v[F_WAVE];
	return 0;
}

/*
 * The AMDGPU side: walks the top-level map of the metadata note to "amdhsa.kernels" and
 * its kernel maps, in order; the first whose name is kernel fills out.  Every entry up to
 * it must parse, so damage before the record is an error, not a missing kernel.
 */
static int amd_resources(rocjit_kernel_resources *out, const struct elf *e, const char *kernel)
{
	const unsigned char *desc;
	size_t desc_size = 0;
	struct mp m;
	uint64_t count, len, i, k, nk = 0;
	uint64_t v[F_COUNT];
	int seen[F_COUNT], match, found_list = 0;

	RJ_FORWARD(rj_elf_amdgpu_metadata(e, &desc, &desc_size));
	RJ_CHECK(!desc, ROCJIT_EFORMAT, "code object has no AMDGPU metadata note (code object "
		 "v2 or older, or stripped): its kernels' resources are not recorded");
	m = (struct mp){ desc, desc_size, 0 };
	RJ_CHECK(rj_mp_head(&m, &count) != MP_MAP, ROCJIT_EFORMAT,
		 "code object's metadata note is not a MessagePack map");
	for (i = 0; i < count; i++) {
		size_t at = m.pos;

		if (rj_mp_head(&m, &len) == MP_STR && str_is(m.p + m.pos, len, "amdhsa.kernels")) {
			m.pos += (size_t)len;
			RJ_CHECK(found_list || rj_mp_head(&m, &nk) != MP_ARRAY, ROCJIT_EFORMAT,
				 "code object's metadata: amdhsa.kernels is %s",
				 found_list ? "there twice" : "not an array");
			found_list = 1;
			for (k = 0; k < nk; k++) {
				memset(v, 0, sizeof v);
				RJ_FORWARD(kernel_map(&m, k, kernel, &match, v, seen));
				if (match)
					return amd_fill(out, kernel, v, seen);
			}
			continue;
		}
		m.pos = at;
		RJ_CHECK(rj_mp_skip(&m, 0) < 0 || rj_mp_skip(&m, 0) < 0, ROCJIT_EFORMAT,
			 "code object's metadata note is malformed MessagePack (top-level entry "
			 "%llu, near byte %zu of %zu)", (ull)i, m.pos, desc_size);
	}
	RJ_CHECK(!found_list, ROCJIT_EFORMAT,
		 "code object's metadata note has no amdhsa.kernels list");
	RJ_FAIL(ROCJIT_ENOTFOUND, "code object has no kernel \"%.200s\" (its metadata lists %llu "
		"kernels; rocjit_codeobj_inspect or `rocjit show` names them)", kernel, (ull)nk);
}

/* The caller's version is kept; a later version's fields would be filled only when its
 * version asks for them.  *out is written only on success. */
ROCJIT_API int rocjit_codeobj_resources_get(rocjit_kernel_resources *out, const void *data,
					    size_t size, const char *kernel)
{
	rocjit_kernel_resources r;
	struct elf e;

	RJ_CHECK(!out || !kernel, ROCJIT_EINVAL, "rocjit_codeobj_resources_get: %s is NULL",
		 !out ? "out" : "kernel");
	RJ_CHECK(out->version < 1 || out->version > ROCJIT_KERNEL_RESOURCES_VERSION,
		 ROCJIT_EINVAL, "rocjit_codeobj_resources_get: out->version is %u: call "
		 "rocjit_kernel_resources_init first", out->version);
	RJ_CHECK(!data || !size, ROCJIT_EINVAL,
		 "rocjit_codeobj_resources_get: no data (NULL or 0 bytes)");
	RJ_CHECK(!kernel[0], ROCJIT_EINVAL, "rocjit_codeobj_resources_get: empty kernel name");
	RJ_FORWARD(rj_elf_open(&e, data, size));
	memset(&r, 0, sizeof r);
	r.version = out->version;
	if (e.machine == EM_CUDA)
		RJ_FORWARD(rj_cubin_resources(&r, &e, kernel));
	else
		RJ_FORWARD(amd_resources(&r, &e, kernel));
	*out = r;
	rj_error_clear();
	return 0;
}
