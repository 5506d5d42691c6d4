/*
 * reloc.c - what a pointer variable of an AMDGPU code object points to, read from its
 * relocation: how hipRTC's name expressions are lowered exactly (platform_amd.c compiles a
 * `const void *v = &(EXPR);` per expression and asks which kernel v points to).  Pure
 * functions over the caller's bytes; every read bounds-checked (elf.h).
 */
#include <stdio.h>
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

struct var_list {
	char *out;
	size_t size, len;
	int cuda;
};

/* Whether the list out[0..len) ("a, b") holds name already: .symtab and .dynsym both
 * list an AMD object's variables. */
static int var_listed(const struct var_list *v, const char *name, size_t n)
{
	for (const char *p = v->out; p < v->out + v->len; p += strcspn(p, ",") + 2)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
	return 0;
}

/*
 * AMD: variables have global binding (weak ones are the runtime's template statics);
 * CUBIN: every variable is local, in .nv.global or .nv.constantN, beside the toolchain's
 * own objects (".nv.reservedSmem...", "$str" for printf's formats).  On both, what the
 * served headers define (std::integral_constant<...>::value, HIP's coordinates) is no
 * variable a user asks for.
 */
static int var_add(const struct rj_sym *sym, void *user)
{
	struct var_list *v = user;
	size_t n = strlen(sym->name);

	if (v->cuda ? sym->name[0] == '.' || sym->name[0] == '$' || n == 0
		    : sym->bind != 1 || (n > 3 && strcmp(sym->name + n - 3, ".kd") == 0))
		return 0;
	/* The served headers' own: std's constants, HIP's built-in coordinates. */
	if (strncmp(sym->name, "_ZNSt", 5) == 0 || strncmp(sym->name, "_ZSt", 4) == 0 ||
	    strstr(sym->name, "__HIP_"))
		return 0;
	if (var_listed(v, sym->name, n))
		return 0;
	if (v->len + n + (v->len ? 2 : 0) + 4 > v->size) { /* room for ", ..." */
		snprintf(v->out + v->len, v->size - v->len, "%s...", v->len ? ", " : "");
		return 1;
	}
	v->len += (size_t)snprintf(v->out + v->len, v->size - v->len, "%s%s",
				   v->len ? ", " : "", sym->name);
	return 0;
}

int rj_codeobj_variables(const void *data, size_t size, char *out, size_t out_size)
{
	struct var_list v = { out, out_size, 0, 0 };
	struct elf e;
	int rc;

	if (out_size)
		out[0] = 0;
	RJ_CHECK(out_size < 8, ROCJIT_EINVAL, "rj_codeobj_variables: no room");
	RJ_FORWARD(rj_elf_open(&e, data, size));
	v.cuda = e.machine == EM_CUDA;
	rc = rj_elf_sym_each(&e, STT_OBJECT, var_add, &v);
	return rc < 0 ? rc : 0;
}
