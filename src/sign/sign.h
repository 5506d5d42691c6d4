/*
 * sign.h - signed code objects (issue 16): a producer signs each entry it writes to a
 * shared tier (a bundle, the remote tier) with its ed25519 key, and a consumer loads only
 * entries signed by a key it trusts.  Keys are spelled as Nix binary caches spell them,
 * NAME:BASE64, one line each:
 *   NAME.secret   NAME:BASE64(64-byte libsodium secret key: seed, then public key), 0600
 *   NAME.pub      NAME:BASE64(32-byte public key), 0644
 * A trust list ($ROCJIT_TRUSTED_KEYS, an option) names the public keys a consumer takes.
 *
 * What is signed (version 2, issue 27), all integers little-endian:
 *   "rocjit signature v2" and a NUL      20 bytes, the domain
 *   key                                  16 bytes
 *   portable key                         16 bytes (16 zero bytes when there is none)
 *   platform, target, compiler identity  each: u32 length, then its bytes
 *   compile time                         8 bytes: the IEEE-754 double's bits (u64), as
 *                                        the database, the index and a remote value
 *                                        store it (it feeds the saved-time counters)
 *   BLAKE2b-256 of the kernels column    32 bytes: u64 length, then the column (symbols
 *                                        and name expressions: what a name resolves to)
 *   the description                      32 bytes (rj_sig_describe): BLAKE2b-256 of the
 *                                        options, source name and header names, each a
 *                                        u64 length then its bytes
 *   BLAKE2b-256 of the code              32 bytes (no key)
 * A signature covers every field of an entry but itself and its local usage (hits, last
 * use): nothing that decides what runs, or what rocjit says of it, can change without
 * failing it.  Version 1 (the domain "rocjit signature v1") covered neither the kernels
 * column, the compile time nor the description: such a signature no longer holds (bad),
 * and is made again with `rocjit sign`.  The signer's name travels beside the signature
 * (the tiers store both); it picks the key to check with.
 *
 * Pure functions over bytes, plus the key files rj_sig_keygen writes and
 * rj_sig_secret_load / rj_sig_trust_parse read.  No global state but libsodium's one-time
 * initialization: every function may be called from any thread.  Nothing is printed;
 * failures are recorded (rocjit_last_error) and returned.  No message ever holds secret
 * key material.
 */
#ifndef ROCJIT_SIGN_H
#define ROCJIT_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "key/key.h"

#define RJ_SIG_BYTES 64          /* an ed25519 signature */
#define RJ_SIG_PUBLIC_BYTES 32
#define RJ_SIG_NAME_MAX 64       /* a key name: 1..64 of [A-Za-z0-9._-], not starting
                                    with '.' (rj_sig_name_valid) */
/* The longest platform, target or compiler identity a signature can cover (bytes). */
#define RJ_SIG_TEXT_MAX 4096
/* The room rj_sig_public_line needs: name, ':', 44 base64 characters, NUL. */
#define RJ_SIG_PUBLIC_LINE_SIZE (RJ_SIG_NAME_MAX + 1 + 44 + 1)
/* The largest trust file rj_sig_trust_parse reads, and the largest secret key file. */
#define RJ_SIG_TRUST_FILE_MAX ((size_t)1 << 20)
#define RJ_SIG_SECRET_FILE_MAX 4096

struct rj_sig_secret {           /* a signing key: wipe with rj_sig_secret_wipe */
	char name[RJ_SIG_NAME_MAX + 1];
	unsigned char sk[64];        /* libsodium's ed25519 secret key (seed + public) */
};

struct rj_sig_public {
	char name[RJ_SIG_NAME_MAX + 1];
	unsigned char pk[RJ_SIG_PUBLIC_BYTES];
};

struct rj_sig_trust {            /* the trusted keys; {0} is an empty set */
	struct rj_sig_public *keys;  /* malloc'ed */
	size_t n;
};

/* The bytes of a digest a signature covers (rj_sig_describe, the kernels, the code). */
#define RJ_SIG_DIGEST_BYTES 32

/* What is signed: every field of an entry (see the top).  Build it with
 * rj_sig_subject_make, which takes each field, so that no site leaves one out.  pkey may
 * be NULL (16 zero bytes are signed); strings are NUL-terminated, never NULL (use ""),
 * but kernels, which carries its length. */
