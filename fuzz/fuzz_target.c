/*
 * fuzz_target.c - the target-id parser (target.c) on any string.
 *
 * The input, cut at its first NUL and at 256 bytes, is a target id.  rj_target_normalize
 * either refuses it with ROCJIT_EINVAL or writes a non-empty id shorter than RJ_TARGET_MAX
 * that is its own normal form (normalizing it again gives it back) and is as long as the
 * input (normalizing only re-cases and reorders).  rocjit_target_normalize agrees with it
 * for every buffer size: the same id whenever it fits, ROCJIT_EINVAL otherwise, and never a
 * byte written past out_size (the buffers are exactly out_size bytes, for the sanitizers).
 */
#include <ctype.h>
#include <string.h>

#include "fuzz.h"
#include "rocjit.h"
#include "key/target.h"

#define INPUT_MAX 256

/* Calls rocjit_target_normalize with a heap buffer of exactly out_size bytes. */
static void check_public(const char *in, int rc, const char *want, size_t out_size)
{
	char *out = malloc(out_size ? out_size : 1);
	int prc;

	FUZZ_CHECK(out);
	prc = rocjit_target_normalize(out_size ? out : NULL, out_size, in);
	if (out_size == 0) {
		FUZZ_CHECK(prc == ROCJIT_EINVAL); /* a NULL out */
	} else if (rc == 0 && strlen(want) < out_size) {
		FUZZ_CHECK(prc == 0);
		FUZZ_CHECK(strcmp(out, want) == 0);
	} else {
		FUZZ_CHECK(prc == ROCJIT_EINVAL);
		FUZZ_CHECK(rocjit_last_error()[0] != 0);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[INPUT_MAX + 1], out[RJ_TARGET_MAX], again[RJ_TARGET_MAX];
	size_t n = size < INPUT_MAX ? size : INPUT_MAX, len, i;
	static const size_t sizes[] = { 0, 1, 2, 6, 7, 12, 16, 23, 24, 32, 63, 64, 65, 256 };
	int rc;

	out[0] = 0;
	memcpy(in, data, n);
	in[n] = 0;
	rc = rj_target_normalize(out, in);
	if (rc == 0) {
		len = strlen(out);
		FUZZ_CHECK(len > 0 && len < RJ_TARGET_MAX);
		FUZZ_CHECK(len == strlen(in));
		for (i = 0; i < len; i++)
			FUZZ_CHECK(!isupper((unsigned char)out[i]));
		FUZZ_CHECK(rj_target_processor_len(out) == rj_target_processor_len(in));
		FUZZ_CHECK(rj_target_normalize(again, out) == 0);
		FUZZ_CHECK(strcmp(again, out) == 0);
		/* Exactly fitting, one byte short. */
		check_public(in, rc, out, len + 1);
		check_public(in, rc, out, len);
	} else {
		FUZZ_CHECK(rc == ROCJIT_EINVAL);
		FUZZ_CHECK(rocjit_last_error()[0] != 0);
	}
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		check_public(in, rc, out, sizes[i]);
	return 0;
}
