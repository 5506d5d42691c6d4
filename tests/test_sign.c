/*
 * test_sign.c - signed entries (src/sign/sign.c, issue 16): key files are made with the
 * right modes and never overwritten, a secret key is loaded only from a private, intact
 * file, a signature holds for exactly the subject it was made over, and the trust list
 * decides which signer counts (merging duplicates, refusing ambiguity, rotating keys).
 *
 * Real libsodium, real files in the test's folder.  Keys are made fresh by each test.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "sign/sign.h"
#include "harness.h"

/* 32 random bytes in base64: a public key no test holds the secret of. */
#define OTHER_B64 "QU8msHATmVEVAOQH+3acfmjUjjaVgX8NjIFoOXxmb2k="

/* The folder rj_test_dir/sub (made when missing) into out. */
static const char *folder(const char *sub, char out[4200])
{
	snprintf(out, 4200, "%s/%s", rj_test_dir, sub);
	if (mkdir(out, 0700) != 0 && errno != EEXIST)
		rj_test_fail(__FILE__, __LINE__, "mkdir %s: %s", out, strerror(errno));
	return out;
}

/* Makes key name in rj_test_dir/sub and loads its secret into *s; line gets the public
 * line. */
static void make_key(const char *sub, const char *name, struct rj_sig_secret *s,
		     char line[RJ_SIG_PUBLIC_LINE_SIZE])
{
	char dir[4200], path[4400];

	ASSERT_INT(rj_sig_keygen(name, folder(sub, dir), line, RJ_SIG_PUBLIC_LINE_SIZE), 0);
	snprintf(path, sizeof path, "%s/%s.secret", dir, name);
	ASSERT_INT(rj_sig_secret_load(s, path), 0);
	ASSERT_STR(s->name, name);
}

static const rj_key the_key = { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } };
static const rj_key the_pkey = { { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
				   0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf } };
static const unsigned char the_code[] = "\x7f" "ELF a code object, more or less";

static const char the_kernels[] = "_Z5scaleIfEvPT_S0_,_Z4wipeIfEvPT_\nscale<float>\t"
				   "_Z5scaleIfEvPT_S0_";

/* The subject every test signs: a full key, a portable key, a kernels column with a name
 * expression, a compile time, the description of "-O3", "scale.hip", "a.h b.h" and a
 * small code object. */
static struct rj_sig_subject subject(void)
{
	struct rj_sig_subject e;
	unsigned char d[RJ_SIG_DIGEST_BYTES];

	rj_sig_describe_text(d, "-O3", "scale.hip", "a.h b.h");
	rj_sig_subject_make(&e, &the_key, &the_pkey, "amd", "gfx90a:sramecc+:xnack-",
			    "hiprtc 6.2.41133", the_kernels, strlen(the_kernels), 312.5, d,
			    the_code, sizeof the_code);
	return e;
}

/* The trust list spec, which must parse. */
static struct rj_sig_trust trust(const char *spec)
{
	struct rj_sig_trust t = { 0 };
	ASSERT_INT(rj_sig_trust_parse(&t, spec, "ROCJIT_TRUSTED_KEYS"), 0);
	return t;
}

/* Key name made in rj_test_dir/sub and loaded into *s: a trust list of that key alone, as
 * a consumer that trusts it holds. */
static struct rj_sig_trust trusted_key(const char *sub, const char *name,
				       struct rj_sig_secret *s)
{
	char line[RJ_SIG_PUBLIC_LINE_SIZE];

	make_key(sub, name, s, line);
	return trust(line);
}

/* The end of a test that signs: t freed, the secrets wiped (b may be NULL). */
static void forget(struct rj_sig_trust *t, struct rj_sig_secret *a, struct rj_sig_secret *b)
{
	rj_sig_trust_free(t);
	rj_sig_secret_wipe(a);
	if (b)
		rj_sig_secret_wipe(b);
}

/* spec must be refused with code, its message holding want; the set left empty. */
static void trust_refused(const char *spec, int code, const char *want)
{
	struct rj_sig_trust t = { 0 };

	ASSERT_INT(rj_sig_trust_parse(&t, spec, "ROCJIT_TRUSTED_KEYS"), code);
	ASSERT(t.keys == NULL && t.n == 0);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_TRUSTED_KEYS");
	ASSERT_CONTAINS(rocjit_last_error(), want);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ASSERT(stat(path, &st) == 0);
	return st.st_mode & 07777;
}

