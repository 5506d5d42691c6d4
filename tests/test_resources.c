/*
 * test_resources.c - what each kernel uses, read from real code objects
 * (rocjit_codeobj_resources_get: src/codeobj/resources.c for AMDGPU, cubin.c for CUBINs).
 *
 * The figures are checked against a reading that shares no code with rocjit: for hipRTC's
 * objects (gfx90a, gfx1030) the YAML `llvm-readelf --notes` prints of the metadata note;
 * for NVRTC's CUBINs (sm_90) what ptxas itself reports (`nvcc -cubin -Xptxas -v` on the
 * same source, whose CUBIN rocjit reads as well).  The fixture's kernels are written to
 * use a known amount: 4096 B of static shared memory, a launch bound of 256, and a live
 * set too big for the registers __launch_bounds__(1024) allows, so it spills everywhere;
 * and a recursive one, whose stack size is dynamic on AMD.
 * Each test skips (visibly) where its compiler or its independent reader is missing.
 * Damaged objects are made from real ones kept as fuzz seeds (fuzz/corpus/codeobj).
 */
#include <unistd.h>

#include "codeobj/elf.h"
#include "harness.h"

#define SEEDS ROCJIT_TEST_KERNELS "/../fuzz/corpus/codeobj/"

/* The fixture (tests/data/resources/resources.hip), read once. */
#define FIXTURE ROCJIT_TEST_KERNELS "/../tests/data/resources/resources.hip"
static const char *fixture_text(void)
{
	static char *text;

	if (!text)
		text = rj_test_read_file(FIXTURE, NULL);
	return text;
}

/* The kernels both readings are compared on; recur (a stack whose size is not known at
 * compile time) is AMD's alone: ptxas -v prints no figure for it to compare. */
static const char *const kernels[] = { "tile", "bounded", "spill", "recur" };
#define NV_KERNELS 3

static rocjit_kernel_resources get(const void *data, size_t size, const char *kernel)
{
	rocjit_kernel_resources r;

	ASSERT_INT(rocjit_kernel_resources_init(&r, ROCJIT_KERNEL_RESOURCES_VERSION), 0);
	ASSERT_INT(rocjit_codeobj_resources_get(&r, data, size, kernel), 0);
	return r;
}

/* The figures the fixture was written to give, on any platform. */
static void assert_known(const void *data, size_t size, int platform)
{
	rocjit_kernel_resources r = get(data, size, "tile");

	ASSERT_INT(r.platform, platform);
	ASSERT_INT(r.shared_bytes, 4096);
	ASSERT_INT(r.param_bytes, 16);
	r = get(data, size, "bounded");
	ASSERT_INT(r.max_threads, 256);
	ASSERT_INT(r.shared_bytes, 0);
	r = get(data, size, "spill");
	ASSERT_INT(r.max_threads, 1024);
	ASSERT(r.scratch_bytes > 0);
	ASSERT(platform == ROCJIT_PLATFORM_NVIDIA || r.vgpr_spills > 0);
	ASSERT_INT(get(data, size, "recur").dynamic_stack, platform == ROCJIT_PLATFORM_AMD);
}

static const rocjit_code *compile_fixture(rocjit_ctx *ctx, const char *target)
{
	const rocjit_code *code = NULL;
	char log[8192];
	int rc = rj_test_compile(&code, ctx, target, "resources.hip", fixture_text(), NULL, 0, NULL, 0,
				 log, sizeof log);

	if (rc)
		printf("%s\n", log);
	ASSERT_INT(rc, 0);
	return code;
}

/* The first of paths that can be run, or NULL. */
static const char *tool(const char *const *paths)
{
	for (; *paths; paths++)
		if (access(*paths, X_OK) == 0)
			return *paths;
	return NULL;
}

/* ---- AMD: llvm-readelf --notes ---- */

/* The value of `field` in the record [rec, end) into out (its text); 0 when absent.  A
 * record's first field is on its "  - " line, the others indented by 4; deeper lines are
 * its .args. */
