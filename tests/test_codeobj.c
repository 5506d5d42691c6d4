/*
 * test_codeobj.c - reading AMDGPU code objects and NVIDIA CUBINs (src/codeobj/codeobj.c).
 *
 * Most inputs are synthesized here, so the tests are deterministic and need nothing outside
 * the build: build_co makes a small ELF64 AMDGPU image with a note holding hand-built
 * MessagePack metadata and .symtab/.dynsym tables; build_cubin a small CUBIN laid out as
 * CUDA 13's NVRTC writes one (e_flags, .nv.compat, entry and device-function symbols).
 * Two tests compile real kernels, with hipRTC when libamdhip64.so.5 can be dlopen'ed and
 * with NVRTC when libnvrtc can, and pass with a message when they cannot.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* dlopen */
#endif
#include <dlfcn.h>
#include <stdint.h>

#include "codeobj/codeobj.h"
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
		b->d[b->n + (size_t)i] = (unsigned char)(v >> (8 * i));
	b->n += (size_t)n;
}

static void put_be(struct buf *b, uint64_t v, int n)
{
	ASSERT(b->n + (size_t)n <= sizeof b->d);
	for (int i = 0; i < n; i++)
		b->d[b->n + (size_t)i] = (unsigned char)(v >> (8 * (n - 1 - i)));
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

/* The ELF header fields that differ between the images built here. */
struct ehdr {
	unsigned machine, osabi, abi, type;
	uint32_t flags;
	int shdrs_first; /* section headers right after the ELF header, else at the end */
};

/*
 * Lays out an ELF64 LE image: the header, sections sec[1..n) (sec[0] is the null section),
 * the section header table.  The section named ".shstrtab" gets the section names and is
 * e_shstrndx.  Returns the image malloc'ed, *size its length.
 */
static unsigned char *build_elf(const struct ehdr *eh, struct sect *sec, unsigned n,
				size_t *size)
{
	static struct buf shstr, out;
	unsigned i, shstrndx = 0;
	uint64_t shoff;
	unsigned char *copy, *h = out.d;

	shstr.n = 0;
	put_u8(&shstr, 0);
	for (i = 1; i < n; i++) {
		sec[i].name_off = shstr.n;
		put(&shstr, sec[i].name, strlen(sec[i].name) + 1);
		if (strcmp(sec[i].name, ".shstrtab") == 0) {
			sec[i].b = &shstr;
			shstrndx = i;
		}
	}
	memset(&out, 0, sizeof out);
	out.n = 64;
	shoff = 64;
	if (eh->shdrs_first)
		out.n += 64 * n;
	for (i = 1; i < n; i++) {
		pad(&out, sec[i].align);
		sec[i].off = out.n;
		put(&out, sec[i].b->d, sec[i].b->n);
	}
	if (!eh->shdrs_first) {
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
	memcpy(h, "\177ELF\2\1\1", 7); /* ELF64, LE, version 1 */
	h[7] = (unsigned char)eh->osabi;
	h[8] = (unsigned char)eh->abi;
	set_le(h + 16, eh->type, 2);
	set_le(h + 18, eh->machine, 2);
	set_le(h + 20, 1, 4);
	set_le(h + 40, shoff, 8);
	set_le(h + 48, eh->flags, 4);
	set_le(h + 52, 64, 2);
	set_le(h + 54, 56, 2);
	set_le(h + 58, 64, 2);
	set_le(h + 60, n, 2);
	set_le(h + 62, shstrndx, 2);
	copy = malloc(out.n);
	ASSERT(copy);
	memcpy(copy, out.d, out.n);
	*size = out.n;
	return copy;
}

/* Builds an ELF64 AMDGPU code object from spec; returns it malloc'ed, *size its length. */
static unsigned char *build_co(const struct co_spec *s, size_t *size)
{
	static struct buf meta, note, symtab, strtab, dynsym, dynstr;
	struct sect sec[8] = { { "", 0, 0, 0, 0, 0, NULL, 0, 0 } };
	unsigned n = 1;
	struct ehdr eh = { 0xe0, 64, s->abi ? s->abi : 2, 3, s->flags, s->shdrs_first };

	meta.n = note.n = symtab.n = strtab.n = dynsym.n = dynstr.n = 0;
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
	/* ET_DYN, EM_AMDGPU, OSABI AMDGPU_HSA; the names table last, as LLVM puts it */
	sec[n++] = (struct sect){ ".shstrtab", 3, 0, 0, 1, 0, NULL, 0, 0 };
	return build_elf(&eh, sec, n, size);
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
	rocjit_codeobj_info_free(info);
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
	rocjit_codeobj_info_free(info);
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
		rocjit_codeobj_info_free(info);
		rocjit_codeobj_info_free(noinfo);
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
	rocjit_codeobj_info_free(info);
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
	rocjit_codeobj_info_free(info);
	free(co);

	s.symtab = NULL; /* a stripped shared object: .dynsym alone */
	co = build_co(&s, &size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 3);
	ASSERT_STR(info->kernels[0], "scale");
	ASSERT_STR(info->kernels[1], "only_dyn");
	ASSERT_STR(info->kernels[2], "axpy");
	rocjit_codeobj_info_free(info);
	free(co);

	s.dynsym = NULL; /* no symbol table: valid, no kernels */
	co = build_co(&s, &size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 0);
	rocjit_codeobj_info_free(info);
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
	rocjit_codeobj_info_free(NULL);
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

/* ---- NVIDIA CUBINs ---- */

/*
 * What build_cubin makes.  Symbols are "T:name", T one of
 *   E  a kernel: global STT_FUNC, st_other STO_CUDA_ENTRY, its own section .text.name
 *   W  the same, weak (a template instance)
 *   D  a __device__ function as -rdc=true leaves it: global STT_FUNC, st_other 0, own .text
 *   L  a __device__ function copied into a kernel: local STT_FUNC "$kernel$callee", st_other 0
 *   O  a variable (STT_OBJECT), Q the same with the STO_CUDA_ENTRY bit set
 *   U  an undefined function (vprintf), N the same with the STO_CUDA_ENTRY bit set
 */
struct cubin_spec {
	unsigned sm;              /* 90 for sm_90                                        */
	int accel;                /* .nv.compat attribute 0x09: 1 ("a") or 0; -1: no
	                             .nv.compat section, as below sm_90                   */
	unsigned abi;             /* 0 or 8: CUDA 13 layout; 7: CUDA 12 layout             */
	uint32_t extra_flags;     /* or'ed into e_flags                                    */
	const char *const *syms;  /* NULL-terminated; NULL: cubin_syms                     */
	const struct buf *compat; /* raw .nv.compat instead of the generated one           */
	int shdrs_first;
};

static const char *const cubin_syms[] = { "L:$axpy$_Z6helperff", "D:_Z6helperff", "O:gvar",
					  "U:vprintf", "W:_Z2tkILi3EEvPf", "E:scale", "E:axpy",
					  NULL };

/* e_flags as CUDA writes them (see src/codeobj/codeobj.c): CUDA 13 puts the SM in bits 8-15,
 * CUDA 12 in the low byte with 64-bit addressing, texture mode and the virtual SM. */
static uint32_t cubin_flags(const struct cubin_spec *s)
{
	if (s->abi == 7)
		return s->sm | 0x500u | s->sm << 16 | s->extra_flags;
	return 0x06000000u | s->sm << 8 | (s->sm < 100 ? 0x04u : 0x02u) | s->extra_flags;
}

/*
 * Builds a CUBIN from spec, laid out as NVRTC 13 does: .shstrtab, .strtab, .symtab,
 * .nv.compat, then one .text section per kernel or global device function.  Returns it
 * malloc'ed, *size its length.
 */
static unsigned char *build_cubin(const struct cubin_spec *s, size_t *size)
{
	static struct buf symtab, strtab, compat, text[8];
	static char names[8][80];
	const char *const *syms = s->syms ? s->syms : cubin_syms;
	struct sect sec[16] = { { "", 0, 0, 0, 0, 0, NULL, 0, 0 } };
	struct ehdr eh = { 190, s->abi == 7 ? 51 : 65, s->abi ? s->abi : 8, 2, cubin_flags(s),
			   s->shdrs_first };
	unsigned n = 4, ntext = 0, last_text = 1, nlocal = 0;

	symtab.n = strtab.n = compat.n = 0;
	sec[1] = (struct sect){ ".shstrtab", 3, 0, 0, 1, 0, NULL, 0, 0 };
	sec[2] = (struct sect){ ".strtab", 3, 0, 0, 1, 0, &strtab, 0, 0 };
	sec[3] = (struct sect){ ".symtab", 2, 2, 0, 8, 24, &symtab, 0, 0 };
	if (s->compat || s->accel >= 0) {
		if (s->compat) {
			compat = *s->compat;
		} else { /* the records CUDA 13.0 writes for sm_90[a] */
			put(&compat, "\2\11", 2);
			put_le(&compat, (unsigned)s->accel, 2);
			put(&compat, "\2\2\1\0\2\5\5\0\3\7\1\1\2\3\0\0\2\6\1\0\4\13\10\0", 24);
			put_le(&compat, 0, 8);
		}
		sec[n++] = (struct sect){ ".nv.compat", 0x70000086, 0, 0, 4, 0, &compat, 0, 0 };
	}
	put_u8(&strtab, 0);
	memset(symtab.d, 0, 24);
	symtab.n = 24;
	for (size_t i = 0; syms[i]; i++) {
		char t = syms[i][0];
		const char *name = syms[i] + 2;
		unsigned shndx = 0;

		if (t == 'E' || t == 'W' || t == 'D') {
			ASSERT(ntext < 8 && n < 16);
			snprintf(names[ntext], sizeof names[ntext], ".text.%s", name);
			text[ntext].n = 0;
			for (unsigned k = 0; k < 32; k++) /* stands for SASS */
				put_u8(&text[ntext], (unsigned)(i * 7 + k));
			sec[n] = (struct sect){ names[ntext], 1, 3, 0, 128, 0, &text[ntext], 0, 0 };
			shndx = last_text = n++;
			ntext++;
		} else if (t == 'L') {
			shndx = last_text;
		} else if (t == 'O' || t == 'Q') {
			shndx = 1;
		}
		put_le(&symtab, strtab.n, 4);
		put_u8(&symtab, (t == 'L' ? 0x00 : t == 'W' ? 0x20 : 0x10) |
				(t == 'O' || t == 'Q' ? 1 : 2)); /* bind << 4 | OBJECT/FUNC */
		put_u8(&symtab, t == 'E' || t == 'W' || t == 'Q' || t == 'N' ? 0x10 : 0);
		put_le(&symtab, shndx, 2);
		put_le(&symtab, 0, 8);
		put_le(&symtab, t == 'U' || t == 'N' ? 0 : 32, 8);
		put(&strtab, name, strlen(name) + 1);
		nlocal += t == 'L' && nlocal == i;
	}
	sec[3].info = 1 + nlocal; /* the first global symbol */
	return build_elf(&eh, sec, n, size);
}

static unsigned char *build_sm(unsigned sm, int accel, size_t *size)
{
	struct cubin_spec s = { sm, accel, 8, 0, NULL, NULL, 0 };

	return build_cubin(&s, size);
}

TEST(codeobj_cubin_target_from_flags_and_compat)
{
	static const struct {
		unsigned sm;
		int accel;
		unsigned abi;
		uint32_t extra;
		const char *want;
	} cases[] = {
		{ 75, -1, 8, 0, "sm_75" },       { 80, -1, 8, 0, "sm_80" },
		{ 86, -1, 8, 0, "sm_86" },       { 89, -1, 8, 0, "sm_89" },
		{ 90, 0, 8, 0, "sm_90" },        { 90, 1, 8, 0, "sm_90a" },
		{ 100, 0, 8, 0, "sm_100" },      { 100, 1, 8, 0, "sm_100a" },
		{ 120, 0, 8, 0, "sm_120" },      { 120, 1, 8, 0, "sm_120a" },
		{ 121, 1, 8, 0, "sm_121a" },
		{ 90, 0, 8, 0x8, "sm_90a" }, /* LLVM's EF_CUDA_ACCELERATORS (CUDA 13.0 sets none) */
		{ 90, -1, 7, 0, "sm_90" },       { 80, -1, 7, 0, "sm_80" },
		{ 90, -1, 7, 0x800, "sm_90a" },  { 90, 1, 7, 0, "sm_90a" },
		{ 90, 0, 7, 0x8, "sm_90" }, /* 0x8 means nothing in the CUDA 12 layout */
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int first = 0; first < 2; first++) {
			struct cubin_spec s = { cases[i].sm, cases[i].accel, cases[i].abi,
						cases[i].extra, NULL, NULL, first };
			rocjit_codeobj_info *info;
			size_t size;
			unsigned char *co = build_cubin(&s, &size);

			ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
			ASSERT_INT(info->platform, ROCJIT_PLATFORM_NVIDIA);
			ASSERT_STR(info->target, cases[i].want);
			ASSERT_STR(info->flags_target, cases[i].want);
			ASSERT_STR(rocjit_last_error(), "");
			rocjit_codeobj_info_free(info);
			free(co);
		}
	}
}

TEST(codeobj_cubin_headers_are_the_measured_ones)
{
	/* e_flags of NVRTC 13.0 output (-arch=sm_80, sm_90, sm_90a, sm_100a, sm_120): the
	 * synthetic images must carry them, or the tests above prove nothing. */
	static const struct {
		unsigned sm;
		int accel;
		uint32_t flags;
	} cases[] = { { 80, -1, 0x06005004 }, { 90, 0, 0x06005a04 }, { 90, 1, 0x06005a04 },
		      { 100, 1, 0x06006402 },  { 120, 0, 0x06007802 } };

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t size;
		unsigned char *co = build_sm(cases[i].sm, cases[i].accel, &size);

		ASSERT(memcmp(co, "\177ELF\2\1\1\101\10", 9) == 0); /* OS/ABI 65, ABI 8 */
		ASSERT_INT(co[16] | co[17] << 8, 2);                /* ET_EXEC        */
		ASSERT_INT(co[18] | co[19] << 8, 190);              /* EM_CUDA        */
		ASSERT_INT((uint32_t)co[48] | (uint32_t)co[49] << 8 | (uint32_t)co[50] << 16 |
				   (uint32_t)co[51] << 24,
			   cases[i].flags);
		free(co);
	}
}

TEST(codeobj_cubin_kernel_names_exclude_device_functions)
{
	/* Local and global device functions, variables, undefined functions and symbols that
	 * carry the entry bit without being defined functions are not kernels; a kernel
	 * listed twice is listed once. */
	static const char *const syms[] = { "L:$k1$_Z3devf", "L:$scale$helper2", "O:gvar",
					    "W:_Z2tkILi3EEvPf", "D:_Z3devf", "E:k1", "U:vprintf",
					    "N:undef_entry", "Q:entry_var", "D:helper2",
					    "E:scale", "E:k1", NULL };
	static const char *const want[] = { "_Z2tkILi3EEvPf", "k1", "scale" };
	struct cubin_spec s = { 90, 0, 8, 0, syms, NULL, 0 };
	rocjit_codeobj_info *info;
	size_t size;
	unsigned char *co = build_cubin(&s, &size);
	char *list = NULL;

	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 3);
	for (size_t i = 0; i < 3; i++)
		ASSERT_STR(info->kernels[i], want[i]);
	rocjit_codeobj_info_free(info);
	ASSERT_INT(rj_codeobj_check(co, size, "sm_90", &list), 0);
	ASSERT_STR(list, "_Z2tkILi3EEvPf,k1,scale");
	free(list);
	free(co);

	s.syms = (const char *const[]){ "L:$k$dev", "D:dev", "U:vprintf", NULL };
	co = build_cubin(&s, &size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
	ASSERT_INT(info->num_kernels, 0);
	rocjit_codeobj_info_free(info);
	free(co);
}

TEST(codeobj_cubin_rejects_truncated_data_at_every_length)
{
	for (int first = 0; first < 2; first++) {
		struct cubin_spec s = { 90, 1, 8, 0, NULL, NULL, first };
		size_t size;
		unsigned char *co = build_cubin(&s, &size);

		ASSERT_INT(inspect_rc(co, size), 0);
		for (size_t n = 1; n < size; n++) {
			unsigned char *part = malloc(n); /* exact size: ASan sees overreads */

			ASSERT(part);
			memcpy(part, co, n);
			ASSERT_INT(inspect_rc(part, n), ROCJIT_EFORMAT);
			free(part);
		}
		free(co);
	}
}

TEST(codeobj_cubin_survives_random_byte_flips)
{
	uint64_t seed = 0x2545f4914f6cdd1dull;
	int ok = 0;

	for (int round = 0; round < 6000; round++) {
		struct cubin_spec s = { round & 4 ? 120 : 90, 1, round & 8 ? 7 : 8, 0, NULL, NULL,
					round & 1 };
		size_t size;
		unsigned char *co = build_cubin(&s, &size);
		int flips = 1 + (int)(xorshift(&seed) % 4), rc;
		char *list = NULL;

		for (int f = 0; f < flips; f++) {
			/* Half the flips land in the first 512 bytes: header, tables, .nv.compat. */
			size_t at = (size_t)(xorshift(&seed) %
					     (round & 2 || size < 512 ? size : 512));

			co[at] ^= (unsigned char)(1 + xorshift(&seed) % 255);
		}
		rc = inspect_rc(co, size);
		ASSERT(rc == 0 || rc == ROCJIT_EFORMAT);
		ok += rc == 0;
		rc = rj_codeobj_check(co, size, "sm_90a", &list);
		ASSERT(rc == 0 ? list != NULL : list == NULL);
		free(list);
		free(co);
	}
	printf("%d of 6000 flipped CUBINs still parsed\n", ok);
}

TEST(codeobj_cubin_rejects_malformed_data)
{
	static const struct {
		size_t at;
		unsigned char value;
		const char *msg;
	} edits[] = {
		{ 7, 0, "OS/ABI 0" },          { 8, 6, "ABI version 6" },
		{ 8, 9, "ABI version 9" },     { 16, 3, "ELF type 3" },
		{ 49, 0, "unknown NVIDIA" },   { 49, 19, "SM 19" },
		{ 18, 191, "e_machine 191" },
	};
	static const struct {
		const char *bytes;
		size_t n;
		const char *msg;
	} compats[] = {
		{ "\2\11\1", 3, "truncated at byte 0" },
		{ "\2\11\1\0\2\2", 6, "truncated at byte 4" },
		{ "\2\11\1\0\5\2\1\0", 8, "unknown format 5 at byte 4" },
		{ "\0\0\0\0", 4, "unknown format 0" },
		{ "\4\13\11\0\0\0\0\0\0\0\0\0", 12, "overflows" },
	};
	unsigned char junk[2048];
	uint64_t seed = 7;

	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		size_t size;
		unsigned char *co = build_sm(90, 1, &size);

		co[edits[i].at] = edits[i].value;
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), edits[i].msg);
		free(co);
	}
	for (size_t i = 0; i < sizeof compats / sizeof compats[0]; i++) {
		struct buf raw = { { 0 }, 0 };
		struct cubin_spec s = { 90, 0, 8, 0, NULL, &raw, 0 };
		size_t size;
		unsigned char *co;

		put(&raw, compats[i].bytes, compats[i].n);
		co = build_cubin(&s, &size);
		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), ".nv.compat");
		ASSERT_CONTAINS(rocjit_last_error(), compats[i].msg);
		free(co);
	}
	{ /* a kernel without a name */
		struct cubin_spec s = { 90, 0, 8, 0, (const char *const[]){ "E:", NULL }, NULL, 0 };
		size_t size;
		unsigned char *co = build_cubin(&s, &size);

		ASSERT_INT(inspect_rc(co, size), ROCJIT_EFORMAT);
		ASSERT_CONTAINS(rocjit_last_error(), "empty name");
		free(co);
	}
	for (int round = 0; round < 200; round++) { /* a plausible header over random tables */
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (unsigned char)xorshift(&seed);
		memcpy(junk, "\177ELF\2\1\1\101\10\0\0\0\0\0\0\0\2\0\276\0\1\0\0\0", 24);
		if (round & 1)
			junk[7] = 51, junk[8] = 7;
		ASSERT_INT(inspect_rc(junk, sizeof junk), ROCJIT_EFORMAT);
	}
}