TEST(keygen_writes_secret_0600_and_public_0644)
{
	char line[RJ_SIG_PUBLIC_LINE_SIZE], dir[4200], sec[4400], pub[4400], want[256];
	char *text;
	size_t size;

	umask(0);   /* the modes are the call's, whatever the umask */
	ASSERT_INT(rj_sig_keygen("build-farm.example.org-1", folder("keys", dir), line,
				 sizeof line), 0);
	snprintf(sec, sizeof sec, "%s/build-farm.example.org-1.secret", dir);
	snprintf(pub, sizeof pub, "%s/build-farm.example.org-1.pub", dir);
	ASSERT_INT(mode_of(sec), 0600);
	ASSERT_INT(mode_of(pub), 0644);
	/* The public file is the line and a newline. */
	snprintf(want, sizeof want, "%s\n", line);
	text = rj_test_read_file(pub, NULL);
	ASSERT_STR(text, want);
	free(text);
	ASSERT_INT(strlen(line), strlen("build-farm.example.org-1:") + 44);
	ASSERT(strncmp(line, "build-farm.example.org-1:", 25) == 0);
	/* The secret file: one line, NAME: and 88 base64 characters (64 bytes). */
	text = rj_test_read_file(sec, &size);
	ASSERT_INT(size, strlen("build-farm.example.org-1:") + 88 + 1);
	ASSERT(strncmp(text, "build-farm.example.org-1:", 25) == 0);
	ASSERT(text[size - 1] == '\n' && !memchr(text, '\n', size - 1));
	free(text);
}

/* The file path still holds text. */
static void still_holds(const char *path, const char *text)
{
	char *now = rj_test_read_file(path, NULL);

	ASSERT_STR(now, text);
	free(now);
}

TEST(keygen_refuses_to_overwrite_either_file)
{
	char line[RJ_SIG_PUBLIC_LINE_SIZE], dir[4200], sec[4400], pub[4400];
	char *before_sec, *before_pub;

	ASSERT_INT(rj_sig_keygen("alpha", folder("keys", dir), line, sizeof line), 0);
	snprintf(sec, sizeof sec, "%s/alpha.secret", dir);
	snprintf(pub, sizeof pub, "%s/alpha.pub", dir);
	before_sec = rj_test_read_file(sec, NULL);
	before_pub = rj_test_read_file(pub, NULL);
	ASSERT_INT(rj_sig_keygen("alpha", dir, line, sizeof line), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), sec);
	ASSERT_CONTAINS(rocjit_last_error(), "exists");
	ASSERT_CONTAINS(rocjit_last_error(), "remove it first or pick another name");
	still_holds(sec, before_sec);
	still_holds(pub, before_pub);

	/* Only the public file left: refused as well, and no secret file is left behind. */
	ASSERT(unlink(sec) == 0);
	ASSERT_INT(rj_sig_keygen("alpha", dir, line, sizeof line), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), pub);
	ASSERT_CONTAINS(rocjit_last_error(), "exists");
	ASSERT(access(sec, F_OK) != 0 && errno == ENOENT);
	still_holds(pub, before_pub);

	/* A symbolic link where the secret file would go is not followed. */
	ASSERT(unlink(pub) == 0);
	ASSERT(symlink("elsewhere.secret", sec) == 0);
	ASSERT_INT(rj_sig_keygen("alpha", dir, line, sizeof line), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), "symbolic link");
	snprintf(sec, sizeof sec, "%s/elsewhere.secret", dir);
	ASSERT(access(sec, F_OK) != 0);
	free(before_sec);
	free(before_pub);
}

