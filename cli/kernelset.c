/*
 * kernelset.c - turning prewarm's inputs into what an application would compile: a
 * kernel manifest, a folder, or one file.
 *
 * The contract is the library's for registered sources (rocjit_kernel_get_registered):
 * every registered file named *.h, *.hpp, *.cuh or *.inc, and every file registered as a
 * header whatever its name (rocjit_register_headers: "cmath"), is an in-memory header of
 * every registered source, under its registered name; those a source reaches through its
 * includes are part of its key (docs/keys.md); a quoted include resolves relative to the
 * including file's folder first, the library's rule, applied here through rocjit_include_resolve so that each file
 * is compiled and keyed as the application compiles it.  rocjit_add_kernels() registers
 * a folder's files sorted by their relative path and writes that order into the manifest
 * ("# rocjit-manifest 1", "dir=<folder>", one name per line; with HEADERS, format 2:
 * "file=<name>" and "header=<name>" lines; with NAME_EXPRESSIONS, format 3: format 2 plus
 * "expr=<name>\t<expression>[\t<expression>...]" lines, each one program: that source
 * compiled with those name expressions, as the application asks for it; docs/prewarm.md).
 * A folder given here is read as the manifest rocjit_add_kernels(DIR folder) would write
 * with its default patterns, the names given with --header (prewarm) being its HEADERS.
 *
 * Owns the sets it loads (texts and names), freed with cli_set_free.  Reads through
 * files.c and src/base/fsutil.c; below the commands (prewarm, export), it compiles nothing
 * and opens no cache.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/base/fsutil.h"
#include "cli.h"

#define MANIFEST_MAGIC "# rocjit-manifest "

/* rocjit_add_kernels' default GLOB: *.hip *.cu *.h *.hpp *.cuh. */
static int embedded_by_default(const char *name)
{
	static const char *const ext[] = { ".hip", ".cu", ".h", ".hpp", ".cuh" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		size_t n = strlen(ext[i]);
		if (len >= n && strcmp(name + len - n, ext[i]) == 0)
			return 1;
	}
	return 0;
}

