/*
 * compile.c - `rocjit compile FILE`: the kernel developer's loop.  Compiles one file for
 * one or more targets, prints the compiler's diagnostics on stderr in the compiler form
 * the library gives them (FILE:LINE:COL: error: ...), stores the result in the cache
 * unless --no-cache, and prints the kernels the code object holds.  It says "stored" only
 * when the library counted the object as stored (cli_compile_stored in cache.c, also what
 * prewarm's workers use); compiled but not stored fails the command with the cache's reason.
 *
 * The file is compiled alone, with no in-memory headers: its key is the one an
 * application gets from rocjit_compile with this text and these options.
 *
 * Owns nothing beyond one run.  Uses the files below the commands, never another
 * command's file or main.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_ARCH = 1, OPT_OUTPUT, OPT_NO_CACHE, OPT_JSON, OPT_LANG, OPT_NAME_EXPR };

static const struct cli_opt compile_opts[] = {
	{ "arch", 'a', 1, OPT_ARCH },	      { "output", 'o', 1, OPT_OUTPUT },
	{ "no-cache", 0, 0, OPT_NO_CACHE },   { "json", 0, 0, OPT_JSON },
	{ "lang", 0, 1, OPT_LANG },	      { "name-expr", 0, 1, OPT_NAME_EXPR },
	{ NULL, 0, 0, 0 }
};

struct compile {
	const char *file, *output;
	struct cli_targets targets;
	const char *const *options;
	size_t noptions;
	int no_cache, json;
	int language;   /* --lang: ROCJIT_LANG_*, AUTO by the file's name */
	const char **exprs; /* --name-expr, in order */
	size_t nexprs;
	struct cli_output out; /* -o, opened before compiling */
};

static int parse(struct compile *c, int argc, char **argv)
{
	struct cli_parser p;
	const char *v;
	int id, rc = CLI_OK;

	cli_parser_init(&p, "compile", argc, argv, compile_opts, 1);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: return -1;
		case CLI_ARG_ERROR: return CLI_USAGE;
		case CLI_ARG_POSITIONAL:
			if (c->file)
				rc = cli_usage_error("compile", "one FILE at a time ('%s' and "
						     "'%s'); `rocjit prewarm` takes many", c->file, v);
			c->file = v;
			break;
		case OPT_ARCH: rc = cli_targets_add(&c->targets, "compile", v); break;
		case OPT_OUTPUT: c->output = v; break;
		case OPT_NO_CACHE: c->no_cache = 1; break;
		case OPT_JSON: c->json = 1; break;
		case OPT_NAME_EXPR:
			c->exprs = cli_realloc(c->exprs, (c->nexprs + 1) * sizeof *c->exprs);
			c->exprs[c->nexprs++] = v;
			break;
		case OPT_LANG:
			if (cli_parse_language(&c->language, v) != 0)
				rc = cli_usage_error("compile", "--lang %s: give cuda or hip (the "
						     "default is by the file's name: *.cu and "
						     "*.cuh are cuda)", v);
			break;
		}
	}
	if (rc != CLI_OK)
		return rc;
	if (!c->file)
		return cli_usage_error("compile", "which file? give the kernel source to compile");
	if (p.rest < argc) {
		c->options = (const char *const *)argv + p.rest + 1;
		c->noptions = (size_t)(argc - p.rest - 1);
	}
	return CLI_OK;
}

static void print_result(const struct compile *c, const rocjit_code *code,
			 const rocjit_codeobj_info *info, int stored)
{
	char size[32], ms[32];

	printf("%s -> %s: %zu kernel%s, %s, ", cli_text(c->file), cli_text(code->target),
	       info ? info->num_kernels : 0, info && info->num_kernels == 1 ? "" : "s",
	       cli_fmt_size(size, sizeof size, code->size));
	if (code->from_cache)
		printf("served from the cache (compiled in %s before)",
		       cli_fmt_ms(ms, sizeof ms, code->compile_ms));
	else
		printf("compiled in %s%s", cli_fmt_ms(ms, sizeof ms, code->compile_ms),
		       stored == CLI_STORED       ? ", stored in the cache"
		       : stored == CLI_NOT_STORED ? ", NOT stored in the cache"
		       : c->no_cache              ? " (not stored: --no-cache)"
						  : " (not stored: the cache is off)");
	printf(" [key %.12s]\n", code->key);
	cli_print_resources(code->data, code->size, info);
	for (size_t i = 0; i < c->nexprs; i++) {
		const char *lowered = NULL;
		rocjit_code_lowered_name(&lowered, code, c->exprs[i]);
		printf("  %s -> ", cli_text(c->exprs[i]));
		printf("%s\n", lowered ? cli_text(lowered) : "?");
	}
}

