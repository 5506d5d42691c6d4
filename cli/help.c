/*
 * help.c - the help texts: every command's name, alias, one-line summary, usage line and
 * help (`rocjit help CMD`, `rocjit CMD --help`), and `rocjit --help`.  The usage line is
 * also what a usage error prints (diagnostics.c).
 *
 * Owns the texts, in the order `rocjit --help` lists the commands.  They are the one
 * source of the man page too: the build runs help2man on `rocjit --help`, with every
 * command's help from `rocjit help --all` as a section of it (cli/CMakeLists.txt).  Data and printing
 * only: below the commands and the diagnostics, it calls no other file of cli/ and runs no
 * command (main.c's table does); a command added there gets its entry here.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char cli_main_usage[] = "rocjit [--cache DIR] [--remote URL] [--quiet] COMMAND [ARGS...]";

static const struct cli_help_entry commands[] = {
	{ "prewarm", NULL, "compile kernels into the cache for one or more targets",
	  "rocjit prewarm [--arch T[,T...]]... [--jobs N] [--manifest FILE]... [--json]\n"
	  "                      [--no-progress] [--timeout SECONDS] [--header NAME]...\n"
	  "                      [--lang cuda|hip] [--push] [--name-expr EXPR|@FILE]...\n"
	  "                      [PATH...] [-- COMPILER-OPTIONS...]",
	  "Compiles every kernel source of the given inputs for every target and stores the\n"
	  "code objects in the cache, so that applications find them there.  Keys already in\n"
	  "the cache are skipped at once.\n"
	  "\n"
	  "Inputs (at least one):\n"
	  "  --manifest FILE  the kernel manifest an application's build wrote\n"
	  "                   (<target>.rocjit-manifest next to it; rocjit_add_kernels() sets the\n"
	  "                   target property ROCJIT_MANIFEST).  Every embedded file is compiled\n"
	  "                   exactly as the application looks it up: each *.h, *.hpp, *.cuh\n"
	  "                   and *.inc of the set, and each name its HEADERS listed, is an\n"
	  "                   in-memory header of every source, in the manifest's order.  A\n"
	  "                   PATH whose first line is \"# rocjit-manifest N\" is read as a\n"
	  "                   manifest too.  A source its expr= lines name (format 3:\n"
	  "                   rocjit_add_kernels(NAME_EXPRESSIONS)) is compiled once per line,\n"
	  "                   with that line's name expressions, and never whole.\n"
	  "  FOLDER           the files rocjit_add_kernels(DIR FOLDER) embeds by default\n"
	  "                   (*.hip *.cu *.h *.hpp *.cuh under it, recursively), treated like\n"
	  "                   a manifest of them.  An application that embeds other patterns\n"
	  "                   (GLOB) needs --manifest.\n"
	  "  FILE             one kernel file, compiled alone (no in-memory headers).\n"
	  "\n"
	  "Options:\n"
	  "  -a, --arch T,...  targets (gfx90a, gfx90a:sramecc+:xnack-, sm_90); repeatable.\n"
	  "                    Default: $ROCJIT_ARCH, else the GPUs of this machine.\n"
	  "  -j, --jobs N      compiles at once, each in a compile worker process\n"
	  "                    (default: the number of online CPUs)\n"
	  "  --no-progress     no progress bar or lines on stderr\n"
	  "  --json            print the summary as JSON on stdout\n"
	  "  --timeout SECONDS a compile's time limit: a compiler still running then is\n"
	  "                    killed and its job fails (default: $ROCJIT_COMPILE_TIMEOUT,\n"
	  "                    else 600; 0: no limit)\n"
	  "  --header NAME     a file of each FOLDER (path relative to it: cmath,\n"
	  "                    cuda/std/limits) that is a header whatever its name, as\n"
	  "                    rocjit_add_kernels(HEADERS NAME) registers it; repeatable\n"
	  "  --lang cuda|hip   the source language of every source (part of the key).\n"
	  "                    Default: by each file's name, as the library decides for\n"
	  "                    registered sources: *.cu and *.cuh are cuda, the rest hip.\n"
	  "                    Registered sources always go by name: give --lang for files\n"
	  "                    an application compiles with rocjit_program.language set.\n"
	  "  --push            then put every entry of the run (compiled now or already\n"
	  "                    cached) on the remote tier (--remote URL, else\n"
	  "                    $ROCJIT_REMOTE), keeping values already there; exit status\n"
	  "                    1 when one could not be pushed.  (With a remote tier, what\n"
	  "                    prewarm compiles goes there anyway, once per key across the\n"
	  "                    machines prewarming at the same time.)\n"
	  "  --name-expr EXPR  a kernel template instantiation to compile ('scale<float, 4>',\n"
	  "                    'ns::k<int>'), as rocjit_program.name_expressions; repeatable:\n"
	  "                    every source is compiled once with all of them, in the order\n"
	  "                    given (part of the key).  @FILE: FILE's lines, one expression\n"
	  "                    each ('#' lines skipped).  For every source of the inputs but\n"
	  "                    those a manifest's expr= lines name.\n"
	  "  -- OPTIONS        compiler options for every source (-DN=4 -O2); they are part\n"
	  "                    of the key, so give the ones the application passes.\n"
	  "\n"
	  "Compiling is what prewarm is for: $ROCJIT_NO_COMPILE is ignored here.\n"
	  "A code object with 0 kernels is a warning on stderr (and \"warnings\" in --json):\n"
	  "most often templates never instantiated: give --name-expr.\n"
	  "The summary counts what the cache holds at the end: \"N compiled, M stored\".  A\n"
	  "code object that was compiled but not kept (a full disk, a read-only cache, a\n"
	  "ROCJIT_CACHE_MAXSIZE too small for it or for the whole set) is listed as NOT\n"
	  "STORED with the cache's reason.\n"
	  "Exit status: 0 when everything is in the cache, 1 when anything failed (each\n"
	  "failure is listed with its compiler log) or was not stored, 2 for bad arguments.",
	  0 },
	{ "export", NULL, "write a read-only bundle of prebuilt kernels to ship",
	  "rocjit export -o FILE.rocjit [--arch T[,T...]]... [--jobs N] [--manifest FILE]...\n"
	  "                     [--json] [--no-progress] [--name-expr EXPR|@FILE]...\n"
	  "                     [PATH...] [-- COMPILER-OPTIONS...]",
	  "Prewarms the inputs for the targets (see rocjit help prewarm: the same inputs and\n"
	  "options), then writes their entries to a new bundle file.  Ship it next to the\n"
	  "application as <executable>.rocjit, or name it in $ROCJIT_BUNDLE_PATH: rocjit\n"
	  "looks there after the user cache, and a bundle needs no compiler on the machine\n"
	  "that uses it.  rocjit list, show and verify read a bundle with --cache FILE.\n"
	  "Exit status: 0 when the bundle is written, 1 on failure, 2 for bad arguments.",
	  0 },
	{ "import", NULL, "copy a bundle's entries into the cache",
	  "rocjit import FILE.rocjit",
	  "Copies every entry of the bundle into the cache, with its signature; entries\n"
	  "already there are kept.  Where keys are trusted (ROCJIT_TRUSTED_KEYS), only\n"
	  "entries signed by one of them are copied; the others are refused, each saying why.\n"
	  "Exit status: 0 ok, 1 failure or refused entries, 2 for bad arguments.",
	  0 },
	{ "purge", NULL, "remove entries from the cache and give the space back",
	  "rocjit purge (--all | [--older-than AGE] [--arch T,...]\n"
	  "                    [--compiler-version-other-than-current] [--max-size SIZE])\n"
	  "                    [--dry-run] [--verbose] [--json]",
	  "Removes entries in one transaction, then compacts the database so that the file\n"
	  "really shrinks.\n"
	  "\n"
	  "  --all              every entry, and your NVRTC precompiled headers (pch-<uid>/)\n"
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
	  0 },
	{ "stats", NULL, "show what the cache holds and how well it serves",
	  "rocjit stats [--zero] [--json]",
	  "Prints the entries and bytes stored, per target and per compiler version; the\n"
	  "disk hits, misses and compiles of every process since the last --zero, the hit\n"
	  "ratio and the compile time the hits saved; the cache's path and limits.\n"
	  "\n"
	  "  -z, --zero   set the counters to zero (the entries stay)\n"
	  "  --json       print as JSON",
	  0 },
	{ "list", "ls", "list the cache entries, one per line",
	  "rocjit list [--older-than AGE] [--arch T,...] [--compiler-version-other-than-current]\n"
	  "                   [--sort FIELD] [--reverse] [--json]",
	  "Prints one line per entry: short key, target, size, last use, hits, source file\n"
	  "and kernel names.  The filters are purge's (see `rocjit help purge`).\n"
	  "\n"
	  "  -s, --sort FIELD  key (default), target, size, last-used, created, hits, source\n"
	  "  -r, --reverse     reverse the order\n"
	  "  --json            print as JSON",
	  0 },
	{ "show", NULL, "show everything stored about one entry",
	  "rocjit show KEY-PREFIX [--extract FILE] [--json]",
	  "Prints the entry whose key starts with KEY-PREFIX (at least 4 hex digits; `rocjit\n"
	  "list` shows keys): what it was compiled from and with, its use, its signature\n"
	  "(checked against ROCJIT_TRUSTED_KEYS), and what its code object says about itself\n"
	  "(target id, kernels and what each uses, read from the object: registers,\n"
	  "spills, scratch or stack, static LDS/shared bytes, argument bytes, launch\n"
	  "bound; \"resources\" in --json).  list --json gives each entry's signer, not\n"
	  "checked (it reads no code).\n"
	  "\n"
	  "  -x, --extract FILE  write the code object to FILE (- for stdout)\n"
	  "  --json              print as JSON",
	  0 },
	{ "verify", NULL, "check every entry's checksum and target",
	  "rocjit verify [--fix] [--json]",
	  "Checks that every entry's code matches its checksum and is a code object for the\n"
	  "target it is stored under, and its signature against ROCJIT_TRUSTED_KEYS: bad when\n"
	  "it does not hold (or, with ROCJIT_REQUIRE_SIGNED=all, when the entry is not signed\n"
	  "by a trusted key).  Counts the entries signed by a trusted key, unsigned, and\n"
	  "signed by other keys.  Exit status 1 when anything was bad.\n"
	  "\n"
	  "  --fix    remove the bad entries\n"
	  "  --json   print as JSON",
	  0 },
	{ "compile", NULL, "compile one kernel file, as a compiler would",
	  "rocjit compile FILE [--arch T,...] [-o OUT] [--no-cache] [--json] [--lang cuda|hip]\n"
	  "                      [--name-expr EXPR]...\n"
	  "                      [-- COMPILER-OPTIONS...]",
	  "The kernel developer's loop: compiles FILE, prints the compiler's diagnostics on\n"
	  "stderr as FILE:LINE:COL: error: ..., stores the code object in the cache and prints\n"
	  "the kernels it holds, each with what it uses as its code object records it (what\n"
	  "ptxas -v or the AMDGPU metadata say, for any target, no GPU needed):\n"
	  "  axpy: 4 VGPRs, 11 SGPRs, 0 spills, 0 B scratch, 0 B LDS, 28 B args,\n"
	  "        max 1024 threads, wave64\n"
	  "  axpy: 10 registers, 0 B stack, 0 B shared, 28 B params, no launch bound\n"
	  "(\"resources\" in --json: an object per kernel, the fields of\n"
	  "rocjit_kernel_resources).\n"
	  "\n"
	  "  -a, --arch T,...  targets (default: $ROCJIT_ARCH, else the GPUs present)\n"
	  "  -o, --output OUT  write the code object to OUT (one target only)\n"
	  "  --no-cache        neither read nor write the cache\n"
	  "  --json            print the result as JSON on stdout\n"
	  "  --lang cuda|hip   the source language (part of the key); default: by FILE's\n"
	  "                    name, *.cu and *.cuh cuda, else hip\n"
	  "  --name-expr EXPR  a kernel template instantiation to compile and name\n"
	  "                    ('scale<float, 4>', 'ns::k<int>'); repeatable, part of the\n"
	  "                    key; prints each lowered (mangled) name (\"lowered_names\" in\n"
	  "                    --json)\n"
	  "  -- OPTIONS        compiler options (-DN=4 -O2 -I DIR)\n"
	  "\n"
	  "A code object with 0 kernels compiles but is warned of (and \"num_kernels\": 0 and\n"
	  "\"warnings\" in --json): templates that were never instantiated need name\n"
	  "expressions or explicit instantiations.\n"
	  "Exit status 1 when it did not compile, or compiled but was not stored in the\n"
	  "cache (the cache's reason is printed; --no-cache does not store).",
	  0 },
	{ "remote", NULL, "check the remote tier (Redis) and what it holds",
	  "rocjit remote ping|stats [--json]",
	  "The remote tier is --remote URL, else $ROCJIT_REMOTE: a Redis server or cluster\n"
	  "that a fleet shares, so that a kernel compiles once across the fleet.\n"
	  "\n"
	  "  ping   connects to every server (each master of a cluster), sends the\n"
	  "         credentials, and prints the slowest round trip, the server's version,\n"
	  "         its memory and eviction policy (the tier wants maxmemory-policy\n"
	  "         allkeys-lru).  Exit status 1 when a server cannot be reached or refuses.\n"
	  "  stats  ping's report, the tier's entries on the servers (a SCAN of its keys:\n"
	  "         count, bytes, compile locks held), and this cache's counters of its use\n"
	  "         (hits, misses, puts, errors, values refused, bytes, time saved).\n"
	  "\n"
	  "  --json  the report as JSON on stdout\n"
	  "\n"
	  "The password (in the URL, or the first line of $ROCJIT_REMOTE_PASSWORD_FILE) is\n"
	  "never printed.",
	  0 },
	{ "keygen", NULL, "make a key pair to sign code objects with",
	  "rocjit keygen [--dir DIR] NAME",
	  "Writes DIR/NAME.secret (the signing key, mode 0600; never replaced) and\n"
	  "DIR/NAME.pub, and prints the public key, NAME:BASE64, on stdout.  Producers sign\n"
	  "what they store, export and push with ROCJIT_SIGNING_KEY=DIR/NAME.secret;\n"
	  "consumers load bundle and remote entries only when signed by a key of\n"
	  "ROCJIT_TRUSTED_KEYS=NAME:BASE64[,...] (or files of such lines), and local ones too\n"
	  "with ROCJIT_REQUIRE_SIGNED=all.  Trust the new key beside the old one while\n"
	  "rotating.\n"
	  "\n"
	  "  -d, --dir DIR   where to write the files (default: the current folder; made,\n"
	  "                  mode 0700, when it does not exist)",
	  0 },
	{ "sign", NULL, "sign the cache's entries (or a bundle's: --cache FILE)",
	  "rocjit sign [--key FILE] [KEY...]",
	  "Signs the entries with these keys (all without keys) with --key FILE, else\n"
	  "$ROCJIT_SIGNING_KEY, replacing their signatures.  `rocjit --cache app.rocjit sign`\n"
	  "signs a bundle.  An entry whose code fails its checksum is not signed (exit\n"
	  "status 1; rocjit verify --fix removes it).",
	  0 },
	{ "push", NULL, "put the cache's entries on the remote tier",
	  "rocjit push [--older-than AGE] [--arch T[,T...]]...\n"
	  "                   [--compiler-version-other-than-current] [--dry-run] [--json]",
	  "Puts the entries of the cache that the filters select (all without filters) on\n"
	  "the remote tier (--remote URL, else $ROCJIT_REMOTE), never replacing a value\n"
	  "already there: a CI farm prewarms, then pushes, and the fleet's first runs are\n"
	  "served.  (A context with a remote tier puts what it compiles by itself; push is\n"
	  "for entries made before, or elsewhere.  `rocjit prewarm --push` does both.)\n"
	  "\n"
	  "  --older-than AGE  only entries last used longer ago than AGE (30d, 12h)\n"
	  "  -a, --arch T,...  only entries for these targets\n"
	  "  --compiler-version-other-than-current\n"
	  "                    only entries whose compiler is not the installed one\n"
	  "  -n, --dry-run     say how many would be pushed; push nothing\n"
	  "  --json            the summary as JSON on stdout (entries that failed, why)\n"
	  "\n"
	  "Exit status 1 when an entry could not be pushed (each one is named, with why).",
	  0 },
	{ "config", NULL, "show the settings and where each comes from; set one",
	  "rocjit config [show] [--json]\n"
	  "       rocjit config get KEY\n"
	  "       rocjit config set [--file] KEY VALUE\n"
	  "       rocjit config unset [--file] KEY",
	  "Every setting has a key (cache_maxsize) and an environment variable\n"
	  "(ROCJIT_CACHE_MAXSIZE); `rocjit --help` lists them.  A setting's value is, first\n"
	  "found: the variable, when set and not empty; the user file\n"
	  "($XDG_CONFIG_HOME/rocjit/rocjit.conf, else ~/.config/rocjit/rocjit.conf); the system\n"
	  "file (/etc/rocjit/rocjit.conf, or $ROCJIT_CONFIG; \"\" for none); the default.\n"
	  "cache_maxsize has one more step after the variable: the limit stored in the cache\n"
	  "itself, which every process using the cache enforces (ccache -M).  The files hold\n"
	  "`key = value` lines (the key, or the variable's name) and # comments; a file is\n"
	  "read only when it is owned by you or root and writable by nobody else.\n"
	  "\n"
	  "  show           every setting, its value (the default in parentheses) and where\n"
	  "                 it comes from: environment, user, system, cache or default\n"
	  "  get KEY        the value alone (an empty line: the default applies)\n"
	  "  set KEY VALUE  writes KEY to the user file, checked as rocjit reads it; for\n"
	  "                 cache_maxsize, stores it in the cache (--cache DIR) instead\n"
	  "  unset KEY      removes KEY from the user file (cache_maxsize: from the cache)\n"
	  "  --file         set or unset cache_maxsize in the user file, not the cache\n"
	  "  --json         show as JSON: user_file, system_file, cache, and settings, each\n"
	  "                 with name, env, value (null: the default), source, where,\n"
	  "                 default, kind, description\n"
	  "\n"
	  "A file's malformed line, unknown key or bad value is warned of as FILE:LINE and\n"
	  "skipped.  A process reads the files once, when it starts using rocjit.\n"
	  "Exit status: 0 ok, 1 when a file or the cache cannot be written, 2 for a bad\n"
	  "key or value.",
	  0 },
	{ "targets", NULL, "list the targets the compilers support and the GPUs present",
	  "rocjit targets [--json]",
	  "For each platform (amd: hipRTC, nvidia: NVRTC): the compiler's identity as it\n"
	  "enters cache keys, the targets it compiles for, and the GPUs of this machine.",
	  0 },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

const struct cli_help_entry *cli_help_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0 ||
		    (commands[i].alias && strcmp(commands[i].alias, name) == 0))
			return &commands[i];
	return NULL;
}

/*
 * The ENVIRONMENT section: every setting of the library's table (rocjit_setting_at), with
 * its description and default, so that no variable is missing from the help and the man
 * page made from it.  Wrapped at 80 columns, under the variable's name.
 */
