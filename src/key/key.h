/*
 * key.h - the content-hashed cache key.
 *
 * key = XXH3-128 over length-prefixed fields, environment before content:
 *   key-format version, platform, normalized target id, compiler identity, the digest of
 *   the headers rocjit serves on the platform (compile/devlib.c), normalized options, each
 *   in-memory header the source reaches through its includes (name, XXH3-128 of its text;
 *   sorted by name: request/reach.c chooses them), and XXH3-128 of the source; then the
 *   optional fields, each only when it differs from its default, as a tag field and a
 *   value field: 'L' and the source language (one byte) when it is not HIP; 'N' and the
 *   number of name expressions (8 bytes), then each expression as a field, when there are
 *   any; 'I' and the digest of what the options' -I folders hold (request/search_dirs.c),
 *   when the options name any; 'F' and the source's name when the texts use __FILE__
 *   (or assert), 'D' and the day when they use __DATE__, 'T' and the time to the second
 *   when they use __TIME__ (rj_key_expansions: what the compilers expand from outside the
 *   texts; like ccache, an entry of __TIME__ is then never hit again).  Adding an
 *   optional field moves no key of a program without it, and a key with one can never
 *   equal one without (the field list is length-prefixed).
 * Nothing else enters the key: not the program name, not the working directory, not the
 * source's file name (which only labels diagnostics) unless the texts expand __FILE__.
 */
#ifndef ROCJIT_KEY_H
#define ROCJIT_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "key/options.h"
#include "rocjit.h"

/* Bump when the key's fields or their encoding change: old entries then simply miss.
 * 3: -I folders keyed, and inputs outside the key refused (issue 27): an entry made
 * before may hold code compiled from a header the key never saw.
 * 4: only the headers the source reaches, sorted by name (issue 31: one source, one key,
 * however it was registered); before, every header given or registered beside it, in
 * the order given. */
#define RJ_KEY_FORMAT 4

typedef struct rj_key {
	uint8_t b[16];
} rj_key;

typedef struct rj_digest {
	uint8_t b[16];
} rj_digest;

struct rj_key_input {
	int platform;
	const char *target;      /* normalized */
	const char *compiler;    /* the platform's compiler identity string */
	rj_digest served;        /* of the headers rocjit serves (rj_devlib_served) */
	const struct rj_opts *options;
	const rocjit_header *headers;
	size_t num_headers;
	const rj_digest *header_digests; /* of each header's text, or NULL: computed here */
	rj_digest source;        /* rj_digest_of(source) */
	int language;            /* ROCJIT_LANG_CUDA, or HIP (ROCJIT_LANG_HIP or 0: the
	                            default, which adds no field) */
	const char *const *name_expressions; /* in order, exactly as given */
	size_t num_name_expressions;
	int has_search_dirs;     /* the options name -I folders: search_dirs is their digest */
	rj_digest search_dirs;
	/* What the compilers expand from outside the texts, where the texts use it
	 * (rj_key_expansions); NULL where they do not: */
	const char *file_name;   /* __FILE__ (assert): the source's name */
	const char *date;        /* __DATE__, __TIMESTAMP__: the day it is compiled */
	const char *time;        /* __TIME__, __TIMESTAMP__: the second */
	char when[2][16];        /* room for date and time, where the caller wants it */
};

/* rj_key_expansions' flags: the texts use __FILE__ (or __builtin_FILE, or assert, whose
 * served macro expands __FILE__), __DATE__, __TIME__ (__TIMESTAMP__: both). */
#define RJ_EXPANDS_FILE 1u
#define RJ_EXPANDS_DATE 2u
#define RJ_EXPANDS_TIME 4u
#define RJ_EXPANDS_ALL 7u
unsigned rj_key_expansions(const char *text, size_t len);

/* XXH3-128 of data, in canonical (big-endian) byte order. */
rj_digest rj_digest_of(const void *data, size_t size);

/* Computes the key.  Headers must have non-NULL name and source (checked by the caller). */
rj_key rj_key_compute(const struct rj_key_input *in);

/*
 * The portable key: every field of the key but the compiler identity (in->compiler is
 * ignored; the served headers' digest stays: they are rocjit's, not the compiler's), in a domain of its own.  It finds a bundle's entries where no compiler is
 * installed (see bundles in cache/FORMAT.md).
 */
rj_key rj_key_compute_portable(const struct rj_key_input *in);

/* 32 lower-case hex digits and a NUL. */
void rj_key_hex(const rj_key *key, char out[33]);

/* XXH3-64 of a code object: the checksum stored beside it. */
uint64_t rj_checksum(const void *data, size_t size);

#endif
