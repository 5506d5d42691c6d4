/*
 * show.c - `rocjit show KEY-PREFIX`: everything stored about one entry, and what its code
 * object says about itself (rocjit_codeobj_inspect, and what each kernel uses:
 * resources.c); --extract writes the object out.
 *
 * Owns the copy of one entry.  Uses the files below the commands, never another command's
 * file or main.c.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_EXTRACT = 1, OPT_JSON };

static const struct cli_opt show_opts[] = {
	{ "extract", 'x', 1, OPT_EXTRACT },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

/* What the callback copies out of the library's entry. */
struct found {
	struct cli_row row;
	void *code;   /* NULL when the checksum failed */
	size_t size;
};

static int found_cb(const rocjit_entry *e, const void *code, size_t size, void *user)
{
	struct found *f = user;
	struct cli_row *r = &f->row;

	cli_row_from_entry(r, e);
	if (code) {
		f->code = cli_alloc(size);
		memcpy(f->code, code, size);
		f->size = size;
	}
	return 0;
}

static void print_text(const struct found *f, const rocjit_codeobj_info *info,
		       const char *why)
{
	const struct cli_row *r = &f->row;
	char a[32], b[64], c[64], sig[256];
	int64_t now = cli_now_s();

	printf("key:           %s\n", r->key);
	printf("platform:      %s\n", cli_text(r->platform));
	printf("target:        %s\n", cli_text(r->target));
	printf("compiler:      %s\n", cli_text(r->compiler));
	printf("options:       %s\n", cli_text(r->options));
	printf("source:        %s\n", cli_text(r->source_name));
	printf("headers:       %s\n", *r->headers ? cli_text(r->headers) : "(none)");
	printf("kernels:       %s\n", cli_text(r->kernels));
	for (const char *p = r->name_expressions; *p;) {
		size_t n = strcspn(p, "\n"), t = strcspn(p, "\t");
		char *line = cli_alloc(n + 1);
		memcpy(line, p, n);
		line[n] = 0;
		if (t < n)
			line[t] = 0;
		printf("name expr:     %s -> ", cli_text(line));
		printf("%s\n", t < n ? cli_text(line + t + 1) : "?");
		free(line);
		p += n + (p[n] != 0);
	}
	printf("size:          %s (%" PRIu64 " bytes)\n", cli_fmt_size(a, sizeof a, r->size),
	       r->size);
	printf("created:       %s\n", cli_fmt_time(b, sizeof b, r->created));
	printf("last used:     %s (%s)\n", cli_fmt_time(c, sizeof c, r->last_used),
	       cli_fmt_ago(a, sizeof a, cli_row_last_use(r), now));
	printf("hits:          %" PRIu64 "\n", r->hits);
	printf("compile time:  %s\n", cli_fmt_ms(a, sizeof a, r->compile_ms));
	printf("checksum:      %s\n", f->code ? "ok" : "BAD (run `rocjit verify --fix`)");
	printf("signature:     %s\n", cli_signature_text(sig, sizeof sig, r->signer,
							   r->signature));
	if (info) {
		printf("object target: %s", cli_text(info->target));
		if (strcmp(info->flags_target, info->target) != 0)
			printf(" (ELF flags: %s)", cli_text(info->flags_target));
		printf("\nobject kernels (%zu):\n", info->num_kernels);
		cli_print_resources(f->code, f->size, info);
	} else if (f->code) {
		printf("object:        unreadable: %s\n", cli_text(why));
	}
}

