/*
 * fuzz_codeobj.c - the code-object inspector (codeobj.c, cubin.c) on any bytes.
 *
 * rocjit_codeobj_inspect must never read outside the input (the sanitizers see that: the
 * input lies in a buffer of exactly its size), and what it returns must be well formed: a
 * known platform, NUL-terminated targets, distinct non-NULL kernel names.  rj_codeobj_check
 * must agree with it for every target: the same error when inspection fails, success only
 * for an object of the target's platform, success whenever the object reads as exactly that
 * target, and the kernel list inspection gives, joined by commas.  rj_codeobj_amd_pointee
 * (the function a pointer variable points to) and the variable readers
 * (rj_codeobj_variables, rj_codeobj_has_variable) must stay inside the input as well.
 * rocjit_codeobj_resources_get runs for every kernel inspection lists, plus a name no
 * object holds and "axpy" (the seeds' kernel, read even where inspection fails): it stays
 * inside the input, gives only its documented errors, writes *out only on success, and
 * says "no such kernel" for the missing name.
 */
#include <string.h>

#include "codeobj/codeobj.h"
#include "fuzz.h"
#include "rocjit.h"

static const char *const targets[] = { "gfx90a", "gfx90a:sramecc+:xnack-", "gfx1030", "sm_90",
				       "sm_90a" };

/* Whether list is info's kernel names joined by commas. */
static int is_kernel_list(const char *list, const rocjit_codeobj_info *info)
{
	const char *p = list;
	size_t i;

	for (i = 0; i < info->num_kernels; i++) {
		size_t n = strlen(info->kernels[i]);

		if (i && *p++ != ',')
			return 0;
		if (strncmp(p, info->kernels[i], n) != 0)
			return 0;
		p += n;
	}
	return *p == 0;
}

static void check_info(const rocjit_codeobj_info *info)
{
	size_t i, j;

	FUZZ_CHECK(info->platform == ROCJIT_PLATFORM_AMD ||
		   info->platform == ROCJIT_PLATFORM_NVIDIA);
	FUZZ_CHECK(memchr(info->target, 0, sizeof info->target) && info->target[0]);
	FUZZ_CHECK(memchr(info->flags_target, 0, sizeof info->flags_target) &&
		   info->flags_target[0]);
	if (info->platform == ROCJIT_PLATFORM_NVIDIA) {
		FUZZ_CHECK(strncmp(info->target, "sm_", 3) == 0);
		FUZZ_CHECK(strcmp(info->target, info->flags_target) == 0);
	} else {
		FUZZ_CHECK(strncmp(info->target, "sm_", 3) != 0);
	}
	FUZZ_CHECK(info->num_kernels == 0 || info->kernels);
	for (i = 0; i < info->num_kernels; i++) {
		FUZZ_CHECK(info->kernels[i]);
		FUZZ_CHECK(info->platform == ROCJIT_PLATFORM_AMD || info->kernels[i][0]);
		/* Quadratic, as the inspector's own de-duplication: inputs are small. */
		for (j = 0; j < i && j < 256; j++)
			FUZZ_CHECK(strcmp(info->kernels[i], info->kernels[j]) != 0);
	}
}

