/*
 * fuzz_record.c - the remote tier's value decoder (src/remote/record.c) on any bytes.
 *
 * rj_record_decode must never read outside the input (it lies in a heap buffer of exactly
 * its size, for the sanitizers).  When it refuses, the code is ROCJIT_EFORMAT, there is
 * a message, and the record passed in is left as it was.  When it accepts, every pointer it gives is non-NULL and lies inside the input,
 * or is an empty string of length 0 (a missing optional field); the required text fields
 * hold no NUL, platform, target and code are not empty, compile_ms is finite and not
 * negative.  Encoding the decoded record must succeed, and decoding that again must give
 * the same fields.  The input is canonical when its tags come in the encoder's order with
 * nothing else (K P p t c, then o s h each only when not empty, k m C X Z): the input, being
 * accepted, is then walked here once more to read its tags, and for a canonical input the
 * re-encoding must equal it byte for byte, and for any other it must differ.  The
 * re-encoding is never longer than the input (it drops unknown tags and empty optional
 * fields, nothing else).
 *
 * Each input is checked twice: as it is, and, where it has the shape of a value, as a copy
 * with the code's checksum and the trailer recomputed, so that mutations reach the checks
 * behind the trailer (with_checksums).
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "remote/record.h"
#include "rocjit.h"

/* Whether p[0..len) lies in data[0..size), or is an empty string of length 0. */
static int inside(const void *p, size_t len, const uint8_t *data, size_t size)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)data;

	if (!p)
		return 0;
	if (a >= lo && a <= lo + size && len <= size - (a - lo))
		return 1;
	return len == 0 && *(const char *)p == 0;
}

