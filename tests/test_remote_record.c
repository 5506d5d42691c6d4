/*
 * test_remote_record.c - the remote tier's value format (src/remote/record.c): every field
 * survives a round trip, the bytes are the ones cache/FORMAT.md describes, and every value
 * that is damaged, cut, padded, from a later format or simply malformed is refused with
 * ROCJIT_EFORMAT and a message naming what is wrong, without a byte read outside it.
 *
 * Values under test lie in heap buffers of exactly their size, so that the sanitizer
 * build sees any read past the end.  Malformed values are written by hand with the small
 * builder below, which recomputes the trailer, so that each reaches the check it aims at.
 */
#include <math.h>
#include <stdint.h>

#include "remote/record.h"
#include "harness.h"

static const uint8_t code_bytes[] = { 0x7f, 'E', 'L', 'F', 0, 0, 0, 1, 0, 0xff, 0, 0x80, 0 };

/* A record with every field set: code with zero bytes in it, a fractional time. */
static struct rj_record sample(void)
{
	struct rj_record r;

	memset(&r, 0, sizeof r);
	for (int i = 0; i < 16; i++) {
		r.key.b[i] = (uint8_t)(i * 17 + 1);
		r.pkey.b[i] = (uint8_t)(255 - i * 3);
	}
	r.platform = "amd";
	r.platform_len = 3;
	r.target = "gfx90a:sramecc+:xnack-";
	r.target_len = strlen(r.target);
	r.compiler = "hiprtc 6.2.41133 | clang 18";
	r.compiler_len = strlen(r.compiler);
	r.options = "-O3 -DN=4";
	r.options_len = strlen(r.options);
	r.source_name = "axpy.hip";
	r.source_name_len = strlen(r.source_name);
	r.headers = "a.h\nb.h";
	r.headers_len = strlen(r.headers);
	r.kernels = "axpy,scale\nscale<float, 4>\t_Z5scaleIfLi4EEvPT_";
	r.kernels_len = strlen(r.kernels);
	r.compile_ms = 1234.5678125;
	r.code = code_bytes;
	r.code_size = sizeof code_bytes;
	return r;
}

/* Encodes r, which must succeed. */
static uint8_t *encoded(const struct rj_record *r, size_t *size)
{
	void *out = NULL;

	ASSERT_INT(rj_record_encode(&out, size, r), 0);
	ASSERT(out != NULL && *size > 0);
	return out;
}

/* A heap copy of exactly n bytes (one allocated byte for n == 0, never read). */
static uint8_t *exact_copy(const void *data, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	ASSERT(p != NULL);
	if (n)
		memcpy(p, data, n);
	return p;
}

/* Decodes a copy of data[n], which must be refused with a message holding want (or any
 * message when want is NULL). */
static void refused(const void *data, size_t n, const char *want)
{
	struct rj_record r;
	uint8_t *copy = exact_copy(data, n);
	int rc = rj_record_decode(&r, copy, n);

	free(copy);
	ASSERT_INT(rc, ROCJIT_EFORMAT);
	ASSERT(rocjit_last_error()[0] != 0);
	if (want)
		ASSERT_CONTAINS(rocjit_last_error(), want);
}