TEST(codeobj_check_cubin_targets)
{
	static const struct {
		unsigned sm;
		int accel;
		const char *target;
		int rc;
	} cases[] = {
		{ 90, 0, "sm_90", 0 },          { 90, 0, "sm_90a", ROCJIT_EFORMAT },
		{ 90, 0, "sm_80", ROCJIT_EFORMAT }, { 90, 0, "sm_9", ROCJIT_EINVAL },
		{ 90, 1, "sm_90a", 0 },         { 90, 1, "sm_90", ROCJIT_EFORMAT },
		{ 90, 1, "sm_80", ROCJIT_EFORMAT }, { 80, -1, "sm_80", 0 },
		{ 80, -1, "sm_90", ROCJIT_EFORMAT }, { 80, -1, "sm_90a", ROCJIT_EFORMAT },
		{ 80, -1, "sm_800", ROCJIT_EFORMAT }, { 100, 0, "sm_100", 0 },
		{ 100, 0, "sm_100a", ROCJIT_EFORMAT }, { 100, 0, "sm_100f", 0 },
		{ 100, 1, "sm_100f", ROCJIT_EFORMAT }, { 100, 1, "sm_100a", 0 },
		{ 100, 0, "sm_10", ROCJIT_EFORMAT }, { 120, 0, "sm_120f", 0 },
	};
	static const char *const bad[] = { "sm_", "sm_9", "sm_090", "sm_90b", "sm_90af",
					   "sm_1000", "sm_90:xnack-", "sm_9a0", "sm_x0" };
	size_t size;
	unsigned char *co;
	char *list = (char *)&list;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		co = build_sm(cases[i].sm, cases[i].accel, &size);
		ASSERT_INT(rj_codeobj_check(co, size, cases[i].target, NULL), cases[i].rc);
		if (cases[i].rc == ROCJIT_EFORMAT)
			ASSERT_CONTAINS(rocjit_last_error(), "expected");
		free(co);
	}
	co = build_sm(90, 0, &size);
	ASSERT_INT(rj_codeobj_check(co, size, "sm_90a", &list), ROCJIT_EFORMAT);
	ASSERT_STR(rocjit_last_error(), "code object is for sm_90, expected sm_90a");
	ASSERT(list == NULL);
	ASSERT_INT(rj_codeobj_check(co, size, "sm_90", &list), 0);
	ASSERT_STR(list, "_Z2tkILi3EEvPf,scale,axpy");
	free(list);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		list = (char *)&list;
		ASSERT_INT(rj_codeobj_check(co, size, bad[i], &list), ROCJIT_EINVAL);
		ASSERT(list == NULL);
	}
	free(co);
	co = build_sm(90, 1, &size);
	ASSERT_INT(rj_codeobj_check(co, size, "sm_90", NULL), ROCJIT_EFORMAT);
	ASSERT_STR(rocjit_last_error(), "code object is for sm_90a, expected sm_90");
	free(co);
}

