/*
 * test_reach.c - one source, one key (issue 31): the key covers the headers a source
 * reaches through its includes, transitively, and no other.  The rule itself on texts
 * (request/reach.c: the preprocessor's forms, relative includes, the conservative cases),
 * then real compiles (hipRTC, gfx90a): the same file alone, in its folder, embedded with a
 * subset of it, has one key; a reached header's edit changes it, another's does not; and
 * real processes: prewarm of a file and of its folder, and applications (the example
 * hello_kernels, the data probe) served from a bundle exported from a whole folder with
 * compiling forbidden.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "key/options.h"
#include "compile/inputs.h"
#include "request/reach.h"

/* ---- The rule, on texts ------------------------------------------------------------------ */

/* The names of what name's text reaches among h[0..n) with options opts (NULL-terminated,
 * may be NULL), space separated, into buf. */
static const char *reach(char *buf, size_t size, const char *name, const char *text,
			 const rocjit_header *h, size_t n, const char *const *opts)
{
	struct rj_opts o;
	struct rj_reached r;
	size_t nopts = 0, len = 0;

	while (opts && opts[nopts])
		nopts++;
	ASSERT_INT(rj_opts_normalize(&o, opts, nopts), 0);
	ASSERT_INT(rj_reach(&r, name, text, strlen(text), h, NULL, n, &o), 0);
	buf[0] = 0;
	for (size_t i = 0; i < r.n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "",
					r.headers[i].name);
	rj_reached_free(&r);
	rj_opts_release(&o);
	printf("%s reaches: %s\n", name, buf);
	return buf;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(reach_follows_includes_transitively_and_no_further)
{
	const rocjit_header h[] = {
		{ "d.h", "#include \"c.h\"\n", 0 },   /* includes a reached one; not reached */
		{ "c.h", "#pragma once\n", 0 },
		{ "b.h", "#pragma once\n#include <c.h>\n", 0 },
		{ "e.h", "", 0 },
	};
	char buf[256];

	ASSERT_STR(reach(buf, sizeof buf, "a.hip", "#include \"b.h\"\n", h, N(h), NULL),
		   "b.h c.h");
	/* A cycle ends. */
	{
		const rocjit_header cyc[] = { { "x.h", "#include \"y.h\"\n", 0 },
					      { "y.h", "#include \"x.h\"\n", 0 } };
		ASSERT_STR(reach(buf, sizeof buf, "a.hip", "#include <y.h>\n", cyc, 2, NULL),
			   "x.h y.h");
	}
	/* No include: nothing, whatever was given beside it. */
	ASSERT_STR(reach(buf, sizeof buf, "a.hip", "__global__ void k() {}\n", h, N(h), NULL),
		   "");
}

TEST(reach_resolves_quoted_includes_relative_to_the_including_file)
{
	const rocjit_header h[] = {
		{ "sub/util.h", "#include \"../common.h\"\n#include \"./more.h\"\n", 0 },
		{ "common.h", "", 0 },
		{ "sub/more.h", "", 0 },
		{ "other/util.h", "", 0 },
		{ "sub/angle.h", "", 0 },
		{ "util.h", "", 0 },
	};
	char buf[256];

	/* "util.h" from sub/k.hip: sub/util.h (beside it) and util.h (from the root) both
	   count - a compiler could take either; <angle.h> never looks beside the file. */
	ASSERT_STR(reach(buf, sizeof buf, "sub/k.hip", "#include \"util.h\"\n#include <angle.h>\n",
			 h, N(h), NULL), "common.h sub/more.h sub/util.h util.h");
	/* The same text at the root reaches the root's util.h alone. */
	ASSERT_STR(reach(buf, sizeof buf, "k.hip", "#include \"util.h\"\n", h, N(h), NULL),
		   "util.h");
	/* The form a registered source is compiled in (the include rule rewrote "util.h"). */
	ASSERT_STR(reach(buf, sizeof buf, "sub/k.hip", "#include \"sub/util.h\"\n", h, N(h),
			 NULL), "common.h sub/more.h sub/util.h");
}

/*
 * Every form the preprocessor reads as an include counts: blanks and comments between
 * '#', the keyword and the name, line splices, #include_next, #import, __has_include, an
 * include in any #if branch (the scan evaluates no condition).  An include in a comment
 * or a string is not one: the compiler never reads it.
 */
TEST(reach_reads_includes_as_the_preprocessor_does)
{
	static const char *const names[] = { "a.h", "b.h", "c.h", "d.h", "e.h", "f.h", "g.h",
					     "h.h", "i.h", "j.h", "k.h", "l.h", "m.h", "n.h",
					     "o.h", "p.h", "q.h" };
	static const char text[] =
		"#  include \"a.h\"\n"
		"  #\tinclude <b.h>\n"
		"# /* c */ include /* c */ \"c.h\"\n"
		"#inc\\\nlude \"d.h\"\n"
		"#include \\\n  <e.h>\n"
		"#if 0\n#include \"f.h\"\n#else\n#endif\n"
		"// #include \"g.h\"\n"
		"/* #include \"h.h\"\n   #include \"h.h\" */\n"
		"const char *s = \"#include \\\"i.h\\\"\";\n"
		"#if __has_include(\"j.h\")\n#endif\n"
		"#include_next <k.h>\n"
		"#import \"l.h\"\n"
		"int x; /* a comment, then */ #include \"m.h\"\n"
		"/* a comment of two\n   lines is a blank */ #include \"n.h\"\n"
		"const char *t = \"/*\"; /* not a comment's start */\n#include \"o.h\"\n"
		"#define P 1 /* opens here,\n#include \"p.h\"\n ends here */\n"
		"#if defined(X) && __has_include(<q.h>) /* a probe in a condition */\n#endif\n";
	rocjit_header h[N(names)];
	char buf[256];

	for (size_t i = 0; i < N(names); i++)
		h[i] = (rocjit_header){ names[i], "", 0 };
	/* m.h: a '#' after code on a line is no directive; p.h is in a comment. */
	ASSERT_STR(reach(buf, sizeof buf, "k.hip", text, h, N(h), NULL),
		   "a.h b.h c.h d.h e.h f.h j.h k.h l.h n.h o.h q.h");
}

/*
 * The forms that hide a directive from a line-by-line reading but not from the compiler
 * (review of issue 31): a digraph, a byte order mark, lone CR line ends, a splice with
 * blanks before its line break, trigraphs (a splice too), a raw string literal holding
 * what would open a comment or end a literal (phases 1 and 2 undone inside it), a digit
 * separator before a quote, an angled name holding "//".  Each text reaches h.h; none
 * reaches no.h, which only a literal or a comment names.
 */
static const char *const hidden[] = {
	"%:include \"h.h\"\n",
	"  %: include \"h.h\"\n",
	"\xef\xbb\xbf#include \"h.h\"\n",
	"#include \"a.h\"\r#include \"h.h\"\r",
	"// #include \"no.h\"\r#include \"h.h\"\r",
	"#inc\\  \nlude \"h.h\"\n",
	"#\\\r\ninclude \"h.h\"\r\n",
	"?\?=include \"h.h\"\n",
	"#inc?\?/\nlude \"h.h\"\n",
	"const char *r = R\"(\" /*)\";\n#include \"h.h\"\n",
	"const char *r = R\"x( )\\\nx\" /* )x\";\n#include \"h.h\"\n// */\n",
	"const char *r = u8R\"d(\n#include \"no.h\"\n)d\";\n#include \"h.h\"\n",
	"const char *r = LR\"(\n\" /* \n)\"; #include \"no.h\"\n#include \"h.h\"\n",
	"int a = 1'0'/*';\n#include \"h.h\"\n// */\n",
	"int a = 0x1'f'/*';\n#include \"h.h\"\n// */\n",
	"float f = 1.5e+1'0; char c = '\"'; /* */\n#include \"h.h\"\n",
	"#include <sub//x.h> // a name holding two slashes\n#include \"h.h\"\n",
	"#define Q(x) #x\n/* */ %:include \"h.h\"\n",
};

TEST(reach_reads_the_forms_that_hide_a_directive_from_a_line_reading)
{
	const rocjit_header h[] = { { "h.h", "", 0 }, { "a.h", "", 0 }, { "no.h", "", 0 } };
	char buf[256];

	for (size_t i = 0; i < N(hidden); i++) {
		printf("text %zu\n", i);
		reach(buf, sizeof buf, "k.hip", hidden[i], h, N(h), NULL);
		ASSERT(strstr(buf, "h.h") && !strstr(buf, "no.h"));
	}
}

/*
 * The compiler is the judge: clang's preprocessor (-H lists each file it reads) on each
 * hidden form, the headers on disk; every header it reads, the scan reaches.  Strict
 * C++14 takes trigraphs, as hipRTC's -std=c++14 would.
 */
TEST(every_header_clang_reads_is_reached)
{
	const rocjit_header h[] = { { "h.h", "", 0 }, { "a.h", "", 0 }, { "no.h", "", 0 } };
	char dir[4200], path[4300], cmd[9000], buf[256];

	if (system("command -v clang++ >/dev/null 2>&1") != 0)
		rj_test_skip("clang++ is not installed: the preprocessor to compare with");
	snprintf(dir, sizeof dir, "%s/oracle", rj_test_dir);
	mkdir(dir, 0700);
	for (size_t i = 0; i < N(h); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, h[i].name);
		rj_test_write_file(path, "", 0);
	}
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/sub/x.h", dir);
	rj_test_write_file(path, "", 0);
	for (size_t i = 0; i < N(hidden); i++) {
		char *out = NULL;
		const char *p;

		snprintf(path, sizeof path, "%s/k.hip", dir);
		rj_test_write_file(path, hidden[i], strlen(hidden[i]));
		snprintf(cmd, sizeof cmd, "cd '%s' && clang++ -x c++ -std=c++14 -E -H -I. k.hip "
			 "2>&1 >/dev/null", dir);
		{
			FILE *f = popen(cmd, "r");
			size_t n = 0, cap = 0;
			char chunk[512];
			size_t got;

			ASSERT(f != NULL);
			while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
				out = realloc(out, cap = n + got + 1);
				memcpy(out + n, chunk, got);
				n += got;
				out[n] = 0;
			}
			pclose(f);
		}
		reach(buf, sizeof buf, "k.hip", hidden[i], h, N(h), NULL);
		printf("clang read:\n%s", out ? out : "");
		for (p = out; p && (p = strstr(p, "./")) != NULL; p += 2) {
			char name[64];
			size_t len = strcspn(p + 2, "\n");

			snprintf(name, sizeof name, "%.*s", (int)len, p + 2);
			if (!strcmp(name, "sub//x.h") || !strcmp(name, "sub/x.h"))
				continue; /* not given to the scan */
			if (!strstr(buf, name))
				rj_test_fail(__FILE__, __LINE__, "text %zu: clang reads %s, the scan "
					     "reaches only \"%s\"", i, name, buf);
		}
		ASSERT(out && strstr(out, "h.h"));
		free(out);
	}
}