static int record_field(const char *rec, const char *end, const char *field, char *out,
			size_t out_size)
{
	size_t flen = strlen(field);

	for (const char *p = rec; p && p < end; p = strchr(p + 1, '\n')) {
		const char *f = p + 1;
		size_t len;

		if (strncmp(f, "  - ", 4) != 0 && strncmp(f, "    ", 4) != 0)
			continue;
		f += 4;
		if (strncmp(f, field, flen) != 0 || f[flen] != ':')
			continue;
		f += flen + 1;
		f += strspn(f, " ");
		len = strcspn(f, "\n");
		ASSERT(len < out_size);
		memcpy(out, f, len);
		out[len] = 0;
		return 1;
	}
	return 0;
}

/* The value of `field` in kernel's record of the YAML llvm-readelf prints. */
static int yaml_field(const char *yaml, const char *kernel, const char *field, char *out,
		      size_t out_size)
{
	const char *rec = strstr(yaml, "amdhsa.kernels:");

	ASSERT(rec != NULL);
	while ((rec = strstr(rec, "\n  - ")) != NULL) {
		const char *end = strstr(rec + 1, "\n  - "), *top = strstr(rec + 1, "\namdhsa.");
		char name[256];

		if (!end || (top && top < end))
			end = top ? top : rec + strlen(rec);
		ASSERT(record_field(rec, end, ".name", name, sizeof name));
		if (strcmp(name, kernel) == 0)
			return record_field(rec, end, field, out, out_size);
		rec = end;
	}
	rj_test_fail(__FILE__, __LINE__, "kernel %s is not in llvm-readelf's notes", kernel);
}

/* An integer field (absent: 0, as rocjit reads an absent optional field). */
static long long yaml_int(const char *yaml, const char *kernel, const char *field)
{
	char v[64];

	if (!yaml_field(yaml, kernel, field, v, sizeof v))
		return 0;
	if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
		return v[0] == 't';
	return strtoll(v, NULL, 10);
}

static void amd_matches_llvm_readelf(const char *target)
{
	static const char *const readelf[] = { "/usr/bin/llvm-readelf",
						"/usr/lib/llvm-14/bin/llvm-readelf", NULL };
	const char *exe = tool(readelf);
	const rocjit_code *code;
	rocjit_ctx *ctx;
	char path[4200], *yaml = NULL;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	if (!exe)
		rj_test_skip("llvm-readelf is not installed (Debian: apt-get install llvm)");
	ctx = rj_test_open();
	code = compile_fixture(ctx, target);
	snprintf(path, sizeof path, "%s/resources.co", rj_test_dir);
	rj_test_write_file(path, code->data, code->size);
	{
		const char *argv[] = { exe, "--notes", path, NULL };

		ASSERT_INT(rj_test_run(argv, NULL, &yaml), 0);
	}
	ASSERT_CONTAINS(yaml, "amdhsa.kernels:");
	for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
		const char *n = kernels[k];
		rocjit_kernel_resources r = get(code->data, code->size, n);

		printf("%s %s: %u VGPRs, %u AGPRs, %u SGPRs, %u+%u spills, %llu B scratch, "
		       "%llu B LDS\n", target, n, r.registers, r.agprs, r.sgprs, r.vgpr_spills,
		       r.sgpr_spills, (unsigned long long)r.scratch_bytes,
		       (unsigned long long)r.shared_bytes);
		ASSERT_INT(r.platform, ROCJIT_PLATFORM_AMD);
		ASSERT_INT(r.registers, yaml_int(yaml, n, ".vgpr_count"));
		ASSERT_INT(r.agprs, yaml_int(yaml, n, ".agpr_count"));
		ASSERT_INT(r.sgprs, yaml_int(yaml, n, ".sgpr_count"));
		ASSERT_INT(r.vgpr_spills, yaml_int(yaml, n, ".vgpr_spill_count"));
		ASSERT_INT(r.sgpr_spills, yaml_int(yaml, n, ".sgpr_spill_count"));
		ASSERT_INT(r.scratch_bytes, yaml_int(yaml, n, ".private_segment_fixed_size"));
		ASSERT_INT(r.dynamic_stack, yaml_int(yaml, n, ".uses_dynamic_stack"));
		ASSERT_INT(r.shared_bytes, yaml_int(yaml, n, ".group_segment_fixed_size"));
		ASSERT_INT(r.param_bytes, yaml_int(yaml, n, ".kernarg_segment_size"));
		ASSERT_INT(r.max_threads, yaml_int(yaml, n, ".max_flat_workgroup_size"));
		ASSERT_INT(r.wavefront, yaml_int(yaml, n, ".wavefront_size"));
	}
	assert_known(code->data, code->size, ROCJIT_PLATFORM_AMD);
	free(yaml);
	rocjit_close(ctx);
}

