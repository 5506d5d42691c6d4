/*
 * elf.h - the ELF64 container the code-object readers share (codeobj.c: targets and
 * kernels; reloc.c: what a pointer variable points to): its constants, the checked view
 * of a file, and bounds-checked, byte-wise loads.  Internal to src/codeobj/.
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
};

struct shdr {
	uint32_t type, link;
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

	sh->type = (uint32_t)le(q + 4, 4);
	sh->off = le(q + 24, 8);
	sh->size = le(q + 32, 8);
	sh->link = (uint32_t)le(q + 40, 4);
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

#endif