/* rj_includes_scan's callback: each include, "<name>" or "\"name\"", a line each. */
static int collect(void *user, const struct rj_include *inc)
{
	char **list = user;
	size_t n = *list ? strlen(*list) : 0;

	*list = realloc(*list, n + inc->len + 4);
	snprintf(*list + n, inc->len + 4, "%c%.*s%c\n", inc->quoted ? '"' : '<',
		 (int)inc->len, inc->name ? inc->name : "", inc->quoted ? '"' : '>');
	return 0;
}

/*
 * The two readings agree on real sources: every kernel file and served header of the
 * tree (the served ones are written as the toolkits' headers are), as it is and
 * with a splice added at its end (a no-op that sends a text through the lexing copy).
 */
TEST(the_lexing_reading_agrees_with_the_plain_one_on_real_sources)
{
	static const char *const dirs[] = { "kernels-src", "ops", "tests/data", "examples",
					    "src/compile/devlib" };
	char cmd[4400];
	FILE *f;
	char path[4400];
	int files = 0;

	snprintf(cmd, sizeof cmd, "cd '%s/..' && find %s %s %s %s %s -type f \\( -name '*.hip' -o "
		 "-name '*.cu' -o -name '*.h' -o -name '*.cuh' -o -name '*.hpp' -o -name "
		 "'*.inc' \\)", ROCJIT_TEST_KERNELS, dirs[0], dirs[1], dirs[2], dirs[3], dirs[4]);
	f = popen(cmd, "r");
	ASSERT(f != NULL);
	while (fgets(path, sizeof path, f)) {
		char full[4500], *a = NULL, *b = NULL, *text, *more;
		size_t len;

		path[strcspn(path, "\n")] = 0;
		snprintf(full, sizeof full, "%s/../%s", ROCJIT_TEST_KERNELS, path);
		text = rj_test_read_file(full, &len);
		ASSERT(text != NULL);
		more = malloc(len + 32);
		memcpy(more, text, len);
		memcpy(more + len, "\n#define RJ_SPLICED_ \\\n 1\n", 26);
		ASSERT_INT(rj_includes_scan(text, len, collect, &a), 0);
		ASSERT_INT(rj_includes_scan(more, len + 26, collect, &b), 0);
		if (strcmp(a ? a : "", b ? b : ""))
			rj_test_fail(__FILE__, __LINE__, "%s: plain reading\n%s\nlexing one\n%s",
				     path, a ? a : "", b ? b : "");
		free(a);
		free(b);
		free(more);
		free(text);
		files++;
	}
	pclose(f);
	printf("%d files agree\n", files);
	ASSERT(files > 100);
}

