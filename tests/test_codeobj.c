/*
 * test_codeobj.c - reading AMDGPU code objects (src/codeobj.c).
 *
 * Most inputs are synthesized here (build_co): a small ELF64 AMDGPU image with a note
 * holding hand-built MessagePack metadata and .symtab/.dynsym tables, so the tests are
 * deterministic and need nothing outside the build.  One test compiles real kernels with
 * hipRTC when libamdhip64.so.5 can be dlopen'ed, and passes with a message when it cannot.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* dlopen */
#endif
#include <dlfcn.h>
#include <stdint.h>

#include "codeobj.h"
#include "harness.h"
#include "rocjit.h"

#define PREFIX "amdgcn-amd-amdhsa--"

struct buf {
	unsigned char d[8192];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	ASSERT(b->n + n <= sizeof b->d);
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void put_le(struct buf *b, uint64_t v, int n)
{
	ASSERT(b->n + (size_t)n <= sizeof b->d);
	for (int i = 0; i < n; i++)
		b->d[b->n + i] = (unsigned char)(v >> (8 * i));
	b->n += (size_t)n;
}

static void put_be(struct buf *b, uint64_t v, int n)
{
	ASSERT(b->n + (size_t)n <= sizeof b->d);
	for (int i = 0; i < n; i++)
		b->d[b->n + i] = (unsigned char)(v >> (8 * (n - 1 - i)));
	b->n += (size_t)n;
}

static void put_u8(struct buf *b, unsigned v)
{
	put_le(b, v, 1);
}

static void pad(struct buf *b, size_t align)
{
	while (b->n % align)
		put_u8(b, 0);
}

static void mp_str(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n < 32) {
		put_u8(b, 0xa0 | (unsigned)n);
	} else if (n < 256) {
		put_u8(b, 0xd9);
		put_u8(b, (unsigned)n);
	} else {
		put_u8(b, 0xda);
		put_be(b, n, 2);
	}
	put(b, s, n);
}

/* What build_co makes.  Symbols are "T:name": T is O (STT_OBJECT), F (STT_FUNC) or U
 * (undefined object). */
struct co_spec {
	uint32_t flags;
	unsigned abi;                /* EI_ABIVERSION, 0: 2 (code object v4)          */
	const char *target;          /* amdhsa.target value; NULL: no note at all     */
	const char *const *symtab;   /* NULL-terminated; NULL: no .symtab             */
	const char *const *dynsym;   /* NULL-terminated; NULL: no .dynsym             */
	const struct buf *meta;      /* raw metadata instead of the generated map     */
	int shdrs_first;             /* section headers right after the ELF header    */
};

static const char *const default_syms[] = { "F:axpy", "O:axpy.kd", "F:scale", "O:scale.kd",
					    "O:plain_var", NULL };

/* The metadata map hipRTC would write, plus an entry of every MessagePack kind. */
static void build_meta(struct buf *m, const struct co_spec *s)
{
	const char *const *syms = s->symtab ? s->symtab : default_syms;
	unsigned nk = 0;

	for (size_t i = 0; syms[i]; i++)
		nk += syms[i][0] == 'O' && strstr(syms[i], ".kd") != NULL;
	put_u8(m, 0x84);
	mp_str(m, "amdhsa.kernels");
	put_u8(m, 0x90 | nk);
	for (size_t i = 0; syms[i]; i++) {
		char name[64];

		if (syms[i][0] != 'O' || !strstr(syms[i], ".kd"))
			continue;
		snprintf(name, sizeof name, "%.*s", (int)(strlen(syms[i]) - 5), syms[i] + 2);
		put_u8(m, 0x84);
		mp_str(m, ".name");
		mp_str(m, name);
		mp_str(m, ".symbol");
		mp_str(m, syms[i] + 2);
		mp_str(m, ".sgpr_count");
		put_u8(m, 0xcc);
		put_u8(m, 11);
		mp_str(m, ".args");
		put_u8(m, 0xdc);
		put_be(m, 0, 2);
	}
	mp_str(m, "x.misc");
	put_u8(m, 0x9b);
	put_u8(m, 0xc0); /* nil, true, false */
	put_u8(m, 0xc3);
	put_u8(m, 0xc2);
	put_u8(m, 0xcd); /* uint16 */
	put_be(m, 513, 2);
	put_u8(m, 0xd2); /* int32 */
	put_be(m, 0xfffffffe, 4);
	put_u8(m, 0xcb); /* float64 */
	put_be(m, 0x3ff0000000000000ull, 8);
	put_u8(m, 0xc4); /* bin8 */
	put_u8(m, 3);
	put(m, "\1\2\3", 3);
	put_u8(m, 0xd6); /* fixext4 */
	put(m, "\5abcd", 5);
	put_u8(m, 0xc7); /* ext8 */
	put(m, "\2\7xy", 4);
	put_u8(m, 0xde); /* map16 { -1: str16 "hi" } */
	put_be(m, 1, 2);
	put_u8(m, 0xff);
	put_u8(m, 0xda);
	put_be(m, 2, 2);
	put(m, "hi", 2);
	put_u8(m, 0xdd); /* array32 [] */
	put_be(m, 0, 4);
	mp_str(m, "amdhsa.target");
	mp_str(m, s->target);
	mp_str(m, "amdhsa.version");
	put(m, "\x92\x01\x01", 3);
}

