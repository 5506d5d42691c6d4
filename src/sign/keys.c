/*
 * keys.c - the keys of signed code (sign.h; issues 16 and 27): the NAME:BASE64 syntax,
 * the key files' creation and the checks on reading them (the one trust rule,
 * base/trust.h), and the trust list's merge rules.  What is signed, and the signing
 * itself, are sign.c's.
 *
 * Knows nothing of where a trust list comes from: the callers hand over a path or a
 * spec.  Secret bytes live only in caller-owned rj_sig_secret structs and in stack
 * buffers here that are wiped (sodium_memzero) on every way out; no message quotes a
 * secret file.  libsodium is initialized here, once (pthread_once), for both files of
 * src/sign: sign.c uses this file, never the other way.
 */
#include "sign/sign.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsutil.h"
#include "base/trust.h"
#include "rocjit.h"

#define B64 sodium_base64_VARIANT_ORIGINAL
#define PUBLIC_B64_SIZE sodium_base64_ENCODED_LEN(RJ_SIG_PUBLIC_BYTES, B64)  /* with NUL */
#define SECRET_B64_SIZE sodium_base64_ENCODED_LEN(64, B64)
/* A file's line: name, ':', base64, newline, NUL. */
#define SECRET_LINE_SIZE (RJ_SIG_NAME_MAX + 1 + SECRET_B64_SIZE + 1)
#define PUBLIC_LINE_SIZE (RJ_SIG_NAME_MAX + 1 + PUBLIC_B64_SIZE + 1)

#define NAME_RULE "a key name is 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'"
#define QUOTE_MAX 80

_Static_assert(RJ_SIG_PUBLIC_LINE_SIZE == RJ_SIG_NAME_MAX + 1 + PUBLIC_B64_SIZE,
	       "RJ_SIG_PUBLIC_LINE_SIZE holds a name, ':', the base64 and a NUL");
_Static_assert(crypto_sign_PUBLICKEYBYTES == RJ_SIG_PUBLIC_BYTES, "a public key is 32 bytes");
_Static_assert(crypto_sign_SECRETKEYBYTES == sizeof(((struct rj_sig_secret *)0)->sk),
	       "libsodium's secret key is 64 bytes");

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_ready;   /* written once under sodium_once, read after it */

static void init_sodium(void)
{
	sodium_ready = sodium_init() >= 0;
}

int rj_sig_sodium(void)
{
	pthread_once(&sodium_once, init_sodium);
	return sodium_ready;
}

/* ---- Names and the NAME:BASE64 syntax ---------------------------------------------------- */

/* A leading '.' is refused: in a trust list an item starting with '.' is a file's path,
 * and no key file should be hidden (".x.secret") or be named "." or "..". */
int rj_sig_name_valid(const char *name, size_t len)
{
	if (!name || len < 1 || len > RJ_SIG_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		if (!ok)
			return 0;
	}
	return 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

/* text[n] as a message shows it: at most QUOTE_MAX characters, anything that does not
 * print as '?', "..." when cut.  out holds QUOTE_MAX + 4 bytes. */
static const char *quote(const char *text, size_t n, char out[QUOTE_MAX + 4])
{
	size_t k = n > QUOTE_MAX ? QUOTE_MAX : n;

	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)text[i];
		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (k < n)
		memcpy(out + k, "...", 3), k += 3;
	out[k] = 0;
	return out;
}

/*
 * Parses NAME:BASE64 (already trimmed) whose base64 must decode to exactly want bytes
 * (at most 64) into name and bin.  0, or -1 with *why saying what is wrong in words that
 * quote nothing of the text (the caller decides whether the text may be shown: a secret
 * key file's may not).  bin may hold decoded bytes on failure: the caller wipes it.
 */
