/*
 * registry.h - the internal side of the process-wide registry of embedded sources.
 */
#ifndef ROCJIT_REGISTRY_H
#define ROCJIT_REGISTRY_H

#include <stddef.h>

#include "rocjit.h"

/* A registered file: header when named like one (rocjit_is_header_name) or registered by
 * rocjit_register_headers. */
struct rj_registered {
	const rocjit_source_file *file;
	int header;
};

/* A malloc'ed copy of the registered files, in registration order. */
int rj_registry_snapshot(struct rj_registered **out, size_t *n);

/*
 * sources.c: the include rule of registered files (see sources.c).  When text, the file
 * registered as name, has quoted includes that name one of headers relative to name's
 * folder, *out gets a malloc'ed copy with those rewritten to the registered names (NUL-
 * terminated, *out_len bytes); else *out is NULL.  Returns 0 or ROCJIT_ENOMEM.
 */
int rj_include_rewrite(char **out, size_t *out_len, const char *name, const char *text,
		       size_t len, const char *const *headers, size_t num_headers);

#endif
