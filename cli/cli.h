/*
 * cli.h - what the files of the rocjit command-line tool share, below the commands.
 *
 * The tool is built on the public API only (include/rocjit.h): it is the library's first
 * client, and nothing here may include a src/ header (files.c and kernelset.c use
 * src/base/fsutil.c, which the tool compiles in: plain POSIX, no library state).
 *
 * The files form layers; each uses only those below it (tools/depgraph.py checks it, the
 * test depgraph.cli_files_form_layers):
 *     main.c                               the command table, dispatch
 *     prewarm.c import.c purge.c list.c    the commands, one file each (commands.h);
 *     show.c stats.c verify.c compile.c    none calls another or main.c
 *     targets.c remote.c config.c
 *     workers.c progress.c kernelset.c     prewarm's compile slots, progress and inputs;
 *     entries.c                            cache entries as the commands see them
 *     cache.c files.c args.c               the cache, the user's files, the arguments
 *     diagnostics.c                        failure, warning and usage messages; the
 *                                          status line; the library's log lines
 *     output.c help.c global.c clock.c     printing, help texts, global options, clocks
 *     alloc.c                              memory
 * The sections below follow the same order, bottom up.
 *
 * Exit codes follow git and ccache: 0 success, 1 failure, 2 usage (bad arguments).  Every
 * message that ends a command says what to do next.
 */
#ifndef ROCJIT_CLI_H
#define ROCJIT_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rocjit.h"

#define CLI_OK 0
#define CLI_FAIL 1
#define CLI_USAGE 2

/* ---- Memory (alloc.c) --------------------------------------------------------------------- */

/* Zeroed memory, a resized block, a copy of s (NULL: ""); each exits with "out of memory"
 * rather than return NULL. */
void *cli_alloc(size_t size);
void *cli_realloc(void *p, size_t size);
char *cli_strdup(const char *s);
/* Prints "rocjit: out of memory" and exits CLI_FAIL. */
void cli_out_of_memory(void) __attribute__((noreturn));

/* ---- Clocks (clock.c) --------------------------------------------------------------------- */

/* Monotonic milliseconds and wall-clock unix seconds. */
double cli_now_ms(void);
int64_t cli_now_s(void);

/* ---- Global options (global.c) ------------------------------------------------------------ */

/* Set by args.c's cli_global_option (before the command, from main.c, or among the
 * command's options, from cli_next); read-only for the commands. */
struct cli_global {
	char *cache_dir;       /* --cache DIR, or NULL: the library's default             */
	char *remote;          /* --remote URL, or NULL: $ROCJIT_REMOTE                   */
	int quiet;             /* --quiet: no progress, no summary of a command that acts  */
};
extern struct cli_global cli_global;

/* ---- Help texts (help.c) ------------------------------------------------------------------ */

/* What `rocjit help CMD` and a usage error say about a command. */
struct cli_help_entry {
	const char *name;
	const char *alias;   /* another name ("ls"), or NULL                              */
	const char *summary; /* one line for `rocjit --help`                               */
	const char *usage;   /* the synopsis, without "usage: "                          */
	const char *help;    /* the rest of `rocjit help CMD`                             */
	int hidden;          /* not listed (the prewarm worker)                          */
};

/* The tool's synopsis: "rocjit [--cache DIR] COMMAND [ARGS...]". */
extern const char cli_main_usage[];
/* The entry of the command named name, or of which name is the alias; NULL if none. */
const struct cli_help_entry *cli_help_find(const char *name);
/* Prints a command's help (usage, text) on stdout; CLI_OK, or CLI_USAGE (nothing printed)
 * when cmd is no command. */
int cli_help(const char *cmd);
/* Prints `rocjit --help` on f; CLI_OK. */
int cli_main_help(FILE *f);
/* The command entries, in --help's order (hidden ones included): *n gets their count. */
const struct cli_help_entry *cli_help_entries(size_t *n);
/* `rocjit help --commands`: "NAME:SUMMARY" per listed command and alias (for shell
 * completion); `rocjit help --all`: every command's help, each under "rocjit NAME" (for
 * the man page). */
int cli_help_commands(FILE *f);
int cli_help_all(FILE *f);

/* ---- Output (output.c) -------------------------------------------------------------------- */

/*
 * Every string the tool did not write itself - stored fields, file names, messages that
 * quote them - is printed through cli_text (text) or the JSON writer (--json): control
 * characters, bidirectional overrides and bytes that are not UTF-8 never reach the
 * terminal raw.
 */