static int parse_key_text(const char *s, size_t n, char name[RJ_SIG_NAME_MAX + 1],
			  unsigned char *bin, size_t want, const char **why)
{
	const char *colon = memchr(s, ':', n);
	unsigned char buf[64];
	size_t name_len, b64_len, got = 0;
	const char *b64;
	int rc;

	if (!colon) {
		*why = "no ':' between the key's name and its base64 (a key is NAME:BASE64)";
		return -1;
	}
	name_len = (size_t)(colon - s);
	b64 = colon + 1;
	b64_len = n - name_len - 1;
	if (!rj_sig_name_valid(s, name_len)) {
		*why = "the name before ':' is not valid: " NAME_RULE;
		return -1;
	}
	if (b64_len == 0) {
		*why = "nothing follows the ':' (a key is NAME:BASE64)";
		return -1;
	}
	/* The exact length first: a longer text would not fit buf, a shorter one is another
	   size of key; either way the length says more than "not base64". */
	if (b64_len != sodium_base64_encoded_len(want, B64) - 1) {
		*why = want == 64 ? "the base64 is not the length of a 64-byte ed25519 secret key"
				  : "the base64 is not the length of a 32-byte ed25519 public key";
		return -1;
	}
	rc = sodium_base642bin(buf, sizeof buf, b64, b64_len, NULL, &got, NULL, B64);
	if (rc != 0 || got != want) {
		sodium_memzero(buf, sizeof buf);
		*why = "the text after ':' is not valid base64 (standard alphabet, '=' padding)";
		return -1;
	}
	memcpy(name, s, name_len);
	name[name_len] = 0;
	memcpy(bin, buf, want);
	sodium_memzero(buf, sizeof buf);
	return 0;
}

/* The public half of a libsodium secret key matches the one its seed derives. */
static int secret_consistent(const unsigned char sk[64])
{
	unsigned char seed[crypto_sign_SEEDBYTES], pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char sk2[crypto_sign_SECRETKEYBYTES];
	int same;

	crypto_sign_ed25519_sk_to_seed(seed, sk);
	crypto_sign_seed_keypair(pk, sk2, seed);
	same = sodium_memcmp(pk, sk + crypto_sign_SEEDBYTES, sizeof pk) == 0;
	sodium_memzero(seed, sizeof seed);
	sodium_memzero(sk2, sizeof sk2);
	return same;
}

int rj_sig_public_parse(struct rj_sig_public *out, const char *text, size_t len)
{
	char q[QUOTE_MAX + 4];
	const char *why;

	memset(out, 0, sizeof *out);
	RJ_CHECK(!text, ROCJIT_EINVAL, "no public key given (a key is NAME:BASE64)");
	trim(&text, &len);
	RJ_CHECK(len == 0, ROCJIT_EINVAL, "empty public key (a key is NAME:BASE64)");
	if (parse_key_text(text, len, out->name, out->pk, RJ_SIG_PUBLIC_BYTES, &why) != 0) {
		memset(out, 0, sizeof *out);
		RJ_FAIL(ROCJIT_EINVAL, "public key \"%s\": %s", quote(text, len, q), why);
	}
	return 0;
}

void rj_sig_public_line(const struct rj_sig_public *k, char *out, size_t size)
{
	char b64[PUBLIC_B64_SIZE];
	size_t n;

	if (!out || !size)
		return;
	out[0] = 0;
	n = strnlen(k->name, RJ_SIG_NAME_MAX + 1);
	if (size < RJ_SIG_PUBLIC_LINE_SIZE || n > RJ_SIG_NAME_MAX)
		return;
	sodium_bin2base64(b64, sizeof b64, k->pk, sizeof k->pk, B64);
	memcpy(out, k->name, n);
	out[n] = ':';
	memcpy(out + n + 1, b64, sizeof b64);   /* with its NUL */
}

int rj_sig_secret_public(const struct rj_sig_secret *s, struct rj_sig_public *out)
{
	size_t n = strnlen(s->name, RJ_SIG_NAME_MAX + 1);

	memset(out, 0, sizeof *out);
	RJ_CHECK(!rj_sig_name_valid(s->name, n), ROCJIT_EINVAL,
		 "the secret key holds no valid name: it was not loaded, or was wiped");
	memcpy(out->name, s->name, n + 1);
	crypto_sign_ed25519_sk_to_pk(out->pk, s->sk);
	return 0;
}

void rj_sig_secret_wipe(struct rj_sig_secret *s)
{
	if (s)
		sodium_memzero(s, sizeof *s);
}

/* ---- Key files --------------------------------------------------------------------------- */

/* Writes all of data[n] to fd: 0, or -1 with errno. */
static int write_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Creates file (in the folder dfd; shown as path) holding data[n] with exactly mode
 * (fchmod: the umask decides nothing here), never over an existing file nor through a
 * symbolic link, and flushes it to disk.  0; or ROCJIT_EIO saying why, having removed
 * the file again when it was created here.
 */