static void environment_help(FILE *f)
{
	const rocjit_setting *s;

	fprintf(f, "\nEnvironment:\n"
		   "Each variable may also be set in a configuration file as `key = value`, key\n"
		   "the name without ROCJIT_ in lower case (`rocjit help config`); the\n"
		   "environment wins.\n");
	for (size_t i = 0; (s = rocjit_setting_at(i)); i++) {
		char text[1024];
		const char *p = text;

		snprintf(text, sizeof text, "%s (%s; default: %s)", s->description, s->kind,
			 s->default_value);
		fprintf(f, "  %s\n", s->env);
		while (*p) {
			size_t n = strlen(p), cut = n;
			if (n > 72) {
				for (cut = 72; cut > 0 && p[cut] != ' '; cut--)
					;
				if (!cut)
					cut = 72;
			}
			fprintf(f, "      %.*s\n", (int)cut, p);
			p += cut;
			while (*p == ' ')
				p++;
		}
	}
	fprintf(f, "Also read: HOME, XDG_CACHE_HOME (the cache folder), XDG_CONFIG_HOME (the\n"
		   "user file), ROCM_PATH (hipRTC, comgr and the HIP runtime, before /opt/rocm),\n"
		   "CUDA_PATH and CUDA_HOME (NVRTC and its headers), TMPDIR.\n");
}