/* The length of the valid UTF-8 character at s[0..n) (shortest form, no surrogate, at
 * most U+10FFFF) with *cp its code point; 0 when s does not start with one. */
size_t cli_utf8_char(const char *s, size_t n, uint32_t *cp);
/* Whether a character must not reach a terminal raw: C0, DEL, C1, bidi overrides. */
int cli_unsafe_char(uint32_t c);
/* s for a terminal: \n \r \t, \xHH for other control bytes and bytes that are not
 * UTF-8, \uHHHH for C1 and bidirectional controls; valid UTF-8 text unchanged.  The
 * copy lives until 16 more calls (use it in the printf that prints it). */
const char *cli_text(const char *s);
/* As cli_text, keeping newlines and tabs: a compiler log, which quotes file names and
 * source lines. */
const char *cli_text_lines(const char *s);
/* A formatted message escaped as cli_text does, malloc'ed. */
char *cli_vtext(const char *fmt, va_list ap);

/* A streaming JSON writer with indentation.  key is NULL inside arrays and at the top. */
struct cli_json {
	FILE *f;
	int depth;
	int count[32]; /* members written at each depth */
};
void cli_json_init(struct cli_json *j, FILE *f);
void cli_json_object(struct cli_json *j, const char *key);
void cli_json_array(struct cli_json *j, const char *key);
void cli_json_end_object(struct cli_json *j);
void cli_json_end_array(struct cli_json *j);
void cli_json_str(struct cli_json *j, const char *key, const char *value);
void cli_json_strn(struct cli_json *j, const char *key, const char *value, size_t len);
void cli_json_int(struct cli_json *j, const char *key, int64_t value);
void cli_json_uint(struct cli_json *j, const char *key, uint64_t value);
void cli_json_num(struct cli_json *j, const char *key, double value);
void cli_json_bool(struct cli_json *j, const char *key, int value);
void cli_json_null(struct cli_json *j, const char *key);
/* Writes a comma-separated list ("a,b") as an array of strings. */
void cli_json_list(struct cli_json *j, const char *key, const char *csv, char sep);
/* Ends the document (a newline). */
void cli_json_finish(struct cli_json *j);

/* What each kernel of info (read from data[0..size)) uses (resources.c): one line per
 * kernel, "  NAME: 12 VGPRs, 16 SGPRs, ...", or a "resources" array of objects with the
 * fields of rocjit_kernel_resources ("error" for a kernel whose record cannot be read). */
void cli_print_resources(const void *data, size_t size, const rocjit_codeobj_info *info);
void cli_json_resources(struct cli_json *j, const void *data, size_t size,
			const rocjit_codeobj_info *info);

/* "512 B", "12.3 KiB", "4.0 MiB", "1.2 GiB". */
const char *cli_fmt_size(char *buf, size_t size, uint64_t bytes);
/* "0.31 s", "12.4 s", "3 min 20 s", "2 h 5 min". */
const char *cli_fmt_ms(char *buf, size_t size, double ms);
/* "just now", "5 min ago", "3 h ago", "2 d ago"; "never" for 0. */
const char *cli_fmt_ago(char *buf, size_t size, int64_t t, int64_t now);
/* "2026-11-21 18:12:05" local time; "-" for 0. */
const char *cli_fmt_time(char *buf, size_t size, int64_t t);

/* ---- Diagnostics on stderr (diagnostics.c) ------------------------------------------------ */

/* Prints "rocjit: <message>" on stderr; returns CLI_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "rocjit: warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The status line (progress.c's bar): shown on stderr until cleared, and every other
 * line written to stderr through this file - the tool's messages, the library's log
 * lines (cli_log_start) - clears it first and draws it again after, so that no message
 * is written over it.  Any thread.
 */
void cli_status_show(const char *line);
void cli_status_clear(void);
/* Writes text (whole lines) on stderr under the status line's rule. */
void cli_stderr_text(const char *text);
/*
 * Routes the library's log lines to stderr as the library prints them ("rocjit:
 * warning: ..."), under the status line's rule; --quiet drops its info and debug lines.
 * The library's warning of a code object without kernels is dropped: the commands say it
 * themselves (CLI_NO_KERNELS_WARNING), for cached objects too, with the tool's remedies.
 * cli_log_line is the hook itself, for a command that filters lines first (compile.c).
 */
void cli_log_start(void);
void cli_log_line(void *user, int level, const char *message);