static const char *language_name(int language)
{
	return language == ROCJIT_LANG_CUDA ? "cuda" : "hip";
}

static void json_result(struct cli_json *j, const struct compile *c, const char *target,
			int rc, const rocjit_code *code, const rocjit_codeobj_info *info,
			const char *message, const char *log, int stored)
{
	int language = rocjit_program_language(c->language, c->file);

	cli_json_object(j, NULL);
	cli_json_str(j, "target", code ? code->target : target);
	cli_json_bool(j, "ok", rc == 0);
	cli_json_str(j, "language", language_name(language));
	if (rc == 0) {
		cli_json_str(j, "key", code->key);
		cli_json_bool(j, "from_cache", code->from_cache);
		cli_json_bool(j, "stored", stored == CLI_STORED);
		if (stored == CLI_NOT_STORED)
			cli_json_str(j, "store_error", message);
		cli_json_num(j, "compile_ms", code->compile_ms);
		cli_json_uint(j, "size", code->size);
		cli_json_array(j, "kernels");
		for (size_t i = 0; info && i < info->num_kernels; i++)
			cli_json_str(j, NULL, info->kernels[i]);
		cli_json_end_array(j);
		cli_json_object(j, "lowered_names");
		for (size_t i = 0; i < c->nexprs; i++) {
			const char *lowered = NULL;
			rocjit_code_lowered_name(&lowered, code, c->exprs[i]);
			cli_json_str(j, c->exprs[i], lowered ? lowered : "");
		}
		cli_json_end_object(j);
		cli_json_uint(j, "num_kernels", info ? info->num_kernels : 0);
		cli_json_resources(j, code->data, code->size, info);
		cli_json_array(j, "warnings");
		if (info && info->num_kernels == 0)
			cli_json_str(j, NULL, CLI_NO_KERNELS_WARNING);
		/* rocjit's own warnings in the log (compile/arch_gates.c), one line each. */
		for (const char *w = log ? strstr(log, "rocjit: warning: ") : NULL; w;
		     w = strstr(w + 1, "rocjit: warning: ")) {
			const char *e = strchr(w, '\n');
			char line[1024];
			snprintf(line, sizeof line, "%.*s", (int)(e ? e - w - 17 : (long)strlen(w + 17)),
				 w + 17);
			cli_json_str(j, NULL, line);
		}
		cli_json_end_array(j);
	} else {
		cli_json_str(j, "error", rocjit_strerror(rc));
		cli_json_str(j, "message", message);
	}
	cli_json_str(j, "log", log);
	cli_json_end_object(j);
}