static void build_syms(struct buf *tab, struct buf *str, const char *const *syms)
{
	put_u8(str, 0);
	memset(tab->d, 0, 24);
	tab->n = 24;
	for (size_t i = 0; syms[i]; i++) {
		put_le(tab, str->n, 4);
		put_u8(tab, syms[i][0] == 'F' ? 0x12 : 0x11); /* GLOBAL FUNC / OBJECT */
		put_u8(tab, 3);                               /* protected */
		put_le(tab, syms[i][0] == 'U' ? 0 : 1, 2);
		put_le(tab, 0x1000 + 64 * i, 8);
		put_le(tab, 64, 8);
		put(str, syms[i] + 2, strlen(syms[i] + 2) + 1);
	}
}

struct sect {
	const char *name;
	uint32_t type, link, info;
	uint64_t align, entsize;
	const struct buf *b;
	uint64_t off, name_off;
};

static void set_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Builds an ELF64 AMDGPU code object from spec; returns it malloc'ed, *size its length. */
static unsigned char *build_co(const struct co_spec *s, size_t *size)
{
	static struct buf meta, note, symtab, strtab, dynsym, dynstr, shstr, out;
	struct sect sec[8] = { { "", 0, 0, 0, 0, 0, NULL, 0, 0 } };
	unsigned n = 1, i;
	uint64_t shoff;
	unsigned char *copy, *h = out.d;

	meta.n = note.n = symtab.n = strtab.n = dynsym.n = dynstr.n = shstr.n = 0;
	if (s->target) {
		if (s->meta)
			meta = *s->meta;
		else
			build_meta(&meta, s);
		put_le(&note, 7, 4);
		put_le(&note, meta.n, 4);
		put_le(&note, 32, 4); /* NT_AMDGPU_METADATA */
		put(&note, "AMDGPU\0", 8);
		put(&note, meta.d, meta.n);
		pad(&note, 4);
		sec[n++] = (struct sect){ ".note", 7, 0, 0, 4, 0, &note, 0, 0 };
	}
	if (s->symtab) {
		build_syms(&symtab, &strtab, s->symtab);
		sec[n] = (struct sect){ ".symtab", 2, n + 1, 1, 8, 24, &symtab, 0, 0 };
		sec[++n] = (struct sect){ ".strtab", 3, 0, 0, 1, 0, &strtab, 0, 0 };
		n++;
	}
	if (s->dynsym) {
		build_syms(&dynsym, &dynstr, s->dynsym);
		sec[n] = (struct sect){ ".dynsym", 11, n + 1, 1, 8, 24, &dynsym, 0, 0 };
		sec[++n] = (struct sect){ ".dynstr", 3, 0, 0, 1, 0, &dynstr, 0, 0 };
		n++;
	}
	sec[n++] = (struct sect){ ".shstrtab", 3, 0, 0, 1, 0, &shstr, 0, 0 };
	put_u8(&shstr, 0);
	for (i = 1; i < n; i++) {
		sec[i].name_off = shstr.n;
		put(&shstr, sec[i].name, strlen(sec[i].name) + 1);
	}

	memset(&out, 0, sizeof out);
	out.n = 64;
	shoff = 64;
	if (s->shdrs_first)
		out.n += 64 * n;
	for (i = 1; i < n; i++) {
		pad(&out, sec[i].align);
		sec[i].off = out.n;
		put(&out, sec[i].b->d, sec[i].b->n);
	}
	if (!s->shdrs_first) {
		pad(&out, 8);
		shoff = out.n;
		out.n += 64 * n;
	}
	ASSERT(out.n <= sizeof out.d);
	for (i = 0; i < n; i++) {
		unsigned char *q = h + shoff + 64 * i;

		set_le(q, sec[i].name_off, 4);
		set_le(q + 4, sec[i].type, 4);
		set_le(q + 8, sec[i].type == 7 || sec[i].type == 11 ? 2 : 0, 8); /* SHF_ALLOC */
		set_le(q + 24, sec[i].off, 8);
		set_le(q + 32, sec[i].b ? sec[i].b->n : 0, 8);
		set_le(q + 40, sec[i].link, 4);
		set_le(q + 44, sec[i].info, 4);
		set_le(q + 48, sec[i].align, 8);
		set_le(q + 56, sec[i].entsize, 8);
	}
	memcpy(h, "\177ELF\2\1\1\100", 8); /* ELF64, LE, version 1, OSABI AMDGPU_HSA */
	h[8] = (unsigned char)(s->abi ? s->abi : 2);
	set_le(h + 16, 3, 2);   /* ET_DYN */
	set_le(h + 18, 0xe0, 2); /* EM_AMDGPU */
	set_le(h + 20, 1, 4);
	set_le(h + 40, shoff, 8);
	set_le(h + 48, s->flags, 4);
	set_le(h + 52, 64, 2);
	set_le(h + 54, 56, 2);
	set_le(h + 58, 64, 2);
	set_le(h + 60, n, 2);
	set_le(h + 62, n - 1, 2); /* shstrndx */
	copy = malloc(out.n);
	ASSERT(copy);
	memcpy(copy, out.d, out.n);
	*size = out.n;
	return copy;
}

