/*
 * sign.c - ed25519 signatures over cache entries (sign.h; issues 16 and 27): what a
 * signature covers (the subject, the signed message's encoding), signing and verifying.
 * The keys themselves, their files and the trust list are keys.c's.
 *
 * Knows nothing of where an entry or its signature is stored (bundles, the remote tier):
 * the callers hand over the fields.  No global state (libsodium's one-time set-up is
 * keys.c's, the lower of the two files).
 */
#include "sign/sign.h"

#include <sodium.h>
#include <string.h>

#define DOMAIN "rocjit signature v2"     /* signed with its NUL (sign.h) */
#define CODE_HASH_BYTES RJ_SIG_DIGEST_BYTES /* BLAKE2b-256 */
/* The longest signed message: domain, two keys, three length-prefixed strings, the
 * compile time, then the kernels', the description's and the code's digests. */
#define MESSAGE_MAX (sizeof DOMAIN + 2 * sizeof(rj_key) + 3 * (4 + RJ_SIG_TEXT_MAX) + 8 + \
		     3 * CODE_HASH_BYTES)

_Static_assert(crypto_sign_BYTES == RJ_SIG_BYTES, "an ed25519 signature is 64 bytes");
_Static_assert(RJ_SIG_TEXT_MAX <= 0xffffffffu, "a string's length is signed as a u32");


/* ---- Signing and verifying --------------------------------------------------------------- */

static unsigned char *put_text(unsigned char *p, const char *s, size_t n)
{
	for (int i = 0; i < 4; i++)
		*p++ = (unsigned char)((uint32_t)n >> (8 * i));
	memcpy(p, s, n);
	return p + n;
}

/* Feeds n as 8 little-endian bytes, then data[n], to h: a field no other can run into. */
static void hash_field(crypto_generichash_state *h, const void *data, size_t n)
{
	unsigned char len[8];

	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)((uint64_t)n >> (8 * i));
	crypto_generichash_update(h, len, sizeof len);
	if (n)
		crypto_generichash_update(h, data, n);
}

void rj_sig_describe(unsigned char out[RJ_SIG_DIGEST_BYTES], const char *options,
		     size_t options_len, const char *source_name, size_t source_name_len,
		     const char *headers, size_t headers_len)
{
	crypto_generichash_state h;

	rj_sig_sodium();
	crypto_generichash_init(&h, NULL, 0, RJ_SIG_DIGEST_BYTES);
	hash_field(&h, options, options ? options_len : 0);
	hash_field(&h, source_name, source_name ? source_name_len : 0);
	hash_field(&h, headers, headers ? headers_len : 0);
	crypto_generichash_final(&h, out, RJ_SIG_DIGEST_BYTES);
}

void rj_sig_describe_text(unsigned char out[RJ_SIG_DIGEST_BYTES], const char *options,
			  const char *source_name, const char *headers)
{
	rj_sig_describe(out, options, options ? strlen(options) : 0, source_name,
			source_name ? strlen(source_name) : 0, headers,
			headers ? strlen(headers) : 0);
}

void rj_sig_subject_make(struct rj_sig_subject *e, const rj_key *key, const rj_key *pkey,
			 const char *platform, const char *target, const char *compiler,
			 const char *kernels, size_t kernels_len, double compile_ms,
			 const unsigned char described[RJ_SIG_DIGEST_BYTES], const void *code,
			 size_t code_size)
{
	e->key = key;
	e->pkey = pkey;
	e->platform = platform ? platform : "";
	e->target = target ? target : "";
	e->compiler = compiler ? compiler : "";
	e->kernels = kernels ? kernels : "";
	e->kernels_len = kernels ? kernels_len : 0;
	e->compile_ms = compile_ms;
	memcpy(e->described, described, RJ_SIG_DIGEST_BYTES);
	e->code = code;
	e->code_size = code_size;
}

/*
 * Encodes the message a signature covers (sign.h) into msg (MESSAGE_MAX bytes).  Returns
 * its length, or 0 for a subject no signature may cover: a string longer than
 * RJ_SIG_TEXT_MAX, or code or kernels NULL with a size.  Each string is read only up to
 * RJ_SIG_TEXT_MAX + 1 bytes.
 */
