/*
 * platforms.c - choosing a platform (by id, by target) and the public calls about
 * compilers and devices that are not tied to a context.
 *
 * Owns no state: it forwards to the platform tables (platform_amd.c, platform_nvidia.c).
 */
#include <string.h>

#include "compile/compiler_id.h"
#include "base/error.h"
#include "compile/platform.h"

const struct rj_platform *rj_platform_by_id(int id)
{
	switch (id) {
	case ROCJIT_PLATFORM_AMD: return &rj_platform_amd;
	case ROCJIT_PLATFORM_NVIDIA: return &rj_platform_nvidia;
	default: return NULL;
	}
}

const struct rj_platform *rj_platform_for_target(const char *target)
{
	int id = rocjit_target_platform(target);

	if (id)
		return rj_platform_by_id(id);
	rj_error_set(ROCJIT_EUNSUPPORTED, __FILE__, __LINE__,
		     "target \"%s\" belongs to no platform: AMD targets are gfxNNN[:features], "
		     "NVIDIA targets sm_XY", target);
	return NULL;
}

static int platform_arg(const struct rj_platform **out, int platform)
{
	*out = rj_platform_by_id(platform);
	RJ_CHECK(!*out, ROCJIT_EINVAL, "platform %d is not ROCJIT_PLATFORM_AMD or _NVIDIA",
		 platform);
	return 0;
}

ROCJIT_API int rocjit_compiler_identity(const char **out, int platform)
{
	const struct rj_platform *p;

	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_compiler_identity: out is NULL");
	*out = NULL;
	RJ_FORWARD(platform_arg(&p, platform));
	*out = rj_compiler_id(p, NULL);
	RJ_CHECK(!*out, ROCJIT_ENOCOMPILER, "%s", rocjit_last_error());
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_compiler_targets_get(char *buf, size_t size, int platform)
{
	const struct rj_platform *p;

	RJ_CHECK(!buf || size < 16, ROCJIT_EINVAL, "rocjit_compiler_targets_get: buffer too "
		 "small");
	buf[0] = 0;
	RJ_FORWARD(platform_arg(&p, platform));
	RJ_FORWARD(p->targets(buf, size));
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_compiler_libraries_get(char *buf, size_t size, int platform)
{
	const struct rj_platform *p;
	int rc;

	RJ_CHECK(!buf || size < 2, ROCJIT_EINVAL, "rocjit_compiler_libraries_get: no buffer");
	buf[0] = 0;
	RJ_FORWARD(platform_arg(&p, platform));
	if ((rc = p->libraries(buf, size)) == 0)
		rj_error_clear();
	return rc;
}

ROCJIT_API int rocjit_device_count_get(int *count, int platform)
{
	const struct rj_platform *p;

	RJ_CHECK(!count, ROCJIT_EINVAL, "rocjit_device_count_get: count is NULL");
	*count = 0;
	RJ_FORWARD(platform_arg(&p, platform));
	return p->device_count(count);
}

ROCJIT_API int rocjit_device_target_get(char *buf, size_t size, int platform, int device)
{
	const struct rj_platform *p;
	char raw[256];

	RJ_CHECK(!buf || size < 2, ROCJIT_EINVAL, "rocjit_device_target_get: no buffer");
	buf[0] = 0;
	RJ_FORWARD(platform_arg(&p, platform));
	RJ_FORWARD(p->device_target(device, raw, sizeof raw));
	RJ_FORWARD(rocjit_target_normalize(buf, size, raw));
	return 0;
}

/* ---- The spellings before the API's argument order (results first) ------------------- */

ROCJIT_API int rocjit_compiler_targets(int platform, char *buf, size_t size)
{
	return rocjit_compiler_targets_get(buf, size, platform);
}

ROCJIT_API int rocjit_device_count(int platform, int *count)
{
	return rocjit_device_count_get(count, platform);
}

ROCJIT_API int rocjit_device_target(int platform, int device, char *buf, size_t size)
{
	return rocjit_device_target_get(buf, size, platform, device);
}
