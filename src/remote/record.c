/*
 * record.c - the byte format of a remote value (record.h; cache/FORMAT.md, "Remote values").
 *
 * Owns the encoding and every check that a value is well formed: the magic, the version,
 * the field walk with its bounds, the tags each at most once, the required ones present,
 * the sizes, text without NUL, the code's checksum and the trailer's.  A value comes from
 * a server shared by a fleet, so decoding treats it as hostile: every length is checked
 * against what is left before anything is read, in size_t arithmetic that cannot wrap, and
 * integers are read byte by byte, never by a host-order load.  Knows nothing of keys asked
 * for, compilers or code objects beyond their bytes: whether a value fits a request is the
 * tier's rule (remote.c).  Pure: no I/O, no global state.
 */
#include "remote/record.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define MAGIC "RJRV"
#define HEADER_SIZE 8     /* magic, version, reserved */
#define FIELD_HEAD 5      /* tag, length */
#define TRAILER_TAG 'Z'

_Static_assert(sizeof(double) == 8, "compile_ms is stored as the 8 bytes of a double");
_Static_assert(RJ_RECORD_MAX <= 0xffffffffu, "every field length must fit its u32");

enum {
	F_KEY, F_PKEY, F_PLATFORM, F_TARGET, F_COMPILER, F_OPTIONS, F_SOURCE, F_HEADERS,
	F_KERNELS, F_MS, F_CODE, F_SUM, F_SIGNER, F_SIG, NFIELDS
};

#define REQUIRED 1u
#define TEXT 2u
#define NONEMPTY 4u

/* The fields this version knows, in the order the encoder writes them.  size: the exact
 * length of a fixed-size field, 0 for any length. */
static const struct field {
	char tag;
	unsigned flags;
	size_t size;
	const char *name;
} fields[NFIELDS] = {
	[F_KEY] = { 'K', REQUIRED, 16, "key" },
	[F_PKEY] = { 'P', REQUIRED, 16, "portable key" },
	[F_PLATFORM] = { 'p', REQUIRED | TEXT | NONEMPTY, 0, "platform" },
	[F_TARGET] = { 't', REQUIRED | TEXT | NONEMPTY, 0, "target" },
	[F_COMPILER] = { 'c', REQUIRED | TEXT, 0, "compiler identity" },
	[F_OPTIONS] = { 'o', TEXT, 0, "options" },
	[F_SOURCE] = { 's', TEXT, 0, "source name" },
	[F_HEADERS] = { 'h', TEXT, 0, "header names" },
	[F_KERNELS] = { 'k', REQUIRED | TEXT, 0, "kernels" },
	[F_MS] = { 'm', REQUIRED, 8, "compile milliseconds" },
	[F_CODE] = { 'C', REQUIRED | NONEMPTY, 0, "code" },
	[F_SUM] = { 'X', REQUIRED, 8, "code checksum" },
	/* Issue 16: a signature, checked by the tier when it trusts keys (not here). */
	[F_SIGNER] = { 'S', TEXT, 0, "signer" },
	[F_SIG] = { 'G', 0, 0, "signature" },
};

static int field_index(uint8_t tag)
{
	for (int i = 0; i < NFIELDS; i++)
		if ((uint8_t)fields[i].tag == tag)
			return i;
	return -1;
}

/* A tag as a message shows it: 'K', or 0x07 for one that does not print. */
static const char *tag_text(uint8_t tag, char buf[8])
{
	static const char hex[] = "0123456789abcdef";

	if (tag >= 0x21 && tag < 0x7f) {
		buf[0] = '\'';
		buf[1] = (char)tag;
		buf[2] = '\'';
		buf[3] = 0;
	} else {
		memcpy(buf, "0x", 2);
		buf[2] = hex[tag >> 4];
		buf[3] = hex[tag & 15];
		buf[4] = 0;
	}
	return buf;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] | (unsigned)p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + 8;
}