static size_t encode_message(const struct rj_sig_subject *e, unsigned char msg[MESSAGE_MAX])
{
	static const rj_key zero;
	const char *text[3] = { e->platform, e->target, e->compiler };
	size_t len[3];
	unsigned char *p = msg;
	uint64_t bits;
	crypto_generichash_state h;

	for (int i = 0; i < 3; i++) {
		if (!text[i])
			text[i] = "";
		len[i] = strnlen(text[i], RJ_SIG_TEXT_MAX + 1);
		if (len[i] > RJ_SIG_TEXT_MAX)
			return 0;
	}
	if ((!e->code && e->code_size) || (!e->kernels && e->kernels_len))
		return 0;
	memcpy(p, DOMAIN, sizeof DOMAIN);
	p += sizeof DOMAIN;
	memcpy(p, (e->key ? e->key : &zero)->b, sizeof zero.b);
	p += sizeof zero.b;
	memcpy(p, (e->pkey ? e->pkey : &zero)->b, sizeof zero.b);
	p += sizeof zero.b;
	for (int i = 0; i < 3; i++)
		p = put_text(p, text[i], len[i]);
	/* The double's own bits: every store keeps the exact double (SQLite REAL, the
	   index, the remote value's u64 bits), so no rounding rule is needed. */
	memcpy(&bits, &e->compile_ms, sizeof bits);
	for (int i = 0; i < 8; i++)
		*p++ = (unsigned char)(bits >> (8 * i));
	crypto_generichash_init(&h, NULL, 0, CODE_HASH_BYTES);
	hash_field(&h, e->kernels, e->kernels_len);
	crypto_generichash_final(&h, p, CODE_HASH_BYTES);
	p += CODE_HASH_BYTES;
	memcpy(p, e->described, RJ_SIG_DIGEST_BYTES);
	p += RJ_SIG_DIGEST_BYTES;
	crypto_generichash(p, CODE_HASH_BYTES, e->code, e->code_size, NULL, 0);
	p += CODE_HASH_BYTES;
	return (size_t)(p - msg);
}

void rj_sig_sign(const struct rj_sig_secret *s, const struct rj_sig_subject *e,
		 unsigned char sig[RJ_SIG_BYTES])
{
	unsigned char msg[MESSAGE_MAX];
	size_t n;

	rj_sig_sodium();
	n = encode_message(e, msg);
	if (n == 0) {
		memset(sig, 0, RJ_SIG_BYTES);
		return;
	}
	crypto_sign_detached(sig, NULL, msg, n, s->sk);
}

enum rj_sig_status rj_sig_verify(const struct rj_sig_trust *t, const struct rj_sig_subject *e,
				 const char *signer, const void *sig, size_t sig_len)
{
	unsigned char msg[MESSAGE_MAX];
	const struct rj_sig_public *k;
	size_t name_len, n;

	name_len = signer ? strnlen(signer, RJ_SIG_NAME_MAX + 1) : 0;
	if (name_len == 0 && sig_len == 0)
		return RJ_SIG_UNSIGNED;
	if (!rj_sig_name_valid(signer, name_len) || sig_len != RJ_SIG_BYTES || !sig)
		return RJ_SIG_BAD;
	k = rj_sig_trust_find(t, signer);
	if (!k)
		return RJ_SIG_UNTRUSTED;
	rj_sig_sodium();
	n = encode_message(e, msg);
	if (n == 0)
		return RJ_SIG_BAD;
	return crypto_sign_verify_detached(sig, msg, n, k->pk) == 0 ? RJ_SIG_TRUSTED : RJ_SIG_BAD;
}

const char *rj_sig_status_name(enum rj_sig_status s)
{
	switch (s) {
	case RJ_SIG_UNSIGNED: return "unsigned";
	case RJ_SIG_TRUSTED: return "trusted";
	case RJ_SIG_UNTRUSTED: return "untrusted";
	case RJ_SIG_BAD: return "bad";
	}
	return "unknown";
}