/* The gfx90a:sramecc+:xnack- object most tests start from. */
static unsigned char *build_default(size_t *size, int shdrs_first)
{
	struct co_spec s = { 0xe3f, 2, PREFIX "gfx90a:sramecc+:xnack-", default_syms,
			     default_syms, NULL, shdrs_first };

	return build_co(&s, size);
}

static int inspect_rc(const void *data, size_t size)
{
	rocjit_codeobj_info *info = (rocjit_codeobj_info *)&info;
	int rc = rocjit_codeobj_inspect(&info, data, size);

	ASSERT(rc == 0 ? info != NULL : info == NULL);
	rocjit_codeobj_free(info);
	return rc;
}

TEST(codeobj_reads_target_from_note)
{
	size_t size;
	unsigned char *co = build_default(&size, 0);
	rocjit_codeobj_info *info;

	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->platform, ROCJIT_PLATFORM_AMD);
	ASSERT_STR(info->target, "gfx90a:sramecc+:xnack-");
	ASSERT_STR(info->flags_target, "gfx90a:sramecc+:xnack-");
	ASSERT_STR(rocjit_last_error(), "");
	rocjit_codeobj_free(info);
	free(co);
}

TEST(codeobj_flags_target_matches_note)
{
	static const struct {
		uint32_t flags;
		unsigned abi;
		const char *target;
	} cases[] = {
		{ 0xe3f, 2, "gfx90a:sramecc+:xnack-" }, { 0x53f, 2, "gfx90a" },
		{ 0x83f, 2, "gfx90a:sramecc-" },        { 0x33f, 2, "gfx90a:xnack+" },
		{ 0xf3f, 2, "gfx90a:sramecc+:xnack+" }, { 0x52f, 2, "gfx906" },
		{ 0x730, 2, "gfx908:xnack+" },          { 0x036, 2, "gfx1030" },
		{ 0x045, 2, "gfx1036" },                { 0x02c, 2, "gfx900" },
		{ 0x040, 2, "gfx940" },                 { 0x041, 2, "gfx1100" },
		{ 0xa3f, 3, "gfx90a:sramecc-:xnack-" }, { 0x13f, 1, "gfx90a:xnack+" },
		{ 0x23f, 1, "gfx90a:sramecc+" },        { 0x03f, 1, "gfx90a" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char target[96];
		struct co_spec s = { cases[i].flags, cases[i].abi, target, default_syms, NULL,
				     NULL, 0 };
		rocjit_codeobj_info *info, *noinfo;
		size_t size;
		unsigned char *co;

		snprintf(target, sizeof target, PREFIX "%s", cases[i].target);
		co = build_co(&s, &size);
		ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
		ASSERT_STR(info->flags_target, cases[i].target);
		ASSERT_STR(info->target, cases[i].target);
		free(co);
		s.target = NULL; /* no note: the target comes from e_flags alone */
		co = build_co(&s, &size);
		ASSERT_INT(rocjit_codeobj_inspect(&noinfo, co, size), 0);
		ASSERT_STR(noinfo->target, cases[i].target);
		ASSERT_STR(noinfo->flags_target, cases[i].target);
		rocjit_codeobj_free(info);
		rocjit_codeobj_free(noinfo);
		free(co);
	}
}

TEST(codeobj_note_without_target_key_uses_flags_target)
{
	struct buf meta = { { 0x81, 0xae }, 2 };
	struct co_spec s = { 0x52f, 2, "", default_syms, NULL, &meta, 0 };
	rocjit_codeobj_info *info;
	size_t size;
	unsigned char *co;

	put(&meta, "amdhsa.version\x92\x01\x00", 17);
	co = build_co(&s, &size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_STR(info->target, "gfx906");
	rocjit_codeobj_free(info);
	free(co);
}

TEST(codeobj_lists_kernel_names)
{
	/* .dynsym in another (hash) order, with a kernel .symtab lacks; FUNC, undefined and
	 * bare ".kd" symbols are not kernels. */
	static const char *const symtab[] = { "F:axpy", "O:axpy.kd", "F:_Z2tkILi3EEvPf",
					      "O:_Z2tkILi3EEvPf.kd", "F:not_a.kd", "U:called.kd",
					      "O:var", "O:.kd", "O:scale.kd", "O:axpy.kd", NULL };
	static const char *const dynsym[] = { "O:scale.kd", "O:only_dyn.kd", "O:axpy.kd", NULL };
	struct co_spec s = { 0xe3f, 2, PREFIX "gfx90a:sramecc+:xnack-", symtab, dynsym, NULL, 0 };
	static const char *const want[] = { "axpy", "_Z2tkILi3EEvPf", "scale", "only_dyn" };
	rocjit_codeobj_info *info;
	size_t size;
	unsigned char *co = build_co(&s, &size);

	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 4);
	for (size_t i = 0; i < 4; i++)
		ASSERT_STR(info->kernels[i], want[i]);
	rocjit_codeobj_free(info);
	free(co);

	s.symtab = NULL; /* a stripped shared object: .dynsym alone */
	co = build_co(&s, &size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 3);
	ASSERT_STR(info->kernels[0], "scale");
	ASSERT_STR(info->kernels[1], "only_dyn");
	ASSERT_STR(info->kernels[2], "axpy");
	rocjit_codeobj_free(info);
	free(co);

	s.dynsym = NULL; /* no symbol table: valid, no kernels */
	co = build_co(&s, &size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 0);
	rocjit_codeobj_free(info);
	free(co);
}

TEST(codeobj_rejects_truncated_data_at_every_length)
{
	for (int first = 0; first < 2; first++) {
		size_t size;
		unsigned char *co = build_default(&size, first);

		ASSERT_INT(inspect_rc(co, size), 0);
		for (size_t n = 1; n < size; n++) {
			/* An exact-size copy so ASan sees any read past the end. */
			unsigned char *part = malloc(n);

			ASSERT(part);
			memcpy(part, co, n);
			ASSERT_INT(inspect_rc(part, n), ROCJIT_EFORMAT);
			free(part);
		}
		free(co);
	}
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

TEST(codeobj_survives_random_byte_flips)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int ok = 0;

	for (int round = 0; round < 6000; round++) {
		size_t size;
		unsigned char *co = build_default(&size, round & 1);
		int flips = 1 + (int)(xorshift(&seed) % 4), rc;
		char *list = NULL;

		for (int f = 0; f < flips; f++) {
			/* Half the flips land in the first 512 bytes: header, note, metadata. */
			size_t at = (size_t)(xorshift(&seed) % (round & 2 || size < 512 ? size : 512));

			co[at] ^= (unsigned char)(1 + xorshift(&seed) % 255);
		}
		rc = inspect_rc(co, size);
		ASSERT(rc == 0 || rc == ROCJIT_EFORMAT);
		ok += rc == 0;
		rc = rj_codeobj_check(co, size, "gfx90a:sramecc+:xnack-", &list);
		ASSERT(rc == 0 ? list != NULL : list == NULL);
		free(list);
		free(co);
	}
	printf("%d of 6000 flipped images still parsed\n", ok);
}

TEST(codeobj_rejects_foreign_elf)
{
	static const struct {
		size_t at;
		unsigned char value;
		const char *msg;
	} edits[] = {
		{ 18, 62, "e_machine 62" },         /* x86-64 */
		{ 4, 1, "ELF64" },                  /* ELFCLASS32 */
		{ 5, 2, "little-endian" },          /* big-endian */
		{ 7, 0, "OS/ABI 0" },               /* System V */
		{ 8, 4, "ABI version 4" },          /* code object v6 */
		{ 8, 0, "ABI version 0" },
		{ 16, 2, "ELF type 2" },            /* ET_EXEC */
		{ 58, 40, "section headers of 40" },
		{ 0, 0x7e, "not an ELF" },
	};

	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		size_t size;
		unsigned char *co = build_default(&size, 0);

		co[edits[i].at] = edits[i].value;
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), edits[i].msg);
		free(co);
	}
}