static uint64_t double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

static double bits_double(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* NaN, negative and infinite times are refused (compiling takes some finite time). */
/* A compile time a reader can add up and convert: at most a million seconds. */
static int valid_ms(double ms)
{
	return ms >= 0.0 && ms <= 1e9;
}

/* The bytes of each field of r, in fields[] order (the code's checksum in sum). */
struct parts {
	const void *p[NFIELDS];
	size_t len[NFIELDS];
	uint8_t ms[8], sum[8];
};

static void parts_of(struct parts *w, const struct rj_record *r)
{
	w->p[F_KEY] = r->key.b;
	w->len[F_KEY] = sizeof r->key.b;
	w->p[F_PKEY] = r->pkey.b;
	w->len[F_PKEY] = sizeof r->pkey.b;
	w->p[F_PLATFORM] = r->platform;
	w->len[F_PLATFORM] = r->platform_len;
	w->p[F_TARGET] = r->target;
	w->len[F_TARGET] = r->target_len;
	w->p[F_COMPILER] = r->compiler;
	w->len[F_COMPILER] = r->compiler_len;
	w->p[F_OPTIONS] = r->options;
	w->len[F_OPTIONS] = r->options_len;
	w->p[F_SOURCE] = r->source_name;
	w->len[F_SOURCE] = r->source_name_len;
	w->p[F_HEADERS] = r->headers;
	w->len[F_HEADERS] = r->headers_len;
	w->p[F_KERNELS] = r->kernels;
	w->len[F_KERNELS] = r->kernels_len;
	w->p[F_MS] = w->ms;
	w->len[F_MS] = sizeof w->ms;
	w->p[F_CODE] = r->code;
	w->len[F_CODE] = r->code_size;
	w->p[F_SUM] = w->sum;
	w->len[F_SUM] = sizeof w->sum;
	w->p[F_SIGNER] = r->signer;
	w->len[F_SIGNER] = r->signer_len;
	w->p[F_SIG] = r->sig;
	w->len[F_SIG] = r->sig_len;
}

/*
 * Writes every field in fields[] order, an optional one only when it is not empty (a
 * reader takes a missing one as empty: the value is shorter and reads the same), then the
 * trailer.  Refuses, before reading any byte of the record, what would be larger than
 * RJ_RECORD_MAX (the sum is taken so that it cannot wrap), then anything the decoder
 * would refuse, so that every value encoded here decodes: NUL in a text field, an empty
 * platform, target or code, a compile time that is not a number from 0 to 1e9 ms.
 */
int rj_record_encode(void **out, size_t *size, const struct rj_record *r)
{
	struct parts w;
	size_t total = HEADER_SIZE + FIELD_HEAD + 8;
	uint8_t *buf, *p;

	*out = NULL;
	*size = 0;
	parts_of(&w, r);
	for (int i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];

		if (!(f->flags & REQUIRED) && w.len[i] == 0)
			continue;
		RJ_CHECK(w.len[i] > RJ_RECORD_MAX || FIELD_HEAD + w.len[i] > RJ_RECORD_MAX - total,
			 ROCJIT_EINVAL,
			 "the remote value would be larger than the %zu bytes a value may hold "
			 "(field '%c', %s, is %zu bytes)",
			 RJ_RECORD_MAX, f->tag, f->name, w.len[i]);
		total += FIELD_HEAD + w.len[i];
	}
	for (int i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];

		RJ_CHECK(w.len[i] && !w.p[i], ROCJIT_EINVAL,
			 "the record's %s (field '%c') is NULL with a length of %zu", f->name,
			 f->tag, w.len[i]);
		RJ_CHECK((f->flags & NONEMPTY) && w.len[i] == 0, ROCJIT_EINVAL,
			 "the record's %s (field '%c') is empty", f->name, f->tag);
		RJ_CHECK((f->flags & TEXT) && w.len[i] && memchr(w.p[i], 0, w.len[i]),
			 ROCJIT_EINVAL, "the record's %s (field '%c') holds a NUL byte", f->name,
			 f->tag);
	}
	RJ_CHECK(!valid_ms(r->compile_ms), ROCJIT_EINVAL,
		 "the record's compile time is not a number of milliseconds from 0 to 1e9");
	put64(w.ms, double_bits(r->compile_ms));
	put64(w.sum, rj_checksum(r->code, r->code_size));

	buf = malloc(total);
	RJ_CHECK(!buf, ROCJIT_ENOMEM, "out of memory for a remote value of %zu bytes", total);
	p = buf;
	memcpy(p, MAGIC, 4);
	p = put16(p + 4, RJ_RECORD_VERSION);
	p = put16(p, 0);
	for (int i = 0; i < NFIELDS; i++) {
		if (!(fields[i].flags & REQUIRED) && w.len[i] == 0)
			continue;
		*p++ = (uint8_t)fields[i].tag;
		p = put32(p, (uint32_t)w.len[i]);
		if (w.len[i])
			memcpy(p, w.p[i], w.len[i]);
		p += w.len[i];
	}
	{
		uint64_t trailer = rj_checksum(buf, (size_t)(p - buf));

		*p++ = TRAILER_TAG;
		p = put32(p, 8);
		p = put64(p, trailer);
	}
	*out = buf;
	*size = (size_t)(p - buf);
	return 0;
}

