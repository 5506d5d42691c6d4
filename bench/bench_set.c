/* bench_set.c - see bench_set.h. */
#include <stdlib.h>
#include <string.h>

#include <rocjit.h>
#include <rocjit_ops.h>

#include "bench_set.h"
#include "bench_util.h"

struct set_file *files;
int nfiles, total_kernels;
static int files_cap;

static int collect(const char *file, const char *kernel, void *user)
{
	struct set_file *f = nfiles ? &files[nfiles - 1] : NULL;

	(void)user;
	/* The set comes file by file; a file listed again later joins its first run. */
	for (int i = 0; f && strcmp(f->name, file) != 0 && i < nfiles; i++)
		if (!strcmp(files[i].name, file))
			f = &files[i];
	if (!f || strcmp(f->name, file) != 0) {
		if (nfiles == files_cap) {
			files_cap = files_cap ? 2 * files_cap : 16;
			files = realloc(files, (size_t)files_cap * sizeof *files);
			if (!files)
				bench_die("out of memory");
		}
		f = &files[nfiles++];
		memset(f, 0, sizeof *f);
		f->name = bench_strdup(file);
	}
	if (f->nk == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->kernels = realloc(f->kernels, (size_t)f->cap * sizeof *f->kernels);
		if (!f->kernels)
			bench_die("out of memory");
	}
	f->kernels[f->nk++] = bench_strdup(kernel);
	total_kernels++;
	return 0;
}

/* Fills files[] from rocjit_ops_foreach_kernel and checks each file is registered. */
void load_set(void)
{
	int rc = rocjit_ops_foreach_kernel(collect, NULL);

	if (rc != 0)
		bench_die("rocjit_ops_foreach_kernel returned %d", rc);
	if (nfiles == 0)
		bench_die("rocjit_ops_foreach_kernel lists no kernel");
	for (int i = 0; i < nfiles; i++) {
		const rocjit_source_file *src;
		if (rocjit_registered_source(&src, files[i].name) != 0)
			bench_die("%s is in the kernel set but not registered: is rocjit_ops linked in?",
			    files[i].name);
		files[i].src_bytes = src->length;
		for (size_t c = 0; c < src->length; c++)
			files[i].src_lines += src->text[c] == '\n';
	}
}

/* The options that ask for kernel k of file i alone, or (k < 0) every kernel of file i. */
static rocjit_registered_options opts_for(int i, int k)
{
	rocjit_registered_options o = ROCJIT_REGISTERED_OPTIONS_INIT;

	o.name_expressions = (const char *const *)(k < 0 ? files[i].kernels : &files[i].kernels[k]);
	o.num_name_expressions = k < 0 ? (size_t)files[i].nk : 1;
	return o;
}

int set_compile(const rocjit_code **code, rocjit_ctx *ctx, const char *target, int i, int k)
{
	rocjit_registered_options o = opts_for(i, k);

	return rocjit_compile_registered_v2(code, ctx, target, files[i].name, &o);
}

int set_kernel(rocjit_kernel **kernel, rocjit_ctx *ctx, int i, int k)
{
	rocjit_registered_options o = opts_for(i, k);

	return rocjit_kernel_get_registered_v2(kernel, ctx, files[i].name, files[i].kernels[k], &o);
}