TEST(codeobj_check_refuses_other_platform)
{
	size_t size;
	unsigned char *co = build_sm(90, 0, &size);
	char *list = (char *)&list;

	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a", &list), ROCJIT_EFORMAT);
	ASSERT_STR(rocjit_last_error(),
		   "code object is for sm_90 (NVIDIA), expected gfx90a (AMD): the platforms "
		   "differ");
	ASSERT(list == NULL);
	ASSERT_INT(rj_codeobj_check(co, size, "gfx90a:sramecc+:xnack-", NULL), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), "platforms differ");
	free(co);
	co = build_default(&size, 0);
	ASSERT_INT(rj_codeobj_check(co, size, "sm_90", &list), ROCJIT_EFORMAT);
	ASSERT_STR(rocjit_last_error(), "code object is for gfx90a:sramecc+:xnack- (AMD), "
					"expected sm_90 (NVIDIA): the platforms differ");
	ASSERT(list == NULL);
	ASSERT_INT(rj_codeobj_check(co, size, "sm_90a", NULL), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), "platforms differ");
	free(co);
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
		rj_test_skip("libamdhip64.so.5 not available (%s)", dlerror());
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
		rocjit_codeobj_info_free(info);
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

/* ---- Real CUBINs from NVRTC, when it is installed ---- */

