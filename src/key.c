/*
 * key.c - cache keys and checksums (see key.h for the field list).
 *
 * Owns the byte encoding of the key.  Every field is preceded by its length as 8
 * little-endian bytes, so no two different field lists can encode to the same bytes
 * ("ab"+"c" vs "a"+"bc").  xxHash is compiled inline here: the key is on the hit path.
 */
#include "key.h"

#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static void put_field(XXH3_state_t *st, const void *data, size_t size)
{
	uint8_t len[8];
	uint64_t n = size;

	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(n >> (8 * i));
	XXH3_128bits_update(st, len, sizeof len);
	if (size)
		XXH3_128bits_update(st, data, size);
}

static void put_str(XXH3_state_t *st, const char *s)
{
	put_field(st, s ? s : "", s ? strlen(s) : 0);
}

rj_digest rj_digest_of(const void *data, size_t size)
{
	XXH128_canonical_t c;
	rj_digest d;

	XXH128_canonicalFromHash(&c, XXH3_128bits(data, size));
	memcpy(d.b, c.digest, sizeof d.b);
	return d;
}

rj_key rj_key_compute(const struct rj_key_input *in)
{
	XXH3_state_t st;
	XXH128_canonical_t c;
	uint8_t num[8];
	rj_key key;

	XXH3_128bits_reset(&st);
	num[0] = RJ_KEY_FORMAT;
	put_field(&st, num, 1);
	num[0] = (uint8_t)in->platform;
	put_field(&st, num, 1);
	put_str(&st, in->target);
	put_str(&st, in->compiler);
	put_field(&st, in->options->buf, in->options->len);
	for (int i = 0; i < 8; i++)
		num[i] = (uint8_t)((uint64_t)in->num_headers >> (8 * i));
	put_field(&st, num, 8);
	for (size_t i = 0; i < in->num_headers; i++) {
		const rocjit_header *h = &in->headers[i];
		rj_digest d = in->header_digests ? in->header_digests[i] :
			rj_digest_of(h->source, h->length ? h->length : strlen(h->source));

		put_str(&st, h->name);
		put_field(&st, d.b, sizeof d.b);
	}
	put_field(&st, in->source.b, sizeof in->source.b);
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&st));
	memcpy(key.b, c.digest, sizeof key.b);
	return key;
}

void rj_key_hex(const rj_key *key, char out[33])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		out[2 * i] = hex[key->b[i] >> 4];
		out[2 * i + 1] = hex[key->b[i] & 15];
	}
	out[32] = 0;
}

uint64_t rj_checksum(const void *data, size_t size)
{
	return XXH3_64bits(data, size);
}