/* Where a known field lies in the value. */
struct span {
	size_t off, len;
	int seen;
};

/*
 * Walks the fields to the trailer, checking only that each lies inside the value (the
 * walk cannot go on otherwise), then checks the trailer, and only then what the fields
 * say: a value altered or cut short in transit is reported as such rather than as
 * whatever its damaged bytes happen to look like.  Unknown tags are skipped, as often as
 * they come (a later writer's fields); a known one twice is refused.  *r is written only
 * on success; the empty optional fields then point to a static "".
 */
int rj_record_decode(struct rj_record *r, const void *data, size_t size)
{
	const uint8_t *b = data;
	struct span s[NFIELDS];
	struct rj_record d;
	size_t pos = HEADER_SIZE, len;
	int dup = -1;
	char tb[8];

	RJ_CHECK(size > RJ_RECORD_MAX, ROCJIT_EFORMAT,
		 "the value is %zu bytes, more than the %zu a rocjit value may hold", size,
		 RJ_RECORD_MAX);
	RJ_CHECK(!b || size < 4 || memcmp(b, MAGIC, 4) != 0, ROCJIT_EFORMAT,
		 "not a rocjit value (no RJRV magic)");
	RJ_CHECK(size < HEADER_SIZE, ROCJIT_EFORMAT,
		 "the value ends inside its header (%zu bytes)", size);
	RJ_CHECK(get16(b + 4) != RJ_RECORD_VERSION, ROCJIT_EFORMAT,
		 "rocjit value format version %u; this rocjit reads version %d",
		 (unsigned)get16(b + 4), RJ_RECORD_VERSION);
	RJ_CHECK(get16(b + 6) != 0, ROCJIT_EFORMAT,
		 "the value's reserved header bytes are not zero (0x%04x)", (unsigned)get16(b + 6));

	memset(s, 0, sizeof s);
	for (;;) {
		int i;

		RJ_CHECK(pos == size, ROCJIT_EFORMAT,
			 "the value lacks its trailer (field 'Z'): truncated");
		RJ_CHECK(size - pos < FIELD_HEAD, ROCJIT_EFORMAT,
			 "the field header at byte %zu runs past the end of the value", pos);
		len = get32(b + pos + 1);
		RJ_CHECK(len > size - pos - FIELD_HEAD, ROCJIT_EFORMAT,
			 "field %s runs past the end of the value (%zu bytes at byte %zu, %zu left)",
			 tag_text(b[pos], tb), len, pos + FIELD_HEAD, size - pos - FIELD_HEAD);
		if (b[pos] == TRAILER_TAG)
			break;
		i = field_index(b[pos]);
		if (i >= 0 && s[i].seen) {
			if (dup < 0)
				dup = i;
		} else if (i >= 0) {
			s[i].off = pos + FIELD_HEAD;
			s[i].len = len;
			s[i].seen = 1;
		}
		pos += FIELD_HEAD + len;
	}
	RJ_CHECK(len != 8, ROCJIT_EFORMAT, "the trailer (field 'Z') is %zu bytes, not 8", len);
	RJ_CHECK(size - pos != FIELD_HEAD + 8, ROCJIT_EFORMAT,
		 "the trailer (field 'Z') must end the value, but %zu byte(s) follow it",
		 size - pos - FIELD_HEAD - 8);
	RJ_CHECK(get64(b + pos + FIELD_HEAD) != rj_checksum(b, pos), ROCJIT_EFORMAT,
		 "the value's trailer checksum does not match: truncated or altered");

	RJ_CHECK(dup >= 0, ROCJIT_EFORMAT, "field '%c' (%s) appears twice", fields[dup].tag,
		 fields[dup].name);
	for (int i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];

		RJ_CHECK((f->flags & REQUIRED) && !s[i].seen, ROCJIT_EFORMAT,
			 "the value lacks field '%c' (%s)", f->tag, f->name);
		RJ_CHECK(f->size && s[i].len != f->size, ROCJIT_EFORMAT,
			 "field '%c' (%s) is %zu bytes, not %zu", f->tag, f->name, s[i].len,
			 f->size);
		RJ_CHECK((f->flags & NONEMPTY) && s[i].len == 0, ROCJIT_EFORMAT,
			 "field '%c' (%s) is empty", f->tag, f->name);
		RJ_CHECK((f->flags & TEXT) && memchr(b + s[i].off, 0, s[i].len), ROCJIT_EFORMAT,
			 "field '%c' (%s) holds a NUL byte", f->tag, f->name);
	}

	memset(&d, 0, sizeof d);
	memcpy(d.key.b, b + s[F_KEY].off, sizeof d.key.b);
	memcpy(d.pkey.b, b + s[F_PKEY].off, sizeof d.pkey.b);