static int same_text(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static void assert_same(const struct rj_record *a, const struct rj_record *b)
{
	ASSERT(memcmp(a->key.b, b->key.b, 16) == 0);
	ASSERT(memcmp(a->pkey.b, b->pkey.b, 16) == 0);
	ASSERT(same_text(a->platform, a->platform_len, b->platform, b->platform_len));
	ASSERT(same_text(a->target, a->target_len, b->target, b->target_len));
	ASSERT(same_text(a->compiler, a->compiler_len, b->compiler, b->compiler_len));
	ASSERT(same_text(a->options, a->options_len, b->options, b->options_len));
	ASSERT(same_text(a->source_name, a->source_name_len, b->source_name,
			 b->source_name_len));
	ASSERT(same_text(a->headers, a->headers_len, b->headers, b->headers_len));
	ASSERT(same_text(a->kernels, a->kernels_len, b->kernels, b->kernels_len));
	ASSERT(memcmp(&a->compile_ms, &b->compile_ms, sizeof(double)) == 0);
	ASSERT(a->code_size == b->code_size && memcmp(a->code, b->code, a->code_size) == 0);
}

/* The u64 stored little-endian at p. */
static uint64_t le64(const uint8_t *p)
{
	uint64_t u = 0;

	for (int b = 7; b >= 0; b--)
		u = u << 8 | p[b];
	return u;
}

/* ---- A hand-written value: header, fields as given, then the trailer ---- */

struct builder {
	uint8_t b[4096];
	size_t n;
};

static void put_le(struct builder *w, uint64_t v, int bytes)
{
	ASSERT(w->n + (size_t)bytes <= sizeof w->b);
	for (int i = 0; i < bytes; i++)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void start(struct builder *w, unsigned version)
{
	memcpy(w->b, "RJRV", 4);
	w->n = 4;
	put_le(w, version, 2);
	put_le(w, 0, 2);
}

/* A field whose length field says declared while len bytes follow. */
static void field_as(struct builder *w, char tag, uint32_t declared, const void *data,
		     size_t len)
{
	put_le(w, (uint8_t)tag, 1);
	put_le(w, declared, 4);
	ASSERT(w->n + len <= sizeof w->b);
	if (len)
		memcpy(w->b + w->n, data, len);
	w->n += len;
}

static void field(struct builder *w, char tag, const void *data, size_t len)
{
	field_as(w, tag, (uint32_t)len, data, len);
}

static void field64(struct builder *w, char tag, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	field(w, tag, le, 8);
}

static uint64_t bits_of(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* sample()'s field tag, as the encoder writes it. */
static void one_field(struct builder *w, char tag)
{
	struct rj_record r = sample();

	switch (tag) {
	case 'K': field(w, 'K', r.key.b, 16); break;
	case 'P': field(w, 'P', r.pkey.b, 16); break;
	case 'p': field(w, 'p', r.platform, r.platform_len); break;
	case 't': field(w, 't', r.target, r.target_len); break;
	case 'c': field(w, 'c', r.compiler, r.compiler_len); break;
	case 'o': field(w, 'o', r.options, r.options_len); break;
	case 's': field(w, 's', r.source_name, r.source_name_len); break;
	case 'h': field(w, 'h', r.headers, r.headers_len); break;
	case 'k': field(w, 'k', r.kernels, r.kernels_len); break;
	case 'm': field64(w, 'm', bits_of(r.compile_ms)); break;
	case 'C': field(w, 'C', r.code, r.code_size); break;
	case 'X': field64(w, 'X', rj_checksum(r.code, r.code_size)); break;
	default: ASSERT(!"a tag sample() has");
	}
}

/* Every required field of sample() in canonical order but skip (0: none); the optional
 * ones are left out. */
static void required_fields(struct builder *w, char skip)
{
	for (const char *t = "KPptckmCX"; *t; t++)
		if (*t != skip)
			one_field(w, *t);
}

/* Appends the trailer: XXH3-64 of every byte so far. */
static void finish(struct builder *w)
{
	field64(w, 'Z', rj_checksum(w->b, w->n));
}

/* ---- Round trips ---- */

TEST(every_field_round_trips)
{
	struct rj_record r = sample(), d;
	size_t size;
	uint8_t *v = encoded(&r, &size);

	ASSERT_INT(rj_record_decode(&d, v, size), 0);
	assert_same(&r, &d);
	ASSERT(d.compile_ms == 1234.5678125);
	/* The decoded fields point into the value: nothing was copied. */
	ASSERT((const uint8_t *)d.code > v && (const uint8_t *)d.code + d.code_size < v + size);
	ASSERT((const uint8_t *)d.target > v && (const uint8_t *)d.target < v + size);
	free(v);
}

TEST(extreme_values_round_trip)
{
	static const uint8_t zeros[4096];
	struct rj_record r = sample(), d;
	size_t size;
	uint8_t *v;

	memset(r.key.b, 0, 16);
	memset(r.pkey.b, 0xff, 16);
	r.compile_ms = 0.0;
	r.code = zeros; /* all zero bytes, past rj_checksum's short-input path */
	r.code_size = sizeof zeros;
	r.kernels = NULL; /* a code object without kernels: an empty column */
	r.kernels_len = 0;
	r.compiler = NULL;
	r.compiler_len = 0;
	v = encoded(&r, &size);
	ASSERT_INT(rj_record_decode(&d, v, size), 0);
	assert_same(&r, &d);
	ASSERT(d.kernels != NULL && d.compiler != NULL);
	free(v);
	r.compile_ms = 1e9;
	v = encoded(&r, &size);
	ASSERT_INT(rj_record_decode(&d, v, size), 0);
	ASSERT(d.compile_ms == 1e9);
	free(v);
}

TEST(absent_optional_fields_decode_as_empty_strings)
{
	struct rj_record r = sample(), d;
	struct builder w;
	size_t size;
	uint8_t *v;

	r.options = NULL;
	r.options_len = 0;
	r.source_name = NULL;
	r.source_name_len = 0;
	r.headers = "";
	r.headers_len = 0;
	v = encoded(&r, &size);
	/* The encoder leaves empty optional fields out: 3 fields of 5 bytes less. */
	for (size_t i = 8; i < size;) {
		uint32_t len = (uint32_t)v[i + 1] | (uint32_t)v[i + 2] << 8 |
			       (uint32_t)v[i + 3] << 16 | (uint32_t)v[i + 4] << 24;
		ASSERT(v[i] != 'o' && v[i] != 's' && v[i] != 'h');
		i += 5 + len;
	}
	ASSERT_INT(rj_record_decode(&d, v, size), 0);
	ASSERT(d.options != NULL && d.source_name != NULL && d.headers != NULL);
	ASSERT_STR(d.options, "");
	ASSERT_STR(d.source_name, "");
	ASSERT_STR(d.headers, "");
	ASSERT_INT(d.options_len + d.source_name_len + d.headers_len, 0);
	free(v);

	/* Present but empty reads the same. */
	start(&w, 1);
	required_fields(&w, 0);
	field(&w, 'o', NULL, 0);
	field(&w, 's', NULL, 0);
	finish(&w);
	v = exact_copy(w.b, w.n);
	ASSERT_INT(rj_record_decode(&d, v, w.n), 0);
	ASSERT(d.options != NULL && d.options_len == 0);
	ASSERT(d.source_name != NULL && d.source_name_len == 0);
	ASSERT_STR(d.headers, "");
	free(v);
}

TEST(encoding_is_the_documented_little_endian_layout)
{
	static const char order[] = "KPptcoshkmCXZ";
	struct rj_record r = sample();
	size_t size, i = 8, n = 0;
	uint8_t *v = encoded(&r, &size);

	ASSERT(memcmp(v, "RJRV\x01\x00\x00\x00", 8) == 0);
	/* 'K', length 16 little-endian, the key's bytes. */
	ASSERT(memcmp(v + 8, "K\x10\x00\x00\x00", 5) == 0);
	ASSERT(memcmp(v + 13, r.key.b, 16) == 0);
	while (i < size) {
		uint32_t len = (uint32_t)v[i + 1] | (uint32_t)v[i + 2] << 8 |
			       (uint32_t)v[i + 3] << 16 | (uint32_t)v[i + 4] << 24;
		ASSERT(n < strlen(order));
		ASSERT_INT(v[i], order[n]);
		n++;
		if (v[i] == 'm')
			ASSERT(le64(v + i + 5) == bits_of(r.compile_ms));
		if (v[i] == 'X')
			ASSERT(le64(v + i + 5) == rj_checksum(code_bytes, sizeof code_bytes));
		if (v[i] == 'Z') {
			ASSERT_INT(len, 8);
			ASSERT(le64(v + i + 5) == rj_checksum(v, i));
		}
		i += 5 + len;
	}
	ASSERT_INT(n, strlen(order));
	ASSERT_INT(i, size);
	free(v);
}

/* ---- Damage ---- */

TEST(every_single_byte_change_is_refused)
{
	struct rj_record r = sample();
	size_t size;
	uint8_t *v = encoded(&r, &size);

	for (size_t i = 0; i < size; i++) {
		for (int f = 0; f < 2; f++) {
			uint8_t bit = f ? 0x80 : 0x01;
			v[i] ^= bit;
			refused(v, size, NULL);
			v[i] ^= bit;
		}
	}
	/* The trailer's checksum and the code's, each flipped, by name. */
	v[size - 1] ^= 0x01;
	refused(v, size, "trailer checksum does not match");
	v[size - 1] ^= 0x01;
	v[size - 14] ^= 0x80; /* the last byte of 'X', just before the trailer */
	refused(v, size, "trailer checksum does not match");
	free(v);
}

TEST(every_truncation_is_refused)
{
	struct rj_record r = sample();
	size_t size;
	uint8_t *v = encoded(&r, &size);

	for (size_t n = 0; n < size; n++)
		refused(v, n, NULL);
	refused(v, 3, "no RJRV magic");
	refused(v, 6, "ends inside its header");
	refused(v, 8, "lacks its trailer");
	refused(v, 10, "field header at byte 8 runs past the end");
	refused(v, size - 27, "field 'C' runs past the end of the value");
	free(v);
}

TEST(appended_byte_is_refused)
{
	struct rj_record r = sample();
	size_t size;
	uint8_t *v = encoded(&r, &size);
	uint8_t *longer = malloc(size + 1);

	ASSERT(longer != NULL);
	memcpy(longer, v, size);
	longer[size] = 0;
	refused(longer, size + 1, "must end the value, but 1 byte(s) follow it");
	longer[size] = 'Z';
	refused(longer, size + 1, "the trailer (field 'Z') must end the value");
	free(longer);
	free(v);
}

TEST(wrong_magic_is_refused)
{
	struct rj_record r = sample();
	size_t size;
	uint8_t *v = encoded(&r, &size);

	refused("", 0, "not a rocjit value (no RJRV magic)");
	refused("RJR", 3, "no RJRV magic");
	v[0] = 'r';
	refused(v, size, "no RJRV magic");
	v[0] = 'R';
	v[3] = 'X';
	refused(v, size, "no RJRV magic");
	ASSERT_INT(rj_record_decode(&r, NULL, 0), ROCJIT_EFORMAT);
	free(v);
}

TEST(higher_version_is_refused_naming_it)
{
	struct builder w;

	start(&w, 7);
	required_fields(&w, 0);
	finish(&w);
	refused(w.b, w.n, "rocjit value format version 7; this rocjit reads version 1");
	start(&w, 0x102);
	required_fields(&w, 0);
	finish(&w);
	refused(w.b, w.n, "version 258;");
	start(&w, 0);
	required_fields(&w, 0);
	finish(&w);
	refused(w.b, w.n, "version 0;");
}

TEST(nonzero_reserved_header_bytes_are_refused)
{
	struct builder w;

	start(&w, 1);
	w.b[7] = 1;
	required_fields(&w, 0);
	finish(&w);
	refused(w.b, w.n, "reserved header bytes are not zero");
}

TEST(duplicate_known_tag_is_refused)
{
	static const char tags[] = "KPptcoshkmCX";
	struct builder w;
	char want[32];

	for (const char *t = tags; *t; t++) {
		/* The same bytes twice, and apart, are as refused as two different ones. */
		start(&w, 1);
		one_field(&w, *t);
		required_fields(&w, 0);
		one_field(&w, *t);
		finish(&w);
		snprintf(want, sizeof want, "field '%c' (", *t);
		refused(w.b, w.n, want);
		ASSERT_CONTAINS(rocjit_last_error(), "appears twice");
	}
	start(&w, 1);
	required_fields(&w, 0);
	field(&w, 'K', "0123456789abcdef", 16);
	finish(&w);
	refused(w.b, w.n, "field 'K' (key) appears twice");
}

TEST(unknown_tags_are_skipped)
{
	struct rj_record r = sample(), d;
	struct builder w;
	uint8_t *v;
	static const uint8_t sig[64] = { 1, 0, 3 };

	start(&w, 1);
	field(&w, 'Q', sig, sizeof sig); /* a later writer's field, say (binary) */
	field(&w, 'K', r.key.b, 16);
	field(&w, '\x07', NULL, 0);
	field(&w, 'P', r.pkey.b, 16);
	field(&w, 'z', "later", 5);
	field(&w, 'z', "twice", 5); /* unknown, so skipped each time */
	field(&w, 'p', r.platform, r.platform_len);
	field(&w, 't', r.target, r.target_len);
	field(&w, 'c', r.compiler, r.compiler_len);
	field(&w, 'o', r.options, r.options_len);
	field(&w, 's', r.source_name, r.source_name_len);
	field(&w, 'h', r.headers, r.headers_len);
	field(&w, 'k', r.kernels, r.kernels_len);
	field64(&w, 'm', bits_of(r.compile_ms));
	field(&w, 'C', r.code, r.code_size);
	field64(&w, 'X', rj_checksum(r.code, r.code_size));
	field(&w, '\xff', "\0\0\0", 3);
	finish(&w);
	v = exact_copy(w.b, w.n);
	ASSERT_INT(rj_record_decode(&d, v, w.n), 0);
	assert_same(&r, &d);
	free(v);
}

TEST(fields_in_any_order_are_read)
{
	struct rj_record r = sample(), d;
	struct builder w;
	uint8_t *v;

	start(&w, 1);
	field64(&w, 'X', rj_checksum(r.code, r.code_size));
	field(&w, 'C', r.code, r.code_size);
	field(&w, 'k', r.kernels, r.kernels_len);
	field(&w, 'h', r.headers, r.headers_len);
	field(&w, 's', r.source_name, r.source_name_len);
	field(&w, 'o', r.options, r.options_len);
	field(&w, 'c', r.compiler, r.compiler_len);
	field64(&w, 'm', bits_of(r.compile_ms));
	field(&w, 't', r.target, r.target_len);
	field(&w, 'p', r.platform, r.platform_len);
	field(&w, 'P', r.pkey.b, 16);
	field(&w, 'K', r.key.b, 16);
	finish(&w);
	v = exact_copy(w.b, w.n);
	ASSERT_INT(rj_record_decode(&d, v, w.n), 0);
	assert_same(&r, &d);
	free(v);
}

TEST(length_field_of_0xffffffff_is_refused_within_bounds)
{
	struct rj_record r = sample();
	struct builder w;

	/* The code's length says 4 GiB - 1 on a value of a few hundred bytes. */
	start(&w, 1);
	field(&w, 'K', r.key.b, 16);
	field_as(&w, 'C', 0xffffffffu, r.code, r.code_size);
	finish(&w);
	refused(w.b, w.n, "field 'C' runs past the end of the value");
	/* As the very first field, and as the trailer's own length. */
	start(&w, 1);
	field_as(&w, 'K', 0xffffffffu, r.key.b, 16);
	refused(w.b, w.n, "field 'K' runs past the end");
	start(&w, 1);
	required_fields(&w, 0);
	field_as(&w, 'Z', 0xffffffffu, "\0\0\0\0\0\0\0\0", 8);
	refused(w.b, w.n, "field 'Z' runs past the end");
	/* One byte too long, and an unknown tag's length, named in hex. */
	start(&w, 1);
	required_fields(&w, 0);
	field_as(&w, '\x01', 9, "abcdefgh", 8);
	refused(w.b, w.n, "field 0x01 runs past the end");
}

TEST(trailer_must_be_last_and_8_bytes)
{
	struct builder w;

	/* A well-formed trailer in the middle: the fields after it are not its to cover. */
	start(&w, 1);
	required_fields(&w, 'X');
	finish(&w);
	field64(&w, 'X', 0);
	refused(w.b, w.n, "the trailer (field 'Z') must end the value, but 13 byte(s)");
	start(&w, 1);
	required_fields(&w, 0);
	field(&w, 'Z', "\1\2\3\4", 4);
	refused(w.b, w.n, "the trailer (field 'Z') is 4 bytes, not 8");
	start(&w, 1);
	required_fields(&w, 0);
	refused(w.b, w.n, "lacks its trailer (field 'Z')");
}

TEST(missing_required_tag_is_refused_naming_it)
{
	static const struct {
		char tag;
		const char *want;
	} cases[] = {
		{ 'K', "the value lacks field 'K' (key)" },
		{ 'P', "the value lacks field 'P' (portable key)" },
		{ 'p', "the value lacks field 'p' (platform)" },
		{ 't', "the value lacks field 't' (target)" },
		{ 'c', "the value lacks field 'c' (compiler identity)" },
		{ 'k', "the value lacks field 'k' (kernels)" },
		{ 'm', "the value lacks field 'm' (compile milliseconds)" },
		{ 'C', "the value lacks field 'C' (code)" },
		{ 'X', "the value lacks field 'X' (code checksum)" },
	};
	struct builder w;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		start(&w, 1);
		required_fields(&w, cases[i].tag);
		finish(&w);
		refused(w.b, w.n, cases[i].want);
	}
}

TEST(wrong_fixed_field_sizes_are_refused)
{
	struct rj_record r = sample();
	struct builder w;

	start(&w, 1);
	field(&w, 'K', r.key.b, 15);
	required_fields(&w, 'K');
	finish(&w);
	refused(w.b, w.n, "field 'K' (key) is 15 bytes, not 16");
	start(&w, 1);
	field(&w, 'P', "0123456789abcdefg", 17);
	required_fields(&w, 'P');
	finish(&w);
	refused(w.b, w.n, "field 'P' (portable key) is 17 bytes, not 16");
	start(&w, 1);
	field(&w, 'm', "\0\0\0\0", 4);
	required_fields(&w, 'm');
	finish(&w);
	refused(w.b, w.n, "field 'm' (compile milliseconds) is 4 bytes, not 8");
	start(&w, 1);
	field(&w, 'X', NULL, 0);
	required_fields(&w, 'X');
	finish(&w);
	refused(w.b, w.n, "field 'X' (code checksum) is 0 bytes, not 8");
}

TEST(code_not_matching_its_checksum_is_refused)
{
	struct builder w;

	start(&w, 1);
	required_fields(&w, 'X');
	field64(&w, 'X', rj_checksum(code_bytes, sizeof code_bytes) ^ 1);
	finish(&w);
	refused(w.b, w.n, "the code does not match its checksum");
}

TEST(empty_platform_target_or_code_is_refused)
{
	struct rj_record r = sample();
	struct builder w;
	void *out = NULL;
	size_t size = 0;

	start(&w, 1);
	field(&w, 'p', "", 0);
	required_fields(&w, 'p');
	finish(&w);
	refused(w.b, w.n, "field 'p' (platform) is empty");
	start(&w, 1);
	field(&w, 't', "", 0);
	required_fields(&w, 't');
	finish(&w);
	refused(w.b, w.n, "field 't' (target) is empty");
	start(&w, 1);
	for (const char *t = "KPptckm"; *t; t++)
		one_field(&w, *t);
	field(&w, 'C', "", 0);
	field64(&w, 'X', rj_checksum("", 0));
	finish(&w);
	refused(w.b, w.n, "field 'C' (code) is empty");

	/* The encoder refuses to write what the decoder would refuse. */
	r.target_len = 0;
	ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "target (field 't') is empty");
	ASSERT(out == NULL && size == 0);
	r = sample();
	r.code = NULL;
	r.code_size = 0;
	ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "code (field 'C') is empty");
	r = sample();
	r.kernels = NULL; /* NULL with a length */
	ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "kernels (field 'k') is NULL");
}

