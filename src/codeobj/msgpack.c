/*
 * msgpack.c - the bounded MessagePack walker (msgpack.h): just enough to walk any value of
 * the AMDGPU metadata note safely and read its strings and integers.  Pure functions over
 * the caller's bytes; every length is checked against what is left.
 */
#include "codeobj/msgpack.h"

#include "codeobj/elf.h"

int rj_mp_head(struct mp *m, uint64_t *len)
{
	unsigned b;
	int kind = MP_SCALAR, n = 0;

	if (m->pos >= m->size)
		return -1;
	b = m->p[m->pos++];
	*len = 0; /* fixint, nil, bool */
	if (b >= 0x80 && b <= 0x9f) {
		*len = b & 0xf;
		return b <= 0x8f ? MP_MAP : MP_ARRAY;
	} else if (b >= 0xa0 && b <= 0xbf) {
		*len = b & 0x1f;
		kind = MP_STR;
	} else if (b == 0xc1) {
		return -1;
	} else if (b >= 0xc4 && b <= 0xc9) { /* bin 8/16/32, ext 8/16/32 (+ a type byte) */
		n = 1 << ((b - 0xc4) % 3);
		*len = b >= 0xc7;
	} else if (b >= 0xca && b <= 0xd3) { /* float 32/64, uint 8..64, int 8..64 */
		*len = 1u << ((b - 0xca + 2) % 4);
	} else if (b >= 0xd4 && b <= 0xd8) { /* fixext 1..16, after a type byte */
		*len = 1 + (1u << (b - 0xd4));
	} else if (b >= 0xd9 && b <= 0xdb) {
		n = 1 << (b - 0xd9);
		kind = MP_STR;
	} else if (b >= 0xdc && b <= 0xdf) {
		n = b & 1 ? 4 : 2;
		kind = b <= 0xdd ? MP_ARRAY : MP_MAP;
	}
	if (n) {
		if (m->size - m->pos < (size_t)n)
			return -1;
		*len += ld(m->p + m->pos, n, 1);
		m->pos += (size_t)n;
	}
	return kind == MP_ARRAY || kind == MP_MAP || *len <= m->size - m->pos ? kind : -1;
}

int rj_mp_skip(struct mp *m, int depth)
{
	uint64_t len, i;
	int kind = rj_mp_head(m, &len);

	if (kind < 0 || depth > MP_MAX_DEPTH)
		return -1;
	if (kind == MP_SCALAR || kind == MP_STR) {
		m->pos += (size_t)len;
		return 0;
	}
	if (kind == MP_MAP)
		len *= 2;
	if (len > m->size - m->pos) /* every element takes a byte at least */
		return -1;
	for (i = 0; i < len; i++)
		if (rj_mp_skip(m, depth + 1) < 0)
			return -1;
	return 0;
}

/* 0xcc..0xcf are uint 8..64, 0xd0..0xd3 int 8..64 (big-endian, as every MessagePack
 * number); LLVM writes the smallest form that holds the value. */
int rj_mp_uint(struct mp *m, uint64_t *v)
{
	unsigned b;
	int n;

	if (m->pos >= m->size)
		return -1;
	b = m->p[m->pos];
	if (b <= 0x7f || b == 0xc2 || b == 0xc3) {
		*v = b <= 0x7f ? b : b == 0xc3;
		m->pos++;
		return 0;
	}
	if (b < 0xcc || b > 0xd3)
		return -1;
	n = 1 << ((b - 0xcc) % 4);
	if (m->size - m->pos - 1 < (size_t)n)
		return -1;
	*v = ld(m->p + m->pos + 1, n, 1);
	if (b >= 0xd0 && (*v >> (8 * n - 1)) & 1) /* a negative int */
		return -1;
	m->pos += 1 + (size_t)n;
	return 0;
}