/* The warning for a code object that holds no kernel (compile, prewarm): what it is and
 * its likely cause, after "FILE (TARGET): ". */
#define CLI_NO_KERNELS_WARNING \
	"the code object holds 0 kernels; likely cause: templates that were never " \
	"instantiated: add name expressions (rocjit compile --name-expr 'k<float>') or " \
	"explicit instantiations (template __global__ void k<float>(float *);)"

/* Prints "rocjit CMD: <message>", the usage line and where help is (cmd NULL or no
 * command: the tool's); returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_usage_verror(const char *cmd, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* ---- Arguments (args.c) ------------------------------------------------------------------- */

/* The global options, before the command or after it (where the command has no option
 * of that name, and before "--"): --cache DIR, --remote URL, -q/--quiet.  argv[*i] is
 * looked at; end bounds the arguments.  Returns 1 (cli_global set, *i moved past the
 * option and its value), 0 (not a global option) or CLI_ARG_ERROR (printed). */
int cli_global_option(int end, char **argv, int *i);
/* The global options' names, for suggestions and completion. */
extern const char *const cli_global_names[];
/* Prints them for the completion scripts, one a line, "--name=" for one with a value. */
void cli_print_global_options(void);
/*
 * "Did you mean": the names nearest to what was typed (len bytes), among those added: a
 * name it is a prefix of (2 bytes at least), else one an edit away (a letter changed,
 * added, dropped, or two swapped) or two (one for names of less than five letters).
 * cli_suggest_text gives "; did you mean 'a' or 'b'?" with each name between quote
 * ("--": --a), or "" when none is near.
 */
struct cli_suggest {
	const char *typed;
	size_t len;
	const char *best[3];
	int score, n;
};
void cli_suggest_init(struct cli_suggest *s, const char *typed, size_t len);
void cli_suggest_add(struct cli_suggest *s, const char *name);
const char *cli_suggest_text(const struct cli_suggest *s, char *buf, size_t size,
			     const char *quote);

/* One option a command takes. */
struct cli_opt {
	const char *name; /* long name without the dashes ("older-than")                 */
	char short_name;  /* 'j' for -j, or 0                                           */
	int has_arg;      /* 1: takes a value (--name V, --name=V, -jV, -j V)           */
	int id;           /* returned by cli_next; > 0                                   */
};

#define CLI_ARG_END 0         /* no more arguments                                      */
#define CLI_ARG_POSITIONAL -1 /* *value is a positional argument                        */
#define CLI_ARG_HELP -2       /* --help / -h: print the command's help, exit 0          */
#define CLI_ARG_ERROR -3      /* a usage error was printed: exit CLI_USAGE              */

struct cli_parser {
	const char *cmd;            /* the command's name, for usage errors              */
	const struct cli_opt *opts; /* ends with a zeroed entry                           */
	int argc, i;
	char **argv;
	int rest;        /* index of the first argument after "--", or argc              */
	int allow_rest;  /* "--" ends the options and starts compiler options            */
};

void cli_parser_init(struct cli_parser *p, const char *cmd, int argc, char **argv,
		     const struct cli_opt *opts, int allow_rest);
/* The next option's id (its value in *value), or a CLI_ARG_* code.  Also takes the global
 * options the command has no option of that name for (cli_global_option), answers a
 * mistyped option with the nearest names, and `--completion-helper` by printing the
 * command's options and the global ones for the completion scripts (then exits 0). */
int cli_next(struct cli_parser *p, const char **value);
/* The whole command line of a command that takes only on/off options (ids below 32) and
 * no other argument: bit 1 << id of *on set for each given.  CLI_OK, CLI_USAGE (printed),
 * or -1 when --help was asked. */
int cli_parse_switches(unsigned int *on, const char *cmd, int argc, char **argv,
		       const struct cli_opt *opts);

/* "2G", "512M", "1.5GiB", "4096" -> bytes.  0 or -1 (malformed). */
int cli_parse_size(uint64_t *out, const char *s);
/* "30d", "12h", "90m", "45s", "2w"; a bare number is days -> seconds.  0 or -1. */
int cli_parse_age(int64_t *out, const char *s);
/* A positive integer up to max.  0 or -1. */
int cli_parse_count(long *out, const char *s, long max);
/* "1.5" -> 1.5 seconds: a number >= 0 (a time limit; 0: none).  0 and *out set, or -1. */
int cli_parse_seconds(double *out, const char *s);
/* --lang: "hip" or "cuda" (any case) -> ROCJIT_LANG_HIP / _CUDA, "auto" -> _AUTO.  0 and
 * *out set, or -1. */