TEST(keygen_refuses_bad_names_and_missing_folders)
{
	char line[RJ_SIG_PUBLIC_LINE_SIZE], dir[4200], path[4400];
	char long_name[RJ_SIG_NAME_MAX + 2];

	folder("keys", dir);
	ASSERT_INT(rj_sig_keygen("../escape", dir, line, sizeof line), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "A-Z a-z 0-9 . _ -");
	ASSERT_INT(rj_sig_keygen("", dir, line, sizeof line), ROCJIT_EINVAL);
	ASSERT_INT(rj_sig_keygen("a:b", dir, line, sizeof line), ROCJIT_EINVAL);
	/* A leading '.' would read as a path in a trust list. */
	ASSERT_INT(rj_sig_keygen(".hidden", dir, line, sizeof line), ROCJIT_EINVAL);
	ASSERT_INT(rj_sig_keygen("..", dir, line, sizeof line), ROCJIT_EINVAL);
	ASSERT_INT(rj_sig_keygen("a.b-c_D9", dir, line, sizeof line), 0);
	memset(long_name, 'k', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = 0;
	ASSERT_INT(rj_sig_keygen(long_name, dir, line, sizeof line), ROCJIT_EINVAL);
	long_name[RJ_SIG_NAME_MAX] = 0;   /* 64: the longest name */
	ASSERT_INT(rj_sig_keygen(long_name, dir, line, sizeof line), 0);
	/* Too small a buffer for the line: refused before any file is made. */
	ASSERT_INT(rj_sig_keygen("small", dir, line, 40), ROCJIT_EINVAL);
	snprintf(path, sizeof path, "%s/small.secret", dir);
	ASSERT(access(path, F_OK) != 0);
	/* No line wanted is fine. */
	ASSERT_INT(rj_sig_keygen("noline", dir, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/missing", rj_test_dir);
	ASSERT_INT(rj_sig_keygen("beta", path, line, sizeof line), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), path);
}

TEST(secret_load_round_trips_keygen)
{
	struct rj_sig_secret s;
	struct rj_sig_public p, parsed;
	char line[RJ_SIG_PUBLIC_LINE_SIZE], again[RJ_SIG_PUBLIC_LINE_SIZE];

	make_key("keys", "alpha", &s, line);
	ASSERT_INT(rj_sig_secret_public(&s, &p), 0);
	ASSERT_STR(p.name, "alpha");
	rj_sig_public_line(&p, again, sizeof again);
	ASSERT_STR(again, line);
	ASSERT_INT(rj_sig_public_parse(&parsed, line, strlen(line)), 0);
	ASSERT(memcmp(&parsed, &p, sizeof p) == 0);
	rj_sig_secret_wipe(&s);
	for (size_t i = 0; i < sizeof s.sk; i++)
		ASSERT(s.sk[i] == 0);
	ASSERT_INT(rj_sig_secret_public(&s, &p), ROCJIT_EINVAL);
	/* Too small a buffer gets "", never a cut key. */
	strcpy(again, "x");
	rj_sig_public_line(&parsed, again, RJ_SIG_PUBLIC_LINE_SIZE - 1);
	ASSERT_STR(again, "");
}

TEST(secret_open_to_others_is_refused)
{
	struct rj_sig_secret s;
	char line[RJ_SIG_PUBLIC_LINE_SIZE], dir[4200], path[4400], *text;

	make_key("keys", "alpha", &s, line);
	snprintf(path, sizeof path, "%s/alpha.secret", folder("keys", dir));
	text = rj_test_read_file(path, NULL);
	ASSERT(chmod(path, 0644) == 0);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), path);
	ASSERT_CONTAINS(rocjit_last_error(), "chmod 600");
	/* The message never holds key material, and the struct is wiped. */
	text[strlen("alpha:") + 16] = 0;
	ASSERT(strstr(rocjit_last_error(), text + strlen("alpha:")) == NULL);
	ASSERT_STR(s.name, "");
	ASSERT(chmod(path, 0640) == 0);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EIO);
	ASSERT(chmod(path, 0602) == 0);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EIO);
	ASSERT(chmod(path, 0400) == 0);   /* read-only for its owner: fine */
	ASSERT_INT(rj_sig_secret_load(&s, path), 0);
	rj_sig_secret_wipe(&s);
	free(text);
}

TEST(secret_that_is_no_regular_file_is_refused)
{
	struct rj_sig_secret s;
	char dir[4200], path[4400];

	/* A folder, and a FIFO (refused at once, not waited on). */
	ASSERT_INT(rj_sig_secret_load(&s, folder("keys", dir)), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), "folder");
	snprintf(path, sizeof path, "%s/fifo.secret", dir);
	ASSERT(mkfifo(path, 0600) == 0);
	alarm(20);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EIO);
	alarm(0);
	ASSERT_CONTAINS(rocjit_last_error(), "FIFO");
	snprintf(path, sizeof path, "%s/missing.secret", dir);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), path);
}

TEST(secret_with_foreign_public_half_is_refused)
{
	struct rj_sig_secret s;
	char line[RJ_SIG_PUBLIC_LINE_SIZE], dir[4200], path[4400], *text;
	size_t size, at = strlen("alpha:") + 70;   /* a base64 digit of bytes 52-53 */

	make_key("keys", "alpha", &s, line);
	snprintf(path, sizeof path, "%s/alpha.secret", folder("keys", dir));
	text = rj_test_read_file(path, &size);
	text[at] = text[at] == 'A' ? 'B' : 'A';
	ASSERT(unlink(path) == 0);
	rj_test_write_file(path, text, size);
	ASSERT(chmod(path, 0600) == 0);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "damaged");
	ASSERT_CONTAINS(rocjit_last_error(), path);
	{
		char head[17];
		memcpy(head, text + strlen("alpha:"), 16);
		head[16] = 0;
		ASSERT(strstr(rocjit_last_error(), head) == NULL);
	}

	/* Cut short, not base64, empty: each refused without quoting the file. */
	rj_test_write_file(path, text, size - 10);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "64-byte");
	text[at] = '!';
	rj_test_write_file(path, text, size);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "base64");
	ASSERT(strstr(rocjit_last_error(), "!") == NULL);
	rj_test_write_file(path, " \n", 2);
	ASSERT_INT(rj_sig_secret_load(&s, path), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "empty");
	free(text);
}

TEST(signed_subject_verifies_as_trusted)
{
	struct rj_sig_secret s;
	struct rj_sig_subject e = subject();
	struct rj_sig_trust t;
	unsigned char sig[RJ_SIG_BYTES], sig2[RJ_SIG_BYTES];

	t = trusted_key("keys", "alpha", &s);
	rj_sig_sign(&s, &e, sig);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, sizeof sig), RJ_SIG_TRUSTED);
	/* Deterministic. */
	rj_sig_sign(&s, &e, sig2);
	ASSERT(memcmp(sig, sig2, sizeof sig) == 0);
	/* No portable key reads as 16 zero bytes; empty strings and empty code are signable. */
	{
		static const rj_key zero;
		unsigned char none[RJ_SIG_DIGEST_BYTES] = { 0 };
		struct rj_sig_subject f;
		rj_sig_subject_make(&f, &the_key, NULL, "", "", "", NULL, 0, 0, none, NULL, 0);
		rj_sig_sign(&s, &f, sig);
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_TRUSTED);
		f.pkey = &zero;
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_TRUSTED);
	}
	forget(&t, &s, NULL);
}