TEST(codeobj_rejects_garbage)
{
	unsigned char junk[4096];
	uint64_t seed = 42;

	ASSERT_INT(inspect_rc("hello, world", 12), ROCJIT_EFORMAT);
	ASSERT_INT(inspect_rc("\177ELF", 4), ROCJIT_EFORMAT);
	memset(junk, 0, sizeof junk);
	ASSERT_INT(inspect_rc(junk, sizeof junk), ROCJIT_EFORMAT);
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (unsigned char)xorshift(&seed);
		if (round & 1) /* a plausible header over random tables */
			memcpy(junk, "\177ELF\2\1\1\100\2\0\0\0\0\0\0\0\3\0\xe0\0\1\0\0\0", 24);
		ASSERT_INT(inspect_rc(junk, sizeof junk), ROCJIT_EFORMAT);
	}
}

TEST(codeobj_rejects_bad_arguments)
{
	rocjit_codeobj_info *info = (rocjit_codeobj_info *)&info;
	size_t size;
	unsigned char *co = build_default(&size, 0);
	char *list = (char *)&list;

	ASSERT_INT(rocjit_codeobj_inspect(NULL, co, size), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_codeobj_inspect(&info, NULL, size), ROCJIT_EINVAL);
	ASSERT(info == NULL);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, 0), ROCJIT_EINVAL);
	rocjit_codeobj_free(NULL);
	ASSERT_INT(rj_codeobj_check(co, size, NULL, &list), ROCJIT_EINVAL);
	ASSERT(list == NULL);
	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a:xnack", NULL), ROCJIT_EINVAL);
	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a:xnack+:xnack-", NULL), ROCJIT_EINVAL);
	ASSERT_INT(rj_codeobj_check(co, size, "", NULL), ROCJIT_EINVAL);
	free(co);
}