static int name_listed(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

static void add_file(struct cli_set *set, const char *name, char *text, size_t length,
		     int header)
{
	struct cli_source *f;

	set->files = cli_realloc(set->files, (set->n + 1) * sizeof *set->files);
	f = &set->files[set->n++];
	f->name = cli_strdup(name);
	f->text = text;
	f->length = length;
	f->header = set->kind != CLI_SET_FILE && (header || rocjit_is_header_name(name));
}

/* Reads dir/name into the set (a header whatever its name when header).  CLI_OK or
 * CLI_FAIL. */
static int read_member(struct cli_set *set, const char *dir, const char *name, int header,
		       const char *why)
{
	char path[8192];
	size_t len = 0;
	char *text;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	text = cli_read_file(path, &len);
	if (!text)
		return cli_fail("cannot read %s (named by %s): %s; %s", path, set->origin,
				cli_read_error(errno), why);
	add_file(set, name, text, len, header);
	return CLI_OK;
}

/* Headers in set order, pointing into the files. */
static void collect_headers(struct cli_set *set)
{
	set->headers = cli_alloc((set->n ? set->n : 1) * sizeof *set->headers);
	set->nheaders = 0;
	for (size_t i = 0; i < set->n; i++) {
		rocjit_header *h;
		if (!set->files[i].header)
			continue;
		h = &set->headers[set->nheaders++];
		h->name = set->files[i].name;
		h->source = set->files[i].text;
		/* Length 0 would mean strlen: an empty header's text is "" either way. */
		h->length = set->files[i].length;
	}
}

const char *cli_name_expr_problem(const char *expr)
{
	if (!*expr)
		return "it is empty";
	for (const char *c = expr; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "it holds a control character (a tab or a line break): write each "
			       "expression on one line, without tabs";
	return NULL;
}

/*
 * Format 3's "expr=<name>\t<expression>[\t<expression>...]" (line is past "expr="): one
 * program, its source resolved once every file= line is read (the lines may come in any
 * order after dir=).  Its name goes to (*names)[i].  CLI_OK or CLI_FAIL.
 */
static int add_program(struct cli_set *set, char ***names, char *line, int lineno)
{
	char *tab = strchr(line, '\t'), *e, *next;
	const char *problem;
	struct cli_program *p;

	if (!tab || tab == line)
		return cli_fail("%s:%d: expected expr=<file><TAB><name expression>[<TAB><name "
				"expression>...], a tab after the file name: write the "
				"instantiations the application asks for, e.g. "
				"expr=scale.hip<TAB>scale<float, 4>", set->origin, lineno);
	*tab = 0;
	set->programs = cli_realloc(set->programs, (set->nprograms + 1) * sizeof *set->programs);
	*names = cli_realloc(*names, (set->nprograms + 1) * sizeof **names);
	p = &set->programs[set->nprograms];
	memset(p, 0, sizeof *p);
	(*names)[set->nprograms++] = cli_strdup(line);
	/* Split by hand: strtok_r would skip an empty field, which must be an error. */
	for (e = tab + 1; e; e = next) {
		next = strchr(e, '\t');
		if (next)
			*next++ = 0;
		if ((problem = cli_name_expr_problem(e)))
			return cli_fail("%s:%d: name expression %zu of %s: %s", set->origin,
					lineno, p->nexprs + 1, line, problem);
		p->exprs = cli_realloc(p->exprs, (p->nexprs + 1) * sizeof *p->exprs);
		p->exprs[p->nexprs++] = cli_strdup(e);
	}
	return CLI_OK;
}

/* Each program's source, by name: a file of the manifest that is not a header. */
static int resolve_programs(struct cli_set *set, char **names)
{
	for (size_t i = 0; i < set->nprograms; i++) {
		size_t f = 0;
		while (f < set->n && strcmp(set->files[f].name, names[i]) != 0)
			f++;
		if (f == set->n)
			return cli_fail("%s: expr=%s names no file of the manifest: add "
					"file=%s, or correct the name", set->origin, names[i],
					names[i]);
		if (set->files[f].header)
			return cli_fail("%s: expr=%s names a header, which is compiled into "
					"no kernel of its own: give the expressions to the source "
					"that includes it", set->origin, names[i]);
		set->programs[i].file = f;
	}
	return CLI_OK;
}

static int load_manifest(struct cli_set *set, char *text)
{
	char *save = NULL, *line, *dir = NULL, **names = NULL;
	int lineno = 0, rc = CLI_OK, format = 1;

	for (line = strtok_r(text, "\n", &save); line && rc == CLI_OK;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (++lineno == 1) {
			if (strncmp(line, MANIFEST_MAGIC, sizeof MANIFEST_MAGIC - 1) != 0)
				return cli_fail("%s is not a rocjit kernel manifest (its first line "
						"is not \"" MANIFEST_MAGIC "1\"): pass the "
						"<target>.rocjit-manifest file that rocjit_add_kernels() "
						"writes, or rebuild the application with this rocjit",
						set->origin);
			if (strcmp(line + sizeof MANIFEST_MAGIC - 1, "2") == 0)
				format = 2;
			else if (strcmp(line + sizeof MANIFEST_MAGIC - 1, "3") == 0)
				format = 3;
			else if (strcmp(line + sizeof MANIFEST_MAGIC - 1, "1") != 0)
				return cli_fail("%s is a manifest of format %s, which this rocjit "
						"(%s) does not read: upgrade rocjit", set->origin,
						line + sizeof MANIFEST_MAGIC - 1, ROCJIT_VERSION_STRING);
			continue;
		}
		/* Comments only before dir=: a file name may start with '#'. */
		if (n == 0 || (!dir && line[0] == '#'))
			continue;
		if (!dir) {
			if (strncmp(line, "dir=", 4) != 0 || !line[4])
				return cli_fail("%s:%d: expected dir=<folder>: the manifest is "
						"damaged; rebuild the application to rewrite it",
						set->origin, lineno);
			dir = line + 4;
			continue;
		}
		{
			/* Format 2 (HEADERS given): "file=<name>" or "header=<name>"; format 3
			   (name expressions given) adds "expr=<name>\t<expression>...". */
			int header = 0;
			if (format >= 2) {
				if (strncmp(line, "file=", 5) == 0) {
					line += 5;
				} else if (strncmp(line, "header=", 7) == 0) {
					line += 7;
					header = 1;
				} else if (format == 3 && strncmp(line, "expr=", 5) == 0) {
					rc = add_program(set, &names, line + 5, lineno);
					continue;
				} else {
					rc = cli_fail("%s:%d: expected file=<name>%s header=<name>%s: "
						      "the manifest is damaged; rebuild the "
						      "application to rewrite it", set->origin, lineno,
						      format == 3 ? "," : " or",
						      format == 3 ? " or expr=<name><TAB><expression>"
								  : "");
					break;
				}
			}
			rc = read_member(set, dir, line, header,
					 "the manifest is older than the kernel folder: rebuild "
					 "the application (or re-run cmake) to rewrite it");
		}
	}
	if (rc == CLI_OK && !dir)
		rc = cli_fail("%s names no kernel folder (no dir= line): rebuild the "
			      "application with this rocjit to rewrite it", set->origin);
	if (rc == CLI_OK && set->n == 0)
		rc = cli_fail("%s names no kernel files: check the application's "
			      "rocjit_add_kernels() call", set->origin);
	if (rc == CLI_OK)
		rc = resolve_programs(set, names);
	for (size_t i = 0; i < set->nprograms; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * Relative paths of the kernel files under the folder dfd (root/rel, for messages),
 * appended to *names.  Walked by descriptors, entries looked at with fstatat: like CMake's
 * GLOB_RECURSE, symlinked files count and symlinked folders do not.  A kernel-named entry
 * that is no regular file (a FIFO, a socket, a device) is an error: reading it would block
 * or fail, and the application would not have embedded it.  Takes dfd.
 */
static int walk(int dfd, const char *root, const char *rel, char ***names, size_t *n)
{
	struct dirent *d;
	DIR *dir = fdopendir(dfd);
	int rc = CLI_OK;

	if (!dir) {
		int e = errno;
		close(dfd);
		return cli_fail("cannot read the folder %s%s%s: %s", root, *rel ? "/" : "", rel,
				strerror(e));
	}
	while (rc == CLI_OK && (d = readdir(dir))) {
		char sub[8192];
		struct stat st;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "",
				     d->d_name) >= sizeof sub ||
		    strlen(root) + strlen(sub) + 2 > 8192) {
			rc = cli_fail("a path under %s is too long: %s/%s", root, rel, d->d_name);
			break;
		}
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub_fd = rj_fs_open_dir(dirfd(dir), d->d_name, 1);
			if (sub_fd >= 0)
				rc = walk(sub_fd, root, sub, names, n);
			continue;
		}
		if (!embedded_by_default(d->d_name))
			continue;
		if (S_ISLNK(st.st_mode) &&
		    (fstatat(dirfd(dir), d->d_name, &st, 0) != 0 || S_ISDIR(st.st_mode)))
			continue; /* dangling, or a symlinked folder */
		if (!S_ISREG(st.st_mode)) {
			rc = cli_fail("%s/%s is %s, not a kernel file: remove it from the folder",
				      root, sub, rj_fs_kind(st.st_mode));
			break;
		}
		*names = cli_realloc(*names, (*n + 1) * sizeof **names);
		(*names)[(*n)++] = cli_strdup(sub);
	}
	closedir(dir);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_folder(struct cli_set *set, const char *root, const char *const *hdrs,
		       size_t nhdrs)
{
	char **names = NULL;
	size_t n = 0;
	int fd = rj_fs_open_dir(AT_FDCWD, root, 0);
	int rc = fd < 0 ? cli_fail("cannot read the folder %s: %s", root, strerror(errno))
			: walk(fd, root, "", &names, &n);

	/* --header names are embedded whatever their extension, as HEADERS are. */
	for (size_t i = 0; rc == CLI_OK && i < nhdrs; i++) {
		int found = 0;
		for (size_t k = 0; k < n && !found; k++)
			found = strcmp(names[k], hdrs[i]) == 0;
		if (found)
			continue;
		names = cli_realloc(names, (n + 1) * sizeof *names);
		names[n++] = cli_strdup(hdrs[i]);
	}
	if (rc == CLI_OK && n == 0)
		rc = cli_fail("%s holds no kernel files (*.hip, *.cu, *.h, *.hpp, *.cuh): check "
			      "the path, or pass the application's manifest with --manifest",
			      set->origin);
	/* The order rocjit_add_kernels registers them in: sorted by relative path. */
	if (n > 1)
		qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (rc == CLI_OK)
			rc = read_member(set, root, names[i], name_listed(names[i], hdrs, nhdrs),
					 name_listed(names[i], hdrs, nhdrs) ?
					 "--header names a file relative to the folder" :
					 "check its permissions");
		free(names[i]);
	}
	free(names);
	return rc;
}

/* The library's include rule, applied to every file of a manifest or folder. */
static int apply_include_rule(struct cli_set *set)
{
	const char **names = cli_alloc((set->n ? set->n : 1) * sizeof *names);
	size_t k = 0;
	int rc = CLI_OK;

	for (size_t i = 0; i < set->n; i++)
		if (set->files[i].header)
			names[k++] = set->files[i].name;
	for (size_t i = 0; i < set->n && rc == CLI_OK; i++) {
		struct cli_source *f = &set->files[i];
		char *text = NULL;
		size_t len = 0;

		if (rocjit_include_resolve(&text, &len, f->name, f->text, f->length ? f->length :
					   strlen(f->text), names, k) != 0)
			rc = cli_fail("%s: %s", f->name, rocjit_last_error());
		else if (text) {
			free(f->text);
			f->text = text;
			f->length = len;
		}
	}
	free(names);
	return rc;
}

int cli_set_load(struct cli_set *set, const char *path, int as_manifest,
		 const char *const *headers, size_t num_headers)
{
	struct stat st;
	size_t len = 0;
	char *text;
	int rc;

	memset(set, 0, sizeof *set);
	set->origin = cli_strdup(path);
	if (stat(path, &st) != 0)
		return cli_fail("cannot read %s: %s; check the path", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (as_manifest)
			return cli_fail("%s is a folder, not a manifest: pass the folder without "
					"--manifest, or the <target>.rocjit-manifest file", path);
		set->kind = CLI_SET_FOLDER;
		rc = load_folder(set, path, headers, num_headers);
	} else {
		text = cli_read_file(path, &len);
		if (!text)
			return cli_fail("cannot read %s: %s; check the path and its permissions",
					path, cli_read_error(errno));
		if (as_manifest ||
		    strncmp(text, MANIFEST_MAGIC, sizeof MANIFEST_MAGIC - 1) == 0) {
			set->kind = CLI_SET_MANIFEST;
			rc = load_manifest(set, text);
			free(text);
		} else {
			set->kind = CLI_SET_FILE;
			add_file(set, path, text, len, 0);
			rc = CLI_OK;
		}
	}
	if (rc == CLI_OK && set->kind != CLI_SET_FILE)
		rc = apply_include_rule(set);
	collect_headers(set);
	return rc;
}

void cli_set_free(struct cli_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->files[i].name);
		free(set->files[i].text);
	}
	free(set->files);
	for (size_t i = 0; i < set->nprograms; i++) {
		for (size_t k = 0; k < set->programs[i].nexprs; k++)
			free(set->programs[i].exprs[k]);
		free(set->programs[i].exprs);
	}
	free(set->programs);
	free(set->headers);
	free(set->origin);
	memset(set, 0, sizeof *set);
}