TEST(tampering_any_signed_field_is_bad)
{
	struct rj_sig_secret s;
	struct rj_sig_subject e = subject(), f;
	struct rj_sig_trust t;
	unsigned char sig[RJ_SIG_BYTES], code[sizeof the_code];
	rj_key k;

	t = trusted_key("keys", "alpha", &s);
	rj_sig_sign(&s, &e, sig);

	memcpy(code, the_code, sizeof code);
	code[7] ^= 1;
	f = e, f.code = code;
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	f = e, f.code_size--;
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	k = the_key, k.b[15] ^= 0x80;
	f = e, f.key = &k;
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	k = the_pkey, k.b[0] ^= 1;
	f = e, f.pkey = &k;
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	f = e, f.pkey = NULL;
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	f = e, f.platform = "nvidia";
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	f = e, f.target = "gfx90a:sramecc+:xnack+";
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	f = e, f.compiler = "hiprtc 6.2.41134";
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	/* Bytes moved between fields: the lengths keep the fields apart. */
	f = e, f.platform = "amdgfx90a:sramecc+", f.target = ":xnack-";
	ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	/* Version 2 (issue 27): the kernels column, the compile time and the description. */
	{
		static const char wiped[] = "_Z5scaleIfEvPT_S0_,_Z4wipeIfEvPT_\nscale<float>\t"
					    "_Z4wipeIfEvPT_";
		f = e, f.kernels = wiped, f.kernels_len = strlen(wiped);
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		f = e, f.kernels_len--;
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		f = e, f.compile_ms = 312.50000000000006;
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		f = e, f.compile_ms = 0;
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		f = e;
		rj_sig_describe_text(f.described, "-O0", "scale.hip", "a.h b.h");
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		rj_sig_describe_text(f.described, "-O3", "wipe.hip", "a.h b.h");
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		rj_sig_describe_text(f.described, "-O3", "scale.hip", "a.h");
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		/* The description's fields are length-prefixed: no text slides into the next. */
		rj_sig_describe_text(f.described, "-O3scale.hip", "", "a.h b.h");
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_BAD);
		rj_sig_describe_text(f.described, "-O3", "scale.hip", "a.h b.h");
		ASSERT_INT(rj_sig_verify(&t, &f, "alpha", sig, sizeof sig), RJ_SIG_TRUSTED);
	}
	/* A flipped bit of the signature itself. */
	sig[10] ^= 4;
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	sig[10] ^= 4;
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, sizeof sig), RJ_SIG_TRUSTED);
	forget(&t, &s, NULL);
}

TEST(unknown_signer_is_untrusted_and_no_signature_is_unsigned)
{
	struct rj_sig_secret a, b;
	struct rj_sig_subject e = subject();
	struct rj_sig_trust t;
	unsigned char sig[RJ_SIG_BYTES];
	char line_b[RJ_SIG_PUBLIC_LINE_SIZE];

	t = trusted_key("keys", "alpha", &a);
	make_key("keys", "beta", &b, line_b);
	rj_sig_sign(&b, &e, sig);
	ASSERT_INT(rj_sig_verify(&t, &e, "beta", sig, sizeof sig), RJ_SIG_UNTRUSTED);
	/* No trust list at all: every signer is unknown. */
	ASSERT_INT(rj_sig_verify(NULL, &e, "beta", sig, sizeof sig), RJ_SIG_UNTRUSTED);
	ASSERT_INT(rj_sig_verify(&t, &e, NULL, NULL, 0), RJ_SIG_UNSIGNED);
	ASSERT_INT(rj_sig_verify(&t, &e, "", sig, 0), RJ_SIG_UNSIGNED);
	forget(&t, &a, &b);
}

TEST(another_key_under_a_trusted_name_is_bad)
{
	struct rj_sig_secret real, impostor;
	struct rj_sig_subject e = subject();
	struct rj_sig_trust t;
	unsigned char sig[RJ_SIG_BYTES];
	char line[RJ_SIG_PUBLIC_LINE_SIZE], other[RJ_SIG_PUBLIC_LINE_SIZE];

	make_key("real", "alpha", &real, line);
	make_key("impostor", "alpha", &impostor, other);
	ASSERT(strcmp(line, other) != 0);
	t = trust(line);
	rj_sig_sign(&impostor, &e, sig);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	forget(&t, &real, &impostor);
}