typedef int (*log_size_fn)(void *, size_t *);
typedef int (*log_fn)(void *, char *);

static const char nvrtc_src[] =
	"__device__ __noinline__ float twice(float v) { return 2.0f * v; }\n"
	"extern \"C\" __device__ __noinline__ float thrice(float v) { return 3.0f * v; }\n"
	"extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  if (i < n) y[i] = twice(a) * x[i] + y[i]; }\n"
	"extern \"C\" __global__ void scale(float a, float *y, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = thrice(y[i]) * a; }\n";

TEST(codeobj_reads_real_nvrtc_cubins)
{
	static const char *const libs[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
					    "/usr/local/cuda/lib64/libnvrtc.so" };
	static const struct {
		const char *arch, *rdc, *target, *other;
	} cases[] = {
		{ "-arch=sm_90", NULL, "sm_90", "sm_90a" },
		{ "-arch=sm_80", NULL, "sm_80", "sm_90" },
		{ "-arch=sm_90a", NULL, "sm_90a", "sm_90" },
		/* device functions become global STT_FUNC symbols with their own .text */
		{ "-arch=sm_90", "-rdc=true", "sm_90", "gfx90a" },
	};
	void *lib = NULL;
	create_fn create;
	compile_fn compile;
	size_fn code_size;
	code_fn get_code;
	destroy_fn destroy;
	log_size_fn log_size;
	log_fn get_log;

	for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !lib; i++)
		lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		rj_test_skip("NVRTC not found");
	}
	sym(lib, "nvrtcCreateProgram", &create, sizeof create);
	sym(lib, "nvrtcCompileProgram", &compile, sizeof compile);
	sym(lib, "nvrtcGetCUBINSize", &code_size, sizeof code_size);
	sym(lib, "nvrtcGetCUBIN", &get_code, sizeof get_code);
	sym(lib, "nvrtcDestroyProgram", &destroy, sizeof destroy);
	sym(lib, "nvrtcGetProgramLogSize", &log_size, sizeof log_size);
	sym(lib, "nvrtcGetProgramLog", &get_log, sizeof get_log);
	for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
		const char *opts[2] = { cases[t].arch, cases[t].rdc };
		void *prog = NULL;
		size_t size = 0, n = 0;
		char *co, *list = NULL;
		rocjit_codeobj_info *info;
		int rc;

		ASSERT_INT(create(&prog, nvrtc_src, "real.cu", 0, NULL, NULL), 0);
		rc = compile(prog, cases[t].rdc ? 2 : 1, opts);
		if (rc != 0) {
			char *log;

			ASSERT_INT(log_size(prog, &n), 0);
			log = malloc(n + 1);
			ASSERT(log);
			ASSERT_INT(get_log(prog, log), 0);
			log[n] = 0;
			rj_test_fail(__FILE__, __LINE__, "NVRTC %s: %d\n%s", cases[t].arch, rc,
				     log);
		}
		ASSERT_INT(code_size(prog, &size), 0);
		co = malloc(size);
		ASSERT(co && size > 64);
		ASSERT_INT(get_code(prog, co), 0);
		destroy(&prog);

		ASSERT_INT(rocjit_codeobj_inspect(&info, co, size), 0);
		ASSERT_INT(info->platform, ROCJIT_PLATFORM_NVIDIA);
		ASSERT_STR(info->target, cases[t].target);
		ASSERT_STR(info->flags_target, cases[t].target);
		/* NVRTC's symbol order is not the source order: any order, each once. */
		ASSERT_INT(info->num_kernels, 2);
		ASSERT((!strcmp(info->kernels[0], "axpy") && !strcmp(info->kernels[1], "scale")) ||
		       (!strcmp(info->kernels[1], "axpy") && !strcmp(info->kernels[0], "scale")));
		ASSERT_INT(rj_codeobj_check(co, size, cases[t].target, &list), 0);
		ASSERT(strlen(list) == 10 && strstr(list, info->kernels[0]) == list);
		free(list);
		rocjit_codeobj_info_free(info);
		ASSERT_INT(rj_codeobj_check(co, size, cases[t].other, NULL), ROCJIT_EFORMAT);
		for (n = 1; n < size; n += 7)
			ASSERT_INT(inspect_rc(co, n), ROCJIT_EFORMAT);
		free(co);
	}
	/* Not dlclose'd: NVRTC's static C++ runtime keeps a pool that LeakSanitizer would
	 * report once the library is unmapped. */
}