/* Conservative: where the scan cannot know what a text includes, every header counts. */
TEST(an_include_named_by_a_macro_or_an_include_folder_reaches_every_header)
{
	const rocjit_header h[] = { { "z.h", "", 0 }, { "a.h", "", 0 }, { "m.h", "", 0 } };
	const char *const inc_dir[] = { "-I/nonexistent", NULL };
	char buf[256];

	ASSERT_STR(reach(buf, sizeof buf, "k.hip", "#define H \"a.h\"\n#include H\n", h, N(h),
			 NULL), "a.h m.h z.h");
	/* ... in a header it reaches, too. */
	{
		const rocjit_header hm[] = { { "a.h", "#include CHOICE\n", 0 }, { "b.h", "", 0 } };
		ASSERT_STR(reach(buf, sizeof buf, "k.hip", "#include \"a.h\"\n", hm, 2, NULL),
			   "a.h b.h");
	}
	/* A file in an -I folder may include any registered header: its text is not read. */
	ASSERT_STR(reach(buf, sizeof buf, "k.hip", "int x;\n", h, N(h), inc_dir), "a.h m.h z.h");
}

TEST(pre_included_headers_are_followed_like_includes)
{
	const rocjit_header h[] = { { "pre.h", "#include \"dep.h\"\n", 0 }, { "dep.h", "", 0 },
				    { "other.h", "", 0 } };
	const char *const forms[][3] = { { "-include", "pre.h", NULL },
					 { "--pre-include=pre.h", NULL, NULL },
					 { "-includepre.h", NULL, NULL } };
	char buf[256];

	for (size_t i = 0; i < N(forms); i++)
		ASSERT_STR(reach(buf, sizeof buf, "k.hip", "int x;\n", h, N(h), forms[i]),
			   "dep.h pre.h");
}

