/*
 * rocjit.c - the rocjit command-line tool: global options, the command table with each
 * command's help, and dispatch.
 *
 *   rocjit [--cache DIR] COMMAND [ARGS...]
 *
 * Owns the command table and the global options (cli_global).  The commands live in one
 * file each (prewarm.c, purge.c, ...); they use the public API only.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct cli_global cli_global;

static const struct cli_command commands[] = {
	{ "prewarm", NULL, "compile kernels into the cache for one or more targets",
	  "rocjit prewarm [--arch T[,T...]]... [--jobs N] [--manifest FILE]... [--json]\n"
	  "                      [--no-progress] [--timeout SECONDS] [PATH...]\n"
	  "                      [-- COMPILER-OPTIONS...]",
	  "Compiles every kernel source of the given inputs for every target and stores the\n"
	  "code objects in the cache, so that applications find them there.  Keys already in\n"
	  "the cache are skipped at once.\n"
	  "\n"
	  "Inputs (at least one):\n"
	  "  --manifest FILE  the kernel manifest an application's build wrote\n"
	  "                   (<target>.rocjit-manifest next to it; rocjit_add_kernels() sets the\n"
	  "                   target property ROCJIT_MANIFEST).  Every embedded file is compiled\n"
	  "                   exactly as the application looks it up: each *.h, *.hpp, *.cuh\n"
	  "                   and *.inc of the set is an in-memory header of every source, in\n"
	  "                   the manifest's order.  A PATH whose first line is\n"
	  "                   \"# rocjit-manifest 1\" is read as a manifest too.\n"
	  "  FOLDER           the files rocjit_add_kernels(DIR FOLDER) embeds by default\n"
	  "                   (*.hip *.h *.hpp *.cuh under it, recursively), treated like a\n"
	  "                   manifest of them.  An application that embeds other patterns\n"
	  "                   (GLOB) needs --manifest.\n"
	  "  FILE             one kernel file, compiled alone (no in-memory headers).\n"
	  "\n"
	  "Options:\n"
	  "  -a, --arch T,...  targets (gfx90a, gfx90a:sramecc+:xnack-, sm_90); repeatable.\n"
	  "                    Default: $ROCJIT_ARCH, else the GPUs of this machine.\n"
	  "  -j, --jobs N      worker processes (default: the number of online CPUs)\n"
	  "  --no-progress     no progress bar or lines on stderr\n"
	  "  --json            print the summary as JSON on stdout\n"
	  "  --timeout SECONDS a compile's time limit: a compiler still running then is\n"
	  "                    killed and its job fails (default: $ROCJIT_COMPILE_TIMEOUT,\n"
	  "                    else 600; 0: no limit)\n"
	  "  -- OPTIONS        compiler options for every source (-DN=4 -O2); they are part\n"
	  "                    of the key, so give the ones the application passes.\n"
	  "\n"
	  "Compiling is what prewarm is for: $ROCJIT_NO_COMPILE is ignored here.\n"
	  "The summary counts what the cache holds at the end: \"N compiled, M stored\".  A\n"
	  "code object that was compiled but not kept (a full disk, a read-only cache, a\n"
	  "ROCJIT_CACHE_MAXSIZE too small for it or for the whole set) is listed as NOT\n"
	  "STORED with the cache's reason.\n"
	  "Exit status: 0 when everything is in the cache, 1 when anything failed (each\n"
	  "failure is listed with its compiler log) or was not stored, 2 for bad arguments.",
	  cli_prewarm, 0 },
	{ "export", NULL, "write a read-only bundle of prebuilt kernels to ship",
	  "rocjit export -o FILE.rocjit [--arch T[,T...]]... [--jobs N] [--manifest FILE]...\n"
	  "                     [--json] [--no-progress] [PATH...] [-- COMPILER-OPTIONS...]",
	  "Prewarms the inputs for the targets (see rocjit help prewarm: the same inputs and\n"
	  "options), then writes their entries to a new bundle file.  Ship it next to the\n"
	  "application as <executable>.rocjit, or name it in $ROCJIT_BUNDLE_PATH: rocjit\n"
	  "looks there after the user cache, and a bundle needs no compiler on the machine\n"
	  "that uses it.  rocjit list, show and verify read a bundle with --cache FILE.\n"
	  "Exit status: 0 when the bundle is written, 1 on failure, 2 for bad arguments.",
	  cli_export, 0 },
	{ "import", NULL, "copy a bundle's entries into the cache",
	  "rocjit import FILE.rocjit",
	  "Copies every entry of the bundle into the cache; entries already there are kept.\n"
	  "Exit status: 0 ok, 1 failure, 2 for bad arguments.",
	  cli_import, 0 },
	{ "purge", NULL, "remove entries from the cache and give the space back",
	  "rocjit purge (--all | [--older-than AGE] [--arch T,...]\n"
	  "                    [--compiler-version-other-than-current] [--max-size SIZE])\n"
	  "                    [--dry-run] [--verbose] [--json]",
	  "Removes entries in one transaction, then compacts the database so that the file\n"
	  "really shrinks.\n"
	  "\n"
	  "  --all              every entry\n"
	  "  --older-than AGE   entries not used for AGE (30d, 12h, 90m, 45s, 2w; a bare\n"
	  "                     number is days)\n"
	  "  -a, --arch T,...   entries for these targets (gfx90a matches every gfx90a\n"
	  "                     variant; gfx90a:xnack- only that one)\n"
	  "  --compiler-version-other-than-current\n"
	  "                     entries made by another compiler version than the installed\n"
	  "                     one (stale after an upgrade; they can never hit again)\n"
	  "  --max-size SIZE    evict least recently used entries until the code stored is at\n"
	  "                     most SIZE (2G, 500M, 64K, bytes).  With other criteria, only\n"
	  "                     the entries they select are evicted, oldest first.\n"
	  "  -n, --dry-run      print what would go, change nothing\n"
	  "  -v, --verbose      print every removed entry\n"
	  "  --json             print what was (or would be) removed as JSON\n"
	  "\n"
	  "Criteria combine: an entry goes when it matches all of them.",
	  cli_purge, 0 },
	{ "stats", NULL, "show what the cache holds and how well it serves",
	  "rocjit stats [--zero] [--json]",
	  "Prints the entries and bytes stored, per target and per compiler version; the\n"
	  "disk hits, misses and compiles of every process since the last --zero, the hit\n"
	  "ratio and the compile time the hits saved; the cache's path and limits.\n"
	  "\n"
	  "  -z, --zero   set the counters to zero (the entries stay)\n"
	  "  --json       print as JSON",
	  cli_stats, 0 },
	{ "list", "ls", "list the cache entries, one per line",
	  "rocjit list [--older-than AGE] [--arch T,...] [--compiler-version-other-than-current]\n"
	  "                   [--sort FIELD] [--reverse] [--json]",
	  "Prints one line per entry: short key, target, size, last use, hits, source file\n"
	  "and kernel names.  The filters are purge's (see `rocjit help purge`).\n"
	  "\n"
	  "  -s, --sort FIELD  key (default), target, size, last-used, created, hits, source\n"
	  "  -r, --reverse     reverse the order\n"
	  "  --json            print as JSON",
	  cli_list, 0 },
	{ "show", NULL, "show everything stored about one entry",
	  "rocjit show KEY-PREFIX [--extract FILE] [--json]",
	  "Prints the entry whose key starts with KEY-PREFIX (at least 4 hex digits; `rocjit\n"
	  "list` shows keys): what it was compiled from and with, its use, and what its code\n"
	  "object says about itself (target id and kernels, read from the object).\n"
	  "\n"
	  "  -x, --extract FILE  write the code object to FILE (- for stdout)\n"
	  "  --json              print as JSON",
	  cli_show, 0 },
	{ "verify", NULL, "check every entry's checksum and target",
	  "rocjit verify [--fix] [--json]",
	  "Checks that every entry's code matches its checksum and is a code object for the\n"
	  "target it is stored under.  Exit status 1 when anything was bad.\n"
	  "\n"
	  "  --fix    remove the bad entries\n"
	  "  --json   print as JSON",
	  cli_verify, 0 },
	{ "compile", NULL, "compile one kernel file, as a compiler would",
	  "rocjit compile FILE [--arch T,...] [-o OUT] [--no-cache] [--json]\n"
	  "                      [-- COMPILER-OPTIONS...]",
	  "The kernel developer's loop: compiles FILE, prints the compiler's diagnostics on\n"
	  "stderr as FILE:LINE:COL: error: ..., stores the code object in the cache and prints\n"
	  "the kernels it holds.\n"
	  "\n"
	  "  -a, --arch T,...  targets (default: $ROCJIT_ARCH, else the GPUs present)\n"
	  "  -o, --output OUT  write the code object to OUT (one target only)\n"
	  "  --no-cache        neither read nor write the cache\n"
	  "  --json            print the result as JSON on stdout\n"
	  "  -- OPTIONS        compiler options (-DN=4 -O2 -I DIR)\n"
	  "\n"
	  "Exit status 1 when it did not compile, or compiled but was not stored in the\n"
	  "cache (the cache's reason is printed; --no-cache does not store).",
	  cli_compile, 0 },
	{ "targets", NULL, "list the targets the compilers support and the GPUs present",
	  "rocjit targets [--json]",
	  "For each platform (amd: hipRTC, nvidia: NVRTC): the compiler's identity as it\n"
	  "enters cache keys, the targets it compiles for, and the GPUs of this machine.",
	  cli_targets, 0 },
	{ "__worker", NULL, "prewarm's worker process", "rocjit __worker", "", cli_worker, 1 },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0 ||
		    (commands[i].alias && strcmp(commands[i].alias, name) == 0))
			return &commands[i];
	return NULL;
}

static const char main_usage[] = "rocjit [--cache DIR] COMMAND [ARGS...]";

static int main_help(FILE *f)
{
	fprintf(f, "usage: %s\n\n", main_usage);
	fprintf(f, "Compiles HIP kernels ahead of time into rocjit's cache and keeps it tidy.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char name[32];
		if (commands[i].hidden)
			continue;
		snprintf(name, sizeof name, "%s%s%s", commands[i].name,
			 commands[i].alias ? ", " : "",
			 commands[i].alias ? commands[i].alias : "");
		fprintf(f, "  %-10s %s\n", name, commands[i].summary);
	}
	fprintf(f, "\nGlobal options:\n"
		   "  --cache DIR   the cache folder (default: $ROCJIT_CACHE_DIR, else\n"
		   "                $XDG_CACHE_HOME/rocjit, else ~/.cache/rocjit)\n"
		   "  --version     print the version\n"
		   "  -h, --help    this text; `rocjit help COMMAND` or `rocjit COMMAND --help`\n"
		   "                for a command\n"
		   "\n"
		   "Commands that read the cache (list, show, stats, verify, purge) never\n"
		   "create one: where there is none they say \"no cache at DIR\" (exit status 0;\n"
		   "show KEY: 1).  Stored names are printed with control characters and bytes\n"
		   "that are not UTF-8 escaped (\\x1b); --json output is always UTF-8.\n"
		   "\n"
		   "Exit status: 0 success, 1 failure (also when standard output cannot be\n"
		   "written), 2 bad arguments.\n");
	return CLI_OK;
}

int cli_help(const char *name)
{
	const struct cli_command *c = cli_command_find(name);

	if (!c)
		return cli_usage_error(NULL, "'%s' is not a rocjit command", name);
	printf("usage: %s\n\n%s\n", c->usage, c->help);
	return CLI_OK;
}

static int help_command(int argc, char **argv)
{
	if (argc < 2)
		return main_help(stdout);
	if (argc > 2)
		return cli_usage_error(NULL, "help takes one command name");
	return cli_help(argv[1]);
}

/* Where this executable is, for starting workers: /proc/self/exe, else argv[0]. */
static void find_self(const char *argv0)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

	if (n > 0) {
		path[n] = 0;
		cli_global.self = path;
	} else {
		cli_global.self = argv0;
	}
}