static int create_key_file(int dfd, const char *file, const char *path, mode_t mode,
			   const void *data, size_t n)
{
	struct stat st;
	int fd, e;

	fd = rj_fs_open_regular(dfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode, &st);
	if (fd < 0) {
		e = errno;
		if (e == EEXIST)
			RJ_FAIL(ROCJIT_EIO, "cannot create %s: %s: a key file is never overwritten; "
				"remove it first or pick another name", path, rj_fs_why(e, &st));
		RJ_FAIL(ROCJIT_EIO, "cannot create %s: %s: give a folder you may write to",
			path, rj_fs_why(e, &st));
	}
	if (fchmod(fd, mode) != 0 || write_all(fd, data, n) != 0 || fsync(fd) != 0) {
		e = errno;
		close(fd);
		unlinkat(dfd, file, 0);
		RJ_FAIL(ROCJIT_EIO, "cannot write %s: %s (removed it again)", path, strerror(e));
	}
	if (close(fd) != 0) {
		e = errno;
		unlinkat(dfd, file, 0);
		RJ_FAIL(ROCJIT_EIO, "cannot write %s: %s (removed it again)", path, strerror(e));
	}
	return 0;
}

/*
 * The secret file first: when the public file then cannot be made, the secret one is
 * removed, so that a failed call leaves nothing (a secret without its public file would
 * block the name for no use).  The folder is opened once and both files created in it.
 */
int rj_sig_keygen(const char *name, const char *dir, char *public_line, size_t size)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	char secret_line[SECRET_LINE_SIZE], pub_line[PUBLIC_LINE_SIZE];
	char secret_file[RJ_SIG_NAME_MAX + 8], pub_file[RJ_SIG_NAME_MAX + 8];
	char secret_path[4200], pub_path[4200], q[QUOTE_MAX + 4];
	size_t n;
	int dfd, rc;

	if (public_line && size)
		public_line[0] = 0;
	RJ_CHECK(!name, ROCJIT_EINVAL, "no key name given: " NAME_RULE);
	n = strnlen(name, RJ_SIG_NAME_MAX + 1);
	RJ_CHECK(!rj_sig_name_valid(name, n), ROCJIT_EINVAL, "key name \"%s\" is not valid: %s",
		 quote(name, strnlen(name, QUOTE_MAX + 1), q), NAME_RULE);
	RJ_CHECK(!dir || !*dir, ROCJIT_EINVAL, "no folder given for the key files");
	RJ_CHECK(public_line && size < RJ_SIG_PUBLIC_LINE_SIZE, ROCJIT_EINVAL,
		 "the buffer for the public key's line holds %zu bytes; it needs %d", size,
		 (int)RJ_SIG_PUBLIC_LINE_SIZE);
	RJ_CHECK(!rj_sig_sodium(), ROCJIT_EIO, "libsodium could not be initialized (no source of "
		 "randomness?): no key can be made");
	snprintf(secret_file, sizeof secret_file, "%s.secret", name);
	snprintf(pub_file, sizeof pub_file, "%s.pub", name);
	RJ_CHECK(rj_fs_join(secret_path, sizeof secret_path, dir, secret_file) != 0 ||
			 rj_fs_join(pub_path, sizeof pub_path, dir, pub_file) != 0,
		 ROCJIT_EINVAL, "the folder's path is too long (%zu bytes)", strlen(dir));
	dfd = rj_fs_open_dir(AT_FDCWD, dir, 0);
	RJ_CHECK(dfd < 0, ROCJIT_EIO, "cannot open the folder %s for the key files: %s: "
		 "create it first or give another", dir, strerror(errno));

	/* Each line: name, ':', the base64 (whose NUL becomes the newline). */
	crypto_sign_keypair(pk, sk);
	memcpy(secret_line, name, n);
	secret_line[n] = ':';
	sodium_bin2base64(secret_line + n + 1, SECRET_B64_SIZE, sk, sizeof sk, B64);
	secret_line[n + SECRET_B64_SIZE] = '\n';
	memcpy(pub_line, name, n);
	pub_line[n] = ':';
	sodium_bin2base64(pub_line + n + 1, PUBLIC_B64_SIZE, pk, sizeof pk, B64);
	pub_line[n + PUBLIC_B64_SIZE] = '\n';
	sodium_memzero(sk, sizeof sk);

	rc = create_key_file(dfd, secret_file, secret_path, 0600, secret_line,
			     n + SECRET_B64_SIZE + 1);
	sodium_memzero(secret_line, sizeof secret_line);
	if (rc == 0) {
		rc = create_key_file(dfd, pub_file, pub_path, 0644, pub_line,
				     n + PUBLIC_B64_SIZE + 1);
		if (rc != 0)
			unlinkat(dfd, secret_file, 0);
	}
	close(dfd);
	if (rc == 0 && public_line) {
		memcpy(public_line, pub_line, n + PUBLIC_B64_SIZE);
		public_line[n + PUBLIC_B64_SIZE] = 0;
	}
	return rc;
}