struct rj_sig_subject {
	const rj_key *key;
	const rj_key *pkey;
	const char *platform;        /* "amd", "nvidia" */
	const char *target;          /* normalized target id */
	const char *compiler;        /* compiler identity */
	const char *kernels;         /* the kernels column (FORMAT.md), kernels_len bytes */
	size_t kernels_len;
	double compile_ms;           /* signed as its bits: the exact double stored */
	unsigned char described[RJ_SIG_DIGEST_BYTES]; /* rj_sig_describe */
	const void *code;
	size_t code_size;
};

/*
 * The description digest: BLAKE2b-256 over the options, source name and header names,
 * each as a u64 little-endian length then its bytes (NULL with length 0 is "").  What a
 * signature covers of the texts `rocjit show` displays; the read index stores this digest
 * instead of the texts.  Any thread.
 */
void rj_sig_describe(unsigned char out[RJ_SIG_DIGEST_BYTES], const char *options,
		     size_t options_len, const char *source_name, size_t source_name_len,
		     const char *headers, size_t headers_len);
/* As rj_sig_describe, of NUL-terminated strings (NULL is ""). */
void rj_sig_describe_text(unsigned char out[RJ_SIG_DIGEST_BYTES], const char *options,
			  const char *source_name, const char *headers);

/*
 * Fills *e with every field a signature covers: the entry's key and portable key,
 * platform, target, compiler identity, kernels column (kernels_len bytes; NULL is ""),
 * compile time, description digest (rj_sig_describe) and code.  Pointers are kept, not
 * copied: they must outlive e.  NULL strings are taken as "".
 */
void rj_sig_subject_make(struct rj_sig_subject *e, const rj_key *key, const rj_key *pkey,
			 const char *platform, const char *target, const char *compiler,
			 const char *kernels, size_t kernels_len, double compile_ms,
			 const unsigned char described[RJ_SIG_DIGEST_BYTES], const void *code,
			 size_t code_size);

enum rj_sig_status {
	RJ_SIG_UNSIGNED = 0,   /* no signature */
	RJ_SIG_TRUSTED,        /* signed by a trusted key, and the signature holds */
	RJ_SIG_UNTRUSTED,      /* signed by a key whose name is not trusted (signature not
	                          checked) */
	RJ_SIG_BAD,            /* signed in a trusted key's name, but the signature does not
	                          hold (tampered code or metadata, or another key of that
	                          name), or malformed (signer name invalid, signature not 64
	                          bytes) */
};

/* libsodium, initialized once for both files of src/sign: 1, or 0 when it could not be
 * (no source of randomness).  Any thread. */
int rj_sig_sodium(void);

/*
 * Makes a fresh key pair named name and writes it into the folder dir as dir/NAME.secret
 * (mode 0600) and dir/NAME.pub (mode 0644), each one line ending in a newline.  Neither
 * file is ever overwritten, nor a symbolic link followed: an existing one fails the call,
 * and a secret file created before a later failure is removed again.  public_line (size
 * bytes, at least RJ_SIG_PUBLIC_LINE_SIZE; NULL with size 0 when not wanted) gets the
 * public key's line without its newline, the text a consumer puts in its trust list.
 * Returns 0; ROCJIT_EINVAL for a bad name (the message says what a name may hold), a NULL
 * dir or a public_line too small; ROCJIT_EIO when a file cannot be created or written
 * (the message names the path, the reason and what to do).  Any thread.
 */
int rj_sig_keygen(const char *name, const char *dir, char *public_line, size_t size);

/*
 * Reads a secret key file (as rj_sig_keygen writes it; whitespace around the line is
 * allowed) into *out.  The file must be a regular file (a symbolic link to one is
 * followed) owned by this user or root, that neither group nor others may read or write
 * (the trust rule, base/trust.h, for a secret), at most
 * RJ_SIG_SECRET_FILE_MAX bytes, and its public half must be the one its seed derives.
 * Returns 0; ROCJIT_EINVAL for a NULL or empty path or a file that does not hold a valid
 * secret key; ROCJIT_EIO when it cannot be opened or read, is not a regular file, is too
 * large, is another user's, or is open to group or others (the message says what to do).  On failure
 * *out is wiped.  Messages name the path, never its contents.  Any thread.
 */
int rj_sig_secret_load(struct rj_sig_secret *out, const char *path);

/* Overwrites *s with zeros in a way the compiler keeps (NULL is fine). */
void rj_sig_secret_wipe(struct rj_sig_secret *s);

