/*
 * elf.c - opening an ELF64 code object: the header and table checks every reader of
 * src/codeobj/ relies on (see elf.h).  Pure function over the caller's bytes.
 */
#include <string.h>

#include "base/error.h"
#include "codeobj/elf.h"

int rj_elf_open(struct elf *e, const unsigned char *p, size_t size)
{
	uint64_t phoff;
	unsigned phnum, type, i;
	struct shdr sh;
	int cuda;

	RJ_CHECK(size < EHDR_SIZE || memcmp(p, "\177ELF", 4) != 0, ROCJIT_EFORMAT,
		 "code object is not an ELF file (%zu bytes, no ELF header)", size);
	RJ_CHECK(p[4] != 2 || p[5] != 1, ROCJIT_EFORMAT,
		 "code object is not a little-endian ELF64 file (class %u, data %u)", p[4], p[5]);
	e->machine = (unsigned)le(p + 18, 2);
	RJ_CHECK(e->machine != EM_AMDGPU && e->machine != EM_CUDA, ROCJIT_EFORMAT,
		 "code object is for e_machine %u, neither EM_AMDGPU (224) nor EM_CUDA (190)",
		 e->machine);
	cuda = e->machine == EM_CUDA;
	if (cuda) {
		RJ_CHECK(p[7] != ELFOSABI_CUDA && p[7] != ELFOSABI_CUDA_V2, ROCJIT_EFORMAT,
			 "CUBIN has OS/ABI %u, not CUDA (51 or 65)", p[7]);
		RJ_CHECK(p[8] != 7 && p[8] != 8, ROCJIT_EFORMAT,
			 "CUBIN has ABI version %u, not 7 (CUDA 12 and older) or 8 (CUDA 13)",
			 p[8]);
	} else {
		RJ_CHECK(p[7] != ELFOSABI_AMDGPU_HSA, ROCJIT_EFORMAT,
			 "code object has OS/ABI %u, not AMDGPU_HSA (64)", p[7]);
		RJ_CHECK(p[8] < 1 || p[8] > 3, ROCJIT_EFORMAT,
			 "code object has ABI version %u, not code object v3, v4 or v5 (1..3)",
			 p[8]);
	}
	RJ_CHECK(p[6] != 1 || le(p + 20, 4) != 1, ROCJIT_EFORMAT,
		 "code object has ELF version %u/%u, not 1", p[6], (unsigned)le(p + 20, 4));
	type = (unsigned)le(p + 16, 2);
	RJ_CHECK(type != 1 && type != (cuda ? 2u : 3u), ROCJIT_EFORMAT,
		 "code object has ELF type %u, neither relocatable (1) nor %s", type,
		 cuda ? "executable (2)" : "shared object (3)");
	e->p = p;
	e->abi = p[8];
	e->flags = (uint32_t)le(p + 48, 4);
	phoff = le(p + 32, 8);
	phnum = (unsigned)le(p + 56, 2);
	RJ_CHECK(phnum && (le(p + 54, 2) != PHDR_SIZE ||
			   !in_range(size, phoff, (uint64_t)phnum * PHDR_SIZE)), ROCJIT_EFORMAT,
		 "code object's program header table (offset %llu, %u entries) is malformed or "
		 "outside the %zu-byte file", (ull)phoff, phnum, size);
	e->shoff = le(p + 40, 8);
	e->shnum = (unsigned)le(p + 60, 2);
	e->shstrndx = (unsigned)le(p + 62, 2);
	RJ_CHECK(e->shnum == 0, ROCJIT_EFORMAT, "code object has no section headers");
	RJ_CHECK(le(p + 58, 2) != SHDR_SIZE, ROCJIT_EFORMAT,
		 "code object has section headers of %u bytes, not 64", (unsigned)le(p + 58, 2));
	RJ_CHECK(!in_range(size, e->shoff, (uint64_t)e->shnum * SHDR_SIZE), ROCJIT_EFORMAT,
		 "code object's section header table (offset %llu, %u entries) lies outside the "
		 "%zu-byte file", (ull)e->shoff, e->shnum, size);
	for (i = 1; i < e->shnum; i++) {
		shdr_get(e, i, &sh);
		RJ_CHECK(sh.type != SHT_NOBITS && !in_range(size, sh.off, sh.size), ROCJIT_EFORMAT,
			 "code object's section %u (offset %llu, %llu bytes) lies outside the "
			 "%zu-byte file", i, (ull)sh.off, (ull)sh.size, size);
	}
	return 0;
}