/*
 * Output that did not all reach standard output (a full disk, a closed pipe) is a
 * failure, whatever the command: a script must not take a cut listing or JSON document
 * for the whole.  Checked once, here, after every command, as coreutils' close_stdout
 * does: the stream's error flag catches a failed write anywhere before, fclose the last
 * buffered bytes.
 */
static int close_stdout(int rc)
{
	int failed, err;

	errno = 0;
	failed = fflush(stdout) != 0 || ferror(stdout);
	err = errno;
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
	if (!failed)
		return rc;
	fprintf(stderr, "rocjit: cannot write the output: %s; check where standard output "
		"goes (a full disk, a closed pipe) and run the command again\n",
		err ? strerror(err) : "a write failed");
	return rc == CLI_OK ? CLI_FAIL : rc;
}

static int run(int argc, char **argv)
{
	const struct cli_command *c;
	int i = 1;

	find_self(argv[0]);
	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];
		if (!strcmp(a, "--cache") || !strncmp(a, "--cache=", 8)) {
			const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v || !*v)
				return cli_usage_error(NULL, "--cache needs a folder");
			cli_global.cache_dir = v;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			int v = rocjit_version();
			printf("rocjit %s (library %d.%d.%d)\n", ROCJIT_VERSION_STRING, v / 10000,
			       v / 100 % 100, v % 100);
			return CLI_OK;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return main_help(stdout);
		} else {
			return cli_usage_error(NULL, "unknown option %s", a);
		}
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s\n", main_usage);
		fprintf(stderr, "rocjit: a command is missing; `rocjit --help` lists them\n");
		return CLI_USAGE;
	}
	if (!strcmp(argv[i], "help"))
		return help_command(argc - i, argv + i);
	c = cli_command_find(argv[i]);
	if (!c)
		return cli_usage_error(NULL, "'%s' is not a rocjit command", argv[i]);
	return c->run(argc - i, argv + i);
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