/* A caller's header named like one rocjit serves replaces it wherever it is included -
 * from rocjit's own headers too - so every source reaches it. */
TEST(a_header_named_like_a_served_one_is_reached_by_every_source)
{
	const rocjit_header h[] = { { "stdint.h", "", 0 }, { "cmath", "", 0 },
				    { "mystdint.h", "", 0 } };
	char buf[256];

	ASSERT_STR(reach(buf, sizeof buf, "k.hip", "int x;\n", h, N(h), NULL), "cmath stdint.h");
}

/* Sorted by name, ties in the order given, each header's digest carried with it. */
TEST(reached_headers_are_in_name_order_with_their_digests)
{
	const rocjit_header h[] = { { "z.h", "", 0 }, { "b.h", "#include \"z.h\"\n", 0 },
				    { "a.h", "1", 0 }, { "a.h", "2", 0 } };
	rj_digest d[N(h)];
	struct rj_reached r;
	const char *src = "#include \"b.h\"\n#include \"a.h\"\n";

	for (size_t i = 0; i < N(h); i++)
		d[i] = rj_digest_of(h[i].source, strlen(h[i].source));
	ASSERT_INT(rj_reach(&r, "k.hip", src, strlen(src), h, d, N(h), NULL), 0);
	ASSERT_INT(r.n, 4);
	ASSERT_STR(r.headers[0].name, "a.h");
	ASSERT_STR(r.headers[0].source, "1");
	ASSERT_STR(r.headers[1].source, "2");
	ASSERT_STR(r.headers[2].name, "b.h");
	ASSERT_STR(r.headers[3].name, "z.h");
	ASSERT(memcmp(&r.digests[0], &d[2], sizeof d[0]) == 0);
	ASSERT(memcmp(&r.digests[1], &d[3], sizeof d[0]) == 0);
	ASSERT(memcmp(&r.digests[3], &d[0], sizeof d[0]) == 0);
	rj_reached_free(&r);
}