int cli_main_help(FILE *f)
{
	fprintf(f, "usage: %s\n\n", cli_main_usage);
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
		   "  --remote URL  the remote tier (default: $ROCJIT_REMOTE; \"\" for none):\n"
		   "                redis://[user@]host[:port][/db],\n"
		   "                unix:///path/to/redis.sock, redis-cluster://host:port,...\n"
		   "                (no password here: ps shows it to all; give it in\n"
		   "                $ROCJIT_REMOTE_PASSWORD_FILE, a file only you can read)\n"
		   "  -q, --quiet   no progress and no summary of what a command did: only\n"
		   "                errors and warnings (on stderr), and the output a command\n"
		   "                is asked for (list, show, stats, --json ...); the library's\n"
		   "                info lines ($ROCJIT_LOG=info) are dropped too\n"
		   "  --version     print the version\n"
		   "  -h, --help    this text; `rocjit help COMMAND` or `rocjit COMMAND --help`\n"
		   "                for a command; `rocjit help --all` for every command\n"
		   "\n"
		   "The global options may also follow the command (rocjit stats --cache DIR),\n"
		   "before a \"--\" that starts compiler options.\n"
		   "\n"
		   "Commands that read the cache (list, show, stats, verify, purge) never\n"
		   "create one: where there is none they say \"no cache at DIR\" (exit status 0;\n"
		   "show KEY: 1).  Stored names are printed with control characters and bytes\n"
		   "that are not UTF-8 escaped (\\x1b); --json output is always UTF-8.\n"
		   "\n"
		   "Exit status: 0 success, 1 failure (also when standard output cannot be\n"
		   "written), 2 bad arguments.\n");
	environment_help(f);
	return CLI_OK;
}

const struct cli_help_entry *cli_help_entries(size_t *n)
{
	*n = NCOMMANDS;
	return commands;
}

int cli_help_commands(FILE *f)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (commands[i].hidden)
			continue;
		fprintf(f, "%s:%s\n", commands[i].name, commands[i].summary);
		if (commands[i].alias)
			fprintf(f, "%s:%s\n", commands[i].alias, commands[i].summary);
	}
	fprintf(f, "help:show the help of a command\n");
	return CLI_OK;
}

int cli_help_all(FILE *f)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!commands[i].hidden)
			fprintf(f, "%srocjit %s\n%s\n\n%s\n", i ? "\n" : "", commands[i].name,
				commands[i].usage, commands[i].help);
	return CLI_OK;
}

int cli_help(const char *name)
{
	const struct cli_help_entry *c = cli_help_find(name);

	if (!c)
		return CLI_USAGE;
	printf("usage: %s\n\n%s\n", c->usage, c->help);
	return CLI_OK;
}