int cli_parse_language(int *out, const char *s);

/* A list of normalized target ids, from repeated comma-separated --arch values. */
struct cli_targets {
	char (*ids)[ROCJIT_MAX_TARGET];
	size_t n;
};
/* Adds "gfx90a,sm_90" to t, normalizing each; a malformed one is a usage error of cmd. */
int cli_targets_add(struct cli_targets *t, const char *cmd, const char *list);
void cli_targets_free(struct cli_targets *t);
/* --arch absent: $ROCJIT_ARCH, else the GPUs present.  CLI_OK or CLI_FAIL (none: says
 * to pass --arch). */
int cli_targets_default(struct cli_targets *t, const char *cmd);

/* ---- Files the user names (files.c) ------------------------------------------------------- */

/* Reads a regular file (NUL-terminated); NULL with errno set on failure, described by
 * cli_read_error(errno) (a FIFO or a device is refused at once, never waited on). */
char *cli_read_file(const char *path, size_t *len);
const char *cli_read_error(int err);
/* Writes data to path ("-" is stdout).  0, or -1 with a message printed. */
int cli_write_file(const char *path, const void *data, size_t size);

/* An output named on the command line (-o), opened before the work that fills it. */
struct cli_output {
	const char *path;
	int fd;      /* -1: stdout ("-"), or closed                                   */
	int created; /* this run created the file: removed when abandoned             */
	int regular; /* emptied when written (not before: a failed run keeps it)      */
};
/* Opens path for writing ("-": stdout): a regular file, a character device or a pipe
 * with a reader; a folder, a missing folder or a path that cannot be written fails at
 * once.  0, or -1 with a message printed saying what to do. */
int cli_output_open(struct cli_output *o, const char *path);
/* Writes data as the whole output and closes it.  0, or -1 (printed). */
int cli_output_write(struct cli_output *o, const void *data, size_t size);
/* Closes an output that will not be written, removing the file if this run made it. */
void cli_output_abandon(struct cli_output *o);
/* A new file (export's bundle): path must not exist, its folder must be writable.
 * CLI_OK, CLI_USAGE or CLI_FAIL (printed). */
int cli_output_new_check(const char *cmd, const char *path);
/* ---- The cache a command works on (cache.c) ----------------------------------------------- */

/*
 * Opens a context on the chosen cache with flags (ROCJIT_OPEN_*).  need_cache: the command
 * works on the on-disk cache, so a cache that cannot be opened (or is disabled) fails the
 * command with what to do.  CLI_EXISTING: the command reads or trims a cache that exists
 * (list, show, stats, verify, purge); where none exists, nothing is opened or created and
 * CLI_MISSING is returned (nothing printed: the command says "no cache at DIR" its way).
 * Returns CLI_OK, CLI_FAIL (message printed) or CLI_MISSING.
 */
#define CLI_EXISTING 2
#define CLI_MISSING 3
int cli_open(rocjit_ctx **out, unsigned int flags, int need_cache);
/* After CLI_MISSING: "rocjit: no cache at DIR (...)" on stderr. */
void cli_no_cache_note(void);
/* The cache folder the library will use (rocjit_cache_dir; for messages), into buf. */
void cli_cache_dir(char *buf, size_t size);
/* The remote tier's counters this cache keeps (rocjit_remote_counters_get), as lines
 * (each after indent) or as the JSON object "counters"-like member key. */
void cli_remote_counters_text(const rocjit_remote_counters *c, const char *indent);
void cli_remote_counters_json(struct cli_json *j, const char *key,
			      const rocjit_remote_counters *c);
/* The database file's size on disk with its WAL, or 0. */
uint64_t cli_cache_file_bytes(const char *db_path);
/* What became of a compile's code object in the on-disk cache. */
#define CLI_STORED 1      /* stored now, or found there                              */
#define CLI_NOT_STORED 0  /* compiled, but not in the cache: why says why            */
#define CLI_NO_STORE (-1) /* the context does not write a cache (NO_CACHE, READONLY)  */

/*
 * rocjit_compile, and whether its result is in the cache, as the library counts it
 * (rocjit_stats.stores / .store_failures): a command never says "stored" on faith.
 * *stored gets a CLI_STORED code when rc is 0; why (why_size bytes) the library's reason
 * for CLI_NOT_STORED, else "".  Returns what rocjit_compile returns.
 */