/* ---- Real compiles (hipRTC, gfx90a) ------------------------------------------------------ */

static const char kernel_a[] = "#include <hip/hip_runtime.h>\n"
			       "#include \"b.h\"\n"
			       "extern \"C\" __global__ void ka(float *y) { y[0] = B_VALUE; }\n";

/* rocjit_compile of text (named name) with headers for gfx90a: its key into key. */
static int key_of(rocjit_ctx *ctx, const char *name, const char *text,
		  const rocjit_header *h, size_t n, char key[33])
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;

	p.source = text;
	p.name = name;
	p.headers = n ? h : NULL;
	p.num_headers = n;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(key, c->key, 33);
	return c->from_cache;
}

/* Registers files as an application's embedded kernels (lengths from their texts); the
 * registry keeps the copies. */
static void register_files(const rocjit_source_file *files, size_t n)
{
	rocjit_source_file *copy = malloc(n * sizeof *copy);

	ASSERT(copy != NULL);
	for (size_t i = 0; i < n; i++) {
		copy[i] = files[i];
		copy[i].length = strlen(files[i].text);
	}
	ASSERT_INT(rocjit_register_sources(copy, n), 0);
}

static int collect_headers(const rocjit_entry *e, void *user)
{
	snprintf(user, 256, "%s", e->headers ? e->headers : "(null)");
	return 0;
}

/*
 * One file, handed over four ways: alone with the header it includes, with its whole
 * folder (in another order, and a header that does not even compile), as a registered
 * source among a subset, as a registered source of the whole folder: one key.  The entry
 * names the header it was compiled with, and no other.
 */
TEST(one_source_has_one_key_alone_in_its_folder_and_embedded_with_a_subset)
{
	static const rocjit_source_file files[] = {
		{ "b.h", "#pragma once\n#define B_VALUE 2.0f\n", 0 },
		{ "k.hip", kernel_a, 0 },
		{ "other.h", "#error never included\n", 0 },
		{ "z/deep.h", "#pragma once\n", 0 },
	};
	const rocjit_header alone[] = { { "b.h", files[0].text, 0 } };
	const rocjit_header folder[] = { { "z/deep.h", files[3].text, 0 },
					 { "other.h", files[2].text, 0 },
					 { "b.h", files[0].text, 0 } };
	char k0[33], k1[33], headers[256] = "";
	const rocjit_code *c;
	rocjit_ctx *ctx;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	ASSERT_INT(key_of(ctx, "k.hip", kernel_a, alone, 1, k0), 0);
	ASSERT_INT(rocjit_cache_foreach(ctx, collect_headers, headers), 0);
	ASSERT_STR(headers, "b.h");
	key_of(ctx, "k.hip", kernel_a, folder, N(folder), k1);
	ASSERT_STR(k1, k0);
	/* The application: k.hip and b.h embedded (a subset), then the rest joins. */
	register_files(files, 2);
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "k.hip", NULL, 0), 0);
	ASSERT_STR(c->key, k0);
	rocjit_close(ctx);
	register_files(files + 2, 2);
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "k.hip", NULL, 0), 0);
	ASSERT_STR(c->key, k0);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_INT(rj_test_stats(ctx).compiles, 0);
	rocjit_close(ctx);
}

/* a.hip -> b.h -> c.h; d.h beside them: an edit of c.h is a new key, one of d.h is not. */
TEST(an_edit_of_a_reached_header_changes_the_key_and_one_elsewhere_does_not)
{
	static const char b[] = "#pragma once\n#include \"c.h\"\n#define B_VALUE C_VALUE\n";
	rocjit_header h[] = { { "b.h", b, 0 }, { "c.h", "#define C_VALUE 1.0f\n", 0 },
			      { "d.h", "#define D_VALUE 1\n", 0 } };
	char k0[33], k1[33], k2[33];
	rocjit_ctx *ctx;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	key_of(ctx, "a.hip", kernel_a, h, N(h), k0);
	h[2].source = "#define D_VALUE 2\n";
	key_of(ctx, "a.hip", kernel_a, h, N(h), k1);
	ASSERT_STR(k1, k0);
	h[1].source = "#define C_VALUE 3.0f\n";
	key_of(ctx, "a.hip", kernel_a, h, N(h), k2);
	ASSERT(strcmp(k2, k0) != 0);
	ASSERT_INT(rj_test_stats(ctx).compiles, 2);
	rocjit_close(ctx);
}