TEST(resources_gfx90a_match_llvm_readelf)
{
	amd_matches_llvm_readelf("gfx90a");
}

TEST(resources_gfx1030_match_llvm_readelf)
{
	amd_matches_llvm_readelf("gfx1030");
}

/* ---- NVIDIA: ptxas -v ---- */

struct ptxas_figures {
	long long registers, stack, smem;
};

/* ptxas -v's figures for kernel: "Function properties for K", "N bytes stack frame, ...",
 * then "Used N registers, ..., M bytes smem" (no smem part when it is 0). */
static struct ptxas_figures ptxas_for(const char *out, const char *kernel)
{
	struct ptxas_figures f = { -1, -1, 0 };
	char head[300];
	const char *p, *used, *eol, *smem;

	snprintf(head, sizeof head, "Function properties for %s\n", kernel);
	p = strstr(out, head);
	ASSERT(p != NULL);
	p += strlen(head);
	ASSERT(sscanf(p, " %lld bytes stack frame", &f.stack) == 1);
	used = strstr(p, "Used ");
	ASSERT(used && sscanf(used, "Used %lld registers", &f.registers) == 1);
	eol = strchr(used, '\n');
	smem = strstr(used, " bytes smem");
	if (smem && (!eol || smem < eol)) {
		while (smem > used && smem[-1] >= '0' && smem[-1] <= '9')
			smem--;
		f.smem = strtoll(smem, NULL, 10);
	}
	return f;
}

TEST(resources_sm_90_match_ptxas)
{
	static const char *const nvcc[] = { "/usr/local/cuda/bin/nvcc", NULL };
	const char *exe = tool(nvcc);
	const rocjit_code *code;
	rocjit_ctx *ctx;
	char src[4200], ref[4200], *out = NULL, *refdata;
	size_t refsize;

	rj_test_skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	if (!exe)
		rj_test_skip("nvcc (for ptxas -v) is not at /usr/local/cuda/bin");
	snprintf(src, sizeof src, "%s/resources.cu", rj_test_dir);
	snprintf(ref, sizeof ref, "%s/ref.cubin", rj_test_dir);
	rj_test_write_file(src, fixture_text(), strlen(fixture_text()));
	{
		const char *argv[] = { exe, "-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o", ref,
				       src, NULL };
		int rc = rj_test_run(argv, NULL, &out);

		if (rc)
			printf("%s\n", out);
		ASSERT_INT(rc, 0);
	}
	refdata = rj_test_read_file(ref, &refsize);
	ctx = rj_test_open();
	code = compile_fixture(ctx, "sm_90");
	for (size_t k = 0; k < NV_KERNELS; k++) {
		struct ptxas_figures f = ptxas_for(out, kernels[k]);
		/* ptxas described nvcc's CUBIN; NVRTC's codegen is the same here. */
		rocjit_kernel_resources r = get(code->data, code->size, kernels[k]),
					ro = get(refdata, refsize, kernels[k]);

		printf("sm_90 %s: ptxas %lld registers, %lld B stack, %lld B smem; rocjit %u, "
		       "%llu, %llu\n", kernels[k], f.registers, f.stack, f.smem, r.registers,
		       (unsigned long long)r.scratch_bytes, (unsigned long long)r.shared_bytes);
		ASSERT_INT(ro.registers, f.registers);
		ASSERT_INT(ro.scratch_bytes, f.stack);
		ASSERT_INT(ro.shared_bytes, f.smem);
		ASSERT_INT(r.registers, f.registers);
		ASSERT_INT(r.scratch_bytes, f.stack);
		ASSERT_INT(r.shared_bytes, f.smem);
		ASSERT_INT(r.wavefront, 32);
		ASSERT_INT(r.sgprs + r.agprs + r.vgpr_spills + r.sgpr_spills, 0);
	}
	assert_known(code->data, code->size, ROCJIT_PLATFORM_NVIDIA);
	ASSERT_INT(get(code->data, code->size, "bounded").param_bytes, 25);
	ASSERT_INT(get(code->data, code->size, "tile").max_threads, 0);
	/* Below sm_90 no reserved kilobyte starts the shared section: the same 4096. */
	code = compile_fixture(ctx, "sm_80");
	ASSERT_INT(get(code->data, code->size, "tile").shared_bytes, 4096);
	free(refdata);
	free(out);
	rocjit_close(ctx);
}