TEST(malformed_signature_or_signer_is_bad)
{
	struct rj_sig_secret s;
	struct rj_sig_subject e = subject();
	struct rj_sig_trust t;
	unsigned char sig[RJ_SIG_BYTES + 1];
	char long_name[RJ_SIG_NAME_MAX + 2];
	char *big;

	t = trusted_key("keys", "alpha", &s);
	rj_sig_sign(&s, &e, sig);
	sig[RJ_SIG_BYTES] = 0;
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, RJ_SIG_BYTES - 1), RJ_SIG_BAD);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, RJ_SIG_BYTES + 1), RJ_SIG_BAD);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, 0), RJ_SIG_BAD);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", NULL, RJ_SIG_BYTES), RJ_SIG_BAD);
	/* Signers no key can be named: malformed, even when unknown. */
	ASSERT_INT(rj_sig_verify(&t, &e, "", sig, RJ_SIG_BYTES), RJ_SIG_BAD);
	ASSERT_INT(rj_sig_verify(&t, &e, "al pha", sig, RJ_SIG_BYTES), RJ_SIG_BAD);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha\n", sig, RJ_SIG_BYTES), RJ_SIG_BAD);
	memset(long_name, 'a', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = 0;
	ASSERT_INT(rj_sig_verify(&t, &e, long_name, sig, RJ_SIG_BYTES), RJ_SIG_BAD);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, RJ_SIG_BYTES), RJ_SIG_TRUSTED);

	/* A string no signature covers: signed as zeros, verified as bad; at the limit, fine. */
	big = malloc(RJ_SIG_TEXT_MAX + 2);
	ASSERT(big);
	memset(big, 'c', RJ_SIG_TEXT_MAX + 1);
	big[RJ_SIG_TEXT_MAX + 1] = 0;
	e.compiler = big;
	rj_sig_sign(&s, &e, sig);
	for (int i = 0; i < RJ_SIG_BYTES; i++)
		ASSERT(sig[i] == 0);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, RJ_SIG_BYTES), RJ_SIG_BAD);
	big[RJ_SIG_TEXT_MAX] = 0;
	rj_sig_sign(&s, &e, sig);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, RJ_SIG_BYTES), RJ_SIG_TRUSTED);
	free(big);
	forget(&t, &s, NULL);
}