TEST(nul_in_a_text_field_is_refused_on_encode)
{
	static const char *const names[] = { "platform", "target", "compiler identity",
					     "options", "source name", "header names",
					     "kernels" };
	void *out = NULL;
	size_t size = 0;

	for (int i = 0; i < 7; i++) {
		struct rj_record r = sample();
		const char **p[] = { &r.platform, &r.target, &r.compiler, &r.options,
				     &r.source_name, &r.headers, &r.kernels };
		size_t *len[] = { &r.platform_len, &r.target_len, &r.compiler_len,
				  &r.options_len, &r.source_name_len, &r.headers_len,
				  &r.kernels_len };
		char want[64];

		*p[i] = "ab\0cd";
		*len[i] = 5;
		ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
		ASSERT(out == NULL);
		snprintf(want, sizeof want, "%s (field '", names[i]);
		ASSERT_CONTAINS(rocjit_last_error(), want);
		ASSERT_CONTAINS(rocjit_last_error(), "holds a NUL byte");
		/* Stopping before the NUL is fine: the lengths, not the NULs, bound a field. */
		*len[i] = 2;
		ASSERT_INT(rj_record_encode(&out, &size, &r), 0);
		free(out);
		out = NULL;
	}
}

TEST(nul_in_a_text_field_is_refused_on_decode)
{
	static const char tags[] = "ptcoshk";
	struct builder w;
	char want[32];

	for (const char *t = tags; *t; t++) {
		start(&w, 1);
		field(&w, *t, "gfx\0900", 7);
		required_fields(&w, *t);
		finish(&w);
		snprintf(want, sizeof want, "field '%c' (", *t);
		refused(w.b, w.n, want);
		ASSERT_CONTAINS(rocjit_last_error(), "holds a NUL byte");
	}
}