/*
 * Parses one public key, NAME:BASE64 of 32 bytes (standard alphabet, '=' padding),
 * from text[len]; whitespace around it is ignored.  Returns 0, or ROCJIT_EINVAL with a
 * message quoting (at most 80 characters of) the text and saying what is wrong; *out is
 * zeroed on failure.  Any thread.
 */
int rj_sig_public_parse(struct rj_sig_public *out, const char *text, size_t len);

/* Writes k as its line, NAME:BASE64, into out (size bytes).  A size below
 * RJ_SIG_PUBLIC_LINE_SIZE gets "" (never a cut key). */
void rj_sig_public_line(const struct rj_sig_public *k, char *out, size_t size);

/* The public key of a secret key: its name and the public half.  0, or ROCJIT_EINVAL
 * when s holds no valid name (it was never loaded, or was wiped). */
int rj_sig_secret_public(const struct rj_sig_secret *s, struct rj_sig_public *out);

/*
 * Parses a trust list into *out.  spec (NULL or "" is an empty set) holds items
 * separated by commas, spaces or newlines; each item is a public key, NAME:BASE64, or,
 * when it starts with '/' or '.', the path of a file of them: one or more per line
 * (separated as in spec), blank lines and lines starting with '#' ignored, no nested
 * files.  A trust file must be a regular file of at most RJ_SIG_TRUST_FILE_MAX bytes
 * owned by this user or root that neither group nor others may write (the trust rule,
 * base/trust.h: whoever can write it could add a key to it).  The same key given twice
 * is kept once; two different keys with one name are refused (ambiguous).  from names
 * where spec came from ("ROCJIT_TRUSTED_KEYS") and begins every message.  Returns 0;
 * ROCJIT_EINVAL for a malformed item or a conflict (the message quotes the item and,
 * for a file, names it and the line); ROCJIT_EIO when a trust file cannot be read or
 * fails the trust rule; ROCJIT_ENOMEM.  On failure *out is an empty set.  Free with
 * rj_sig_trust_free.  Any thread.
 */
int rj_sig_trust_parse(struct rj_sig_trust *out, const char *spec, const char *from);

/* Frees t's keys and leaves it an empty set (NULL is fine). */
void rj_sig_trust_free(struct rj_sig_trust *t);

/* The trusted key named name, or NULL (also for a NULL t or name).  The pointer is valid
 * as long as t is. */
const struct rj_sig_public *rj_sig_trust_find(const struct rj_sig_trust *t, const char *name);

/* 1 when name[len] is a valid key name (1 to RJ_SIG_NAME_MAX of A-Z a-z 0-9 . _ -, the
 * first not '.': a trust list reads an item starting with '.' as a path), else 0.  name
 * need not be NUL-terminated. */
int rj_sig_name_valid(const char *name, size_t len);

/*
 * Signs e with s into sig.  Deterministic: the same key and subject give the same
 * signature.  A subject no signature can cover (a string longer than RJ_SIG_TEXT_MAX, a
 * NULL code with a size) gets 64 zero bytes, which rj_sig_verify reads as bad.  NULL
 * strings are taken as "" and a NULL key as 16 zero bytes.  Any thread.
 */
void rj_sig_sign(const struct rj_sig_secret *s, const struct rj_sig_subject *e,
		 unsigned char sig[RJ_SIG_BYTES]);

/*
 * Whether e's signature sig[sig_len] by signer holds under the trust list t (NULL: no
 * key is trusted):
 *   signer NULL or "" and sig_len 0                     RJ_SIG_UNSIGNED
 *   signer not a valid name, or sig_len != 64           RJ_SIG_BAD
 *   signer not in t                                     RJ_SIG_UNTRUSTED
 *   signer in t: ed25519 verification                   RJ_SIG_TRUSTED or RJ_SIG_BAD
 * A subject sign could not cover is RJ_SIG_BAD.  Inputs are treated as hostile: sig is
 * read only when sig_len is 64, signer only up to RJ_SIG_NAME_MAX + 1 bytes.  Records no
 * error.  Any thread.
 */
enum rj_sig_status rj_sig_verify(const struct rj_sig_trust *t, const struct rj_sig_subject *e,
				 const char *signer, const void *sig, size_t sig_len);

/* "unsigned", "trusted", "untrusted", "bad" ("unknown" for another value). */
const char *rj_sig_status_name(enum rj_sig_status s);

#endif