#define TEXT_OUT(field, ptr, n)                                                  \
	do {                                                                     \
		(ptr) = s[field].seen ? (const char *)(b + s[field].off) : "";   \
		(n) = s[field].len;                                              \
	} while (0)
	TEXT_OUT(F_PLATFORM, d.platform, d.platform_len);
	TEXT_OUT(F_TARGET, d.target, d.target_len);
	TEXT_OUT(F_COMPILER, d.compiler, d.compiler_len);
	TEXT_OUT(F_OPTIONS, d.options, d.options_len);
	TEXT_OUT(F_SOURCE, d.source_name, d.source_name_len);
	TEXT_OUT(F_HEADERS, d.headers, d.headers_len);
	TEXT_OUT(F_KERNELS, d.kernels, d.kernels_len);
	TEXT_OUT(F_SIGNER, d.signer, d.signer_len);
#undef TEXT_OUT
	d.sig = s[F_SIG].seen ? b + s[F_SIG].off : NULL;
	d.sig_len = s[F_SIG].len;
	d.compile_ms = bits_double(get64(b + s[F_MS].off));
	RJ_CHECK(!valid_ms(d.compile_ms), ROCJIT_EFORMAT,
		 "field 'm' (compile milliseconds) is not a finite non-negative number up to "
		 "1e9");
	d.code = b + s[F_CODE].off;
	d.code_size = s[F_CODE].len;
	RJ_CHECK(get64(b + s[F_SUM].off) != rj_checksum(d.code, d.code_size), ROCJIT_EFORMAT,
		 "the code does not match its checksum");
	*r = d;
	return 0;
}
