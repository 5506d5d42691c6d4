/*
 * record.h - the remote tier's values: a code object with everything needed to check it,
 * in one self-describing byte string (see record.c and cache/FORMAT.md, "Remote values").
 *
 * Layout, all integers little-endian:
 *   "RJRV"                 4 bytes, magic
 *   version                u16, RJ_RECORD_VERSION
 *   reserved               u16, 0
 *   fields                 each: tag (u8), length (u32), that many bytes
 *   trailer                tag 'Z', length 8, XXH3-64 of every byte before this field
 * Tags in any order, each known tag at most once; a tag this version does not know is
 * skipped, however often it comes (a later writer may add fields; issue 16 adds a
 * signature).  Reserved bytes other than 0 are refused: a change there is a new version.
 *   'K' key (16)  'P' portable key (16)  'p' platform  't' target  'c' compiler identity
 *   'o' options  's' source name  'h' header names  'k' kernels column (FORMAT.md)
 *   'm' compile milliseconds (8, IEEE-754 double)  'C' code  'X' XXH3-64 of the code (8)
 *   'S' signer (a key name)  'G' signature (64 bytes when well formed; its checks are
 *   the tier's, src/sign/sign.c: a value decodes whatever it holds)
 * Every tag but 's', 'o', 'h', 'S' and 'G' is required.  Text fields hold no NUL byte.
 *
 * Pure functions over bytes: no I/O, no global state.  What a value must match to be
 * used (the key asked for, this compiler, the code object's own target and kernels) is
 * the tier's rule (remote.c); this file checks only that a value is well formed.
 */
#ifndef ROCJIT_REMOTE_RECORD_H
#define ROCJIT_REMOTE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "key/key.h"

#define RJ_RECORD_VERSION 1
/* What a value may hold at most (code and fields): larger ones are never read whole. */
#define RJ_RECORD_MAX ((size_t)256 << 20)

/* A record's fields.  For rj_record_encode the caller fills it; rj_record_decode fills
 * it with pointers into the decoded bytes (strings are not NUL-terminated: use the
 * lengths). */
struct rj_record {
	rj_key key;
	rj_key pkey;
	const char *platform;   size_t platform_len;
	const char *target;     size_t target_len;
	const char *compiler;   size_t compiler_len;
	const char *options;    size_t options_len;
	const char *source_name; size_t source_name_len;
	const char *headers;    size_t headers_len;
	const char *kernels;    size_t kernels_len;
	double compile_ms;
	const void *code;       size_t code_size;
	const char *signer;     size_t signer_len;  /* "" and 0: unsigned */
	const void *sig;        size_t sig_len;     /* NULL and 0: unsigned */
};

/*
 * Encodes r into a malloc'ed buffer: *out and *size, fields in the order K P p t c o s h
 * k m C X S G, then Z; empty optional fields ('o', 's', 'h', 'S', 'G') are left out.  The code's
 * checksum and the trailer are computed here.  0, ROCJIT_EINVAL (what decode would
 * refuse: a text field holding a NUL, a NULL pointer with a length, an empty platform,
 * target or code, a compile time that is not a number from 0 to 1e9 ms, a record larger
 * than RJ_RECORD_MAX), ROCJIT_ENOMEM.
 */
int rj_record_encode(void **out, size_t *size, const struct rj_record *r);

/*
 * Decodes data[size] into *r, whose pointers then point into data.  Checks everything
 * the format says: magic, version, every field inside the value and of its size, no tag
 * twice, the required tags present, text without NUL, the code's checksum and the
 * trailer's (checked before the fields' contents: a damaged value reads as "truncated or
 * altered").  0, with *r written, or ROCJIT_EFORMAT with a message naming the first thing
 * wrong ("not a rocjit value (no RJRV magic)", "rocjit value format version 7; this
 * rocjit reads version 1", "field 'C' runs past the end of the value", ...), *r
 * untouched.  A missing optional field reads as a static "" of length 0.  Never reads
 * outside data[size].
 */
int rj_record_decode(struct rj_record *r, const void *data, size_t size);

#endif