static int same(const void *a, size_t alen, const void *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static void check_same(const struct rj_record *a, const struct rj_record *b)
{
	FUZZ_CHECK(memcmp(a->key.b, b->key.b, sizeof a->key.b) == 0);
	FUZZ_CHECK(memcmp(a->pkey.b, b->pkey.b, sizeof a->pkey.b) == 0);
	FUZZ_CHECK(same(a->platform, a->platform_len, b->platform, b->platform_len));
	FUZZ_CHECK(same(a->target, a->target_len, b->target, b->target_len));
	FUZZ_CHECK(same(a->compiler, a->compiler_len, b->compiler, b->compiler_len));
	FUZZ_CHECK(same(a->options, a->options_len, b->options, b->options_len));
	FUZZ_CHECK(same(a->source_name, a->source_name_len, b->source_name, b->source_name_len));
	FUZZ_CHECK(same(a->headers, a->headers_len, b->headers, b->headers_len));
	FUZZ_CHECK(same(a->kernels, a->kernels_len, b->kernels, b->kernels_len));
	FUZZ_CHECK(memcmp(&a->compile_ms, &b->compile_ms, sizeof(double)) == 0);
	FUZZ_CHECK(same(a->code, a->code_size, b->code, b->code_size));
}

/* Whether the accepted value data[size] holds exactly the tags the encoder writes for r,
 * in its order. */
static int canonical(const uint8_t *data, size_t size, const struct rj_record *r)
{
	char want[16], *w = want;
	size_t pos = 8, n = 0;

	*w++ = 'K';
	*w++ = 'P';
	*w++ = 'p';
	*w++ = 't';
	*w++ = 'c';
	if (r->options_len)
		*w++ = 'o';
	if (r->source_name_len)
		*w++ = 's';
	if (r->headers_len)
		*w++ = 'h';
	*w++ = 'k';
	*w++ = 'm';
	*w++ = 'C';
	*w++ = 'X';
	*w++ = 'Z';
	while (pos < size) {
		size_t len;

		/* Decoding checked these bounds already: check them again all the same. */
		FUZZ_CHECK(size - pos >= 5);
		len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8 |
		      (size_t)data[pos + 3] << 16 | (size_t)data[pos + 4] << 24;
		FUZZ_CHECK(len <= size - pos - 5);
		if (want + n == w || data[pos] != (uint8_t)want[n])
			return 0;
		n++;
		pos += 5 + len;
	}
	return want + n == w;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * A copy of data with its two checksums made right, or NULL where it lacks the shape for
 * them (a field walk from byte 8 that ends with an 8-byte 'Z' exactly at the end).  The
 * fuzzer cannot guess a 64-bit hash by mutation: without this copy no mutated input would
 * ever get past the trailer, and the checks after it would go unfuzzed.  The first 'C' and
 * the first 8-byte 'X' are the ones fixed; the copy is exactly size bytes, as the input.
 */
static uint8_t *with_checksums(const uint8_t *data, size_t size)
{
	size_t pos = 8, code = 0, code_len = 0, sum = 0;
	int have_code = 0, have_sum = 0;
	uint8_t *copy;

	if (size < 8)
		return NULL;
	for (;;) {
		size_t len;

		if (size - pos < 5)
			return NULL;
		len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8 |
		      (size_t)data[pos + 3] << 16 | (size_t)data[pos + 4] << 24;
		if (len > size - pos - 5)
			return NULL;
		if (data[pos] == 'Z') {
			if (len != 8 || size - pos != 13)
				return NULL;
			break;
		}
		if (data[pos] == 'C' && !have_code) {
			have_code = 1;
			code = pos + 5;
			code_len = len;
		}
		if (data[pos] == 'X' && len == 8 && !have_sum) {
			have_sum = 1;
			sum = pos + 5;
		}
		pos += 5 + len;
	}
	copy = malloc(size);
	FUZZ_CHECK(copy);
	memcpy(copy, data, size);
	if (have_code && have_sum)
		put64(copy + sum, rj_checksum(copy + code, code_len));
	put64(copy + pos + 5, rj_checksum(copy, pos));
	return copy;
}

/* Decodes data[size] and checks every invariant of the verdict. */
static void check_one(const uint8_t *data, size_t size)
{
	struct rj_record r, again, untouched;
	void *out = NULL;
	size_t out_size = 0;
	int rc;

	memset(&r, 0xa5, sizeof r);
	memset(&untouched, 0xa5, sizeof untouched);
	rc = rj_record_decode(&r, data, size);
	if (rc != 0) {
		FUZZ_CHECK(rc == ROCJIT_EFORMAT);
		FUZZ_CHECK(memcmp(&r, &untouched, sizeof r) == 0); /* written only on success */
		FUZZ_CHECK(rocjit_last_error()[0] != 0);
		return;
	}
	FUZZ_CHECK(inside(r.platform, r.platform_len, data, size) && r.platform_len);
	FUZZ_CHECK(inside(r.target, r.target_len, data, size) && r.target_len);
	FUZZ_CHECK(inside(r.compiler, r.compiler_len, data, size));
	FUZZ_CHECK(inside(r.options, r.options_len, data, size));
	FUZZ_CHECK(inside(r.source_name, r.source_name_len, data, size));
	FUZZ_CHECK(inside(r.headers, r.headers_len, data, size));
	FUZZ_CHECK(inside(r.kernels, r.kernels_len, data, size));
	FUZZ_CHECK(inside(r.code, r.code_size, data, size) && r.code_size);
	FUZZ_CHECK(!memchr(r.platform, 0, r.platform_len) && !memchr(r.target, 0, r.target_len));
	FUZZ_CHECK(!memchr(r.compiler, 0, r.compiler_len) && !memchr(r.kernels, 0, r.kernels_len));
	FUZZ_CHECK(!memchr(r.options, 0, r.options_len) && !memchr(r.headers, 0, r.headers_len));
	FUZZ_CHECK(!memchr(r.source_name, 0, r.source_name_len));
	FUZZ_CHECK(isfinite(r.compile_ms) && r.compile_ms >= 0.0);

	FUZZ_CHECK(rj_record_encode(&out, &out_size, &r) == 0);
	FUZZ_CHECK(out && out_size <= size);
	memset(&again, 0x5a, sizeof again);
	FUZZ_CHECK(rj_record_decode(&again, out, out_size) == 0);
	check_same(&r, &again);
	if (canonical(data, size, &r))
		FUZZ_CHECK(out_size == size && memcmp(out, data, size) == 0);
	else
		FUZZ_CHECK(out_size != size || memcmp(out, data, size) != 0);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;

	check_one(data, size);
	fixed = with_checksums(data, size);
	if (fixed) {
		if (memcmp(fixed, data, size) != 0)
			check_one(fixed, size);
		free(fixed);
	}
	return 0;
}