TEST(codeobj_unknown_processor_is_format_error)
{
	static const uint32_t bad[] = { 0x000, 0x001, 0x027, 0x049, 0x0ff };

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct co_spec s = { bad[i], 2, NULL, default_syms, NULL, NULL, 0 };
		size_t size;
		unsigned char *co = build_co(&s, &size);

		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), "unknown processor");
		free(co);
	}
}

TEST(codeobj_rejects_malformed_metadata)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *msg;
	} cases[] = {
		{ "\x92\x01\x02", 3, "not a MessagePack map" },
		{ "\x83\xa1x\x01", 4, "malformed MessagePack" },           /* count > entries */
		{ "\x81\xa1x\xc1", 4, "malformed MessagePack" },           /* reserved byte */
		{ "\x81\xa1x\xdb\xff\xff\xff\xff", 8, "malformed MessagePack" }, /* str32 huge */
		{ "\x81\xa1x\xdd\xff\xff\xff\xff", 8, "malformed MessagePack" }, /* array32 huge */
		{ "\x81\xad" "amdhsa.target\x05", 16, "not a string" },
		{ "\x81\xad" "amdhsa.target\xa6" "gfx90a", 22, "amdgcn-amd-amdhsa" },
		{ "\x81\xad" "amdhsa.target\xba" PREFIX "gfx9 0a", 42, "not a valid target" },
		{ "\x81\xad" "amdhsa.target\xba" PREFIX "gfx90a\0", 42, "not a valid target" },
		{ "\x81\xad" "amdhsa.target\xba" PREFIX "gfx90a:", 42, "not a valid target" },
		{ "\x81\xad" "amdhsa.target\xba" PREFIX "GFX90A:", 42, "not a valid target" },
	};
	struct co_spec s = { 0x53f, 2, "", default_syms, NULL, NULL, 0 };

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf meta = { { 0 }, 0 };
		size_t size;
		unsigned char *co;

		put(&meta, cases[i].bytes, cases[i].n);
		s.meta = &meta;
		co = build_co(&s, &size);
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), cases[i].msg);
		free(co);
	}
	/* amdhsa.target twice */
	{
		struct buf meta = { { 0x82 }, 1 };
		size_t size;
		unsigned char *co;

		for (int k = 0; k < 2; k++) {
			mp_str(&meta, "amdhsa.target");
			mp_str(&meta, PREFIX "gfx90a");
		}
		s.meta = &meta;
		co = build_co(&s, &size);
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), "twice");
		free(co);
	}
	/* Nesting deeper than the reader's limit, and deep enough to exhaust a naive stack. */
	for (size_t depth = 40; depth <= 4000; depth *= 100) {
		static struct buf meta;
		size_t size;
		unsigned char *co;

		meta.n = 0;
		put(&meta, "\x81\xa1x", 3);
		for (size_t k = 0; k < depth; k++)
			put_u8(&meta, 0x91);
		put_u8(&meta, 0xc0);
		s.meta = &meta;
		co = build_co(&s, &size);
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), "malformed MessagePack");
		free(co);
	}
}