TEST(public_key_parse_trims_and_refuses_saying_why)
{
	struct rj_sig_public p;
	static const char ok[] = "  cache-1:" OTHER_B64 "\n";
	char long_text[300];

	ASSERT_INT(rj_sig_public_parse(&p, ok, strlen(ok)), 0);
	ASSERT_STR(p.name, "cache-1");
	/* Only len bytes are read: the text need not end in a NUL. */
	ASSERT_INT(rj_sig_public_parse(&p, "cache-1:" OTHER_B64 "garbage", 8 + 44), 0);
	ASSERT_INT(rj_sig_public_parse(&p, "cache-1" OTHER_B64, 7 + 44), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "no ':'");
	ASSERT_STR(p.name, "");
	ASSERT_INT(rj_sig_public_parse(&p, "cache 1:" OTHER_B64, 8 + 44), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "name");
	ASSERT_INT(rj_sig_public_parse(&p, "cache-1:", 8), ROCJIT_EINVAL);
	ASSERT_INT(rj_sig_public_parse(&p, "", 0), ROCJIT_EINVAL);
	ASSERT_INT(rj_sig_public_parse(&p, "c:AAAA", 6), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "32-byte");
	/* A 64-byte secret key given as a public one. */
	memset(long_text, 0, sizeof long_text);
	memcpy(long_text, "c:", 2);
	memset(long_text + 2, 'Q', 86);
	memcpy(long_text + 88, "==", 2);
	ASSERT_INT(rj_sig_public_parse(&p, long_text, strlen(long_text)), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "32-byte");
	/* A long text is quoted cut short. */
	memset(long_text, 'x', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = 0;
	ASSERT_INT(rj_sig_public_parse(&p, long_text, strlen(long_text)), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "xxx...\"");
	ASSERT(strlen(rocjit_last_error()) < 250);
}

TEST(trust_list_of_two_keys)
{
	struct rj_sig_secret a, b;
	char la[RJ_SIG_PUBLIC_LINE_SIZE], lb[RJ_SIG_PUBLIC_LINE_SIZE], spec[600];
	struct rj_sig_trust t;

	make_key("keys", "alpha", &a, la);
	make_key("keys", "beta", &b, lb);
	snprintf(spec, sizeof spec, "%s,%s", la, lb);
	t = trust(spec);
	ASSERT_INT(t.n, 2);
	ASSERT(rj_sig_trust_find(&t, "alpha") && rj_sig_trust_find(&t, "beta"));
	ASSERT(!rj_sig_trust_find(&t, "gamma") && !rj_sig_trust_find(&t, "alph"));
	ASSERT(!rj_sig_trust_find(NULL, "alpha") && !rj_sig_trust_find(&t, NULL));
	ASSERT(memcmp(rj_sig_trust_find(&t, "beta")->pk, b.sk + 32, 32) == 0);
	rj_sig_trust_free(&t);
	ASSERT(t.keys == NULL && t.n == 0);
	/* Whitespace and newlines separate too, and empty items are nothing. */
	snprintf(spec, sizeof spec, " ,\n%s \t\n ,, %s\n", la, lb);
	t = trust(spec);
	ASSERT_INT(t.n, 2);
	rj_sig_trust_free(&t);
	t = trust("");
	ASSERT_INT(t.n, 0);
	t = trust(" , \n");
	ASSERT_INT(t.n, 0);
	ASSERT_INT(rj_sig_trust_parse(&t, NULL, "ROCJIT_TRUSTED_KEYS"), 0);
	ASSERT_INT(t.n, 0);
	rj_sig_trust_free(&t);
	rj_sig_trust_free(NULL);
	rj_sig_secret_wipe(&a);
	rj_sig_secret_wipe(&b);
}

TEST(trust_file_with_comments)
{
	struct rj_sig_secret a, b, c;
	char la[RJ_SIG_PUBLIC_LINE_SIZE], lb[RJ_SIG_PUBLIC_LINE_SIZE];
	char lc[RJ_SIG_PUBLIC_LINE_SIZE], text[4700], path[4400], spec[4600];
	struct rj_sig_trust t;

	make_key("keys", "alpha", &a, la);
	make_key("keys", "beta", &b, lb);
	make_key("keys", "gamma", &c, lc);
	snprintf(text, sizeof text, "# the build farm's keys\n\n%s\n   # rotated in May\n  %s  \r\n",
		 la, lb);
	snprintf(path, sizeof path, "%s/trusted-keys", rj_test_dir);
	rj_test_write_file(path, text, strlen(text));
	ASSERT(chmod(path, 0644) == 0);
	snprintf(spec, sizeof spec, "%s,%s", lc, path);
	t = trust(spec);
	ASSERT_INT(t.n, 3);
	ASSERT(rj_sig_trust_find(&t, "alpha") && rj_sig_trust_find(&t, "beta") &&
	       rj_sig_trust_find(&t, "gamma"));
	rj_sig_trust_free(&t);

	/* A relative path starting with '.'. */
	ASSERT(chdir(rj_test_dir) == 0);
	t = trust("./trusted-keys");
	ASSERT_INT(t.n, 2);
	rj_sig_trust_free(&t);

	/* A bad line is named by its number; files do not name other files. */
	snprintf(text, sizeof text, "%s\n# fine\nalpha:not-base64\n", lb);
	rj_test_write_file(path, text, strlen(text));
	trust_refused(spec, ROCJIT_EINVAL, "trusted-keys line 3");
	snprintf(text, sizeof text, "%s\n%s\n", la, path);
	rj_test_write_file(path, text, strlen(text));
	trust_refused(spec, ROCJIT_EINVAL, "not other files");

	/* Missing, anyone may write it, or a folder: refused. */
	snprintf(spec, sizeof spec, "%s/no-such-file", rj_test_dir);
	trust_refused(spec, ROCJIT_EIO, "no-such-file");
	snprintf(text, sizeof text, "%s\n", la);
	rj_test_write_file(path, text, strlen(text));
	ASSERT(chmod(path, 0666) == 0);
	trust_refused(path, ROCJIT_EIO, "chmod go-w");
	trust_refused(rj_test_dir, ROCJIT_EIO, "folder");
	rj_sig_secret_wipe(&a);
	rj_sig_secret_wipe(&b);
	rj_sig_secret_wipe(&c);
}

TEST(trust_duplicate_key_is_merged)
{
	struct rj_sig_secret a;
	char la[RJ_SIG_PUBLIC_LINE_SIZE], spec[9200], path[4400];
	struct rj_sig_trust t;

	make_key("keys", "alpha", &a, la);
	snprintf(spec, sizeof spec, "%s,%s\n%s", la, la, la);
	t = trust(spec);
	ASSERT_INT(t.n, 1);
	rj_sig_trust_free(&t);
	/* Once in the list and once in a file: one key. */
	snprintf(path, sizeof path, "%s/keys.txt", rj_test_dir);
	snprintf(spec, sizeof spec, "%s\n", la);
	rj_test_write_file(path, spec, strlen(spec));
	snprintf(spec, sizeof spec, "%s,%s,%s", path, la, path);
	t = trust(spec);
	ASSERT_INT(t.n, 1);
	rj_sig_trust_free(&t);
	rj_sig_secret_wipe(&a);
}

TEST(trust_conflicting_duplicate_is_refused)
{
	struct rj_sig_secret a;
	char la[RJ_SIG_PUBLIC_LINE_SIZE], spec[1000];

	make_key("keys", "alpha", &a, la);
	snprintf(spec, sizeof spec, "%s,alpha:" OTHER_B64, la);
	trust_refused(spec, ROCJIT_EINVAL, "ambiguous");
	ASSERT_CONTAINS(rocjit_last_error(), "\"alpha\"");
	/* The same bytes under two names is two keys, and fine. */
	snprintf(spec, sizeof spec, "%s,beta:%s", la, la + strlen("alpha:"));
	{
		struct rj_sig_trust t = trust(spec);
		ASSERT_INT(t.n, 2);
		rj_sig_trust_free(&t);
	}
	rj_sig_secret_wipe(&a);
}

TEST(trust_malformed_base64_is_refused)
{
	/* 44 characters, but not base64; the right alphabet but too short; padding wrong. */
	trust_refused("alpha:!!!!sHATmVEVAOQH+3acfmjUjjaVgX8NjIFoOXxmb2k=", ROCJIT_EINVAL,
		      "not valid base64");
	trust_refused("alpha:QU8msHATmVEVAOQH+3acfmjUjjaVgX8NjIFoOXxmb2k", ROCJIT_EINVAL,
		      "32-byte");
	trust_refused("alpha:QU8msHATmVEVAOQH+3acfmjUjjaVgX8NjIFoOXxmb2==", ROCJIT_EINVAL,
		      "base64");
	trust_refused("beta:" OTHER_B64 ",alpha:", ROCJIT_EINVAL, "\"alpha:\"");
	trust_refused("alpha" OTHER_B64, ROCJIT_EINVAL, "no ':'");
}

TEST(trust_bad_name_is_refused)
{
	char spec[200];

	trust_refused(":" OTHER_B64, ROCJIT_EINVAL, "A-Z a-z 0-9 . _ -");
	trust_refused("build/farm:" OTHER_B64, ROCJIT_EINVAL, "A-Z a-z 0-9 . _ -");
	/* Starting with '.', an item is a path (here of no file). */
	trust_refused(".farm:" OTHER_B64, ROCJIT_EIO, "the trust file .farm:");
	trust_refused("caf\xc3\xa9:" OTHER_B64, ROCJIT_EINVAL, "caf??");
	memset(spec, 'n', 65);
	strcpy(spec + 65, ":" OTHER_B64);
	trust_refused(spec, ROCJIT_EINVAL, "not valid");
	/* 64 characters is a name. */
	memmove(spec + 64, spec + 65, strlen(spec + 65) + 1);
	{
		struct rj_sig_trust t = trust(spec);
		ASSERT_INT(t.n, 1);
		rj_sig_trust_free(&t);
	}
}

TEST(rotation_removing_a_key_untrusts_its_entries)
{
	struct rj_sig_secret a, b;
	struct rj_sig_subject e = subject(), f = subject();
	struct rj_sig_trust both, only_b, only_a;
	unsigned char sig_a[RJ_SIG_BYTES], sig_b[RJ_SIG_BYTES];
	char la[RJ_SIG_PUBLIC_LINE_SIZE], lb[RJ_SIG_PUBLIC_LINE_SIZE], spec[600];
	static const rj_key other = { { 42 } };

	make_key("keys", "farm-2024", &a, la);
	make_key("keys", "farm-2025", &b, lb);
	f.key = &other;
	rj_sig_sign(&a, &e, sig_a);
	rj_sig_sign(&b, &f, sig_b);
	/* During the change-over both are trusted. */
	snprintf(spec, sizeof spec, "%s,%s", la, lb);
	both = trust(spec);
	ASSERT_INT(rj_sig_verify(&both, &e, "farm-2024", sig_a, RJ_SIG_BYTES), RJ_SIG_TRUSTED);
	ASSERT_INT(rj_sig_verify(&both, &f, "farm-2025", sig_b, RJ_SIG_BYTES), RJ_SIG_TRUSTED);
	/* Each signature still belongs to its own entry only. */
	ASSERT_INT(rj_sig_verify(&both, &f, "farm-2024", sig_a, RJ_SIG_BYTES), RJ_SIG_BAD);
	/* One key removed: its entries are untrusted, the other's still trusted. */
	only_a = trust(la);
	ASSERT_INT(rj_sig_verify(&only_a, &e, "farm-2024", sig_a, RJ_SIG_BYTES), RJ_SIG_TRUSTED);
	ASSERT_INT(rj_sig_verify(&only_a, &f, "farm-2025", sig_b, RJ_SIG_BYTES),
		   RJ_SIG_UNTRUSTED);
	only_b = trust(lb);
	ASSERT_INT(rj_sig_verify(&only_b, &e, "farm-2024", sig_a, RJ_SIG_BYTES),
		   RJ_SIG_UNTRUSTED);
	ASSERT_INT(rj_sig_verify(&only_b, &f, "farm-2025", sig_b, RJ_SIG_BYTES), RJ_SIG_TRUSTED);
	rj_sig_trust_free(&both);
	rj_sig_trust_free(&only_a);
	rj_sig_trust_free(&only_b);
	rj_sig_secret_wipe(&a);
	rj_sig_secret_wipe(&b);
}

/* ---- Threads: signing and verifying share nothing but the (read-only) keys. ---------- */

static struct rj_sig_secret shared_secret;
static struct rj_sig_trust shared_trust;

static void *sign_and_verify(void *arg)
{
	struct rj_sig_subject e = subject();
	unsigned char sig[RJ_SIG_BYTES];
	rj_key k = the_key;
	long bad = 0;

	k.b[0] = (uint8_t)(uintptr_t)arg;
	e.key = &k;
	for (int i = 0; i < 200; i++) {
		k.b[1] = (uint8_t)i;
		rj_sig_sign(&shared_secret, &e, sig);
		bad += rj_sig_verify(&shared_trust, &e, "alpha", sig, sizeof sig) != RJ_SIG_TRUSTED;
	}
	return (void *)bad;
}

TEST(threads_sign_and_verify_at_once)
{
	pthread_t th[8];

	shared_trust = trusted_key("keys", "alpha", &shared_secret);
	for (uintptr_t i = 0; i < 8; i++)
		ASSERT(pthread_create(&th[i], NULL, sign_and_verify, (void *)i) == 0);
	for (int i = 0; i < 8; i++) {
		void *bad;
		ASSERT(pthread_join(th[i], &bad) == 0);
		ASSERT_INT((long)bad, 0);
	}
	forget(&shared_trust, &shared_secret, NULL);
}

TEST(status_names)
{
	ASSERT_STR(rj_sig_status_name(RJ_SIG_UNSIGNED), "unsigned");
	ASSERT_STR(rj_sig_status_name(RJ_SIG_TRUSTED), "trusted");
	ASSERT_STR(rj_sig_status_name(RJ_SIG_UNTRUSTED), "untrusted");
	ASSERT_STR(rj_sig_status_name(RJ_SIG_BAD), "bad");
	ASSERT_STR(rj_sig_status_name((enum rj_sig_status)9), "unknown");
}

/* Issue 27: the trusted-keys file and the secret key file take the one trust rule
 * (base/trust.h).  A file another user owns is refused even when its mode is right: its
 * owner could swap the keys in it.  Needs root to give a file away (skips otherwise). */
TEST(key_files_owned_by_another_user_are_refused)
{
	struct rj_sig_secret s;
	char line[RJ_SIG_PUBLIC_LINE_SIZE], dir[4200], secret[4400], list[4400], text[200];

	if (geteuid() != 0)
		rj_test_skip("giving a file to another user needs root");
	make_key("owned", "alpha", &s, line);
	snprintf(secret, sizeof secret, "%s/alpha.secret", folder("owned", dir));
	snprintf(list, sizeof list, "%s/trusted", dir);
	snprintf(text, sizeof text, "%s\n", line);
	rj_test_write_file(list, text, strlen(text));
	ASSERT(chmod(list, 0644) == 0);
	{	/* Both are used while this user owns them. */
		struct rj_sig_trust t = trust(list);
		ASSERT_INT(t.n, 1);
		rj_sig_trust_free(&t);
	}
	ASSERT_INT(rj_sig_secret_load(&s, secret), 0);

	/* Group-writable: refused now (others-writable alone was before). */
	ASSERT(chmod(list, 0664) == 0);
	trust_refused(list, ROCJIT_EIO, "chmod go-w");
	ASSERT(chmod(list, 0644) == 0);

	/* Owned by nobody (65534), mode unchanged: refused, the owner named. */
	ASSERT(chown(list, 65534, 65534) == 0);
	trust_refused(list, ROCJIT_EIO, "owned by user 65534");
	ASSERT(chown(secret, 65534, 65534) == 0);
	ASSERT_INT(rj_sig_secret_load(&s, secret), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), "owned by user 65534");
	ASSERT_CONTAINS(rocjit_last_error(), secret);
	ASSERT_STR(s.name, "");
	rj_sig_secret_wipe(&s);
}