/*
 * The registered form, and a quoted include relative to a subfolder: sub/k.hip's "b.h"
 * is sub/b.h.  ROCJIT_KERNEL_PATH replaces one file at a time: an edit of sub/b.h is a
 * new key, an edit of the root's b.h (which sub/k.hip does not reach) is not.
 */
TEST(a_registered_source_in_a_subfolder_is_keyed_with_the_header_beside_it)
{
	static const rocjit_source_file files[] = {
		{ "b.h", "#define B_VALUE 1.0f\n", 0 },
		{ "sub/b.h", "#define B_VALUE 2.0f\n", 0 },
		{ "sub/k.hip", kernel_a, 0 },
	};
	static const char *const edits[][2] = { { "b.h", "#define B_VALUE 5.0f\n" },
						 { "sub/b.h", "#define B_VALUE 6.0f\n" } };
	char k0[33], kp[4400], dir[4300];
	const rocjit_code *c;
	rocjit_ctx *ctx;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	register_files(files, N(files));
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "sub/k.hip", NULL, 0), 0);
	memcpy(k0, c->key, 33);
	rocjit_close(ctx);
	for (size_t i = 0; i < N(edits); i++) {
		char path[4400];
		snprintf(dir, sizeof dir, "%s/edit%zu", rj_test_dir, i);
		mkdir(dir, 0700);
		snprintf(path, sizeof path, "%s/sub", dir);
		mkdir(path, 0700);
		snprintf(path, sizeof path, "%s/%s", dir, edits[i][0]);
		rj_test_write_file(path, edits[i][1], strlen(edits[i][1]));
		snprintf(kp, sizeof kp, "%s", dir);
		setenv("ROCJIT_KERNEL_PATH", kp, 1);
		ctx = rj_test_open();
		ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "sub/k.hip", NULL, 0), 0);
		printf("%s edited: %s\n", edits[i][0], c->key);
		if (i == 0)
			ASSERT_STR(c->key, k0);
		else
			ASSERT(strcmp(c->key, k0) != 0);
		rocjit_close(ctx);
	}
	unsetenv("ROCJIT_KERNEL_PATH");
}

/* ---- Real processes: the tool, applications, bundles --------------------------------------- */

static int run(const char *const argv[], const char *const env[], char **out)
{
	int rc = rj_test_run(argv, env, out);

	printf("$");
	for (int i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n%s(exit %d)\n", *out, rc);
	fflush(stdout);
	return rc;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[4400];

	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	rj_test_write_file(path, text, strlen(text));
}

/*
 * `rocjit prewarm FILE` then `rocjit prewarm FOLDER` (with a header and another source
 * including it): the file is already cached; then an application embedding the file
 * alone finds it with compiling forbidden.
 */
TEST(prewarm_of_a_file_and_of_its_folder_store_one_key)
{
	static const rocjit_source_file app[] = { { "axpy.hip", rj_test_axpy, 0 } };
	char dir[4300], file[4400], *out;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	const rocjit_code *c;
	rocjit_ctx *ctx;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	write_text(dir, "axpy.hip", rj_test_axpy);
	write_text(dir, "common.h", "#pragma once\n#define SCALE 2.0f\n");
	write_text(dir, "scale.hip", "#include \"common.h\"\n"
		   "extern \"C\" __global__ void scale(float *y) { y[0] *= SCALE; }\n");
	snprintf(file, sizeof file, "%s/axpy.hip", dir);
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "prewarm",
				 "--arch", "gfx90a", "--no-progress", file, NULL };
		ASSERT_INT(run(argv, NULL, &out), 0);
		ASSERT_CONTAINS(out, "1 compiled, 1 stored, 0 already cached");
		free(out);
	}
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "prewarm",
				 "--arch", "gfx90a", "--no-progress", dir, NULL };
		ASSERT_INT(run(argv, NULL, &out), 0);
		ASSERT_CONTAINS(out, "1 compiled, 1 stored, 1 already cached");
		free(out);
	}
	register_files(app, 1);
	o.cache_dir = rj_test_cache_dir;
	o.flags = ROCJIT_OPEN_NO_COMPILE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "axpy.hip", NULL, 0), 0);
	ASSERT_INT(c->from_cache, 1);
	rocjit_close(ctx);
}