TEST(codeobj_inconsistent_note_and_flags_is_format_error)
{
	static const struct {
		uint32_t flags;
		const char *target;
	} cases[] = {
		{ 0xa3f, "gfx90a:sramecc+:xnack-" }, /* sramecc- in the flags */
		{ 0x53f, "gfx90a:sramecc+:xnack-" }, /* "any" in the flags */
		{ 0xe3f, "gfx90a" },
		{ 0xe3f, "gfx908:sramecc+:xnack-" }, /* another processor */
		{ 0x036, "gfx1030:xnack-" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char target[96];
		struct co_spec s = { cases[i].flags, 2, target, default_syms, NULL, NULL, 0 };
		size_t size;
		unsigned char *co;

		snprintf(target, sizeof target, PREFIX "%s", cases[i].target);
		co = build_co(&s, &size);
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), "inconsistent");
		ASSERT_CONTAINS(rocjit_last_error(), cases[i].target);
		free(co);
	}
}

TEST(codeobj_check_lists_kernels_comma_separated)
{
	size_t size;
	unsigned char *co = build_default(&size, 0);
	char *list = NULL;

	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a:sramecc+:xnack-", &list), 0);
	ASSERT_STR(list, "axpy,scale");
	free(list);
	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a:sramecc+:xnack-", NULL), 0);
	free(co);
}

TEST(codeobj_check_refuses_other_target)
{
	struct co_spec s = { 0x036, 2, PREFIX "gfx1030", default_syms, NULL, NULL, 0 };
	size_t size;
	unsigned char *co = build_co(&s, &size);
	char *list = (char *)&list;

	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a", &list), ROCJIT_EFORMAT);
	ASSERT_STR(rocjit_last_error(), "code object is for gfx1030, expected gfx90a");
	ASSERT(list == NULL);
	ASSERT_INT(rj_codeobj_check(co, size, "gfx1031", NULL), ROCJIT_EFORMAT);
	ASSERT_INT(rj_codeobj_check(co, size, "gfx1030", NULL), 0);
	ASSERT_INT(rj_codeobj_check(co, size - 1, "gfx1030", NULL), ROCJIT_EFORMAT);
	free(co);
}