/* Issue 27: a version 1 signature (the old domain, over key, portable key, platform,
 * target, compiler and code alone) made by a trusted key no longer holds: it never
 * covered the kernels column, so it cannot vouch for one.  The v1 message is built here
 * byte for byte as sign.c built it, and signed with the key's own secret. */
TEST(version_1_signature_reads_bad)
{
	struct rj_sig_secret s;
	struct rj_sig_subject e = subject();
	struct rj_sig_trust t = trusted_key("keys", "alpha", &s);
	unsigned char msg[512], sig[RJ_SIG_BYTES], *p = msg;
	const char *text[3] = { e.platform, e.target, e.compiler };

	memcpy(p, "rocjit signature v1", 20);
	p += 20;
	memcpy(p, e.key->b, 16);
	p += 16;
	memcpy(p, e.pkey->b, 16);
	p += 16;
	for (int i = 0; i < 3; i++) {
		uint32_t n = (uint32_t)strlen(text[i]);
		for (int b = 0; b < 4; b++)
			*p++ = (unsigned char)(n >> (8 * b));
		memcpy(p, text[i], n);
		p += n;
	}
	crypto_generichash(p, 32, e.code, e.code_size, NULL, 0);
	p += 32;
	crypto_sign_detached(sig, NULL, msg, (size_t)(p - msg), s.sk);
	/* The key is right: the same message checks with libsodium itself. */
	ASSERT_INT(crypto_sign_verify_detached(sig, msg, (size_t)(p - msg), t.keys[0].pk), 0);
	ASSERT_INT(rj_sig_verify(&t, &e, "alpha", sig, sizeof sig), RJ_SIG_BAD);
	forget(&t, &s, NULL);
}