int cli_compile_stored(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
		       const rocjit_program *p, int *stored, char *why, size_t why_size);

/* ---- Cache entries: filters, copies, sorting (entries.c) ---------------------------------- */

/* A copy of a rocjit_entry that outlives the callback. */
struct cli_row {
	char key[33];
	char *platform, *target, *compiler, *options, *source_name, *headers, *kernels;
	char *name_expressions; /* "expression\tlowered" lines, or "" */
	uint64_t size, hits;
	int64_t created, last_used;
	double compile_ms;
	char signer[65];        /* "" when unsigned */
	int signature;          /* ROCJIT_SIGNATURE_* */
};

/* What purge and list select by; all given criteria must hold. */
struct cli_filter {
	int64_t older_than;         /* seconds since last use; -1: any                     */
	struct cli_targets arch;    /* empty: any                                          */
	int stale_compiler;         /* only entries whose compiler is not the current one  */
};

#define CLI_FILTER_OPTS(base)                                                       \
	{ "older-than", 0, 1, (base) + 0 }, { "arch", 'a', 1, (base) + 1 },           \
		{ "compiler-version-other-than-current", 0, 0, (base) + 2 }
#define CLI_FILTER_NOPTS 3

void cli_filter_init(struct cli_filter *f);
void cli_filter_free(struct cli_filter *f);
/* Handles option id - base of CLI_FILTER_OPTS(base): CLI_OK or CLI_USAGE (printed). */
int cli_filter_option(struct cli_filter *f, const char *cmd, int which, const char *value);
int cli_filter_active(const struct cli_filter *f);

/* Fills r with copies of e's fields; cli_row_free frees them (a field left NULL too). */
void cli_row_from_entry(struct cli_row *r, const rocjit_entry *e);
/* ROCJIT_SIGNATURE_*'s word: "none", "unchecked", "trusted", "untrusted", "bad". */
const char *cli_signature_name(int signature);
/* One line on a signature for people: "trusted (signed by NAME)", "none (unsigned)"... */
const char *cli_signature_text(char *buf, size_t size, const char *signer, int signature);
void cli_row_free(struct cli_row *r);
/* Reads every entry into rows (key order); with f, only those it selects.  CLI_OK or
 * CLI_FAIL (printed). */
int cli_rows_load(rocjit_ctx *ctx, const struct cli_filter *f, struct cli_row **rows,
		  size_t *n);
void cli_rows_free(struct cli_row *rows, size_t n);
/* Sorts rows by a field name ("key", "target", "size", "last-used", "created", "hits",
 * "source"); 0, or -1 for an unknown field. */
int cli_rows_sort(struct cli_row *rows, size_t n, const char *field, int reverse);
extern const char cli_sort_fields[];
/* The last use of an entry: last_used, else created. */
int64_t cli_row_last_use(const struct cli_row *r);
void cli_row_json(struct cli_json *j, const struct cli_row *r);

/* ---- Kernel sets (kernelset.c) ----------------------------------------------------------- */

/* One file of a set, with its text. */
struct cli_source {
	char *name;     /* as the application registers it ("sub/x.hip"), or the path given */
	char *text;
	size_t length;
	int header;     /* *.h, *.hpp, *.cuh, *.inc, or named a header (a manifest's header=,
	                   prewarm --header): an in-memory header of every source          */
};

/* One program a manifest names with an expr= line: a source compiled with these name
 * expressions instantiated (rocjit_program.name_expressions, in this order). */
struct cli_program {
	size_t file;    /* index into the set's files                                    */
	char **exprs;
	size_t nexprs;
};

/*
 * What one input names: a manifest's or a folder's files (each header is given to every
 * source, in the set's order, exactly as the library does for registered sources), or one
 * file alone (no headers).  A source that programs[] names is compiled as those programs
 * only; any other source once, whole (or with prewarm's --name-expr).
 */
struct cli_set {
	char *origin;              /* the path given                                    */
	int kind;                  /* CLI_SET_FILE, _FOLDER or _MANIFEST                */
	struct cli_source *files;  /* in registration order                             */
	size_t n;
	rocjit_header *headers;    /* the header files, in the same order               */
	size_t nheaders;
	struct cli_program *programs; /* a manifest's expr= lines, in order              */
	size_t nprograms;
};

#define CLI_SET_FILE 1
#define CLI_SET_FOLDER 2
#define CLI_SET_MANIFEST 3

