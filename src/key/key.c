/*
 * key.c - cache keys and checksums (see key.h for the field list).
 *
 * Owns the byte encoding of the key.  Every field is preceded by its length as 8
 * little-endian bytes, so no two different field lists can encode to the same bytes
 * ("ab"+"c" vs "a"+"bc").  xxHash is compiled inline here: the key is on the hit path.
 */
#include "key/key.h"

#include <endian.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* libxxhash's run-time dispatch (AVX2/AVX-512 where the CPU has them), for long sources,
   headers and code objects; short inputs and the key bytes are hashed inline (SSE2). */
XXH128_hash_t XXH3_128bits_dispatch(const void *input, size_t len);
XXH64_hash_t XXH3_64bits_dispatch(const void *input, size_t len);

/*
 * The key's bytes are gathered in a small buffer and hashed in one shot, which for the
 * usual ~200 bytes costs a fraction of XXH3's streaming set-up; only when they outgrow
 * the buffer does the streaming state take over.  Both give the same hash for the same
 * bytes, so the key does not depend on the path taken.
 */
struct writer {
	int streaming;    /* 0 while everything fits in buf */
	XXH3_state_t st;  /* on the stack: no allocation, nothing that can fail */
	size_t len;
	uint8_t buf[1024];
};

static inline void put(struct writer *w, const void *data, size_t size)
{
	if (__builtin_expect(!w->streaming && w->len + size <= sizeof w->buf, 1)) {
		memcpy(w->buf + w->len, data, size);
		w->len += size;
		return;
	}
	if (!w->streaming) {
		XXH3_INITSTATE(&w->st);
		XXH3_128bits_reset(&w->st);
		XXH3_128bits_update(&w->st, w->buf, w->len);
		w->streaming = 1;
	}
	XXH3_128bits_update(&w->st, data, size);
}

static inline void put_field(struct writer *w, const void *data, size_t size)
{
	uint64_t len = htole64((uint64_t)size);

	if (__builtin_expect(!w->streaming && w->len + 8 + size <= sizeof w->buf, 1)) {
		memcpy(w->buf + w->len, &len, 8);
		memcpy(w->buf + w->len + 8, data, size);
		w->len += 8 + size;
		return;
	}
	put(w, &len, sizeof len);
	put(w, data, size);
}

static void put_str(struct writer *w, const char *s)
{
	put_field(w, s ? s : "", s ? strlen(s) : 0);
}

rj_digest rj_digest_of(const void *data, size_t size)
{
	XXH128_canonical_t c;
	rj_digest d;

	/* The dispatched code pays ~250 ns to enter (measured); it wins on long inputs. */
	XXH128_canonicalFromHash(&c, size < 4096 ? XXH3_128bits(data, size) :
						   XXH3_128bits_dispatch(data, size));
	memcpy(d.b, c.digest, sizeof d.b);
	return d;
}

static rj_key compute(const struct rj_key_input *in, int portable);

rj_key rj_key_compute(const struct rj_key_input *in)
{
	return compute(in, 0);
}

rj_key rj_key_compute_portable(const struct rj_key_input *in)
{
	return compute(in, 1);
}