static void print_json(const struct found *f, const rocjit_codeobj_info *info,
		       const char *why)
{
	struct cli_json j;

	cli_json_init(&j, stdout);
	cli_json_object(&j, NULL);
	cli_json_object(&j, "entry");
	cli_json_str(&j, "key", f->row.key);
	cli_json_str(&j, "platform", f->row.platform);
	cli_json_str(&j, "target", f->row.target);
	cli_json_str(&j, "compiler", f->row.compiler);
	cli_json_str(&j, "options", f->row.options);
	cli_json_str(&j, "source", f->row.source_name);
	cli_json_list(&j, "headers", f->row.headers, ' ');
	cli_json_list(&j, "kernels", f->row.kernels, ',');
	cli_json_list(&j, "name_expressions", f->row.name_expressions, '\n');
	cli_json_uint(&j, "size", f->row.size);
	cli_json_int(&j, "created", f->row.created);
	cli_json_int(&j, "last_used", f->row.last_used);
	cli_json_uint(&j, "hits", f->row.hits);
	cli_json_num(&j, "compile_ms", f->row.compile_ms);
	cli_json_str(&j, "signer", f->row.signer);
	cli_json_str(&j, "signature", cli_signature_name(f->row.signature));
	cli_json_end_object(&j);
	cli_json_bool(&j, "checksum_ok", f->code != NULL);
	if (info) {
		cli_json_object(&j, "object");
		cli_json_str(&j, "platform", rocjit_platform_name(info->platform));
		cli_json_str(&j, "target", info->target);
		cli_json_str(&j, "flags_target", info->flags_target);
		cli_json_array(&j, "kernels");
		for (size_t i = 0; i < info->num_kernels; i++)
			cli_json_str(&j, NULL, info->kernels[i]);
		cli_json_end_array(&j);
		cli_json_resources(&j, f->code, f->size, info);
		cli_json_end_object(&j);
	} else if (f->code) {
		cli_json_str(&j, "object_error", why);
	}
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

static int valid_prefix(const char *s)
{
	size_t n = strlen(s);

	if (n < 4 || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int cli_show(int argc, char **argv)
{
	struct found f = { 0 };
	rocjit_codeobj_info *info = NULL;
	struct cli_parser p;
	const char *v, *prefix = NULL, *extract = NULL;
	char why[512] = "", lower[33];
	int id, rc = CLI_OK, json = 0;
	rocjit_ctx *ctx = NULL;

	cli_parser_init(&p, "show", argc, argv, show_opts, 0);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: rc = -1; break;
		case CLI_ARG_ERROR: rc = CLI_USAGE; break;
		case CLI_ARG_POSITIONAL:
			if (prefix)
				rc = cli_usage_error("show", "one KEY-PREFIX only ('%s' and '%s')",
						     prefix, v);
			prefix = v;
			break;
		case OPT_EXTRACT: extract = v; break;
		case OPT_JSON: json = 1; break;
		}
	}
	if (rc == -1)
		return cli_help("show");
	if (rc != CLI_OK)
		return rc;
	if (!prefix)
		return cli_usage_error("show", "which entry? give the first digits of its key "
				       "(`rocjit list` shows them)");
	if (!valid_prefix(prefix))
		return cli_usage_error("show", "'%s' is not a key prefix: give 4 to 32 hex digits "
				       "(`rocjit list` shows the keys)", prefix);
	for (size_t i = 0; i <= strlen(prefix); i++)
		lower[i] = (char)tolower((unsigned char)prefix[i]);
	if (extract && json && strcmp(extract, "-") == 0)
		return cli_usage_error("show", "--extract - and --json both write to stdout: "
				       "extract to a file");
	rc = cli_open(&ctx, ROCJIT_OPEN_READONLY, CLI_EXISTING);
	if (rc == CLI_MISSING) {
		char dir[4096];
		cli_cache_dir(dir, sizeof dir);
		return cli_fail("no cache at %s (none was created), so no entry's key starts "
				"with %s", dir, lower);
	}
	if (rc != CLI_OK)
		return rc;
	id = rocjit_cache_find(ctx, lower, found_cb, &f);
	if (id == ROCJIT_ENOTFOUND)
		rc = cli_fail("no entry's key starts with %s: `rocjit list` shows the keys",
			      lower);
	else if (id == ROCJIT_EINVAL)
		rc = cli_fail("%s; give more digits of the key", rocjit_last_error());
	else if (id != 0)
		rc = cli_fail("cannot read the cache: %s (%s)", rocjit_last_error(),
			      rocjit_strerror(id));
	if (rc == CLI_OK && f.code &&
	    rocjit_codeobj_inspect(&info, f.code, f.size) != 0)
		snprintf(why, sizeof why, "%s", rocjit_last_error());
	if (rc == CLI_OK) {
		if (json)
			print_json(&f, info, why);
		else if (!extract || strcmp(extract, "-") != 0)
			print_text(&f, info, why);
		if (extract && !f.code)
			rc = cli_fail("the entry's code does not match its checksum, so it is not "
				      "written to %s: `rocjit verify --fix` drops it", extract);
		else if (extract && cli_write_file(extract, f.code, f.size) != 0)
			rc = CLI_FAIL;
		else if (!f.code)
			rc = CLI_FAIL;
	}
	rocjit_codeobj_info_free(info);
	free(f.code);
	cli_row_free(&f.row);
	rocjit_close(ctx);
	return rc;
}