/* Resources of one kernel: the invariants above; returns the call's result. */
static int check_resources(const uint8_t *data, size_t size, const char *kernel,
			   const rocjit_codeobj_info *info)
{
	rocjit_kernel_resources r;
	int rc;

	FUZZ_CHECK(rocjit_kernel_resources_init(&r, ROCJIT_KERNEL_RESOURCES_VERSION) == 0);
	r.registers = 0xdead; /* must stay when the call fails */
	rc = rocjit_codeobj_resources_get(&r, data, size, kernel);
	FUZZ_CHECK(r.version == ROCJIT_KERNEL_RESOURCES_VERSION);
	if (rc != 0) {
		FUZZ_CHECK(rc == ROCJIT_EFORMAT || rc == ROCJIT_ENOTFOUND || rc == ROCJIT_ENOMEM ||
			   (rc == ROCJIT_EINVAL && size == 0));
		FUZZ_CHECK(r.registers == 0xdead && rocjit_last_error()[0] != 0);
		return rc;
	}
	FUZZ_CHECK(r.platform == ROCJIT_PLATFORM_AMD || r.platform == ROCJIT_PLATFORM_NVIDIA);
	FUZZ_CHECK(!info || r.platform == info->platform);
	FUZZ_CHECK(r.wavefront == 32 || (r.wavefront == 64 && r.platform == ROCJIT_PLATFORM_AMD));
	FUZZ_CHECK(r.platform == ROCJIT_PLATFORM_AMD ||
		   (r.sgprs == 0 && r.agprs == 0 && r.vgpr_spills == 0 && r.sgpr_spills == 0));
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rocjit_codeobj_info *info = (rocjit_codeobj_info *)&info; /* must be overwritten */
	size_t t;
	int rc;

	rc = rocjit_codeobj_inspect(&info, data, size);
	if (rc == 0) {
		FUZZ_CHECK(info != NULL);
		check_info(info);
	} else {
		FUZZ_CHECK(info == NULL);
		FUZZ_CHECK(rc == ROCJIT_EFORMAT || rc == ROCJIT_ENOMEM ||
			   (rc == ROCJIT_EINVAL && size == 0));
		FUZZ_CHECK(rocjit_last_error()[0] != 0);
	}
	for (t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		const char *target = targets[t];
		int nvidia = strncmp(target, "sm_", 3) == 0;
		char *kernels = (char *)&kernels; /* must be overwritten */
		int rc2 = rj_codeobj_check(data, size, target, &kernels);

		if (rc2 == 0) {
			FUZZ_CHECK(rc == 0);
			FUZZ_CHECK(info->platform ==
				   (nvidia ? ROCJIT_PLATFORM_NVIDIA : ROCJIT_PLATFORM_AMD));
			FUZZ_CHECK(!nvidia || strcmp(info->target, target) == 0);
			FUZZ_CHECK(kernels && is_kernel_list(kernels, info));
			free(kernels);
		} else {
			FUZZ_CHECK(kernels == NULL);
			FUZZ_CHECK(rc2 == ROCJIT_EFORMAT || rc2 == ROCJIT_ENOMEM ||
				   (rc2 == ROCJIT_EINVAL && size == 0));
			FUZZ_CHECK(rc == 0 ? strcmp(info->target, target) != 0 : rc2 == rc);
		}
		/* Without kernels_out the verdict is the same. */
		FUZZ_CHECK((rj_codeobj_check(data, size, target, NULL) == 0) == (rc2 == 0));
	}
	/* The pointer-variable reader (name expressions on hipRTC) stays inside the input too. */
	{
		char *func = (char *)&func; /* must be overwritten */
		int rc3 = rj_codeobj_amd_pointee(data, size, "__rocjit_ne_0", &func);

		FUZZ_CHECK(rc3 == 0 ? func != NULL : func == NULL);
		FUZZ_CHECK(rc3 == 0 || rc3 == ROCJIT_EFORMAT || rc3 == ROCJIT_ENOTFOUND ||
			   rc3 == ROCJIT_ENOMEM);
		if (rc3 == 0)
			free(func);
	}
	/* So do the variable readers (name expressions "&var", the not-found message). */
	{
		char vars[64];
		int rc4 = rj_codeobj_variables(data, size, vars, sizeof vars);
		int rc5 = rj_codeobj_has_variable(data, size, "counter");

		FUZZ_CHECK(rc4 == 0 || rc4 == ROCJIT_EFORMAT);
		FUZZ_CHECK(memchr(vars, 0, sizeof vars) != NULL);
		FUZZ_CHECK(rc5 == 0 || rc5 == 1 || rc5 == ROCJIT_EFORMAT);
	}
	if (rc == 0)
		for (t = 0; t < info->num_kernels && t < 64; t++)
			check_resources(data, size, info->kernels[t], info);
	check_resources(data, size, "axpy", rc == 0 ? info : NULL);
	rc = check_resources(data, size, "__rocjit_no_such_kernel", rc == 0 ? info : NULL);
	FUZZ_CHECK(rc != 0);
	rocjit_codeobj_info_free(info);
	return 0;
}