const char *rj_elf_section_name(const struct elf *e, const struct shdr *sh)
{
	struct shdr str;
	const char *s;

	if (e->shstrndx == 0 || e->shstrndx >= e->shnum)
		return NULL;
	shdr_get(e, e->shstrndx, &str);
	if (str.type != SHT_STRTAB || sh->name >= str.size)
		return NULL;
	s = (const char *)e->p + str.off + sh->name;
	return memchr(s, 0, (size_t)(str.size - sh->name)) ? s : NULL;
}

/* Note entries are padded to 4 bytes (8 when the section is 8-aligned), as LLVM writes
 * them. */
int rj_elf_amdgpu_metadata(const struct elf *e, const unsigned char **desc, size_t *desc_size)
{
	struct shdr sh;
	unsigned i;

	*desc = NULL;
	for (i = 1; i < e->shnum; i++) {
		uint64_t pos = 0, align;
		const unsigned char *q;

		shdr_get(e, i, &sh);
		if (sh.type != SHT_NOTE)
			continue;
		q = e->p + sh.off;
		align = sh.align == 8 ? 8 : 4;
		while (pos < sh.size && sh.size - pos >= 12) {
			uint64_t namesz = le(q + pos, 4), descsz = le(q + pos + 4, 4);
			uint64_t at = pos + 12 + ((namesz + align - 1) & ~(align - 1));

			RJ_CHECK(at > sh.size || descsz > sh.size - at, ROCJIT_EFORMAT,
				 "code object's note at byte %llu of section %u overflows the section",
				 (ull)pos, i);
			if (namesz == 7 && memcmp(q + pos + 12, "AMDGPU", 7) == 0 &&
			    le(q + pos + 8, 4) == NT_AMDGPU_METADATA) {
				*desc = q + at;
				*desc_size = (size_t)descsz;
				return 0;
			}
			pos = at + ((descsz + align - 1) & ~(align - 1));
		}
	}
	return 0;
}

/* read_kernels (codeobj.c) checks the same tables the same way. */
int rj_elf_sym_each(const struct elf *e, unsigned stt,
		    int (*fn)(const struct rj_sym *sym, void *user), void *user)
{
	struct shdr sh, str;
	struct rj_sym sym;
	int rc;

	for (unsigned i = 1; i < e->shnum; i++) {
		shdr_get(e, i, &sh);
		if (sh.type != SHT_SYMTAB && sh.type != SHT_DYNSYM)
			continue;
		RJ_CHECK(sh.entsize != SYM_SIZE || sh.size % SYM_SIZE || sh.link == 0 ||
			 sh.link >= e->shnum, ROCJIT_EFORMAT,
			 "code object's symbol table (section %u) is malformed", i);
		shdr_get(e, sh.link, &str);
		RJ_CHECK(str.type != SHT_STRTAB, ROCJIT_EFORMAT, "code object's symbol table "
			 "(section %u) links to no string table", i);
		for (uint64_t k = 1; k < sh.size / SYM_SIZE; k++) {
			const unsigned char *q = e->p + sh.off + k * SYM_SIZE;
			uint64_t off = le(q, 4);
			const char *s;

			if ((q[4] & 0xf) != stt || le(q + 6, 2) == 0 || off >= str.size)
				continue;
			s = (const char *)e->p + str.off + off;
			if (!memchr(s, 0, (size_t)(str.size - off)))
				continue;
			sym.index = k;
			sym.value = le(q + 8, 8);
			sym.shndx = (unsigned)le(q + 6, 2);
			sym.other = q[5];
			sym.bind = q[4] >> 4;
			sym.name = s;
			if ((rc = fn(&sym, user)) != 0)
				return rc;
		}
	}
	return 0;
}

struct sym_query {
	const char *name;
	uint64_t value;
	struct rj_sym *found;
};

static int sym_matches(const struct rj_sym *sym, void *user)
{
	struct sym_query *q = user;

	if (q->name ? strcmp(sym->name, q->name) != 0 : sym->value != q->value)
		return 0;
	*q->found = *sym;
	return 1;
}

int rj_elf_sym_find(const struct elf *e, unsigned stt, const char *name, uint64_t value,
		    struct rj_sym *found)
{
	struct sym_query q = { name, value, found };
	int rc = rj_elf_sym_each(e, stt, sym_matches, &q);

	return rc < 0 ? rc : rc == 1 ? 0 : 1;
}