int rj_sig_secret_load(struct rj_sig_secret *out, const char *path)
{
	char buf[RJ_SIG_SECRET_FILE_MAX + 1];
	struct stat st;
	size_t got = 0;
	const char *text = buf, *why;
	int fd, e;

	memset(out, 0, sizeof *out);
	RJ_CHECK(!path || !*path, ROCJIT_EINVAL, "no secret key file given");
	/* The one trust rule (base/trust.h), for a secret: owned by this user or root, and
	   neither readable nor writable by anyone else.  A key another user owns could be
	   swapped for theirs, and every entry this process signs would then carry it. */
	fd = rj_trust_open(path, "the secret key", RJ_TRUST_SECRET, &st);
	if (fd < 0)
		return fd;
	/* Read to the end, not st_size bytes: a file that grows past the limit meanwhile is
	   still caught. */
	for (;;) {
		ssize_t r = read(fd, buf + got, sizeof buf - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			sodium_memzero(buf, sizeof buf);
			RJ_FAIL(ROCJIT_EIO, "cannot read the secret key %s: %s", path, strerror(e));
		}
		got += (size_t)r;
		if (r == 0 || got == sizeof buf)
			break;
	}
	close(fd);
	if (got > RJ_SIG_SECRET_FILE_MAX) {
		sodium_memzero(buf, sizeof buf);
		RJ_FAIL(ROCJIT_EIO, "%s is larger than %d bytes: not a secret key file (one line, "
			"NAME:BASE64)", path, RJ_SIG_SECRET_FILE_MAX);
	}
	trim(&text, &got);
	if (got == 0 || parse_key_text(text, got, out->name, out->sk, sizeof out->sk, &why) != 0) {
		sodium_memzero(buf, sizeof buf);
		rj_sig_secret_wipe(out);
		RJ_FAIL(ROCJIT_EINVAL, "%s is not a secret key file: %s", path,
			got == 0 ? "it is empty" : why);
	}
	sodium_memzero(buf, sizeof buf);
	if (!secret_consistent(out->sk)) {
		rj_sig_secret_wipe(out);
		RJ_FAIL(ROCJIT_EINVAL, "the secret key %s is damaged: its public half is not the "
			"one its seed derives; make a new key pair", path);
	}
	return 0;
}

/* ---- The trust list ---------------------------------------------------------------------- */

struct trust_build {
	struct rj_sig_public *keys;
	size_t n, cap;
	const char *from;      /* for messages */
};

/* Adds k unless the same key is there; refuses another key of the same name. */
static int trust_add(struct trust_build *b, const struct rj_sig_public *k, const char *where)
{
	for (size_t i = 0; i < b->n; i++) {
		if (strcmp(b->keys[i].name, k->name) != 0)
			continue;
		if (memcmp(b->keys[i].pk, k->pk, sizeof k->pk) == 0)
			return 0;
		RJ_FAIL(ROCJIT_EINVAL, "%s%s: two different keys are named \"%s\", so which one "
			"signed an entry is ambiguous: keep one of them", b->from, where, k->name);
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 8;
		struct rj_sig_public *keys = realloc(b->keys, cap * sizeof *keys);
		RJ_CHECK(!keys, ROCJIT_ENOMEM, "%s: out of memory for the trusted keys", b->from);
		b->keys = keys;
		b->cap = cap;
	}
	b->keys[b->n++] = *k;
	return 0;
}

static int is_separator(char c)
{
	return c == ',' || is_space(c);
}

static int trust_file(struct trust_build *b, const char *path, size_t path_len);

/*
 * Adds the items of text[n] (a spec, or one line of a trust file: file names the file
 * and line its line number; NULL for the spec itself, where files may be named).
 */