/*
 * The issue's acceptance test: `rocjit export` of the WHOLE kernels-src/ (ops/ with its
 * rj_ops.h included), then the example application, which embeds three of its files,
 * run in a fresh process on an empty cache with compiling forbidden, the bundle on
 * ROCJIT_BUNDLE_PATH: every kernel served from the bundle.  The example runs from a copy
 * of its own, away from the bundle its build puts beside it.
 */
TEST(example_is_served_from_a_bundle_of_the_whole_kernel_folder)
{
#ifndef ROCJIT_TEST_HELLO
	rj_test_skip("the example hello_kernels is not built (ROCJIT_BUILD_EXAMPLES=OFF)");
#else
	char bundle[4300], bundle_env[4400], cache_env[4400], exe[4400], dir[4300], *out;
	size_t size;
	char *bytes;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	snprintf(bundle, sizeof bundle, "%s/kernels-src.rocjit", rj_test_dir);
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "export",
				 "-o", bundle, "--arch", "gfx90a", "--no-progress",
				 ROCJIT_TEST_KERNELS, NULL };
		ASSERT_INT(run(argv, NULL, &out), 0);
		ASSERT_CONTAINS(out, " 0 failed");
		free(out);
	}
	snprintf(dir, sizeof dir, "%s/app", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(exe, sizeof exe, "%s/hello_kernels", dir);
	bytes = rj_test_read_file(ROCJIT_TEST_HELLO, &size);
	rj_test_write_file(exe, bytes, size);
	free(bytes);
	ASSERT_INT(chmod(exe, 0755), 0);
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	snprintf(cache_env, sizeof cache_env, "ROCJIT_CACHE_DIR=%s/fresh", rj_test_dir);
	{
		/* The control: without the bundle nothing serves it. */
		const char *argv[] = { exe, "gfx90a", NULL };
		const char *env[] = { "ROCJIT_NO_COMPILE=1", cache_env, NULL };
		ASSERT_INT(run(argv, env, &out), 1);
		ASSERT_CONTAINS(out, "not in the cache");
		free(out);
	}
	{
		const char *argv[] = { exe, "gfx90a", NULL };
		const char *env[] = { "ROCJIT_NO_COMPILE=1", bundle_env, cache_env, NULL };
		ASSERT_INT(run(argv, env, &out), 0);
		ASSERT_CONTAINS(out, "compiles 0 (0 ms), disk hits 3");
		ASSERT(!strstr(out, " compiled "));
		free(out);
	}
#endif
}

/*
 * The same with headers: the data probe embeds tests/data/kernels (scale.hip and
 * sub/offset.hip include common.h, sub/util.h).  A bundle exported from that folder plus
 * a header and a source of its own serves both with compiling forbidden.
 */
TEST(application_with_headers_is_served_from_a_bundle_of_a_larger_folder)
{
	static const char *const sources[] = { "scale.hip", "sub/offset.hip" };
	char dir[4300], cmd[9000], bundle[4300], bundle_env[4400], fresh[4300], *out;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", ROCJIT_TEST_DATA_KERNELS, dir);
	ASSERT_INT(system(cmd), 0);
	write_text(dir, "extra.h", "#pragma once\n#define EXTRA 3\n");
	write_text(dir, "extra.hip", "#include \"extra.h\"\n#include \"common.h\"\n"
		   "extern \"C\" __global__ void extra(int *x) { x[global_index()] = EXTRA; }\n");
	snprintf(bundle, sizeof bundle, "%s/kernels.rocjit", rj_test_dir);
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "export",
				 "-o", bundle, "--arch", "gfx90a", "--no-progress", dir, NULL };
		ASSERT_INT(run(argv, NULL, &out), 0);
		ASSERT_CONTAINS(out, "3 entries written");
		free(out);
	}
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	for (size_t s = 0; s < N(sources); s++) {
		const char *env[] = { "ROCJIT_NO_COMPILE=1", bundle_env, NULL };
		const char *argv[] = { ROCJIT_TEST_PROBE_DATA, "--cache", fresh, "--target",
				 "gfx90a", "--registered", sources[s], NULL };
		ASSERT_INT(run(argv, env, &out), 0);
		ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
		free(out);
	}
}
