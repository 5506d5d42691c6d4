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