static int trust_items(struct trust_build *b, const char *text, size_t n, const char *file,
		       unsigned line)
{
	char where[4200 + 32], q[QUOTE_MAX + 4];
	size_t i = 0;

	if (file)
		snprintf(where, sizeof where, ": %s line %u", file, line);
	else
		where[0] = 0;
	while (i < n) {
		struct rj_sig_public k;
		const char *item, *why;
		size_t len = 0;

		while (i < n && is_separator(text[i]))
			i++;
		if (i == n)
			break;
		item = text + i;
		while (i < n && !is_separator(text[i]))
			i++, len++;
		if (item[0] == '/' || item[0] == '.') {
			RJ_CHECK(file, ROCJIT_EINVAL, "%s%s: \"%s\" names a file, but a trust file "
				 "holds keys (NAME:BASE64), not other files", b->from, where,
				 quote(item, len, q));
			RJ_FORWARD(trust_file(b, item, len));
			continue;
		}
		if (parse_key_text(item, len, k.name, k.pk, sizeof k.pk, &why) != 0)
			RJ_FAIL(ROCJIT_EINVAL, "%s%s: \"%s\": %s", b->from, where,
				quote(item, len, q), why);
		RJ_FORWARD(trust_add(b, &k, where));
	}
	return 0;
}

/*
 * Reads a trust file's keys.  Whoever may write the file decides what is trusted, so a
 * file others may write is refused (group-writable is allowed: a team's shared file).
 */
static int trust_file(struct trust_build *b, const char *item, size_t item_len)
{
	char path[4096], *text;
	struct stat st;
	unsigned line = 0;
	size_t at = 0, size;
	int fd, e, rc = 0;

	RJ_CHECK(item_len >= sizeof path, ROCJIT_EINVAL, "%s: a trust file's path is longer "
		 "than %zu bytes", b->from, sizeof path - 1);
	memcpy(path, item, item_len);
	path[item_len] = 0;
	/* The one trust rule (base/trust.h): whoever can write the list, its owner among
	   them, chooses which keys' code this process runs. */
	fd = rj_trust_open(path, "the trust file", 0, &st);
	if (fd < 0) {
		char why[600];
		snprintf(why, sizeof why, "%s", rocjit_last_error());
		RJ_FAIL(ROCJIT_EIO, "%s: %s", b->from, why);
	}
	if ((uintmax_t)st.st_size > RJ_SIG_TRUST_FILE_MAX) {
		close(fd);
		RJ_FAIL(ROCJIT_EIO, "%s: the trust file %s is larger than %zu bytes: not a list "
			"of keys", b->from, path, RJ_SIG_TRUST_FILE_MAX);
	}
	size = (size_t)st.st_size;
	if (rj_fs_read_all(fd, size, &text) != 0) {
		e = errno;
		close(fd);
		RJ_FAIL(e == ENOMEM ? ROCJIT_ENOMEM : ROCJIT_EIO, "%s: cannot read the trust file "
			"%s: %s", b->from, path, strerror(e));
	}
	close(fd);
	while (at < size && rc == 0) {
		const char *s = text + at, *nl = memchr(s, '\n', size - at);
		size_t n = nl ? (size_t)(nl - s) : size - at;

		at += n + 1;
		line++;
		trim(&s, &n);
		if (n == 0 || s[0] == '#')
			continue;
		rc = trust_items(b, s, n, path, line);
	}
	free(text);
	return rc;
}

int rj_sig_trust_parse(struct rj_sig_trust *out, const char *spec, const char *from)
{
	struct trust_build b = { NULL, 0, 0, from && *from ? from : "trusted keys" };
	int rc;

	out->keys = NULL;
	out->n = 0;
	if (!spec)
		return 0;
	rc = trust_items(&b, spec, strlen(spec), NULL, 0);
	if (rc != 0) {
		free(b.keys);
		return rc;
	}
	out->keys = b.keys;
	out->n = b.n;
	return 0;
}

void rj_sig_trust_free(struct rj_sig_trust *t)
{
	if (!t)
		return;
	free(t->keys);
	t->keys = NULL;
	t->n = 0;
}

const struct rj_sig_public *rj_sig_trust_find(const struct rj_sig_trust *t, const char *name)
{
	if (!t || !name)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (strncmp(t->keys[i].name, name, RJ_SIG_NAME_MAX + 1) == 0)
			return &t->keys[i];
	return NULL;
}