/* A symbol table linked to section 0 (the null section, whose extent elf_open never
 * checks) is a format error, not a read at the null section's bogus offset. */
TEST(codeobj_symbol_table_linked_to_section_zero_is_format_error)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_codeobj_info *info;
	unsigned char *img;
	uint64_t shoff;
	uint16_t shentsize, shnum;
	int patched = 0;

	p.source = rj_test_axpy;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	img = malloc(code->size);
	memcpy(img, code->data, code->size);
	memcpy(&shoff, img + 0x28, 8);
	memcpy(&shentsize, img + 0x3a, 2);
	memcpy(&shnum, img + 0x3c, 2);
	for (uint16_t i = 1; i < shnum; i++) {
		unsigned char *sh = img + shoff + (uint64_t)i * shentsize;
		uint32_t type;
		memcpy(&type, sh + 4, 4);
		if (type == 2 || type == 11) { /* SHT_SYMTAB, SHT_DYNSYM */
			memset(sh + 40, 0, 4); /* sh_link = 0 */
			patched = 1;
		}
	}
	{
		/* Section 0: a string table far outside the image. */
		unsigned char *sh0 = img + shoff;
		uint32_t strtab = 3;
		uint64_t far = 0x10000000, size = 64;
		memcpy(sh0 + 4, &strtab, 4);
		memcpy(sh0 + 24, &far, 8);
		memcpy(sh0 + 32, &size, 8);
	}
	ASSERT(patched);
	ASSERT_INT(rocjit_codeobj_inspect(&info, img, code->size), ROCJIT_EFORMAT);
	free(img);
	rocjit_close(ctx);
}