/* Compiles for one target; CLI_OK or CLI_FAIL.  Diagnostics go to stderr either way. */
static int compile_one(struct compile *c, rocjit_ctx *ctx, const char *target,
		       const char *text, size_t len, struct cli_json *j)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_codeobj_info *info = NULL;
	const rocjit_code *code = NULL;
	const char *log;
	char message[1024] = "";
	size_t n;
	int rc, stored = CLI_NO_STORE;

	p.source = text;
	p.length = len;
	p.name = c->file;
	p.options = c->noptions ? c->options : NULL;
	p.num_options = c->noptions;
	p.language = c->language;
	p.name_expressions = c->nexprs ? c->exprs : NULL;
	p.num_name_expressions = c->nexprs;
	rc = cli_compile_stored(&code, ctx, target, &p, &stored, message, sizeof message);
	log = rocjit_last_log(); /* this thread's, until its next compile */
	if (rc != 0)
		snprintf(message, sizeof message, "%s", rocjit_last_error());
	n = strlen(log);
	if (n) {
		fputs(cli_text_lines(log), stderr);
		if (log[n - 1] != '\n')
			fputc('\n', stderr);
	}
	if (rc == 0 && rocjit_codeobj_inspect(&info, code->data, code->size) != 0)
		cli_warn("cannot read the code object: %s", rocjit_last_error());
	if (info && info->num_kernels == 0)
		cli_warn("%s (%s): %s", cli_text(c->file), cli_text(code->target),
			 CLI_NO_KERNELS_WARNING);
	if (j)
		json_result(j, c, target, rc, code, info, message, log, stored);
	else if (rc == 0 && !cli_global.quiet)
		print_result(c, code, info, stored);
	rocjit_codeobj_info_free(info);
	if (rc == 0 && c->output && cli_output_write(&c->out, code->data, code->size) != 0)
		return CLI_FAIL;
	if (rc == 0 && stored == CLI_NOT_STORED)
		return cli_fail("%s compiled for %s but is not in the cache: %s; make room or "
				"make the cache writable, choose another with --cache DIR, or "
				"pass --no-cache not to store", c->file, target, message);
	if (rc == ROCJIT_ECOMPILE)
		return cli_fail("%s did not compile for %s; fix the errors above", c->file,
				target);
	if (rc != 0)
		return cli_fail("%s (%s)", message, rocjit_strerror(rc));
	return CLI_OK;
}

/*
 * This command prints each compile's log itself (compile_one), so the library's copy of
 * it - the block "compiler said for ...", logged at warn when it holds rocjit's own
 * warnings - is dropped here; every other diagnostic goes to stderr as usual.  One
 * thread compiles, so the state of the block being dropped is one flag.
 */
static void log_without_compiler_blocks(void *user, int level, const char *message)
{
	int *in_block = user;

	if (strncmp(message, "compiler said for ", 18) == 0) {
		*in_block = 1;
		return;
	}
	if (*in_block && strncmp(message, "  |", 3) == 0)
		return;
	*in_block = 0;
	cli_log_line(NULL, level, message);
}

int cli_compile(int argc, char **argv)
{
	static int in_block;
	struct compile c = { 0 };
	struct cli_json j;
	rocjit_ctx *ctx = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc;

	unsetenv("ROCJIT_NO_COMPILE"); /* compiling is what this command is for */
	rc = parse(&c, argc, argv);
	if (rc == -1) {
		cli_targets_free(&c.targets);
		return cli_help("compile");
	}
	if (rc == CLI_OK && !c.targets.n)
		rc = cli_targets_default(&c.targets, "compile");
	if (rc == CLI_OK && c.output && c.targets.n > 1)
		rc = cli_usage_error("compile", "-o writes one code object: give one target");
	if (rc == CLI_OK && c.output && c.json && strcmp(c.output, "-") == 0)
		rc = cli_usage_error("compile", "-o - and --json both write to stdout");
	if (rc == CLI_OK && !(text = cli_read_file(c.file, &len)))
		rc = cli_fail("cannot read %s: %s; check the path", c.file, cli_read_error(errno));
	/* -o is checked before the compile: a bad path fails at once, not after it. */
	c.out.fd = -1;
	if (rc == CLI_OK && c.output && cli_output_open(&c.out, c.output) != 0)
		rc = CLI_FAIL;
	if (rc == CLI_OK)
		rc = cli_open(&ctx, c.no_cache ? ROCJIT_OPEN_NO_CACHE : 0, 0);
	if (rc == CLI_OK) {
		rocjit_set_log_callback(log_without_compiler_blocks, &in_block);
		if (c.json) {
			cli_json_init(&j, stdout);
			cli_json_object(&j, NULL);
			cli_json_str(&j, "file", c.file);
			cli_json_array(&j, "results");
		}
		for (size_t t = 0; t < c.targets.n; t++)
			if (compile_one(&c, ctx, c.targets.ids[t], text, len,
					c.json ? &j : NULL) != CLI_OK)
				rc = CLI_FAIL;
		if (c.json) {
			cli_json_end_array(&j);
			cli_json_bool(&j, "ok", rc == CLI_OK);
			cli_json_end_object(&j);
			cli_json_finish(&j);
		}
	}
	cli_output_abandon(&c.out); /* not written: a failure */
	free(text);
	rocjit_close(ctx);
	cli_targets_free(&c.targets);
	free(c.exprs);
	return rc;
}
