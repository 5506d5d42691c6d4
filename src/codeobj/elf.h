/*
 * elf.h - the ELF64 container the code-object readers share (codeobj.c: targets and
 * kernels; reloc.c: what a pointer variable points to; resources.c and cubin.c: what each
 * kernel uses): its constants, the checked view of a file, section names, the AMDGPU
 * metadata note, and bounds-checked, byte-wise loads.  Internal to src/codeobj/.
 */
#ifndef ROCJIT_CODEOBJ_ELF_H
#define ROCJIT_CODEOBJ_ELF_H

#include <stddef.h>
#include <stdint.h>

#define EHDR_SIZE 64
#define PHDR_SIZE 56
#define SHDR_SIZE 64
#define SYM_SIZE 24
#define EM_AMDGPU 0xe0
#define EM_CUDA 190
#define ELFOSABI_AMDGPU_HSA 64
#define ELFOSABI_CUDA 51    /* with ABI version 7: CUDA 12 and older */
#define ELFOSABI_CUDA_V2 65 /* with ABI version 8: CUDA 13 */
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOTE 7
#define SHT_NOBITS 8
#define SHT_DYNSYM 11
#define NT_AMDGPU_METADATA 32
#define STT_OBJECT 1
#define STT_FUNC 2
#define STO_CUDA_ENTRY 0x10

typedef unsigned long long ull;

struct elf {
	const unsigned char *p;
	unsigned machine; /* EM_AMDGPU or EM_CUDA */
	uint32_t flags;
	unsigned abi;     /* EI_ABIVERSION: AMDGPU 1..3 = code object v3..v5; CUDA 7 or 8 */
	uint64_t shoff;
	unsigned shnum;
	unsigned shstrndx; /* e_shstrndx, unchecked: rj_elf_section_name checks it */
};

struct shdr {
	uint32_t name, type, link, info;
	uint64_t off, size, align, entsize;
};

/* Loads an n-byte integer, little- or big-endian; the caller has checked the range.
 * Byte-wise, so neither alignment nor the host's byte order matter. */
static inline uint64_t ld(const unsigned char *p, int n, int big)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[big ? i : n - 1 - i];
	return v;
}

#define le(p, n) ld((p), (n), 0)

/* Whether [off, off+len) lies inside a buffer of size bytes, without overflowing. */
static inline int in_range(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static inline void shdr_get(const struct elf *e, unsigned i, struct shdr *sh)
{
	const unsigned char *q = e->p + e->shoff + (uint64_t)i * SHDR_SIZE;

	sh->name = (uint32_t)le(q, 4);
	sh->type = (uint32_t)le(q + 4, 4);
	sh->off = le(q + 24, 8);
	sh->size = le(q + 32, 8);
	sh->link = (uint32_t)le(q + 40, 4);
	sh->info = (uint32_t)le(q + 44, 4);
	sh->align = le(q + 48, 8);
	sh->entsize = le(q + 56, 8);
}

/*
 * Checks the ELF header is an AMDGPU HSA code object (ELF64 LE, EM_AMDGPU, OSABI 64, ABI
 * v3..v5, relocatable or shared) or a CUBIN (ELF64 LE, EM_CUDA, OSABI 51 or 65, ABI 7 or 8,
 * relocatable (-rdc=true) or executable), and that the program and section header tables
 * and every section with file contents lie inside the data, so later readers only check
 * within a section.  0, or ROCJIT_EFORMAT saying what is wrong.
 */
int rj_elf_open(struct elf *e, const unsigned char *p, size_t size);

/* A symbol found by rj_elf_sym_find: its index in its table, value, section, st_other
 * and NUL-terminated name (inside the object). */
struct rj_sym {
	uint64_t index, value;
	unsigned shndx, other, bind; /* bind: STB_LOCAL 0, STB_GLOBAL 1, STB_WEAK 2 */
	const char *name;
};

/*
 * Calls fn for each defined symbol of type stt (STT_OBJECT, STT_FUNC) in e's symbol
 * tables whose name lies inside the object, in table order, until fn returns non-zero,
 * which is returned.  0 when fn never did, ROCJIT_EFORMAT for a malformed table.
 */
int rj_elf_sym_each(const struct elf *e, unsigned stt,
		    int (*fn)(const struct rj_sym *sym, void *user), void *user);

/*
 * The first defined symbol of type stt whose name is `name` (when name is not NULL) or
 * whose value is `value` (when name is NULL) goes to *found.  0 found, 1 none,
 * ROCJIT_EFORMAT for a malformed table.
 */
int rj_elf_sym_find(const struct elf *e, unsigned stt, const char *name, uint64_t value,
		    struct rj_sym *found);

/* The NUL-terminated name of section sh, or NULL when the object has no usable section
 * name table or the name does not lie inside it (a reader that needs a name then treats
 * the section as absent or the object as malformed, as it says). */
const char *rj_elf_section_name(const struct elf *e, const struct shdr *sh);

/*
 * Finds the first note with owner "AMDGPU" and type NT_AMDGPU_METADATA in the SHT_NOTE
 * sections; *desc gets its descriptor (NULL when there is none).  0, or ROCJIT_EFORMAT
 * when a note overflows its section.
 */
int rj_elf_amdgpu_metadata(const struct elf *e, const unsigned char **desc, size_t *desc_size);

#endif