/* Reads path: a manifest (as_manifest, or its first line is the manifest's), a folder or
 * a file.  headers: names relative to a folder that are headers whatever their extension
 * (read even when no default pattern matches them: "cmath"); a manifest names its own.
 * CLI_OK or CLI_FAIL (printed). */
int cli_set_load(struct cli_set *set, const char *path, int as_manifest,
		 const char *const *headers, size_t num_headers);
void cli_set_free(struct cli_set *set);
/* Checks a name expression as the library will (non-empty, no control character: the
 * manifest keeps one a line, tab-separated): NULL when usable, else what is wrong. */
const char *cli_name_expr_problem(const char *expr);

/* ---- Prewarm's compile slots (workers.c) -------------------------------------------------- */

/* One compile.  Its strings must stay valid until its result is collected. */
struct cli_job {
	const char *target;
	const char *name;
	const char *source;
	size_t length;
	const char *const *options;
	size_t noptions;
	const rocjit_header *headers;
	size_t nheaders;
	int language;   /* ROCJIT_LANG_*, as rocjit_program.language */
	const char *const *exprs; /* name expressions, as rocjit_program.name_expressions */
	size_t nexprs;
};

/* The job could not be run at all (no compile slot could be started): not a ROCJIT_E*
 * code.  A compiler that crashes or runs past a limit is ROCJIT_ECOMPILE, from the library. */
#define CLI_JOB_CRASHED (-1000)

struct cli_job_result {
	int rc;           /* 0, a ROCJIT_E* code, or CLI_JOB_CRASHED                  */
	int from_cache;   /* another process stored it meanwhile                       */
	int not_stored;   /* compiled, but not in the cache: message says why           */
	double compile_ms;
	char key[33];
	char *kernels;    /* comma separated                                           */
	char *message;    /* rocjit_last_error() of a failure (it names a compiler crash or a
	                     limit), or why a compiled object was not stored             */
	char *log;        /* the compiler log ("" when none)                           */
};

/*
 * Up to max_workers jobs at once, each on a thread with its own context; the library runs
 * each compile in one of its compile workers (as many as the slots), so one that crashes
 * or runs past a limit fails only its job.
 */
struct cli_pool;
/* A pool of up to max_workers slots.  Call before any compile of this process. */
struct cli_pool *cli_pool_new(int max_workers);
/* A job's time limit in seconds (0: none), instead of $ROCJIT_COMPILE_TIMEOUT or 600:
 * a compile past it has its worker killed and its job fails.  Before cli_pool_start. */
void cli_pool_set_timeout(struct cli_pool *p, double seconds);
/* Starts every slot (its thread and context).  0 or -1 (printed). */
int cli_pool_start(struct cli_pool *p);
/* Whether a job can be submitted now (a slot is idle). */
int cli_pool_can_submit(const struct cli_pool *p);
/* Whether any job is running. */
int cli_pool_busy(const struct cli_pool *p);
/* Hands a job to an idle slot.  0, or -1 when none is idle. */
int cli_pool_submit(struct cli_pool *p, size_t id, const struct cli_job *job);
/* Waits up to timeout_ms (-1: forever) for a result: 1 with *id and *res, 0 none yet. */
int cli_pool_wait(struct cli_pool *p, int timeout_ms, size_t *id, struct cli_job_result *res);
/* Lets the running jobs finish, stops the slots (closing their contexts), frees the pool. */
void cli_pool_free(struct cli_pool *p);
void cli_job_result_free(struct cli_job_result *r);

/* ---- Progress on stderr (progress.c) ------------------------------------------------------ */

/* A bar redrawn in place on a terminal, else one line per finished job; or nothing. */
struct cli_progress {
	int mode;            /* 0 off, 1 lines, 2 bar                                    */
	size_t total, done;  /* jobs to run, jobs finished                               */
	double t0, last_draw;
	char current[256];   /* the job started last                                     */
};
void cli_progress_start(struct cli_progress *pr, int enabled, size_t total);
void cli_progress_started(struct cli_progress *pr, const char *label);
/* A job ended: what happened ("compiled", "FAILED", ...) and its time. */
void cli_progress_finished(struct cli_progress *pr, const char *label, const char *what,
			   double ms);
/* Redraws the bar (elapsed and ETA move on); cheap when called often. */
void cli_progress_tick(struct cli_progress *pr);
/* Clears the bar. */
void cli_progress_end(struct cli_progress *pr);

#endif