/* ---- Damaged objects, missing kernels, misuse ---- */

static unsigned char *seed(const char *name, size_t *size)
{
	char path[4096];

	snprintf(path, sizeof path, SEEDS "%s", name);
	return (unsigned char *)rj_test_read_file(path, size);
}

/* A damaged object gives a figure, no such kernel or EFORMAT with a message: never a
 * crash or a read outside (the sanitizer builds see that). */
static int damaged(const unsigned char *d, size_t size, const char *kernel)
{
	rocjit_kernel_resources r;
	int rc;

	rocjit_kernel_resources_init(&r, ROCJIT_KERNEL_RESOURCES_VERSION);
	rc = rocjit_codeobj_resources_get(&r, d, size, kernel);
	ASSERT(rc == 0 || rc == ROCJIT_EFORMAT || rc == ROCJIT_ENOTFOUND);
	ASSERT(rc == 0 || rocjit_last_error()[0]);
	return rc;
}

TEST(resources_corrupt_amd_metadata_is_refused)
{
	size_t size, desc_size, formats = 0, off;
	unsigned char *d = seed("amd_gfx90a_shared_bounds.co", &size);
	const unsigned char *desc;
	struct elf e;
	char *at;

	ASSERT_INT(get(d, size, "tile").shared_bytes, 4096);
	ASSERT_INT(rj_elf_open(&e, d, size), 0);
	ASSERT_INT(rj_elf_amdgpu_metadata(&e, &desc, &desc_size), 0);
	ASSERT(desc != NULL);
	off = (size_t)(desc - d);
	/* Every byte of the note flipped, then set to MessagePack's never-used 0xc1. */
	for (size_t i = 0; i < desc_size; i++) {
		unsigned char keep = d[off + i];

		d[off + i] = (unsigned char)(keep ^ 0xff);
		formats += damaged(d, size, "tile") == ROCJIT_EFORMAT;
		d[off + i] = 0xc1;
		formats += damaged(d, size, "bounded") == ROCJIT_EFORMAT;
		d[off + i] = keep;
	}
	printf("%zu of %zu damaged notes refused\n", formats, 2 * desc_size);
	ASSERT(formats > desc_size / 4);
	/* The note cut short (its descsz made smaller): the record is never read past it. */
	for (size_t n = 0; n < desc_size; n++) {
		unsigned char *sz = d + off - 12 - 8 + 4; /* namesz, descsz, type, "AMDGPU\0\0" */
		uint32_t keep = (uint32_t)le(sz, 4);

		ASSERT_INT(keep, desc_size);
		sz[0] = (unsigned char)n, sz[1] = (unsigned char)(n >> 8);
		ASSERT(damaged(d, size, "bounded") != 0 || n > desc_size / 2);
		sz[0] = (unsigned char)keep, sz[1] = (unsigned char)(keep >> 8);
	}
	/* A field of the wrong kind is named. */
	at = memmem(d, size, ".vgpr_count", 11);
	ASSERT(at != NULL);
	at[11] = (char)0xa1; /* a 1-byte string instead of an integer */
	ASSERT_INT(damaged(d, size, "tile"), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), ".vgpr_count");
	free(d);
}

