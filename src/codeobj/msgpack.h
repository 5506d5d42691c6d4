/*
 * msgpack.h - a bounded MessagePack walker for the AMDGPU metadata note, shared by the
 * note's readers (codeobj.c: the target; resources.c: each kernel's record).  Internal to
 * src/codeobj/.  Reads only [p, p+size); nothing is allocated.
 */
#ifndef ROCJIT_CODEOBJ_MSGPACK_H
#define ROCJIT_CODEOBJ_MSGPACK_H

#include <stddef.h>
#include <stdint.h>

#define MP_MAX_DEPTH 32

struct mp {
	const unsigned char *p;
	size_t size, pos;
};

enum { MP_SCALAR, MP_STR, MP_ARRAY, MP_MAP };

/*
 * Reads one MessagePack header at m->pos.  For a map or array *len gets the element count;
 * otherwise the bytes of payload that follow, which are checked to be there.  Returns the
 * kind, or -1 for a truncated header or payload or the never-used byte 0xc1.
 */
int rj_mp_head(struct mp *m, uint64_t *len);

/* Skips one value, nested at most MP_MAX_DEPTH deep.  Returns 0, or -1 when malformed. */
int rj_mp_skip(struct mp *m, int depth);

/*
 * Reads one value that must be a non-negative integer (positive fixint, uint 8..64, or an
 * int 8..64 that is not negative) into *v, or a boolean (as 0 or 1).  Returns 0, or -1
 * (m->pos unchanged) for any other value or a truncated one.
 */
int rj_mp_uint(struct mp *m, uint64_t *v);

#endif
