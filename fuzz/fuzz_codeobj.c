/*
 * fuzz_codeobj.c - the code-object inspector (codeobj.c, cubin.c) on any bytes.
 *
 * rocjit_codeobj_inspect must never read outside the input (the sanitizers see that: the
 * input lies in a buffer of exactly its size), and what it returns must be well formed: a
 * known platform, NUL-terminated targets, distinct non-NULL kernel names.  rj_codeobj_check
 * must agree with it for every target: the same error when inspection fails, success only
 * for an object of the target's platform, success whenever the object reads as exactly that
 * target, and the kernel list inspection gives, joined by commas.  rj_codeobj_amd_pointee
 * (the function a pointer variable points to) must stay inside the input as well.
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
	rocjit_codeobj_info_free(info);
	return 0;
}