static rj_key compute(const struct rj_key_input *in, int portable)
{
	struct writer w;
	XXH128_canonical_t c;
	XXH128_hash_t digest;
	uint8_t num[1];
	rj_key key;

	w.streaming = 0;
	w.len = 0;
	num[0] = portable ? RJ_KEY_FORMAT | 0x80 : RJ_KEY_FORMAT;
	put_field(&w, num, 1);
	num[0] = (uint8_t)in->platform;
	put_field(&w, num, 1);
	put_str(&w, in->target);
	put_str(&w, portable ? "" : in->compiler);
	put_field(&w, in->served.b, sizeof in->served.b);
	put_field(&w, in->options->buf, in->options->len);
	{
		uint64_t nh = htole64((uint64_t)in->num_headers);
		put_field(&w, &nh, 8);
	}
	for (size_t i = 0; i < in->num_headers; i++) {
		const rocjit_header *h = &in->headers[i];
		rj_digest d = in->header_digests ? in->header_digests[i] :
			rj_digest_of(h->source, h->length ? h->length : strlen(h->source));

		put_str(&w, h->name);
		put_field(&w, d.b, sizeof d.b);
	}
	put_field(&w, in->source.b, sizeof in->source.b);
	/* Optional fields (key.h): absent at their defaults, so HIP keys did not move. */
	if (in->language != ROCJIT_LANG_HIP && in->language != ROCJIT_LANG_AUTO) {
		num[0] = (uint8_t)in->language;
		put_field(&w, "L", 1);
		put_field(&w, num, 1);
	}
	if (in->num_name_expressions) {
		uint64_t n = htole64((uint64_t)in->num_name_expressions);
		put_field(&w, "N", 1);
		put_field(&w, &n, 8);
		for (size_t i = 0; i < in->num_name_expressions; i++)
			put_str(&w, in->name_expressions[i]);
	}
	if (in->has_search_dirs) {
		put_field(&w, "I", 1);
		put_field(&w, in->search_dirs.b, sizeof in->search_dirs.b);
	}
	if (in->file_name) {
		put_field(&w, "F", 1);
		put_str(&w, in->file_name);
	}
	if (in->date) {
		put_field(&w, "D", 1);
		put_str(&w, in->date);
	}
	if (in->time) {
		put_field(&w, "T", 1);
		put_str(&w, in->time);
	}
	if (w.streaming) {
		digest = XXH3_128bits_digest(&w.st);
	} else {
		digest = XXH3_128bits(w.buf, w.len);
	}
	XXH128_canonicalFromHash(&c, digest);
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
	/* The same function either way: the dispatch picks an implementation, not a hash. */
	return size < 4096 ? XXH3_64bits(data, size) : XXH3_64bits_dispatch(data, size);
}

static int has_suffix(const char *name, size_t len, const char *ext)
{
	size_t n = strlen(ext);
	return len > n && strcmp(name + len - n, ext) == 0;
}

/* The language field of the key (optional: HIP is the default and writes nothing). */
ROCJIT_API int rocjit_program_language(int language, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (language == ROCJIT_LANG_HIP || language == ROCJIT_LANG_CUDA)
		return language;
	if (language != ROCJIT_LANG_AUTO)
		return ROCJIT_EINVAL;
	return has_suffix(name, len, ".cu") || has_suffix(name, len, ".cuh") ?
		ROCJIT_LANG_CUDA : ROCJIT_LANG_HIP;
}

/*
 * Field 7 of the key is the registered headers a source reaches (request/reach.c); which
 * registered files are headers is decided here, by name, for the library and (through
 * the public call) for the CLI.
 */
ROCJIT_API int rocjit_is_header_name(const char *name)
{
	static const char *const ext[] = { ".h", ".hpp", ".cuh", ".inc" };
	size_t len = name ? strlen(name) : 0;

	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (has_suffix(name, len, ext[i]))
			return 1;
	return 0;
}

/*
 * Which predefined macros that expand to something outside the texts the texts name.  A
 * plain search, not a preprocessor: a name in a comment or a string counts too, which
 * only ever keys more than needed.  "assert" stands for __FILE__, which the assert macro
 * of the served <assert.h> expands at the call.
 */
unsigned rj_key_expansions(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned flags = 0;

	/* One pass, by memchr: memmem would be set up anew at every "__" of a HIP text
	   (__global__, __device__, ...), which is most of its cost on a hit. */
	while (p < end && (p = memchr(p, '_', (size_t)(end - p))) != NULL) {
		size_t left = (size_t)(end - p);
		if (left >= 8 && p[1] == '_') {
			if (!memcmp(p, "__FILE__", 8) || (left >= 14 && !memcmp(p, "__builtin_FILE", 14)))
				flags |= RJ_EXPANDS_FILE;
			else if (!memcmp(p, "__DATE__", 8))
				flags |= RJ_EXPANDS_DATE;
			else if (!memcmp(p, "__TIME__", 8))
				flags |= RJ_EXPANDS_TIME;
			else if (left >= 13 && !memcmp(p, "__TIMESTAMP__", 13))
				flags |= RJ_EXPANDS_DATE | RJ_EXPANDS_TIME;
		}
		p++;
	}
	for (p = text; !(flags & RJ_EXPANDS_FILE) && p < end &&
	     (p = memchr(p, 'a', (size_t)(end - p))) != NULL; p++)
		if ((size_t)(end - p) >= 6 && !memcmp(p, "assert", 6))
			flags |= RJ_EXPANDS_FILE;
	return flags;
}