TEST(nan_negative_infinite_or_huge_compile_ms_is_refused)
{
	/* Huge: DBL_MAX ms is infinite in microseconds, which no counter can take. */
	const double bad[] = { NAN, -NAN, -1.0, -1e-300, INFINITY, -INFINITY, 1.0000001e9,
			       1e300 };
	struct builder w;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rj_record r = sample();
		void *out = NULL;
		size_t size = 0;

		r.compile_ms = bad[i];
		ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "compile time");
		start(&w, 1);
		field64(&w, 'm', bits_of(bad[i]));
		required_fields(&w, 'm');
		finish(&w);
		refused(w.b, w.n,
			"field 'm' (compile milliseconds) is not a finite non-negative number");
	}
}

TEST(value_larger_than_max_is_refused_from_its_size_alone)
{
	struct rj_record r = sample(), d;
	uint8_t *tiny = exact_copy("RJRV", 4);
	void *out = NULL;
	size_t size = 0;

	/* A 4-byte buffer said to be larger than any value: refused without a read (the
	 * sanitizers would see one). */
	ASSERT_INT(rj_record_decode(&d, tiny, RJ_RECORD_MAX + 1), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), "more than the 268435456 a rocjit value may hold");
	ASSERT_INT(rj_record_decode(&d, tiny, SIZE_MAX), ROCJIT_EFORMAT);
	/* Code said to be RJ_RECORD_MAX bytes (or the whole address space) in a 13-byte
	 * buffer: encode refuses before reading or hashing it. */
	r.code_size = RJ_RECORD_MAX;
	ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "larger than the 268435456 bytes");
	ASSERT(out == NULL);
	r.code_size = SIZE_MAX;
	ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
	r = sample();
	r.options_len = SIZE_MAX - 3;
	ASSERT_INT(rj_record_encode(&out, &size, &r), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "field 'o'");
	free(tiny);
}
