/*
 * bench_sign.c - what verifying a signed entry costs (issue 16): rj_sig_verify, the
 * library's own check (src/sign/sign.h), on code objects of the sizes given, beside what
 * a new process's request costs (bench_remote: a disk hit, a remote hit).
 *
 *   bench_sign [-n N] [--first K] [SIZE...]
 *
 * SIZE: bytes of code (default 16384 and 1887437: the 16 KB and 1.8 MB objects of
 * bench/remote_bench.sh, which passes the sizes its run served).  For each size, random
 * code under a key made here (rj_sig_keygen, rj_sig_secret_load, the public line parsed
 * as a trust list, as rocjit_open does), signed once, then:
 *   verify   rj_sig_verify, N times in this process (default: 2000 under 256 KB, else
 *            200), each timed alone: min, p25, median, p75;
 *   blake2b  its part that grows with the code: libsodium's crypto_generichash (32
 *            bytes, no key) of the code;
 *   ed25519  its fixed part: crypto_sign_verify_detached of a message of the signed
 *            message's size (domain, keys, strings, the hash);
 *   first    the first rj_sig_verify of a new process (K of them, default 30), after its
 *            trust list was parsed as rocjit_open does: the cost a request pays, once per
 *            entry per process, with cold caches.  It includes libsodium's one-time
 *            initialization (sodium_init: rj_sig_verify does it, the trust list's parse
 *            does not);
 *   first-ready  the same with sodium_init called before it, untimed: what the first
 *            verify would cost were libsodium initialized at rocjit_open.
 * This program links the library's objects (rocjit_static and src/ headers), not only
 * its public API: rj_sig_verify is internal.
 */
#define _GNU_SOURCE
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "rocjit.h"
#include "sign/sign.h"

const char *bench_prog = "bench_sign";

/* A compiler identity as long as hipRTC's, a normalized target: what is signed. */
#define COMPILER "hiprtc 5.2.21153; hip 5.2.21153-6b2e3fa5; comgr 2.4; rocjit-devlib 0123456789abcdef"
#define TARGET "gfx90a:sramecc+:xnack-"

/* Deterministic code of size bytes (the children make the same as the parent). */
static unsigned char *make_code(size_t size)
{
	unsigned char *code = bench_calloc(1, size);
	uint64_t x = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < size; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		code[i] = (unsigned char)x;
	}
	return code;
}

static void subject_of(struct rj_sig_subject *e, rj_key *key, rj_key *pkey,
		       const unsigned char *code, size_t size)
{
	for (int i = 0; i < 16; i++) {
		key->b[i] = (uint8_t)(i * 17 + 1);
		pkey->b[i] = (uint8_t)(i * 29 + 3);
	}
	e->key = key;
	e->pkey = pkey;
	e->platform = "amd";
	e->target = TARGET;
	e->compiler = COMPILER;
	e->code = code;
	e->code_size = size;
}

static void trust_of(struct rj_sig_trust *t, const char *dir)
{
	char path[4200], line[RJ_SIG_PUBLIC_LINE_SIZE + 8];
	FILE *f;

	snprintf(path, sizeof path, "%s/bench.pub", dir);
	if (!(f = fopen(path, "r")) || !fgets(line, sizeof line, f))
		bench_die("cannot read %s", path);
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (rj_sig_trust_parse(t, line, "bench") != 0)
		bench_die("trust: %s", rocjit_last_error());
}

static int hex_of(unsigned char *out, size_t n, const char *hex)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (unsigned char)v;
	}
	return 0;
}

/* --first DIR SIZE SIGHEX READY: one verify in a new process, after sodium_init when
 * READY is 1; prints us=. */
static int first_child(const char *dir, size_t size, const char *sighex, int ready)
{
	struct rj_sig_trust t = { 0 };
	struct rj_sig_subject e;
	rj_key key, pkey;
	unsigned char sig[RJ_SIG_BYTES], *code;
	enum rj_sig_status st;
	int64_t t0;
	double us;

	trust_of(&t, dir);
	code = make_code(size);
	subject_of(&e, &key, &pkey, code, size);
	if (strlen(sighex) != 2 * RJ_SIG_BYTES || hex_of(sig, RJ_SIG_BYTES, sighex) != 0)
		bench_die("a signature is %d hex digits", 2 * RJ_SIG_BYTES);
	if (ready && sodium_init() < 0)
		bench_die("sodium_init failed");
	t0 = bench_now_ns();
	st = rj_sig_verify(&t, &e, "bench", sig, RJ_SIG_BYTES);
	us = bench_ms_since(t0) * 1000;
	if (st != RJ_SIG_TRUSTED)
		bench_die("the first verify: %s", rj_sig_status_name(st));
	printf("us=%.3f\n", us);
	rj_sig_trust_free(&t);
	free(code);
	return 0;
}

static void report(const char *what, size_t size, double *us, int n)
{
	double med = bench_median(us, n); /* sorts */

	printf("%-11s %8zu B  n=%-5d min %9.3f  p25 %9.3f  median %9.3f  p75 %9.3f us\n", what,
	       size, n, us[0], us[(n - 1) / 4], med, us[3 * (n - 1) / 4]);
}