TEST(codeobj_check_feature_rules)
{
	static const struct {
		uint32_t flags;
		const char *object, *target;
		int rc;
	} cases[] = {
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-", 0 },
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a:xnack-:sramecc+", 0 },
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a", ROCJIT_EFORMAT },
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a:xnack-", ROCJIT_EFORMAT },
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a:sramecc+", ROCJIT_EFORMAT },
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-:xnack-", ROCJIT_EFORMAT },
		{ 0xe3f, "gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack+", ROCJIT_EFORMAT },
		{ 0x53f, "gfx90a", "gfx90a", 0 },
		{ 0x53f, "gfx90a", "gfx90a:xnack-", ROCJIT_EFORMAT },
		{ 0x53f, "gfx90a", "gfx90a:sramecc+:xnack-", ROCJIT_EFORMAT },
		{ 0x73f, "gfx90a:xnack+", "gfx90a:xnack+", 0 },
		{ 0x73f, "gfx90a:xnack+", "gfx90a:xnack-", ROCJIT_EFORMAT },
		{ 0x036, "gfx1030", "gfx1030", 0 },
		{ 0x036, "gfx1030", "gfx1030:xnack-", ROCJIT_EFORMAT },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char target[96];
		struct co_spec s = { cases[i].flags, 2, target, default_syms, NULL, NULL, 0 };
		size_t size;
		unsigned char *co;

		snprintf(target, sizeof target, PREFIX "%s", cases[i].object);
		co = build_co(&s, &size);
		ASSERT_INT(rj_codeobj_check(co, size, cases[i].target, NULL), cases[i].rc);
		if (cases[i].rc)
			ASSERT_CONTAINS(rocjit_last_error(), "expected");
		free(co);
	}
}

/* ---- Real code objects from hipRTC, when it is installed ---- */

typedef int (*create_fn)(void **, const char *, const char *, int, const char **,
			 const char **);
typedef int (*compile_fn)(void *, int, const char **);
typedef int (*size_fn)(void *, size_t *);
typedef int (*code_fn)(void *, char *);
typedef int (*destroy_fn)(void **);

static void sym(void *lib, const char *name, void *fnp, size_t fn_size)
{
	void *p = dlsym(lib, name);

	ASSERT(p != NULL);
	memcpy(fnp, &p, fn_size); /* POSIX: data and function pointers convert */
}

static const char real_src[] =
	"extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
	"extern \"C\" __global__ void scale(float a, float *y, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] *= a; }\n";

TEST(codeobj_reads_real_hiprtc_code_objects)
{
	static const char *const targets[] = { "gfx90a:sramecc+:xnack-", "gfx1030" };
	void *lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
	create_fn create;
	compile_fn compile;
	size_fn code_size;
	code_fn get_code;
	destroy_fn destroy;

	if (!lib) {
		printf("skipped: libamdhip64.so.5 not available (%s)\n", dlerror());
		return;
	}
	sym(lib, "hiprtcCreateProgram", &create, sizeof create);
	sym(lib, "hiprtcCompileProgram", &compile, sizeof compile);
	sym(lib, "hiprtcGetCodeSize", &code_size, sizeof code_size);
	sym(lib, "hiprtcGetCode", &get_code, sizeof get_code);
	sym(lib, "hiprtcDestroyProgram", &destroy, sizeof destroy);
	for (size_t t = 0; t < 2; t++) {
		char opt[64];
		const char *opts[1] = { opt };
		void *prog = NULL;
		size_t size = 0;
		char *co, *list = NULL;
		rocjit_codeobj_info *info;

		snprintf(opt, sizeof opt, "--offload-arch=%s", targets[t]);
		ASSERT_INT(create(&prog, real_src, "real.hip", 0, NULL, NULL), 0);
		ASSERT_INT(compile(prog, 1, opts), 0);
		ASSERT_INT(code_size(prog, &size), 0);
		co = malloc(size);
		ASSERT(co && size > 64);
		ASSERT_INT(get_code(prog, co), 0);
		destroy(&prog);

		ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
		ASSERT_STR(info->target, targets[t]);
		ASSERT_STR(info->flags_target, targets[t]);
		ASSERT_INT(info->num_kernels, 2);
		ASSERT_STR(info->kernels[0], "axpy");
		ASSERT_STR(info->kernels[1], "scale");
		rocjit_codeobj_free(info);
		ASSERT_INT(rj_codeobj_check(co, size, targets[t], &list), 0);
		ASSERT_STR(list, "axpy,scale");
		free(list);
		ASSERT_INT(rj_codeobj_check(co, size, t ? "gfx1031" : "gfx90a", NULL),
			   ROCJIT_EFORMAT);
		for (size_t n = 1; n < size; n += 7)
			ASSERT_INT(inspect_rc(co, n), ROCJIT_EFORMAT);
		free(co);
	}
	dlclose(lib);
}