/* The pointer variables rocjit adds for hipRTC's name expressions, read back (any cut of
 * the object is an error, never a read outside it). */
TEST(codeobj_pointer_variable_names_its_kernel_and_truncation_is_an_error)
{
	static const char src[] =
		"template <unsigned B> __global__ void mm(float *y) { y[0] = B; }\n"
		"extern \"C\" __device__ __attribute__((used)) const void *ne_0 = "
		"(const void *)&(mm<16>);\n"
		"extern \"C\" __device__ __attribute__((used)) const void *ne_1 = "
		"(const void *)&(mm<2+2>);\n";
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;
	char *func = NULL;

	p.source = src;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_INT(rj_codeobj_amd_pointee(c->data, c->size, "ne_0", &func), 0);
	ASSERT_STR(func, "_Z2mmILj16EEvPf");
	free(func);
	ASSERT_INT(rj_codeobj_amd_pointee(c->data, c->size, "ne_1", &func), 0);
	ASSERT_STR(func, "_Z2mmILj4EEvPf");
	free(func);
	ASSERT_INT(rj_codeobj_amd_pointee(c->data, c->size, "ne_2", &func), ROCJIT_ENOTFOUND);
	ASSERT(func == NULL);
	/* A kernel descriptor is a variable, but no pointer: no relocation names it. */
	ASSERT_INT(rj_codeobj_amd_pointee(c->data, c->size, "_Z2mmILj16EEvPf.kd", &func),
		   ROCJIT_ENOTFOUND);
	for (size_t n = 0; n < c->size; n += n < 128 ? 1 : 61) {
		unsigned char *cut = malloc(n ? n : 1);
		memcpy(cut, c->data, n);
		ASSERT(rj_codeobj_amd_pointee(cut, n, "ne_0", &func) != 0);
		ASSERT(func == NULL);
		free(cut);
	}
	rocjit_close(ctx);
}

