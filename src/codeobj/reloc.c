/*
 * reloc.c - what a pointer variable of an AMDGPU code object points to, read from its
 * relocation: how hipRTC's name expressions are lowered exactly (platform_amd.c compiles a
 * `const void *v = &(EXPR);` per expression and asks which kernel v points to).  Pure
 * functions over the caller's bytes; every read bounds-checked (elf.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "codeobj/codeobj.h"
#include "codeobj/elf.h"

#define SHT_RELA 4
#define R_AMDGPU_ABS64 3
#define R_AMDGPU_RELATIVE64 13

int rj_codeobj_amd_pointee(const void *data, size_t size, const char *variable, char **func)
{
	struct elf e;
	struct shdr sh;
	struct rj_sym sym;
	uint64_t at, target;
	int rc;

	*func = NULL;
	RJ_FORWARD(rj_elf_open(&e, data, size));
	RJ_CHECK(e.machine != EM_AMDGPU, ROCJIT_EFORMAT, "not an AMDGPU code object");
	rc = rj_elf_sym_find(&e, STT_OBJECT, variable, 0, &sym);
	at = sym.value;
	RJ_FORWARD(rc < 0 ? rc : 0);
	RJ_CHECK(rc, ROCJIT_ENOTFOUND, "code object has no variable %s", variable);
	for (unsigned i = 1; i < e.shnum; i++) {
		shdr_get(&e, i, &sh);
		if (sh.type != SHT_RELA || sh.entsize != 24 || sh.size % 24)
			continue;
		for (uint64_t k = 0; k < sh.size / 24; k++) {
			const unsigned char *q = e.p + sh.off + k * 24;
			uint64_t info = le(q + 8, 8);

			if (le(q, 8) != at)
				continue;
			if ((info & 0xffffffffu) == R_AMDGPU_RELATIVE64) {
				target = le(q + 16, 8); /* the addend is the function's address */
				rc = rj_elf_sym_find(&e, STT_FUNC, NULL, target, &sym);
				RJ_FORWARD(rc < 0 ? rc : 0);
				RJ_CHECK(rc, ROCJIT_ENOTFOUND, "%s points to no function", variable);
			} else if ((info & 0xffffffffu) == R_AMDGPU_ABS64 && le(q + 16, 8) == 0) {
				RJ_CHECK(sh.link == 0 || sh.link >= e.shnum, ROCJIT_EFORMAT,
					 "code object's relocations (section %u) link to no "
					 "section", i);
				shdr_get(&e, sh.link, &sh); /* the symbol table it indexes */
				RJ_CHECK((sh.type != SHT_SYMTAB && sh.type != SHT_DYNSYM) ||
					 sh.entsize != SYM_SIZE || (info >> 32) == 0 ||
					 (info >> 32) >= sh.size / SYM_SIZE, ROCJIT_EFORMAT,
					 "code object's relocation of %s is malformed", variable);
				rc = rj_elf_sym_find(&e, STT_FUNC, NULL,
						     le(e.p + sh.off + (info >> 32) * SYM_SIZE + 8, 8),
						     &sym);
				RJ_FORWARD(rc < 0 ? rc : 0);
				RJ_CHECK(rc, ROCJIT_ENOTFOUND, "%s points to no function", variable);
			} else {
				continue;
			}
			*func = strdup(sym.name);
			RJ_CHECK(!*func, ROCJIT_ENOMEM, "out of memory");
			return 0;
		}
	}
	RJ_FAIL(ROCJIT_ENOTFOUND, "code object has no relocation for %s", variable);
}

int rj_codeobj_has_variable(const void *data, size_t size, const char *name)
{
	struct elf e;
	struct rj_sym sym;
	int rc;

	RJ_FORWARD(rj_elf_open(&e, data, size));
	rc = rj_elf_sym_find(&e, STT_OBJECT, name, 0, &sym);
	return rc < 0 ? rc : !rc;
}