TEST(resources_corrupt_cubin_info_is_refused)
{
	size_t size, formats = 0;
	unsigned char *d = seed("nv_sm_90_shared_bounds.cubin", &size);
	struct elf e;
	struct shdr sh;
	char *at;

	ASSERT_INT(get(d, size, "tile").shared_bytes, 4096);
	ASSERT_INT(rj_elf_open(&e, d, size), 0);
	for (unsigned i = 1; i < e.shnum; i++) {
		shdr_get(&e, i, &sh);
		if (sh.type != 0x70000000u) /* SHT_CUDA_INFO: .nv.info, .nv.info.<kernel> */
			continue;
		for (uint64_t b = 0; b < sh.size; b++) {
			unsigned char keep = d[sh.off + b];

			d[sh.off + b] = (unsigned char)(keep ^ 0xff);
			formats += damaged(d, size, "tile") == ROCJIT_EFORMAT;
			formats += damaged(d, size, "bounded") == ROCJIT_EFORMAT;
			d[sh.off + b] = keep;
		}
	}
	ASSERT(formats > 0);
	/* EIATTR_REGCOUNT claiming 9 bytes instead of 8. */
	at = memmem(d, size, "\x04\x2f\x08\x00", 4);
	ASSERT(at != NULL);
	at[2] = 9;
	ASSERT_INT(damaged(d, size, "tile"), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), "0x2f");
	free(d);
}

TEST(resources_missing_kernel_is_not_found)
{
	static const char *const seeds[] = { "amd_gfx90a_shared_bounds.co",
					     "nv_sm_90_shared_bounds.cubin" };

	for (size_t s = 0; s < 2; s++) {
		size_t size;
		unsigned char *d = seed(seeds[s], &size);

		ASSERT_INT(damaged(d, size, "no_such_kernel"), ROCJIT_ENOTFOUND);
		ASSERT_CONTAINS(rocjit_last_error(), "\"no_such_kernel\"");
		/* A prefix of a real name is not that kernel. */
		ASSERT_INT(damaged(d, size, "til"), ROCJIT_ENOTFOUND);
		free(d);
	}
}

TEST(resources_arguments_are_checked)
{
	rocjit_kernel_resources r;
	size_t size;
	unsigned char *d = seed("amd_gfx90a_shared_bounds.co", &size);

	ASSERT_INT(rocjit_kernel_resources_init(NULL, 1), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_kernel_resources_init(&r, 0), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_kernel_resources_init(&r, ROCJIT_KERNEL_RESOURCES_VERSION + 1),
		   ROCJIT_EINVAL);
	memset(&r, 0, sizeof r); /* version 0: never initialised */
	ASSERT_INT(rocjit_codeobj_resources_get(&r, d, size, "tile"), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_kernel_resources_init(&r, 1), 0);
	ASSERT_INT(rocjit_codeobj_resources_get(&r, NULL, size, "tile"), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_codeobj_resources_get(&r, d, 0, "tile"), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_codeobj_resources_get(&r, d, size, NULL), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_codeobj_resources_get(&r, d, size, ""), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_codeobj_resources_get(NULL, d, size, "tile"), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_codeobj_resources_get(&r, "not an ELF", 10, "tile"), ROCJIT_EFORMAT);
	ASSERT_INT(r.registers, 0); /* untouched by the failures */
	ASSERT_INT(rocjit_codeobj_resources_get(&r, d, size, "tile"), 0);
	ASSERT_INT(r.version, 1);
	ASSERT(r.registers > 0);
	free(d);
}