/* What a module's variable lookup can find, listed for its not-found message: real
 * hipRTC and NVRTC objects, namespaced and plain variables, never a kernel. */
TEST(codeobj_lists_the_variables_of_real_objects)
{
	static const char src[] = "namespace ns { __constant__ float table[16]; }\n"
				  "__device__ int counter;\n"
				  "extern \"C\" __global__ void k(float *y)\n"
				  "{ y[threadIdx.x] = ns::table[threadIdx.x] + counter; }\n";
	static const char *const targets[] = { "gfx90a", "sm_90" };
	static const int platforms[] = { ROCJIT_PLATFORM_AMD, ROCJIT_PLATFORM_NVIDIA };
	rocjit_ctx *ctx;
	char buf[64];

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		const rocjit_code *c;
		char vars[256], cut[16];

		/* NVRTC is optional where hipRTC is there: said, never passed silently. */
		if (rocjit_compiler_targets_get(buf, sizeof buf, platforms[i]) != 0) {
			printf("SKIP part: no compiler for %s (%s)\n", targets[i],
			       rocjit_last_error());
			continue;
		}
		ASSERT_INT(rj_test_compile(&c, ctx, targets[i], "vars.hip", src, NULL, 0, NULL, 0,
					   NULL, 0), 0);
		ASSERT_INT(rj_codeobj_variables(c->data, c->size, vars, sizeof vars), 0);
		printf("%s: %s\n", targets[i], vars);
		ASSERT_CONTAINS(vars, "_ZN2ns5tableE");
		ASSERT_CONTAINS(vars, "counter");
		ASSERT(strstr(vars, ".kd") == NULL);
		ASSERT_INT(rj_codeobj_has_variable(c->data, c->size, "counter"), 1);
		ASSERT_INT(rj_codeobj_has_variable(c->data, c->size, "k"), 0);
		/* Cut short: says so. */
		ASSERT_INT(rj_codeobj_variables(c->data, c->size, cut, sizeof cut), 0);
		ASSERT(strlen(cut) < sizeof cut);
		ASSERT_CONTAINS(cut, "...");
	}
	ASSERT_INT(rj_codeobj_variables("junk", 4, (char[16]){ 0 }, 16), ROCJIT_EFORMAT);
	rocjit_close(ctx);
}
