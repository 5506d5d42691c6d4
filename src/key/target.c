/*
 * target.c - target id syntax: "processor(:feature[+-])*".
 *
 * Owns only string rules; it never asks a compiler or a device.  The feature order rule
 * (sorted by name: sramecc before xnack) is the one comgr and the HIP runtime print, so a
 * target read from a device and one typed by a user give the same key.  Also which
 * platform a target names (rocjit_target_platform), the key's platform field.
 */
#include "key/target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define MAX_FEATURES 8

struct feature {
	char name[RJ_TARGET_MAX];
	char sign;
};

static int cmp_feature(const void *a, const void *b)
{
	return strcmp(((const struct feature *)a)->name, ((const struct feature *)b)->name);
}

static int is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

#define FORM "expected a target id such as gfx90a, gfx90a:sramecc+:xnack- or sm_90"

int rj_target_normalize(char out[RJ_TARGET_MAX], const char *in)
{
	struct feature feats[MAX_FEATURES];
	size_t nfeat = 0, len, i, n;
	const char *p, *end;

	RJ_CHECK(!in || !*in, ROCJIT_EINVAL, "empty target id: " FORM);
	len = strlen(in);
	RJ_CHECK(len >= RJ_TARGET_MAX, ROCJIT_EINVAL, "target id too long (%zu bytes): " FORM,
		 len);
	for (n = 0; is_name_char(in[n]); n++)
		out[n] = (char)tolower((unsigned char)in[n]);
	RJ_CHECK(n == 0 || (in[n] && in[n] != ':'), ROCJIT_EINVAL,
		 "malformed target id \"%s\": " FORM, in);
	out[n] = 0;
	for (p = in + n; *p == ':'; p = end) {
		struct feature *f;
		size_t flen;

		p++;
		for (end = p; is_name_char(*end); end++)
			;
		flen = (size_t)(end - p);
		RJ_CHECK(flen == 0 || (*end != '+' && *end != '-'), ROCJIT_EINVAL,
			 "malformed target feature in \"%s\": each feature is a name followed by "
			 "+ or - (" FORM ")", in);
		RJ_CHECK(nfeat == MAX_FEATURES, ROCJIT_EINVAL, "too many features in target id \"%s\"",
			 in);
		f = &feats[nfeat++];
		for (i = 0; i < flen; i++)
			f->name[i] = (char)tolower((unsigned char)p[i]);
		f->name[flen] = 0;
		f->sign = *end++;
	}
	RJ_CHECK(*p != 0, ROCJIT_EINVAL, "malformed target id \"%s\": " FORM, in);
	qsort(feats, nfeat, sizeof feats[0], cmp_feature);
	for (i = 0; i < nfeat; i++) {
		RJ_CHECK(i > 0 && strcmp(feats[i].name, feats[i - 1].name) == 0, ROCJIT_EINVAL,
			 "feature %s given twice in target id \"%s\"", feats[i].name, in);
		/* Fits: the output is a permutation of the input, which fits. */
		out[n++] = ':';
		memcpy(out + n, feats[i].name, strlen(feats[i].name));
		n += strlen(feats[i].name);
		out[n++] = feats[i].sign;
	}
	out[n] = 0;
	return 0;
}

size_t rj_target_processor_len(const char *target)
{
	return strcspn(target, ":");
}

/*
 * Subsets of the features, the larger first (more specific code is the better fit: it
 * was built for exactly this device's setting), ties in the order of the feature list
 * (sorted by name) so that the order is the same on every node.  Subsets of a sorted
 * list are sorted, so every id given is normalized.
 */
size_t rj_target_compatible(char out[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX], const char *target)
{
	const char *feat[3];
	size_t nfeat = 0, plen = rj_target_processor_len(target), n = 0;
	const char *p;

	snprintf(out[n++], RJ_TARGET_MAX, "%s", target);
	if (strncmp(target, "gfx", 3) != 0)
		return n; /* NVIDIA's sm_XX: no features, the exact id only */
	for (p = strchr(target, ':'); p; p = strchr(p + 1, ':')) {
		if (nfeat == 3)
			return n; /* more features than we enumerate: the exact id only */
		feat[nfeat++] = p + 1;
	}
	for (int keep = (int)nfeat - 1; keep >= 0; keep--) {
		for (unsigned mask = 0; mask < (1u << nfeat); mask++) {
			size_t len = plen;
			if ((unsigned)__builtin_popcount(mask) != (unsigned)keep)
				continue;
			memcpy(out[n], target, plen);
			for (size_t i = 0; i < nfeat; i++) {
				size_t fl = strcspn(feat[i], ":");
				if (!(mask & (1u << (nfeat - 1 - i))))
					continue;
				out[n][len++] = ':';
				memcpy(out[n] + len, feat[i], fl);
				len += fl;
			}
			out[n++][len] = 0;
		}
	}
	return n;
}

ROCJIT_API int rocjit_target_normalize(char *out, size_t out_size, const char *target)
{
	char buf[RJ_TARGET_MAX];

	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_target_normalize: out is NULL");
	RJ_FORWARD(rj_target_normalize(buf, target));
	RJ_CHECK(strlen(buf) >= out_size, ROCJIT_EINVAL,
		 "rocjit_target_normalize: out_size %zu is too small for \"%s\"", out_size, buf);
	memcpy(out, buf, strlen(buf) + 1);
	rj_error_clear();
	return 0;
}

/* The platform field of the key follows from the target's syntax alone. */
ROCJIT_API int rocjit_target_platform(const char *target)
{
	if (!target)
		return 0;
	if (strncmp(target, "gfx", 3) == 0)
		return ROCJIT_PLATFORM_AMD;
	if (strncmp(target, "sm_", 3) == 0)
		return ROCJIT_PLATFORM_NVIDIA;
	return 0;
}

/* The platform field of the key, as text. */
ROCJIT_API const char *rocjit_platform_name(int platform)
{
	switch (platform) {
	case ROCJIT_PLATFORM_AUTO: return "auto";
	case ROCJIT_PLATFORM_AMD: return "amd";
	case ROCJIT_PLATFORM_NVIDIA: return "nvidia";
	default: return "unknown";
	}
}