static void one_size(const char *dir, const struct rj_sig_secret *s,
		     const struct rj_sig_trust *t, size_t size, int n, int nfirst)
{
	unsigned char *code = make_code(size), sig[RJ_SIG_BYTES], hash[32];
	unsigned char msg[512], pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	unsigned char msig[crypto_sign_BYTES];
	size_t mlen;
	double *us = bench_calloc((size_t)(n > nfirst ? n : nfirst), sizeof *us);
	struct rj_sig_subject e;
	rj_key key, pkey;
	char sighex[2 * RJ_SIG_BYTES + 1], sizes[32];
	int64_t t0;

	subject_of(&e, &key, &pkey, code, size);
	rj_sig_sign(s, &e, sig);
	for (int i = 0; i < RJ_SIG_BYTES; i++)
		snprintf(sighex + 2 * i, 3, "%02x", sig[i]);
	for (int i = 0; i < n; i++) {
		t0 = bench_now_ns();
		enum rj_sig_status st = rj_sig_verify(t, &e, "bench", sig, RJ_SIG_BYTES);
		us[i] = bench_ms_since(t0) * 1000;
		if (st != RJ_SIG_TRUSTED)
			bench_die("verify: %s", rj_sig_status_name(st));
	}
	report("verify", size, us, n);
	for (int i = 0; i < n; i++) {
		t0 = bench_now_ns();
		crypto_generichash(hash, sizeof hash, code, size, NULL, 0);
		us[i] = bench_ms_since(t0) * 1000;
	}
	report("blake2b", size, us, n);
	/* The signed message: domain (20), two keys (32), three u32-prefixed strings, hash. */
	mlen = 20 + 32 + 12 + strlen("amd") + strlen(TARGET) + strlen(COMPILER) + 32;
	randombytes_buf(msg, mlen);
	crypto_sign_keypair(pk, sk);
	crypto_sign_detached(msig, NULL, msg, mlen, sk);
	for (int i = 0; i < n; i++) {
		t0 = bench_now_ns();
		int bad = crypto_sign_verify_detached(msig, msg, mlen, pk);
		us[i] = bench_ms_since(t0) * 1000;
		if (bad)
			bench_die("crypto_sign_verify_detached failed");
	}
	report("ed25519", mlen, us, n);
	snprintf(sizes, sizeof sizes, "%zu", size);
	for (int ready = 0; ready < 2 && nfirst; ready++) {
		for (int i = 0; i < nfirst; i++) {
			const char *argv[] = { bench_prog, "--first", dir, sizes, sighex,
					       ready ? "1" : "0", NULL };
			char t0s[32], out[256];
			if (bench_run_self(argv, t0s, sizeof t0s, out, sizeof out) != 0)
				bench_die("a child failed");
			us[i] = bench_field(out, "us");
		}
		report(ready ? "first-ready" : "first", size, us, nfirst);
	}
	sodium_memzero(sk, sizeof sk);
	free(us);
	free(code);
}

int main(int argc, char **argv)
{
	struct rj_sig_secret s;
	struct rj_sig_trust t = { 0 };
	size_t sizes[16] = { 16384, 1887437 };
	int nsizes = 2, n = 0, nfirst = 30, a = 1;
	char path[4200];
	const char *dir;

	if (argc == 6 && !strcmp(argv[1], "--first"))
		return first_child(argv[2], (size_t)strtoull(argv[3], NULL, 10), argv[4],
				   !strcmp(argv[5], "1"));
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--first") && a + 1 < argc)
			nfirst = atoi(argv[++a]);
		else
			bench_die("usage: bench_sign [-n N] [--first K] [SIZE...]");
	}
	if (a < argc)
		nsizes = 0;
	for (; a < argc && nsizes < 16; a++) {
		char *end;
		sizes[nsizes] = (size_t)strtoull(argv[a], &end, 10);
		if (*end || sizes[nsizes] == 0)
			bench_die("a size is a number of bytes, not %s", argv[a]);
		nsizes++;
	}
	if (n < 0 || n > 1000000 || nfirst < 0 || nfirst > 10000)
		bench_die("usage: bench_sign [-n N] [--first K] [SIZE...]");
	dir = bench_scratch("rocjit-bench-sign");
	if (rj_sig_keygen("bench", dir, NULL, 0) != 0)
		bench_die("keygen: %s", rocjit_last_error());
	snprintf(path, sizeof path, "%s/bench.secret", dir);
	if (rj_sig_secret_load(&s, path) != 0)
		bench_die("secret: %s", rocjit_last_error());
	trust_of(&t, dir);
	printf("# libsodium %s; rj_sig_verify = BLAKE2b-256 of the code + ed25519 over the "
	       "message; first = a new process's first verify (first-ready: libsodium initialized before it)\n", sodium_version_string());
	for (int i = 0; i < nsizes; i++)
		one_size(dir, &s, &t, sizes[i], n ? n : sizes[i] < 262144 ? 2000 : 200, nfirst);
	rj_sig_secret_wipe(&s);
	rj_sig_trust_free(&t);
	return 0;
}
