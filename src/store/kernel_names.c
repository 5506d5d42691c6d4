/*
 * kernel_names.c - the kernels column of an entry, and the name expressions it carries.
 *
 * The column holds the kernel symbols of the code object, comma separated (what
 * rocjit_entry.kernels shows and what bundle imports check against the code).  A program
 * compiled with name expressions ("scale<float, 4>") adds, after a line break, one line
 * per expression: the expression as the caller gave it, a tab, its lowered (mangled)
 * name.  Symbols never hold a line break, and name expressions may hold neither a line
 * break nor a tab (the request path refuses them), so the two parts cannot be confused,
 * and a column without a line break is exactly what format 2 always stored: no format
 * change (cache/FORMAT.md).  Owns no state; knows nothing of requests or compilers.
 */
#include <stdlib.h>
#include <string.h>

#include "codeobj/codeobj.h"
#include "store/cache.h"

char *rj_kernels_column(const char *kernels, const char *const *exprs, char *const *lowered,
			size_t n)
{
	size_t len = strlen(kernels) + 1;
	char *s, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(exprs[i]) + strlen(lowered[i]) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	p = stpcpy(s, kernels);
	for (size_t i = 0; i < n; i++) {
		*p++ = '\n';
		p = stpcpy(p, exprs[i]);
		*p++ = '\t';
		p = stpcpy(p, lowered[i]);
	}
	*p = 0;
	return s;
}

size_t rj_kernels_symbols_len(const char *column)
{
	return strcspn(column, "\n");
}

const char *rj_kernels_names(const char *column)
{
	const char *nl = strchr(column, '\n');
	return nl ? nl + 1 : "";
}

char *rj_names_pairs(const char *names)
{
	size_t len = strlen(names);
	char *s = malloc(len + 2);

	if (!s)
		return NULL;
	memcpy(s, names, len);
	s[len] = 0;
	s[len + 1] = 0;
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = 0;
	return s;
}

const char *rj_names_lowered(const char *pairs, const char *expr)
{
	for (const char *p = pairs; p && *p;) {
		const char *lowered = p + strlen(p) + 1;
		if (!*lowered)
			return NULL; /* a damaged column: an expression without its name */
		if (strcmp(p, expr) == 0)
			return lowered;
		p = lowered + strlen(lowered) + 1;
	}
	return NULL;
}

int rj_names_check(const char *column, const char *symbols, size_t symbols_len,
		   const void *code, size_t code_size)
{
	const char *p = rj_kernels_names(column);

	while (*p) {
		const char *tab = strchr(p, '\t'), *end = p + strcspn(p, "\n");
		const char *name;
		size_t nlen;
		int found = 0;

		if (!tab || tab > end || tab == p || tab + 1 == end)
			return -1;
		name = tab + 1;
		nlen = (size_t)(end - name);
		for (const char *s = symbols; s < symbols + symbols_len && !found;) {
			size_t slen = strcspn(s, ",");
			if (slen > symbols_len - (size_t)(s - symbols))
				slen = symbols_len - (size_t)(s - symbols);
			found = slen == nlen && memcmp(s, name, nlen) == 0;
			s += slen + 1;
		}
		if (!found && nlen < 4096) {
			char var[4096];

			memcpy(var, name, nlen);
			var[nlen] = 0;
			found = rj_codeobj_has_variable(code, code_size, var) == 1;
		}
		if (!found)
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}
