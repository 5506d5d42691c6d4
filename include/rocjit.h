/*
 * rocjit.h - compile HIP kernel source at first use, cache the code object, reuse it.
 *
 * This header is the specification of the rocjit C API.
 *
 * An application ships its kernels as source text (see rocjit_register_sources and the
 * CMake function rocjit_add_kernels).  At first use rocjit compiles a source for the GPU it
 * finds (the full target id, e.g. "gfx90a:sramecc+:xnack-"), stores the code object in a
 * content-hashed SQLite cache, and every later request - from this process or any other -
 * is served from the cache.
 *
 * Lookup order for a kernel:  in-process table  ->  on-disk cache  ->  bundles  ->  remote
 * tier (a Redis server or cluster shared by a fleet, when one is configured)  ->  compile
 *
 * Caveats
 *  - The on-disk cache is best-effort: a cache that cannot be opened, read or written is a
 *    miss (one warning: on stderr, or to rocjit_set_log_callback's function), never a
 *    failed request.  Only the compiler and the device can fail a request.
 *  - Vendor libraries (hipRTC, the HIP runtime, comgr) are loaded at run time with dlopen.
 *    A machine without them can still open a context; requests that need a compiler then
 *    fail with ROCJIT_ENOCOMPILER, requests that need a device with ROCJIT_ENODEV.
 *  - Compiles run in worker processes (`rocjit-worker`, installed with the library and
 *    started by it with posix_spawn, at most one per CPU: $ROCJIT_WORKERS), so that an
 *    abort, crash or runaway compile inside the vendor compiler fails that one request
 *    (ROCJIT_ECOMPILE, naming the signal or the limit) and never ends the application,
 *    and so that compiles run in parallel (hipRTC 5.x is not thread-safe within a
 *    process).  A compile that runs past $ROCJIT_COMPILE_TIMEOUT seconds (default 600;
 *    0 none) or whose worker holds more than $ROCJIT_COMPILE_MEMORY_MB MiB (default half
 *    of the machine's memory; 0 none) is stopped.  Workers start at the first compile,
 *    never on a cache hit, and live as long as the process.  $ROCJIT_WORKER names the
 *    worker executable; by default it is found beside the library.
 *    In-process compiling ($ROCJIT_COMPILE_INPROCESS=1, or ROCJIT_OPEN_COMPILE_INPROCESS)
 *    is for environments that cannot start processes (a seccomp sandbox without exec, a
 *    static binary shipped without its worker): there hipRTC compiles are serialized, a
 *    compiler abort ends the application, and no limit applies.  Requests that hit the
 *    cache never wait for a compile of another kernel.
 *  - Strings are UTF-8 and NUL-terminated unless a length is given.
 *  - fork(): a context opened before fork() may be used in the child.  The child never
 *    uses its parent's database connection (every open cache's connection is closed
 *    before a fork and opened again by the first use, in parent and child alike) nor
 *    its parent's compile locks; rocjit_compile and cache hits work there.  GPU runtimes
 *    do not survive a fork: kernels the parent loaded cannot be launched in the child
 *    (ROCJIT_EDEVICE), and when the parent had initialized the context's device,
 *    rocjit_kernel_get in the child fails with ROCJIT_EDEVICE saying so; a child whose
 *    parent never touched the GPU loads its own.  A child's statistics count from the
 *    fork.  A fork while another thread is inside the vendor compiler may leave the
 *    compiler unusable in the child: fork from a quiet moment, or start workers with
 *    exec (posix_spawn, multiprocessing's "spawn"), which has none of these limits.
 *  - Callbacks (rocjit_cache_foreach, _find, _verify) run without any rocjit lock held:
 *    they may call any function on the same context.  The log callback
 *    (rocjit_set_log_callback) is the exception: it must not call rocjit.
 *  - Usage records (an entry's hits and last use, which eviction goes by) are written in
 *    batches: at the latest 2 seconds after a disk hit, or once 1024 hits are pending,
 *    by a background thread the first hit starts, and at exit.  A process that crashes loses
 *    at most the last 2 seconds of them; a hit never waits for a write.
 *  - SIGBUS: the cache's read index is a mapped file that whoever may write it can shorten
 *    under the mapping (a group member in shared mode, a `cp` over it).  The first open of
 *    a cache with an index installs a process-wide SIGBUS handler that absorbs faults in
 *    rocjit's own mappings only (the lookup is then a miss) and passes every other one to
 *    the handler that was there before, or to the default action.  An application that
 *    installs its own SIGBUS handler after that must call the one it replaced for faults
 *    that are not its own (sigaction's old action), as for any library that handles them.
 *
 * Errors: every call that can fail returns an int, 0 on success or a negative ROCJIT_E*
 * code.  rocjit_strerror() names the code; rocjit_last_error() gives the detail for the
 * calling thread's most recent failure.
 *
 * Conventions (what a binding can rely on; calls older than them are listed where they
 * differ, and keep their signatures: a signature never changes, a new name is added)
 *  - Argument order: results first (`out`, or `buf, size`), then the context or object
 *    the call works on, then its inputs; optional tallies of what was done (`size_t
 *    *count`, `uint64_t *checked`, ...) last.  Kept as they were: rocjit_keygen (a call
 *    that writes files takes its inputs, then the buffer for the public line), and
 *    rocjit_remote_push and rocjit_bundle_import_v2, whose callback and its user pointer
 *    follow the tallies.
 *  - Getters are rocjit_<thing>_get(out, ...).  (rocjit_compiler_identity,
 *    rocjit_registered_source and rocjit_cache_dir predate the rule and are out-first.)
 *    A free function is named after what it frees: rocjit_codeobj_info_free frees a
 *    rocjit_codeobj_info.
 *  - Every struct the caller allocates (options it passes in, results the library
 *    fills) starts with `unsigned int version`, has ROCJIT_<STRUCT>_VERSION, and an
 *    initialiser rocjit_<struct>_init(p, version) that zeroes the part of *p that version
 *    has, sets the version and the defaults the ROCJIT_<STRUCT>_INIT macro (where there
 *    is one) sets.  The library reads and writes only the fields of the version the caller
 *    set, so a caller built with an older header keeps working.  Arrays of structs that
 *    may grow take their element size (rocjit_register_sources_v2,
 *    rocjit_program.header_size, rocjit_prefetch_options.item_size).
 *  - Deprecated names stay, as thin aliases of the new ones; where marking them costs the
 *    project's own callers nothing they carry ROCJIT_DEPRECATED (a compiler warning naming
 *    the replacement; define ROCJIT_NO_DEPRECATION_WARNINGS to silence it).
 *  - Diagnostics (warnings, and ROCJIT_LOG=info|debug output) go to stderr, or to the
 *    function given to rocjit_set_log_callback.
 */
#ifndef ROCJIT_H
#define ROCJIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ROCJIT_BUILDING) && defined(__GNUC__)
#define ROCJIT_API __attribute__((visibility("default")))
#else
#define ROCJIT_API
#endif

/* Marks an old spelling kept for source compatibility; msg names its replacement.  The
 * library's own sources define them, and must not warn about it. */
#if defined(__GNUC__) && !defined(ROCJIT_BUILDING) && !defined(ROCJIT_NO_DEPRECATION_WARNINGS)
#define ROCJIT_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define ROCJIT_DEPRECATED(msg)
#endif

/* ---- Version ----------------------------------------------------------------------------- */

#define ROCJIT_VERSION_MAJOR 0
#define ROCJIT_VERSION_MINOR 1
#define ROCJIT_VERSION_PATCH 0
#define ROCJIT_VERSION_STRING "0.1.0"
/* MAJOR*10000 + MINOR*100 + PATCH, comparable with rocjit_version(). */
#define ROCJIT_VERSION_NUMBER \
	(ROCJIT_VERSION_MAJOR * 10000 + ROCJIT_VERSION_MINOR * 100 + ROCJIT_VERSION_PATCH)

/*
 * ABI: while the major version is 0, each 0.y release is its own ABI, and the shared
 * library's soname says which (librocjit.so.0.1): a 0.y release may change a struct's
 * layout or a signature, and a program built against 0.1 does not load 0.2 by mistake.
 * From 1.0 on the soname is the major version, and only a new major breaks the ABI.
 * Only the rocjit_* functions declared here are exported (under the symbol version
 * ROCJIT_<soname version>).
 */

/* The run-time library's ROCJIT_VERSION_NUMBER (may differ from the header's). Any thread. */
ROCJIT_API int rocjit_version(void);

/* ---- Errors ------------------------------------------------------------------------------ */
/* Values are pinned: they never change between releases. */

#define ROCJIT_OK 0
#define ROCJIT_EINVAL -1       /* misuse: NULL or malformed argument, bad option           */
#define ROCJIT_ENOMEM -2       /* out of memory                                            */
#define ROCJIT_ENOTFOUND -3    /* no such kernel name in the code object / registered name */
#define ROCJIT_ECOMPILE -4     /* the source did not compile: see rocjit_last_log()        */
#define ROCJIT_EUNSUPPORTED -5 /* the installed compiler cannot target this target id      */
#define ROCJIT_ENODEV -6       /* no GPU (and, where one is needed, no target given)       */
#define ROCJIT_ENOCOMPILER -7  /* the vendor compiler library could not be loaded          */
#define ROCJIT_EDEVICE -8      /* the GPU runtime refused to load or launch                */
#define ROCJIT_EIO -9          /* a file named by the caller could not be read             */
#define ROCJIT_EFORMAT -10     /* malformed or foreign code object                         */
#define ROCJIT_ENOTCACHED -11  /* compiling is forbidden (ROCJIT_NO_COMPILE) and it missed */

/* A static English name for an error code ("compile error"). Never NULL. Any thread. */
ROCJIT_API const char *rocjit_strerror(int code);

/*
 * The detail of the calling thread's most recent failure ("no GPU found and no target id
 * given: set ROCJIT_ARCH=gfx90a or rocjit_options.target"), or "" if none.  The string is
 * owned by rocjit and valid until the same thread's next rocjit call.  Per thread.
 */
ROCJIT_API const char *rocjit_last_error(void);

/*
 * The compiler log of the calling thread's last request (rocjit_kernel_get*,
 * rocjit_compile*): the compiler's diagnostics, warnings included, NUL-terminated and
 * whole, when that request ran the compiler; "" when it compiled nothing (a hit in any
 * tier, or a failure before the compiler ran; also for a thread that waited for another
 * thread's compile of the same program: the log went to that thread).  Owned by rocjit,
 * valid and unchanged until the same thread's next request (other calls, such as
 * rocjit_stats_get, leave it alone) or the thread's exit.  Per thread, so threads that
 * share one const rocjit_program each read their own.  Replaces rocjit_program.log.
 */
ROCJIT_API const char *rocjit_last_log(void);

/* ---- Diagnostics ---------------------------------------------------------------------- */

/* The level of a diagnostic given to a rocjit_log_fn.  $ROCJIT_LOG decides which are
 * made at all: warn (the default) gives ROCJIT_LOG_WARN, info adds ROCJIT_LOG_INFO
 * (every compile, hit and miss), debug adds ROCJIT_LOG_DEBUG, off none. */
#define ROCJIT_LOG_ERROR 1 /* reserved: failures reach the caller as return codes, so
                              rocjit gives no diagnostic this level today             */
#define ROCJIT_LOG_WARN 2  /* something went wrong and rocjit went on (a cache that
                              cannot be opened, a malformed environment value)        */
#define ROCJIT_LOG_INFO 3
#define ROCJIT_LOG_DEBUG 4

/*
 * Receives one diagnostic: level (ROCJIT_LOG_*) and message, one line of English
 * without the "rocjit: " prefix and without a trailing newline (a diagnostic of several
 * lines, such as a compiler's log at ROCJIT_LOG=info, comes as one call per line, in
 * order; lines of other threads may come between them).  message is valid during the
 * call only.  user is what was given to rocjit_set_log_callback.
 */
typedef void (*rocjit_log_fn)(void *user, int level, const char *message);

/*
 * Sends every diagnostic rocjit would print on stderr to fn instead (SQLite's
 * SQLITE_CONFIG_LOG): an application or a binding shows them in its own log.  fn NULL
 * restores stderr.  Process-wide; the level filter of $ROCJIT_LOG still applies.
 *
 * fn may be called from any thread, from several at once, and while rocjit holds its
 * own locks: it must not call rocjit, and should return quickly.  Setting it is
 * thread-safe, and when rocjit_set_log_callback returns, no thread is still inside the
 * previous function: its user data may be released then.  What a vendor compiler prints
 * itself is not rocjit's diagnostic: from a compile worker it is read and reported through
 * this hook at ROCJIT_LOG=info; compiling in-process, it goes where the compiler writes it.
 */
ROCJIT_API void rocjit_set_log_callback(rocjit_log_fn fn, void *user);

/* ---- Values rocjit reads from people ------------------------------------------------------ */

/*
 * Reads setting name as a switch, the one way rocjit reads all of its own
 * (ROCJIT_DISABLE_CACHE, ROCJIT_NO_COMPILE, ROCJIT_CACHE_SHARED, ...), from the environment
 * or a configuration file as rocjit_config_get finds it (a name that is no setting: from
 * the environment alone): 1 when it is 1,
 * true, yes or on (any case); 0 when it is unset, empty, 0, false, no or off.  Anything
 * else is 0, with a warning once a process for that variable (on stderr, or to the log
 * callback).  Any thread.
 */
ROCJIT_API int rocjit_env_flag(const char *name);

/*
 * Parses a size the way ROCJIT_CACHE_MAXSIZE and the CLI take one: decimal digits with an
 * optional fraction, then an optional unit K, M, G or T (powers of 1024, any case) that may
 * be followed by "i" and "B": "4096", "500M", "1.5GiB".  Returns 0 with *bytes set, or
 * ROCJIT_EINVAL (rocjit_last_error() says why) for anything else: signs, spaces, NaN,
 * infinity, hex, exponents, or more than 2^64-1 bytes.  Any thread.
 */
ROCJIT_API int rocjit_parse_size(uint64_t *bytes, const char *text);

/* ---- Settings and configuration files ----------------------------------------------------- */

/*
 * Every ROCJIT_* setting is read one way (rocjit_config_get): the environment variable
 * when set and not empty, else the user file ($XDG_CONFIG_HOME/rocjit/rocjit.conf, else
 * ~/.config/rocjit/rocjit.conf), else the system file (/etc/rocjit/rocjit.conf, or the
 * file $ROCJIT_CONFIG names; "" for none), else the default.  The cache's size limit has
 * one more step between the environment and the files: the limit stored in the cache
 * (rocjit_cache_maxsize_set).  Files hold `key = value` lines, key the variable's name
 * without ROCJIT_ in lower case (cache_maxsize) or the variable's name; '#' starts a
 * comment.  A file is read once a process, and only when it is a regular file (not a
 * symbolic link) owned by root or the user and writable by nobody else, in folders that
 * are too; a skipped file, a malformed line, an unknown key and a bad value (a relative
 * path among them) are each warned of (FILE:LINE), never fatal.
 */

/* One setting, from the library's table: immutable, valid for the process's lifetime. */
typedef struct rocjit_setting {
	const char *name;          /* its key in a configuration file: "cache_maxsize"     */
	const char *env;           /* its environment variable: "ROCJIT_CACHE_MAXSIZE"     */
	const char *kind;          /* what it takes: "switch", "size", "number", "seconds",
				      "path", "paths" (':' separated), "keys" (keys or
				      files of them), "text", or its words: "amd|nvidia|auto" */
	const char *default_value; /* the default, in words: "4G", "the GPUs of this machine" */
	const char *description;   /* one line                                             */
} rocjit_setting;

/* The index-th setting (0, 1, ...), or NULL past the last.  Any thread. */
ROCJIT_API const rocjit_setting *rocjit_setting_at(size_t index);
/* The setting whose key or variable is name, or NULL.  Any thread. */
ROCJIT_API const rocjit_setting *rocjit_setting_find(const char *name);

/*
 * The effective value of setting name (its key or its variable) from the environment or a
 * file, or NULL when none sets it (the default applies).  *source (may be NULL) gets
 * "environment", the file's path, or "default".  The returned text is the environment's
 * (valid until it changes) or the loaded file's (valid for the process).  A name that is
 * no setting is read from the environment alone.  Any thread.
 */
ROCJIT_API const char *rocjit_config_get(const char *name, const char **source);

/* 0 when value is one setting name takes in a configuration file (checked by the parser
 * rocjit reads it with; no control character; every path absolute, since a relative one
 * would name a file in whatever folder a process runs in), else ROCJIT_EINVAL,
 * rocjit_last_error() saying why.  Any thread. */
ROCJIT_API int rocjit_config_check(const char *name, const char *value);

#define ROCJIT_CONFIG_USER 0
#define ROCJIT_CONFIG_SYSTEM 1
/* The path of the user (ROCJIT_CONFIG_USER) or system file into out[size], whether it
 * exists or not: 0, ROCJIT_ENOTFOUND when no user file can be named (no HOME), or
 * ROCJIT_EINVAL. */
ROCJIT_API int rocjit_config_file(char *out, size_t size, int which);

/*
 * Sets setting name to value in the user file (value NULL: removes it there), keeping its
 * other lines; the folder is made when missing.  value is checked first (ROCJIT_EINVAL).
 * Takes effect in processes started afterwards: a process reads the files once.
 * ROCJIT_EIO when the file cannot be read or written.  One writer at a time.
 */
ROCJIT_API int rocjit_config_write(const char *name, const char *value);

/* ---- Platforms and targets ---------------------------------------------------------------- */

#define ROCJIT_PLATFORM_AUTO 0   /* whichever GPU is present (NVIDIA first), else AMD */
#define ROCJIT_PLATFORM_AMD 1    /* hipRTC + the HIP module API                        */
#define ROCJIT_PLATFORM_NVIDIA 2 /* NVRTC + the CUDA driver API                        */

/*
 * Targets name their platform: "gfx..." ids are AMD's, "sm_XY" ids NVIDIA's.  A call that
 * takes an explicit target (rocjit_compile) compiles with that target's platform whatever
 * the context's device is, so one context can prewarm for both.
 */

/* "amd", "nvidia", "auto", or "unknown". Any thread. */
ROCJIT_API const char *rocjit_platform_name(int platform);

/*
 * Normalizes a target id: lower-case processor, target features sorted the way the
 * compiler prints them ("gfx90a:xnack-:sramecc+" -> "gfx90a:sramecc+:xnack-").  Pure
 * syntax: it does not ask the compiler whether the target is supported.
 *
 * out:   receives the NUL-terminated normalized id; out_size its capacity (64 is enough).
 * Returns 0, or ROCJIT_EINVAL for malformed input or a too-small buffer.  Any thread.
 */
ROCJIT_API int rocjit_target_normalize(char *out, size_t out_size, const char *target);

/*
 * The platform a target id names: ROCJIT_PLATFORM_AMD for "gfx...", ROCJIT_PLATFORM_NVIDIA
 * for "sm_...", 0 for anything else.  The rule the library uses to pick the compiler and
 * the platform field of the cache key; tools that prewarm use it to agree.  Any thread.
 */
ROCJIT_API int rocjit_target_platform(const char *target);

/* ---- Context ----------------------------------------------------------------------------- */

/*
 * A context binds one device of one platform to one cache and holds the in-process table
 * of compiled and loaded kernels.  Internally locked: every call taking a context may be
 * made from many threads at once.  It must outlive the kernels it returned.
 */
typedef struct rocjit_ctx rocjit_ctx;

/* rocjit_options.flags */
#define ROCJIT_OPEN_NO_CACHE 0x1u   /* never open the on-disk cache (memory only)         */
#define ROCJIT_OPEN_NO_COMPILE 0x2u /* a miss is ROCJIT_ENOTCACHED instead of a compile   */
#define ROCJIT_OPEN_READONLY 0x4u   /* read the cache, never write it                     */
#define ROCJIT_OPEN_COMPILE_INPROCESS 0x8u /* compile in this process, not in workers (see
                                              Caveats); $ROCJIT_COMPILE_INPROCESS=1 does
                                              the same for every context                */

#define ROCJIT_OPTIONS_VERSION 4

/* rocjit_options.require_signed: which entries load only with a signature by a trusted
 * key (see "Signed code" below). */
#define ROCJIT_REQUIRE_SIGNED_DEFAULT 0 /* $ROCJIT_REQUIRE_SIGNED, else SHARED when keys
                                           are trusted, else NONE                     */
#define ROCJIT_REQUIRE_SIGNED_NONE 1    /* no signature is asked for                 */
#define ROCJIT_REQUIRE_SIGNED_SHARED 2  /* entries from bundles and the remote tier  */
#define ROCJIT_REQUIRE_SIGNED_ALL 3     /* those, and the local cache's too          */

typedef struct rocjit_options {
	unsigned int version;  /* ROCJIT_OPTIONS_VERSION                                    */
	const char *cache_dir; /* NULL: $ROCJIT_CACHE_DIR, else $XDG_CACHE_HOME/rocjit,
	                          else $HOME/.cache/rocjit                                  */
	const char *target;    /* NULL: $ROCJIT_ARCH, else read from the device             */
	int platform;          /* ROCJIT_PLATFORM_*; AUTO reads $ROCJIT_PLATFORM            */
	int device;            /* device ordinal, default 0                                 */
	unsigned int flags;    /* ROCJIT_OPEN_*; $ROCJIT_DISABLE_CACHE=1 adds NO_CACHE,
	                          $ROCJIT_NO_COMPILE=1 adds NO_COMPILE                      */
	/* version 2 */
	const char *bundles;   /* prebuilt bundles, colon-separated paths, looked in after
	                          the user cache; $ROCJIT_BUNDLE_PATH adds more, and so does
	                          <executable>.rocjit next to the application               */
	/* version 3 */
	const char *remote;    /* the remote tier (see "Remote tier" below):
	                          redis://[user[:password]@]host[:port][/db],
	                          unix:///path/to/redis.sock or
	                          redis-cluster://host:port[,host:port...], with options
	                          after '?'; NULL: $ROCJIT_REMOTE; "": none               */
	/* version 4: signed code (see "Signed code" below) */
	const char *signing_key; /* a secret key file (rocjit keygen): every entry this
	                          context stores, exports or pushes is signed with it;
	                          NULL: $ROCJIT_SIGNING_KEY; "": none                    */
	const char *trusted_keys; /* NAME:BASE64 public keys and/or key files, comma
	                          separated; NULL: $ROCJIT_TRUSTED_KEYS; "": none          */
	int require_signed;    /* ROCJIT_REQUIRE_SIGNED_*                                 */
} rocjit_options;

#define ROCJIT_OPTIONS_INIT \
	{ ROCJIT_OPTIONS_VERSION, NULL, NULL, ROCJIT_PLATFORM_AUTO, 0, 0u, NULL, NULL, NULL, \
	  NULL, ROCJIT_REQUIRE_SIGNED_DEFAULT }

/*
 * Initialises *o as ROCJIT_OPTIONS_INIT does, for a caller that knows version (1 to
 * ROCJIT_OPTIONS_VERSION): zeroes the fields of that version, sets o->version and the
 * defaults.  For bindings, which cannot use the macro.  Returns 0, or ROCJIT_EINVAL (o
 * NULL, version 0 or newer than this library's).  Any thread.
 */
ROCJIT_API int rocjit_options_init(rocjit_options *o, unsigned int version);

/*
 * Opens a context.  Touches no device: the device is looked at on the first request that
 * needs one, so a context opened on a GPU-less machine compiles for explicit targets.
 *
 * out:  receives the context; NULL on failure.
 * opts: NULL for defaults.
 * Returns 0, ROCJIT_EINVAL (bad options, unknown version, a malformed
 * rocjit_options.remote: the message says why, never with the password), ROCJIT_ENOMEM.
 * A cache that cannot be opened is not an error (memory only, one warning); nor is a
 * malformed $ROCJIT_REMOTE, nor a remote tier this build lacks (one warning each: the
 * context works without the tier).
 */
ROCJIT_API int rocjit_open(rocjit_ctx **out, const rocjit_options *opts);

/*
 * The cache folder a context opened with rocjit_options.cache_dir = dir would use: dir
 * when not NULL or empty, else $ROCJIT_CACHE_DIR, else $XDG_CACHE_HOME/rocjit (absolute
 * only), else $HOME/.cache/rocjit.  Opens nothing.  Returns 0 with the path in out, or
 * ROCJIT_EINVAL (no HOME, a relative HOME, too long for out_size; rocjit_last_error()
 * says what to set).  Any thread.
 */
ROCJIT_API int rocjit_cache_dir(char *out, size_t out_size, const char *dir);

/*
 * Closes a context: unloads its modules and frees every kernel and code object it
 * returned, and writes its pending usage records.  NULL is a no-op.  No other thread may
 * be using the context.  In a fork child it closes the child's own connection; what the
 * parent loaded on the GPU is freed, never unloaded, there.
 */
ROCJIT_API void rocjit_close(rocjit_ctx *ctx);

/* ---- Programs ---------------------------------------------------------------------------- */

/* An in-memory header, reachable from the source as #include "name" or <name>. */
typedef struct rocjit_header {
	const char *name;   /* as written in the #include                     */
	const char *source; /* its text                                       */
	size_t length;      /* bytes of source; 0: strlen(source)             */
} rocjit_header;

/* rocjit_program.language: what the source is written in.  Part of the cache key. */
#define ROCJIT_LANG_AUTO 0 /* by the program's name: "*.cu" and "*.cuh" CUDA, else HIP */
#define ROCJIT_LANG_HIP 1
#define ROCJIT_LANG_CUDA 2 /* CUDA source: compiled on AMD with CUDA's names mapped onto HIP */

#define ROCJIT_PROGRAM_VERSION 3

/*
 * What to compile.  Everything here is part of the cache key, except name, log and
 * log_size, and the headers the source cannot reach (below).  Nothing is retained after the call returns, and nothing in it is written:
 * one program may be used by several threads at once.
 */
typedef struct rocjit_program {
	unsigned int version;          /* ROCJIT_PROGRAM_VERSION                            */
	const char *source;            /* HIP source text                                   */
	size_t length;                 /* bytes of source; 0: strlen(source)                */
	const char *name;              /* file name for diagnostics ("axpy.hip"); NULL ok   */
	const char *const *options;    /* compiler options ("-DN=4", "-O2"); NULL ok.  An
	                                  -I folder's files enter the key; options that
	                                  read other files (-isystem, @file, ...) give
	                                  ROCJIT_EINVAL, as do includes the key cannot
	                                  cover (absolute, "../" leaving the headers,
	                                  found only in a system folder): README "The
	                                  cache"                                       */
	size_t num_options;
	const rocjit_header *headers;  /* in-memory headers; NULL ok.  Only those the source
	                                  reaches through its includes, transitively, are
	                                  in the key and given to the compiler, in name
	                                  order: a program with one more header it never
	                                  includes has the same key (every header, where
	                                  an include's name is made by a macro or the
	                                  options name -I folders).  README "The cache" */
	size_t num_headers;
	char *log;                     /* deprecated, ignored and never written (a const
	                                  program is not written to, and one buffer cannot
	                                  serve threads sharing the program): the log is
	                                  rocjit_last_log()                                 */
	size_t log_size;               /* deprecated, ignored                               */
	/* version 2 (a version 1 program is ROCJIT_LANG_AUTO) */
	int language;                  /* ROCJIT_LANG_*: AUTO decides by name (see
	                                  rocjit_program_language)                        */
	const char *const *name_expressions; /* kernel template instantiations to compile
	                                  and look up by ("scale<float, 4>",
	                                  "ns::k<int>"), CuPy's name_expressions: each is
	                                  instantiated, and rocjit_kernel_get and
	                                  rocjit_code_lowered_name accept it, as the exact
	                                  string given, for its lowered (mangled) name.
	                                  Part of the key, in order.  Non-empty, without
	                                  line breaks or tabs; NULL ok                   */
	size_t num_name_expressions;
	/* version 3 */
	size_t header_size;            /* sizeof(rocjit_header) as the caller knows it:
	                                  headers[] is read with this stride, so a header
	                                  struct that grows in a later release still reads
	                                  right.  0: the size of version 1's rocjit_header.
	                                  Smaller than that: ROCJIT_EINVAL                */
} rocjit_program;

#define ROCJIT_PROGRAM_INIT                                                                 \
	{ ROCJIT_PROGRAM_VERSION, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, 0, ROCJIT_LANG_AUTO, \
	  NULL, 0, sizeof(rocjit_header) }

/*
 * Initialises *p as ROCJIT_PROGRAM_INIT does, for a caller that knows version (1 to
 * ROCJIT_PROGRAM_VERSION); version 3 sets header_size to sizeof(rocjit_header).
 * Returns 0, or ROCJIT_EINVAL (p NULL, version 0 or too new).  Any thread.
 */
ROCJIT_API int rocjit_program_init(rocjit_program *p, unsigned int version);

/*
 * The language a program is compiled as, the rule the library keys and compiles by (and
 * tools that prewarm use to agree): language itself when it is ROCJIT_LANG_HIP or
 * ROCJIT_LANG_CUDA; for ROCJIT_LANG_AUTO, by name: a name ending in ".cu" or ".cuh" is
 * CUDA, anything else (NULL included) HIP.  Registered sources are AUTO by their
 * registered name.  Returns ROCJIT_LANG_HIP, ROCJIT_LANG_CUDA, or ROCJIT_EINVAL for
 * another value of language.  Any thread.
 */
ROCJIT_API int rocjit_program_language(int language, const char *name);

/*
 * The language enters the key once resolved (AUTO never does): a program named "k.cu"
 * and the same text named "k.hip" get different keys; "k.cu" with ROCJIT_LANG_CUDA and
 * with ROCJIT_LANG_AUTO the same one.  HIP programs keep the keys they had before
 * languages existed.
 *
 * Options are normalized before they enter the key: "-D N" becomes "-DN", "-O" levels are
 * made explicit (none given means "-O3", the compiler's default), the last -O wins.
 * Target options (--offload-arch, -arch, --gpu-architecture, -mcpu) are refused with
 * ROCJIT_EINVAL: the target is a context or call parameter, never an option.
 */

/* ---- Kernels ------------------------------------------------------------------------------ */

/*
 * A launchable kernel on the context's device.  Immutable and shareable between threads;
 * owned by the context and valid until rocjit_close.  Holding it and launching again costs
 * no lookup at all.
 */
typedef struct rocjit_kernel rocjit_kernel;

/*
 * Gets a launchable kernel: the function kernel_name of the program prog, compiled for the
 * context's device target.  The kernel name is the symbol: declare kernels extern "C",
 * pass the mangled name, or pass one of prog->name_expressions exactly as given there
 * ("scale<float, 4>"), which is looked up by its lowered name (rocjit_kernel_name then
 * gives the lowered name).  The lowered names are stored with the code object: a cache or
 * bundle hit in another process resolves them without compiling.
 *
 * Name expressions on AMD: hipRTC 5.x finds a lowered name by comparing the expression's
 * text with the demangled instantiation, which misses "k<16>" for an unsigned parameter,
 * typedefs ("k<int64_t>") and constant expressions ("k<2+2>").  rocjit then compiles the
 * source once more with a pointer to each expression's kernel and reads the kernel from
 * the code object, so those work too, at the cost of that second compile (spelling the
 * expression as the compiler prints it, "k<16u>", avoids it).  An expression that names
 * no kernel is ROCJIT_ECOMPILE, the compiler's diagnostic in the log.  NVRTC lowers every
 * valid expression itself.
 *
 * A second request for the same program from the same context is a hash and a table
 * lookup.  Threads racing for the same missing program compile it once.
 *
 * The compiler's log of a compile this call ran is rocjit_last_log(), in this thread.
 *
 * Returns 0, ROCJIT_EINVAL, ROCJIT_ENODEV (no GPU), ROCJIT_EUNSUPPORTED, ROCJIT_ECOMPILE
 * (the diagnostics in rocjit_last_log() of the call that ran the compiler; a call that
 * waited for another thread's failed compile gets the error and an empty log),
 * ROCJIT_ENOCOMPILER,
 * ROCJIT_ENOTCACHED, ROCJIT_ENOTFOUND (no such kernel in the code object), ROCJIT_EFORMAT
 * (the compiler returned an unusable code object), ROCJIT_EDEVICE, ROCJIT_ENOMEM.
 * Any thread.
 */
ROCJIT_API int rocjit_kernel_get(rocjit_kernel **out, rocjit_ctx *ctx,
				 const rocjit_program *prog, const char *kernel_name);

/*
 * As rocjit_kernel_get, for a source registered under source_name (see
 * rocjit_register_sources), in the language its name says (rocjit_program_language with
 * ROCJIT_LANG_AUTO: "*.cu" is CUDA).  With $ROCJIT_KERNEL_PATH=dir set, the text is read from
 * dir/source_name instead when that file exists (once per context), so an edited kernel
 * is recompiled on the next run without rebuilding the application.
 *
 * Every registered file named *.h, *.hpp, *.cuh or *.inc, and every file registered with
 * rocjit_register_headers, is a header every registered source may include under its
 * registered name (#include "common.h").  Those the source reaches through its includes
 * are in its key, as for rocjit_program.headers: editing a header recompiles the kernels
 * that include it, and the key does not depend on what else was registered.  A quoted
 * include resolves relative to the including file's folder first (see
 * rocjit_include_resolve).
 *
 * Registered sources take no name expressions here: for templates, see
 * rocjit_kernel_get_registered_v2.
 *
 * options/num_options as in rocjit_program.  Returns what rocjit_kernel_get returns,
 * ROCJIT_ENOTFOUND when no source is registered under source_name, and ROCJIT_EIO when a
 * file in $ROCJIT_KERNEL_PATH cannot be read.  Any thread.
 */
ROCJIT_API int rocjit_kernel_get_registered(rocjit_kernel **out, rocjit_ctx *ctx,
					    const char *source_name, const char *kernel_name,
					    const char *const *options, size_t num_options);

/* The kernel's symbol name, owned by the kernel. Any thread. */
ROCJIT_API const char *rocjit_kernel_name(const rocjit_kernel *kernel);

typedef struct rocjit_dim3 {
	unsigned int x, y, z;
} rocjit_dim3;

/*
 * Launches kernel on stream (a hipStream_t on AMD, a CUstream / cudaStream_t on NVIDIA;
 * NULL: the default stream) with grid x block threads and shared_bytes of dynamic shared
 * memory.  args is an array of pointers to each argument, as hipModuleLaunchKernel and
 * cuLaunchKernel take them; nothing checks them against the kernel's parameters.
 * Asynchronous: faults inside the kernel surface at the next synchronizing call.
 *
 * On NVIDIA the kernel lives in its device's primary context (the CUDA runtime's), so it
 * mixes with runtime-API buffers and streams.  A thread whose current context is another
 * device's may launch it: the launch enters the kernel's context and gives the thread's
 * own back.
 *
 * Returns 0, ROCJIT_EINVAL (NULL kernel, zero dimension), ROCJIT_EDEVICE (also: a kernel
 * loaded before this process was forked, whose GPU context stayed in the parent).  Any
 * thread.
 */
ROCJIT_API int rocjit_kernel_launch(const rocjit_kernel *kernel, rocjit_dim3 grid,
				    rocjit_dim3 block, unsigned int shared_bytes, void *stream,
				    void **args);

/* ---- What a launch needs beyond grid and block ------------------------------------------ */
/*
 * For frameworks with their own launcher (a Candle backend through its HIP bindings or
 * cudarc, CuPy) and for kernels that need more than a plain launch.  Every call below
 * takes a kernel rocjit served and works on the module it was loaded in; all are any
 * thread, and like rocjit_kernel_launch refuse a kernel loaded before a fork().
 */

#define ROCJIT_KERNEL_NATIVE_VERSION 1

/* The driver's own handles of a kernel. */
typedef struct rocjit_kernel_native {
	unsigned int version; /* in: ROCJIT_KERNEL_NATIVE_VERSION                              */
	int platform;         /* ROCJIT_PLATFORM_AMD or ROCJIT_PLATFORM_NVIDIA: says what
	                         the two handles are                                       */
	int device;           /* the device ordinal the module is loaded on                */
	void *function;       /* AMD: hipFunction_t.  NVIDIA: CUfunction                   */
	void *module;         /* AMD: hipModule_t.    NVIDIA: CUmodule, in the device's
	                         primary context (the CUDA runtime's)                      */
} rocjit_kernel_native;

/* Zeroes the fields of version (1 to ROCJIT_KERNEL_NATIVE_VERSION) of *n and sets
 * n->version.  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_kernel_native_init(rocjit_kernel_native *n, unsigned int version);

/*
 * The kernel's native function and module, to launch or query with the platform's own
 * API (hipModuleLaunchKernel, cuLaunchKernel, cudarc, rocm-rs).  They are owned by the
 * context: valid until rocjit_close, and never to be unloaded by the caller.  0 or
 * ROCJIT_EINVAL.
 */
ROCJIT_API int rocjit_kernel_native_get(rocjit_kernel_native *out, const rocjit_kernel *kernel);

/* Function attributes: the values of CUfunction_attribute and hipFunction_attribute. */
#define ROCJIT_ATTR_MAX_THREADS_PER_BLOCK 0   /* get: the most threads a block may have */
#define ROCJIT_ATTR_SHARED_BYTES 1            /* get: static shared memory (LDS)        */
#define ROCJIT_ATTR_CONST_BYTES 2             /* get: constant memory it uses           */
#define ROCJIT_ATTR_LOCAL_BYTES 3             /* get: local (scratch) bytes per thread  */
#define ROCJIT_ATTR_NUM_REGS 4                /* get: registers per thread              */
#define ROCJIT_ATTR_PTX_VERSION 5             /* get (NVIDIA): PTX version, 10*major+minor */
#define ROCJIT_ATTR_BINARY_VERSION 6          /* get: the binary's architecture, 10*major+minor */
#define ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES 8 /* get, set: the most dynamic shared memory
                                                  a launch may ask for                  */
#define ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT 9 /* get, set (NVIDIA): percent of the unified
                                                  L1/shared memory preferred as shared;
                                                  -1 the default                        */

/*
 * Reads a function attribute from the driver.  0, ROCJIT_EINVAL (unknown attribute),
 * ROCJIT_EUNSUPPORTED (this platform's driver has no such attribute), ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_kernel_attribute_get(int *value, const rocjit_kernel *kernel,
					   int attribute);

/*
 * Sets ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES or ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT.  On
 * NVIDIA a launch asking for more than 48 KB of dynamic shared memory needs the first
 * raised beforehand (cuFuncSetAttribute); the device's limit (opt-in shared memory per
 * block, less the kernel's static shared memory) is the most it takes.  On AMD there is
 * nothing to raise: a launch may use the target's LDS (64 KB on gfx90a and gfx942) less
 * the kernel's static LDS, and setting a value within it succeeds and changes nothing;
 * the carveout is accepted and ignored (LDS and L1 are separate there).  A value above
 * the limit is ROCJIT_EINVAL, the message naming the limit.  The setting is the
 * function's, so every thread and later launch of this kernel sees it.
 * 0, ROCJIT_EINVAL, ROCJIT_EUNSUPPORTED, ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_kernel_attribute_set(const rocjit_kernel *kernel, int attribute,
					   int value);

/*
 * How many blocks of block_threads threads, each with dynamic_shared_bytes of dynamic
 * shared memory, can be resident on one multiprocessor (compute unit) at once: the
 * driver's cuOccupancyMaxActiveBlocksPerMultiprocessor or
 * hipModuleOccupancyMaxActiveBlocksPerMultiprocessor.  0, ROCJIT_EINVAL, ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_kernel_occupancy_get(int *blocks_per_multiprocessor,
					   const rocjit_kernel *kernel, unsigned int block_threads,
					   size_t dynamic_shared_bytes);

/*
 * The block size that gives the kernel the highest occupancy, at most block_threads_limit
 * threads (0: no limit but the kernel's), and the fewest blocks that fill the device at
 * it (min_grid_blocks may be NULL): cuOccupancyMaxPotentialBlockSize or
 * hipModuleOccupancyMaxPotentialBlockSize.  0, ROCJIT_EINVAL, ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_kernel_block_size_get(int *block_threads, int *min_grid_blocks,
					    const rocjit_kernel *kernel,
					    size_t dynamic_shared_bytes,
					    unsigned int block_threads_limit);

/*
 * As rocjit_kernel_launch, as a cooperative launch (cuLaunchCooperativeKernel,
 * hipModuleLaunchCooperativeKernel): every block is resident at once, so a kernel may
 * synchronize the whole grid (cooperative groups' this_grid().sync()).  A grid larger
 * than the device holds at once is ROCJIT_EINVAL, the message giving the most blocks it
 * takes (rocjit_kernel_occupancy_get times the multiprocessors).  0, ROCJIT_EINVAL,
 * ROCJIT_EUNSUPPORTED (a device or driver without cooperative launches), ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_kernel_launch_cooperative(const rocjit_kernel *kernel, rocjit_dim3 grid,
						rocjit_dim3 block, unsigned int shared_bytes,
						void *stream, void **args);

/*
 * A __device__ or __constant__ variable of the kernel's module: its device address and
 * size in bytes (either out may be NULL), valid until rocjit_close.  name is its symbol
 * (one at global scope has its plain name; one inside a namespace, or a static class
 * member, a mangled one unless declared extern "C"), or, as CuPy's get_global takes it,
 * a name expression the program was compiled with ("&ns::table", which NVRTC and hipRTC
 * lower like a kernel's), with or without its "&": "ns::table" finds it too.  Entries
 * with such expressions travel in bundles and the remote tier like any other.  0,
 * ROCJIT_EINVAL, ROCJIT_ENOTFOUND (no such variable: a variable no kernel uses may be
 * left out by the compiler), ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_global_get(void **address, size_t *size, const rocjit_kernel *kernel,
				 const char *name);

/*
 * Copies bytes from host memory src into the variable name, starting offset bytes in.
 * stream NULL: synchronous, done when the call returns; else queued on stream
 * (hipStream_t, CUstream), in order with the launches on it, and src must stay valid
 * until it ran.  A copy past the variable's end is ROCJIT_EINVAL.  0, ROCJIT_EINVAL,
 * ROCJIT_ENOTFOUND, ROCJIT_EDEVICE.
 */
ROCJIT_API int rocjit_global_write(const rocjit_kernel *kernel, const char *name,
				   size_t offset, const void *src, size_t bytes, void *stream);

/* The other way: from the variable into host memory dst, as rocjit_global_write. */
ROCJIT_API int rocjit_global_read(void *dst, const rocjit_kernel *kernel, const char *name,
				  size_t offset, size_t bytes, void *stream);

/* ---- What a kernel uses, from its code object ------------------------------------------ */

#define ROCJIT_KERNEL_RESOURCES_VERSION 1

/*
 * A kernel's resource use as its code object records it: what `ptxas -v` or an AMDGPU
 * code object's metadata tell, read with no GPU and no driver.
 */
typedef struct rocjit_kernel_resources {
	unsigned int version;     /* in: ROCJIT_KERNEL_RESOURCES_VERSION                    */
	int platform;             /* ROCJIT_PLATFORM_AMD or ROCJIT_PLATFORM_NVIDIA          */
	unsigned int registers;   /* AMD: VGPRs per work-item (architected; AGPRs apart).
	                             NVIDIA: registers per thread                        */
	unsigned int agprs;       /* AMD: accumulation VGPRs (gfx908, gfx90a, gfx942)    */
	unsigned int sgprs;       /* AMD: scalar registers per wavefront.  NVIDIA: 0     */
	unsigned int vgpr_spills; /* AMD: VGPRs spilled to scratch.  NVIDIA: 0           */
	unsigned int sgpr_spills; /* AMD: SGPRs spilled.  NVIDIA: 0                      */
	uint64_t scratch_bytes;   /* per thread: AMD private segment (spills, stack);
	                             NVIDIA stack frame (local memory: spills, arrays)   */
	int dynamic_stack;        /* 1: the code object says the stack's size is not
	                             known at compile time (recursion, indirect calls,
	                             alloca) and scratch_bytes is a lower bound.  AMD
	                             only, where the compiler writes the flag: LLVM 15's
	                             hipRTC does; HIP 5.7's reserves a fixed 16 KB stack
	                             for recursion instead, in scratch_bytes.  CUBINs do
	                             not record it (NVIDIA: 0)                           */
	uint64_t shared_bytes;    /* static shared memory (LDS) per block                 */
	uint64_t param_bytes;     /* bytes of kernel arguments (kernarg segment, or the
	                             parameter constant bank)                            */
	unsigned int max_threads; /* most threads per block the code allows: AMD
	                             .max_flat_workgroup_size; NVIDIA __launch_bounds__
	                             (.maxntid), else 0 (no bound but the device's)      */
	unsigned int wavefront;   /* threads per wavefront / warp: 32 or 64              */
} rocjit_kernel_resources;

/* Zeroes the fields of version (1 to ROCJIT_KERNEL_RESOURCES_VERSION) of *r and sets
 * r->version.  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_kernel_resources_init(rocjit_kernel_resources *r, unsigned int version);

/*
 * The resources of kernel (its symbol name, as rocjit_codeobj_info.kernels lists it) in
 * the code object data[0..size), for any target and on a machine without a GPU.  AMD:
 * the kernel's record in the code object's metadata note.  NVIDIA: the CUBIN's .nv.info
 * and .nv.info.<kernel> attributes and its .nv.shared.<kernel> section (less the 1 KB
 * sm_90 and later reserve per block, which ptxas -v does not count either).  Never reads
 * outside the data.  0, ROCJIT_EINVAL, ROCJIT_ENOTFOUND (no such kernel), ROCJIT_EFORMAT
 * (malformed or missing record), ROCJIT_ENOMEM.  Any thread.
 */
ROCJIT_API int rocjit_codeobj_resources_get(rocjit_kernel_resources *out, const void *data,
					    size_t size, const char *kernel);

/* The same for a kernel rocjit served, read from its code object (not from the driver;
 * nothing is read until asked).  Any thread. */
ROCJIT_API int rocjit_kernel_resources_get(rocjit_kernel_resources *out,
					   const rocjit_kernel *kernel);

/* ---- Code objects without a device (prewarm) -------------------------------------------- */

/* A compiled code object.  Immutable, owned by the context, valid until rocjit_close. */
typedef struct rocjit_code {
	const void *data;   /* the code object: an AMDGPU ELF or a CUBIN                    */
	size_t size;        /* bytes of data                                                */
	const char *target; /* normalized target id it was compiled for: the one asked for,
	                       or a less specific one whose code runs there ("gfx90a" for
	                       "gfx90a:sramecc+:xnack-": a feature it leaves unspecified
	                       runs on either setting), served from any cache tier         */
	char key[33];       /* cache key, 32 lower-case hex digits: the entry's (of target) */
	int from_cache;     /* 1: read from the on-disk cache; 0: compiled by this context
	                       (a repeat request returns this same object)              */
	double compile_ms;  /* compile time when it was compiled (now or when cached)       */
} rocjit_code;

/*
 * Gets the code object of prog for target (NULL: the context's target, which needs
 * ROCJIT_ARCH, rocjit_options.target or a device), from the cache or by compiling it and
 * storing it in the cache.  Needs no device when a target is given.
 *
 * Returns what rocjit_kernel_get returns, less ROCJIT_ENOTFOUND and ROCJIT_EDEVICE. Any
 * thread.
 */
ROCJIT_API int rocjit_compile(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
			      const rocjit_program *prog);

/*
 * The lowered (mangled) kernel name of a name expression the program of code was
 * compiled with (rocjit_program.name_expressions; the exact string given there): *out
 * points into the code object's data, owned by the context, valid until rocjit_close.
 * Returns 0, ROCJIT_ENOTFOUND (not one of the program's name expressions; *out NULL),
 * ROCJIT_EINVAL.  Any thread.
 */
ROCJIT_API int rocjit_code_lowered_name(const char **out, const rocjit_code *code,
					const char *expression);

/*
 * As rocjit_compile, for a source registered under source_name; honours
 * $ROCJIT_KERNEL_PATH like rocjit_kernel_get_registered.  The prewarm path for an
 * application's embedded kernels.  Returns what rocjit_compile returns, and
 * ROCJIT_ENOTFOUND when nothing is registered under source_name.  Any thread.
 */
ROCJIT_API int rocjit_compile_registered(const rocjit_code **out, rocjit_ctx *ctx,
					 const char *target, const char *source_name,
					 const char *const *options, size_t num_options);

/* ---- Registered sources with name expressions (compile only what is used) ---------------- */

#define ROCJIT_REGISTERED_OPTIONS_VERSION 1

/*
 * How a registered source is compiled: what rocjit_program adds to a source, less what
 * registration fixes (text, name, language, headers).  Caller-owned; read during the call
 * only.  Initialize with ROCJIT_REGISTERED_OPTIONS_INIT: a field added later keeps its
 * default for a caller built with this header.
 */
typedef struct rocjit_registered_options {
	unsigned int version;          /* ROCJIT_REGISTERED_OPTIONS_VERSION                 */
	const char *const *options;    /* compiler options, as rocjit_program.options       */
	size_t num_options;
	const char *const *name_expressions; /* template instantiations to compile, as
	                                  rocjit_program.name_expressions: only these are
	                                  instantiated, and the set is part of the key, in
	                                  order ("unary<rj_op_neg, float>" alone is one
	                                  entry; a list of every instantiation another) */
	size_t num_name_expressions;
} rocjit_registered_options;

#define ROCJIT_REGISTERED_OPTIONS_INIT { ROCJIT_REGISTERED_OPTIONS_VERSION, NULL, 0, NULL, 0 }

/* Initialises *o as ROCJIT_REGISTERED_OPTIONS_INIT does, for version (1 to
 * ROCJIT_REGISTERED_OPTIONS_VERSION).  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_registered_options_init(rocjit_registered_options *o,
					      unsigned int version);

/*
 * As rocjit_kernel_get_registered, with name expressions: the registered source
 * source_name compiled with exactly opts->name_expressions instantiated, so that a
 * source made of kernel templates compiles only the instantiations a request names
 * (one op of a large set: one small compile, one small cache entry, instead of the
 * whole file).  kernel_name is an extern "C" symbol, a mangled name, or one of
 * opts->name_expressions exactly as given there (looked up by its lowered name, as in
 * rocjit_kernel_get).  opts NULL is the defaults (no options, no name expressions:
 * then this is rocjit_kernel_get_registered, same key).  The key is the one
 * rocjit_kernel_get gives the registered text with the same headers, options and
 * expressions, and rocjit_compile_registered_v2 the same for a target: prewarm with one,
 * hit with the other.
 *
 * The same request again from the same thread and context (same source name, kernel
 * name, options and expressions, compared as strings) is answered from a per-thread
 * memo without computing the key: a registered source's text is fixed for the life of
 * the context (embedded, or read once from $ROCJIT_KERNEL_PATH).
 *
 * *out: owned by the context, valid until rocjit_close, shareable between threads.
 * Returns what rocjit_kernel_get_registered returns, and ROCJIT_EINVAL for an opts
 * version this library does not know or a name expression that is NULL, empty or holds
 * a control character.  Any thread.
 */
ROCJIT_API int rocjit_kernel_get_registered_v2(rocjit_kernel **out, rocjit_ctx *ctx,
					       const char *source_name, const char *kernel_name,
					       const rocjit_registered_options *opts);

/*
 * As rocjit_compile_registered, with name expressions (see rocjit_registered_options):
 * the code object of the registered source compiled for target (NULL: the context's)
 * with exactly opts->name_expressions instantiated; rocjit_code_lowered_name gives each
 * one's lowered name.  The prewarm path for a kernel set that an application requests
 * one instantiation at a time: call it once per expression, with that expression alone,
 * to store the entries rocjit_kernel_get_registered_v2 will look up.  A device is
 * touched only when target is NULL and no target override is set.
 *
 * *out: owned by the context, valid until rocjit_close.  Returns what
 * rocjit_compile_registered returns, and ROCJIT_EINVAL as rocjit_kernel_get_registered_v2.
 * Any thread.
 */
ROCJIT_API int rocjit_compile_registered_v2(const rocjit_code **out, rocjit_ctx *ctx,
					    const char *target, const char *source_name,
					    const rocjit_registered_options *opts);

/* ---- Statistics ---------------------------------------------------------------------------- */

#define ROCJIT_STATS_VERSION 8

typedef struct rocjit_stats {
	unsigned int version;      /* in: ROCJIT_STATS_VERSION                          */
	/* this context, since rocjit_open */
	uint64_t memory_hits;      /* served by the in-process table                    */
	uint64_t disk_hits;        /* served by the on-disk cache                       */
	uint64_t misses;           /* not in the cache (then compiled, or refused)      */
	uint64_t compiles;         /* compiler runs that produced a code object          */
	uint64_t compile_errors;   /* compiler runs that failed                         */
	uint64_t cache_errors;     /* cache reads/writes that failed (and were ignored) */
	double compile_ms;         /* total time spent compiling                        */
	/* the on-disk cache, now (0 when it is not open) */
	uint64_t entries;
	uint64_t bytes;            /* code object bytes                                 */
	int cache_open;            /* 1 if the on-disk cache is in use                  */
	char cache_path[4096];     /* its database file, or ""                          */
	/* version 2 */
	uint64_t max_bytes;        /* size limit in force ($ROCJIT_CACHE_MAXSIZE): least
	                              recently used entries go beyond it; 0 none        */
	/* version 3: what became of the code objects this context compiled */
	uint64_t stores;           /* written to the on-disk cache and still there once
	                              the size limit was applied                        */
	uint64_t store_failures;   /* compiled but not in the on-disk cache: the write
	                              failed (full disk, read-only file or folder), no
	                              cache could be opened, the object is larger than
	                              the size limit, or the limit evicted it at once.
	                              Not counted: ROCJIT_OPEN_NO_CACHE, _READONLY      */
	int cache_readonly;        /* 1 if the cache is open but is never written
	                              (ROCJIT_OPEN_READONLY, or a cache or bundle file
	                              given as the cache)                               */
	char store_error[1024];    /* why the last store failed (what to do included),
	                              or "" when none has                               */
	/* version 4 */
	uint64_t empty_objects;    /* compiles by this context whose code object holds
	                              no kernel (each also logged as a warning): most
	                              often templates never instantiated - add name
	                              expressions or explicit instantiations            */
	/* version 5: compile workers (see Caveats) */
	uint64_t worker_compiles;  /* this context's compiles that ran in a worker      */
	double worker_overhead_ms; /* of compile_ms, what was not the compiler: sending
	                              the request, waiting for the answer, reading it   */
	/* this process, all contexts (a forked child counts its own) */
	uint64_t workers_started;  /* worker processes started                          */
	uint64_t workers_lost;     /* workers that died or were stopped for a limit
	                              while compiling (each failed its request)         */
	int workers_running;       /* worker processes alive now                        */
	int workers_max;           /* the pool's size: $ROCJIT_WORKERS, else the CPUs
	                              this process may run on                           */
	/* version 6 */
	uint64_t index_hits;       /* of disk_hits, those served by the cache's read
	                              index, without reading the database (see
	                              ROCJIT_CACHE_INDEX_SIZE)                          */
	/* version 7: the remote tier (all 0 when none is configured) */
	int remote_state;          /* ROCJIT_REMOTE_NONE, _UP, or _OFF (not asked now,
	                              after a failure: see remote_off_reason)           */
	char remote_url[512];      /* the tier's URL without its password, or ""        */
	char remote_off_reason[512]; /* why the tier is off, or ""                      */
	uint64_t remote_hits;      /* served by the remote tier (and copied into the
	                              on-disk cache)                                    */
	uint64_t remote_misses;    /* asked and not there (values refused included)     */
	uint64_t remote_errors;    /* requests to the servers that failed               */
	uint64_t remote_rejected;  /* values found but refused by a check: never loaded */
	uint64_t remote_puts;      /* code objects this context put there               */
	uint64_t remote_put_errors;/* puts the servers refused or failed                */
	uint64_t remote_waits;     /* misses that waited for another node's compile     */
	uint64_t remote_bytes_read, remote_bytes_written;
	double remote_saved_ms;    /* compile time the remote hits did not spend        */
	double remote_ms;          /* time spent talking to the servers                 */
	/* version 8: signed code */
	int require_signed;        /* ROCJIT_REQUIRE_SIGNED_NONE, _SHARED or _ALL in force */
	int trusted_keys;          /* how many keys are trusted                          */
	char signing_key[65];      /* the name of the key this context signs with, or "" */
	uint64_t signatures_checked; /* entries whose signature was verified (once each) */
	uint64_t signature_rejects;  /* entries not loaded for their signature: unsigned,
	                              signed by a key not trusted, or not holding (then
	                              compiled here where a compiler is)                */
	uint64_t signed_stores;    /* entries this context signed                        */
} rocjit_stats;

/* rocjit_stats.remote_state */
#define ROCJIT_REMOTE_NONE 0
#define ROCJIT_REMOTE_UP 1
#define ROCJIT_REMOTE_OFF 2

/*
 * Fills *out (whose version field the caller set: a caller built with an older header
 * gets the fields of its version only).  Returns 0 or ROCJIT_EINVAL.  Any thread; the
 * counters are read without stopping other threads.
 *
 * Whether one compile was stored: read the stats before and after it (from the thread
 * that compiles, with no other thread compiling on the context): stores or
 * store_failures went up by one.  Neither moves when nothing was compiled (a hit) or the
 * context was opened not to write (ROCJIT_OPEN_NO_CACHE, ROCJIT_OPEN_READONLY).
 */
ROCJIT_API int rocjit_stats_get(rocjit_stats *out, rocjit_ctx *ctx);

/* Zeroes the fields of version (1 to ROCJIT_STATS_VERSION) of *s and sets s->version:
 * ready for rocjit_stats_get.  0, or ROCJIT_EINVAL (s NULL, version 0 or too new).  Any
 * thread. */
ROCJIT_API int rocjit_stats_init(rocjit_stats *s, unsigned int version);

/* ---- Compiling ahead of need ------------------------------------------------------------- */
/*
 * For a framework that knows which kernels a model will use: compiles a list in the
 * background, through the compile workers, so that the first launches find them ready.
 * What a prefetch compiled is in the context's table and the on-disk cache: the later
 * rocjit_kernel_get / rocjit_compile of the same program is a hit.  Items already cached
 * cost a lookup and start no worker.
 */
typedef struct rocjit_prefetch rocjit_prefetch;

/* One thing to compile: a program, or a registered source (rocjit_compile_registered_v2:
 * one item per instantiation the application will ask for, each with its one name
 * expression, gives exactly the entries rocjit_kernel_get_registered_v2 looks up).
 * An array of them may grow in a later release: the library reads it with the stride
 * rocjit_prefetch_options.item_size gives. */
typedef struct rocjit_prefetch_item {
	const rocjit_program *program; /* compiled as rocjit_compile does; or NULL and:     */
	const char *registered;        /* a registered source's name, compiled with:        */
	const rocjit_registered_options *registered_options; /* NULL: none                  */
	const char *target;            /* NULL: the context's target                        */
} rocjit_prefetch_item;

#define ROCJIT_PREFETCH_STATUS_VERSION 1

/* Where a prefetch stands (rocjit_prefetch_status_get, and each progress call). */
typedef struct rocjit_prefetch_status {
	unsigned int version; /* in: ROCJIT_PREFETCH_STATUS_VERSION; a progress call's
	                         status has this library's version                          */
	size_t total;     /* items                                                          */
	size_t done;      /* items finished, failed ones included                           */
	size_t failed;    /* items that failed (each one's error went to the progress call) */
	size_t compiled;  /* items compiled now (the rest of done came from a cache)        */
	int finished;     /* 1 when every item is done or the prefetch was cancelled        */
} rocjit_prefetch_status;

#define ROCJIT_PREFETCH_STATUS_INIT { ROCJIT_PREFETCH_STATUS_VERSION, 0, 0, 0, 0, 0 }

/* Initialises *s as ROCJIT_PREFETCH_STATUS_INIT does, for version (1 to
 * ROCJIT_PREFETCH_STATUS_VERSION): zeroes the fields of that version and sets s->version,
 * ready for rocjit_prefetch_status_get.  0, or ROCJIT_EINVAL (s NULL, version 0 or too
 * new).  Any thread. */
ROCJIT_API int rocjit_prefetch_status_init(rocjit_prefetch_status *s, unsigned int version);

#define ROCJIT_PREFETCH_OPTIONS_VERSION 2

typedef struct rocjit_prefetch_options {
	unsigned int version;  /* ROCJIT_PREFETCH_OPTIONS_VERSION                           */
	unsigned int threads;  /* items in flight at once; 0: the compile workers' number
	                          (rocjit_stats.workers_max)                                */
	/* Called after each item, from a background thread, with no rocjit lock held (it may
	   call rocjit); calls may come from several threads at once.  index: the item; rc:
	   its result (0 or a ROCJIT_E* code); message: rocjit_last_error() of a failure, else
	   "", valid during the call.  May be NULL. */
	void (*progress)(void *user, const rocjit_prefetch_status *status, size_t index,
			 int rc, const char *message);
	void *user;
	/* version 2 */
	size_t item_size;      /* sizeof(rocjit_prefetch_item) as the caller knows it: the
	                          items are read with this stride, so an item struct that
	                          grows in a later release still reads right.  0 (and
	                          version 1): the size of version 1's rocjit_prefetch_item.
	                          Smaller than that, or not a multiple of its alignment:
	                          ROCJIT_EINVAL                                             */
} rocjit_prefetch_options;

#define ROCJIT_PREFETCH_OPTIONS_INIT \
	{ ROCJIT_PREFETCH_OPTIONS_VERSION, 0u, NULL, NULL, sizeof(rocjit_prefetch_item) }

/* Sets *opts to the defaults of the given version (1 to ROCJIT_PREFETCH_OPTIONS_VERSION),
 * as the other rocjit_*_init calls do; version 2 sets item_size to
 * sizeof(rocjit_prefetch_item).  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_prefetch_options_init(rocjit_prefetch_options *opts,
					    unsigned int version);

/*
 * Starts compiling items[0..n) in the background and returns at once.
 *
 * out:   receives the prefetch; free it with rocjit_prefetch_free.
 * items: the list: n elements, opts->item_size bytes apart (NULL opts, or item_size 0:
 *        version 1's sizeof(rocjit_prefetch_item), this header's).  It and everything it
 *        points to (programs, their sources, headers and options) must stay valid and
 *        unchanged until rocjit_prefetch_free returns.  Nothing in it is written (a
 *        compile's log is the background thread's rocjit_last_log(); a failure's message
 *        goes to the progress call).
 * opts:  NULL for defaults.
 * Returns 0, ROCJIT_EINVAL (NULL arguments, an item with neither or both of program and
 * registered, an unknown options version, a bad item_size), ROCJIT_ENOMEM.  An item's
 * own failure is not the call's: it is counted (status.failed) and reported to the
 * progress call.
 * Any thread.  ctx must outlive the prefetch.
 */
ROCJIT_API int rocjit_prefetch_start(rocjit_prefetch **out, rocjit_ctx *ctx,
				     const rocjit_prefetch_item *items, size_t n,
				     const rocjit_prefetch_options *opts);

/* Where the prefetch stands now, into *out, whose version the caller set
 * (rocjit_prefetch_status_init or ROCJIT_PREFETCH_STATUS_INIT): the fields of that
 * version are filled, the version is kept.  Returns 0, ROCJIT_EINVAL (NULL, a version 0
 * or too new: *out is then untouched).  Any thread. */
ROCJIT_API int rocjit_prefetch_status_get(rocjit_prefetch_status *out,
					  const rocjit_prefetch *pf);

/*
 * Waits until every item is done, for at most timeout_s seconds (< 0: no limit).
 * Returns 0 when finished, 1 when the time ran out first, ROCJIT_EINVAL.  Any thread.
 */
ROCJIT_API int rocjit_prefetch_wait(rocjit_prefetch *pf, double timeout_s);

/*
 * Cancels the items not started yet, waits for those being compiled (a compile is never
 * cut short: its result stays useful), and frees pf.  NULL is accepted.  Call it once, from
 * one thread, before rocjit_close of the prefetch's context.
 */
ROCJIT_API void rocjit_prefetch_free(rocjit_prefetch *pf);

/* ---- Cache administration (what the rocjit CLI is built on) ------------------------------- */
/*
 * These read and change the context's on-disk cache.  They return ROCJIT_EIO when the
 * context has no cache (memory only) or the database fails.  Internally locked: any
 * thread.  The walks (foreach, find, verify) read rows in batches under the cache's lock
 * and call the callback with no lock held, so a callback may call anything on the same
 * context (statistics, another walk, a removal, a compile); a walk sees each key at most
 * once, in key order, and entries added or removed meanwhile may or may not be seen.
 * compact holds the cache for its duration.
 */

/* One cache entry as stored.  Strings are valid during the callback only. */
typedef struct rocjit_entry {
	char key[33];              /* 32 lower-case hex digits                              */
	const char *platform;      /* "amd", "nvidia"                                       */
	const char *target;        /* normalized target id                                  */
	const char *compiler;      /* compiler identity                                     */
	const char *options;       /* normalized options, space separated                   */
	const char *source_name;   /* file name given when it was compiled                  */
	const char *headers;       /* in-memory header names, space separated               */
	const char *kernels;       /* kernel symbols, comma separated                       */
	uint64_t size;             /* bytes of code                                         */
	int64_t created;           /* unix seconds                                          */
	int64_t last_used;         /* unix seconds (written within seconds of a hit)        */
	uint64_t hits;             /* disk hits                                             */
	double compile_ms;         /* what compiling it took                                */
	const char *name_expressions; /* the program's name expressions with their lowered
	                              names, one "expression<TAB>lowered" a line ("\n"
	                              between lines), or ""                              */
	char pkey[33];             /* the portable key (the key less the compiler
	                              identity: what bundles are looked up by), or "" for
	                              an entry written by a rocjit that kept none        */
	char signer[65];           /* the name of the key that signed it, or "" (unsigned)  */
	int signature;             /* ROCJIT_SIGNATURE_*, against the context's trusted
	                              keys (rocjit_options.trusted_keys)                  */
} rocjit_entry;

/*
 * rocjit_entry.signature.  rocjit_cache_find and the verify calls read the code and check
 * the signature; rocjit_cache_foreach reads no code, so a signature in a trusted key's
 * name is UNCHECKED there.  Only TRUSTED entries load where signatures are required.
 */
#define ROCJIT_SIGNATURE_NONE 0      /* unsigned                                         */
#define ROCJIT_SIGNATURE_UNCHECKED 1 /* signed by a trusted key's name; not checked      */
#define ROCJIT_SIGNATURE_TRUSTED 2   /* signed by a trusted key, and the signature holds */
#define ROCJIT_SIGNATURE_UNTRUSTED 3 /* signed by a key this context does not trust      */
#define ROCJIT_SIGNATURE_BAD 4       /* in a trusted key's name, but it does not hold:
                                        the code or what it is stored under was changed
                                        after signing, or the signature is malformed     */


/* fn returns 0 to go on; anything else stops the walk and is returned.  It runs with no
 * rocjit lock held: it may call any rocjit function, on the same context too. */
typedef int (*rocjit_entry_fn)(const rocjit_entry *entry, void *user);

/* Calls fn for every entry, in key order.  Returns 0, ROCJIT_EIO, ROCJIT_ENOMEM or fn's
 * stop value. */
ROCJIT_API int rocjit_cache_foreach(rocjit_ctx *ctx, rocjit_entry_fn fn, void *user);

/*
 * Finds the single entry whose key starts with key_prefix (at least 4 hex digits) and
 * calls fn with it and its code object (checked against its checksum; NULL and 0 when the
 * checksum fails).  Returns fn's value, ROCJIT_ENOTFOUND, ROCJIT_EINVAL (malformed or
 * ambiguous prefix: the message lists the matches) or ROCJIT_EIO.
 */
ROCJIT_API int rocjit_cache_find(rocjit_ctx *ctx, const char *key_prefix,
				 int (*fn)(const rocjit_entry *entry, const void *code,
					   size_t size, void *user),
				 void *user);

/* Removes the entries with these keys (32 hex digits each) in one transaction; *removed
 * (may be NULL) gets how many existed.  Returns 0, ROCJIT_EINVAL or ROCJIT_EIO. */
ROCJIT_API int rocjit_cache_remove(rocjit_ctx *ctx, const char *const *keys, size_t n,
				   size_t *removed);

/* Gives free pages back to the file system (VACUUM): the file really shrinks. */
ROCJIT_API int rocjit_cache_compact(rocjit_ctx *ctx);

/*
 * The size limit kept in the cache itself, which every process using the cache enforces
 * (ccache -M): size as rocjit_parse_size takes it ("5G"; "0": no limit), or NULL to remove
 * it.  A process whose environment sets ROCJIT_CACHE_MAXSIZE enforces that instead; the
 * stored limit comes before the configuration files and the default (4G).  Evicts at once
 * when the cache holds more.  ROCJIT_EINVAL for a bad size, ROCJIT_EIO when the cache is
 * read-only, missing or cannot be written.  Any thread.
 */
ROCJIT_API int rocjit_cache_maxsize_set(rocjit_ctx *ctx, const char *size);
/*
 * The limit the context's cache enforces now into *bytes (0: none), and where it comes
 * from into *source (may be NULL): "environment", "cache" (stored by
 * rocjit_cache_maxsize_set), a configuration file's path, or "default"; valid until the
 * context is closed.  *stored (may be NULL) gets the stored limit's text, or NULL when the
 * cache holds none (valid until the next call on ctx's cache).  ROCJIT_EIO without a
 * cache.  Any thread.
 */
ROCJIT_API int rocjit_cache_maxsize_get(uint64_t *bytes, const char **source,
					const char **stored, rocjit_ctx *ctx);

/* Why rocjit_cache_verify found an entry bad (the reason argument of its callback). */
#define ROCJIT_VERIFY_CHECKSUM 1  /* the code does not match its checksum or size    */
#define ROCJIT_VERIFY_OBJECT 2    /* the code is not a code object for its target    */
#define ROCJIT_VERIFY_SIGNATURE 3 /* its signature is ROCJIT_SIGNATURE_BAD; or, under
                                     ROCJIT_REQUIRE_SIGNED_ALL, anything but TRUSTED */
/* Deprecated spellings of the three above. */
#define ROCJIT_BAD_CHECKSUM ROCJIT_VERIFY_CHECKSUM
#define ROCJIT_BAD_OBJECT ROCJIT_VERIFY_OBJECT
#define ROCJIT_BAD_SIGNATURE ROCJIT_VERIFY_SIGNATURE

/*
 * Checks every entry's checksum, that its code object is for the target it is stored
 * under, and its signature against the context's trusted keys; calls bad (may be NULL)
 * for each bad one with the reason and a message.  With fix, bad entries are removed.
 * *checked and *bad_count (may be NULL) get the counts.  Returns 0 or ROCJIT_EIO.
 */
ROCJIT_API int rocjit_cache_verify(rocjit_ctx *ctx, int fix,
				   void (*bad)(const rocjit_entry *entry, int reason,
					       const char *message, void *user),
				   void *user, uint64_t *checked, uint64_t *bad_count);

/*
 * rocjit_cache_verify, calling each for every entry checked: reason 0 and message "" for
 * a good one.  What `rocjit verify` reports each entry's signature from.
 */
ROCJIT_API int rocjit_cache_verify_each(rocjit_ctx *ctx, int fix,
					void (*each)(const rocjit_entry *entry, int reason,
						     const char *message, void *user),
					void *user, uint64_t *checked, uint64_t *bad_count);

#define ROCJIT_COUNTERS_VERSION 2

/* Counters kept in the cache across processes, since the last rocjit_cache_zero. */
typedef struct rocjit_counters {
	unsigned int version;     /* in: ROCJIT_COUNTERS_VERSION                        */
	uint64_t disk_hits;
	uint64_t misses;
	uint64_t compiles;
	double compile_ms;        /* time spent compiling                               */
	double saved_ms;          /* compile time the disk hits did not spend again     */
	int64_t since;            /* unix seconds of the last zeroing (or creation)     */
	/* version 2: failures, each counted once by the process where it happened (written
	   within seconds, and at close or exit); 0 in a cache no such process wrote. */
	uint64_t compile_errors;    /* compiles that failed (a refused target ran none) */
	uint64_t evictions;         /* entries removed to stay under the size limit     */
	uint64_t signature_rejects; /* entries of any tier refused for their signature  */
	uint64_t remote_errors;     /* remote tier commands that failed (also
	                               rocjit_remote_counters.errors)                   */
} rocjit_counters;

#define ROCJIT_COUNTERS_INIT { ROCJIT_COUNTERS_VERSION, 0, 0, 0, 0.0, 0.0, 0, 0, 0, 0, 0 }

/* Initialises *c as ROCJIT_COUNTERS_INIT does, for version (1 to
 * ROCJIT_COUNTERS_VERSION).  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_counters_init(rocjit_counters *c, unsigned int version);

/*
 * Reads them into *out, whose version the caller set (the fields of that version are
 * filled, the version is kept).  Disk hits and saved time are added in batches as they
 * happen (see the Caveats); a context adds its misses and compiles when it closes.
 * Returns 0, ROCJIT_EINVAL (NULL, a version 0 or too new), ROCJIT_EIO (no cache, the
 * database failed).  Any thread.
 */
ROCJIT_API int rocjit_counters_get(rocjit_counters *out, rocjit_ctx *ctx);

/* Deprecated (its arguments are in the old order): rocjit_counters_get for version 1 (the
 * last it was declared with: its callers' structs end there); sets out->version to 1. */
ROCJIT_API int rocjit_cache_counters(rocjit_ctx *ctx, rocjit_counters *out)
	ROCJIT_DEPRECATED("use rocjit_counters_get(out, ctx)");
/* Sets them to zero, now. */
ROCJIT_API int rocjit_cache_zero(rocjit_ctx *ctx);

/* ---- Bundles: prebuilt kernels shipped with an application ------------------------------ */
/*
 * A bundle is a read-only file in the cache's entry format.  A context looks kernels up in
 * this order: in-process table, user cache, bundles, compiler.  A bundle entry is found by
 * its portable key - everything in the cache key but the compiler identity - so a bundle
 * serves a machine where no compiler is installed.  Where a compiler is installed, an
 * entry the current compiler made is preferred; an entry of another compiler version is
 * still used, since it is valid code for its target.  A damaged bundle is skipped with
 * one warning.  A bundle is data from outside: each entry is checked (checksum, code
 * object, its target, its kernel names) once, before a context first loads it, and a bad
 * entry is a miss with one warning.  Bundles are never written.
 */

/*
 * Writes a new bundle at path (which must not exist) holding the entries with these keys
 * (32 hex digits each) from the context's cache.  *count (may be NULL) gets how many were
 * written.  With a signing key (and keys given), the entries are signed first as
 * rocjit_cache_sign signs them, and nothing is exported when one of them cannot be
 * (ROCJIT_EFORMAT, saying which and why): a signed bundle never carries code its signer
 * does not vouch for.  Returns 0, ROCJIT_EINVAL (no keys, a key unknown or malformed,
 * path exists), ROCJIT_EFORMAT, ROCJIT_EIO.
 */
ROCJIT_API int rocjit_bundle_export(rocjit_ctx *ctx, const char *path, const char *const *keys,
				    size_t n, size_t *count);

/* Called for each entry an import refused: its key (32 hex digits, or "" when the row's
 * key is not 16 bytes) and why, in English (control bytes shown as '?').  Both strings
 * are valid during the call only. */
typedef void (*rocjit_reject_fn)(const char *key, const char *reason, void *user);

/*
 * Copies a bundle's entries into the context's cache (existing keys are kept).  A bundle
 * is data from outside, so each entry is checked first and copied only when its code
 * matches its checksum and size, parses as a code object (AMDGPU ELF or CUBIN) whose own
 * target is the entry's well-formed target id on the entry's platform, holds the kernels
 * the entry names, and its keys are 16 bytes; where the context trusts keys (and its
 * ROCJIT_REQUIRE_SIGNED is not NONE), it must also be signed by one of them.  Signatures
 * are copied with their entries.  The bundle's usage figures are never taken: an
 * imported entry has 0 hits and was created and last used now.
 *
 * *copied and *rejected (each may be NULL) get how many entries were copied and refused;
 * on_reject (may be NULL) is called for each refused one.  Returns 0, ROCJIT_EFORMAT when
 * entries were refused (the good ones are copied; the message gives the counts and the
 * first reasons: "2 copied, 3 rejected: ..."), ROCJIT_EINVAL, ROCJIT_EIO (the bundle
 * cannot be used, the cache is read-only or fails).  Any thread.
 */
ROCJIT_API int rocjit_bundle_import_v2(rocjit_ctx *ctx, const char *path, size_t *copied,
				       size_t *rejected, rocjit_reject_fn on_reject, void *user);

/* rocjit_bundle_import_v2 without the rejection details; *count gets the copied count. */
ROCJIT_API int rocjit_bundle_import(rocjit_ctx *ctx, const char *path, size_t *count);

/* ---- Signed code ------------------------------------------------------------------------- */
/*
 * Whoever can write a shared tier (a bundle, the remote tier) could otherwise put code on
 * every GPU that reads it.  A producer signs the entries it stores, exports and pushes
 * with an ed25519 key (rocjit_options.signing_key, $ROCJIT_SIGNING_KEY: a file that
 * `rocjit keygen NAME` writes, mode 0600); a consumer that trusts keys
 * (rocjit_options.trusted_keys, $ROCJIT_TRUSTED_KEYS: "NAME:BASE64" public keys, and/or
 * files of them, comma separated) loads entries from bundles and the remote tier only
 * with a signature by one of them that holds, and with ROCJIT_REQUIRE_SIGNED_ALL
 * ($ROCJIT_REQUIRE_SIGNED=all) its local cache's too.  A signature covers the entry's key,
 * portable key, platform, target, compiler identity and a BLAKE2b hash of its code.  An
 * entry refused is not loaded: counted (rocjit_stats.signature_rejects), one warning,
 * compiled here where a compiler is, else the request fails with ROCJIT_ENOCOMPILER
 * saying so.  Several keys may be trusted at once (rotation).  Each entry is verified
 * once, when the context first loads it; its hits after that are not.
 * Caveat: the content key is XXH3-128 (not a cryptographic hash): a signature vouches
 * for what its signer compiled under that key, so sign only what you compiled from
 * sources you trust.
 */

/*
 * Makes an ed25519 key pair: dir/NAME.secret (mode 0600, the signing key) and
 * dir/NAME.pub, neither of which may exist; public_line (size >= 110) gets the public
 * key as one line, "NAME:BASE64", to give consumers.  name: 1 to 64 of A-Z a-z 0-9 . _ -
 * (not starting with '.').  Returns 0, ROCJIT_EINVAL (a bad name, public_line too small),
 * ROCJIT_EIO (a file exists or cannot be written: the message says which).
 */
ROCJIT_API int rocjit_keygen(const char *name, const char *dir, char *public_line, size_t size);

/*
 * Signs the entries with these keys (32 hex digits each; keys NULL: every entry) of the
 * context's cache with its signing key.  A signer vouches only for code whose origin it
 * knows (issue 27; cache/FORMAT.md, "Origins"): an entry compiled here is signed
 * (replacing its signature); one that arrived from the remote tier or a bundle keeps a
 * signature by a key the context trusts (or by the signing key itself) and is otherwise
 * not signed, nor is an entry of unknown origin (stored before origins were recorded).
 * *count (may be NULL) gets how many now carry a signature so vouched for (signed or
 * kept).  Returns 0; ROCJIT_EINVAL (no signing key, a key malformed); ROCJIT_EFORMAT
 * (entries were not signed: their origin, or their code fails its checksum; the message
 * counts them and names the first, why and what to do; the others were signed);
 * ROCJIT_EIO (no cache, read-only, the database failed).  Any thread.
 */
ROCJIT_API int rocjit_cache_sign(rocjit_ctx *ctx, const char *const *keys, size_t n,
				 size_t *count);

/*
 * rocjit_cache_sign on the bundle file path, with the context's signing key (the context
 * needs no cache).  Processes read bundles as immutable files, so the bundle is never
 * changed in place: a signed copy is written beside it (the folder must be writable) and
 * renamed over it; a process that has it open keeps reading the old one.  On failure the
 * bundle is as it was.  Returns as rocjit_cache_sign; ROCJIT_EINVAL also when path is not
 * a regular file.  Any thread.
 */
ROCJIT_API int rocjit_bundle_sign(rocjit_ctx *ctx, const char *path, const char *const *keys,
				  size_t n, size_t *count);

/* ---- Remote tier: one compile per kernel across a fleet --------------------------------- */
/*
 * With a remote tier configured (rocjit_options.remote, else $ROCJIT_REMOTE), a request
 * that misses the on-disk cache and the bundles asks a Redis server, or a Redis Cluster,
 * before compiling; a hit is copied into the on-disk cache, so the next process of the
 * node finds it there.  What a context compiles is put there for the others.
 *
 *  - One compile per key across the fleet: a node that misses takes the key's lock in
 *    Redis (SET NX with a lease, renewed while it compiles); the other nodes wait for its
 *    value (at most $ROCJIT_LOCK_TIMEOUT_MS), and compile themselves only if its lease
 *    runs out (the holder died) or its compile failed.  With the on-disk cache's key
 *    lock, one process of a node asks the server for a key at a time.
 *  - Values are data from outside: one is used only when it is well formed, is the entry
 *    of the key asked for (portable key, platform, target and compiler identity too),
 *    its code object is one for the target and holds the kernels it names.  A value that
 *    fails is never loaded: counted (remote_rejected), one warning, compiled here, and
 *    the value is replaced with this node's.
 *  - Never stalls: connect and operation timeouts (the URL's connect_timeout=, default
 *    100 ms, and timeout=, default 1000 ms).  A server down, refusing, stopped, out of
 *    memory or refusing the credentials costs one warning; the request goes on locally,
 *    and the tier is not asked again for the URL's retry= milliseconds (default 30000).
 *  - The password, when the URL has none, is the first line of
 *    $ROCJIT_REMOTE_PASSWORD_FILE.  It appears in no message, log line or statistic.
 *  - Read-only (the URL's ?readonly, or $ROCJIT_REMOTE_READONLY=1): read, never put,
 *    never lock.
 *  - Keys are <prefix>:<format>:<32 hex digits> (prefix "rocjit", ?prefix=NAME), locks
 *    the same with ":lock"; ?ttl=SECONDS gives values a lifetime.  Configure the server
 *    with maxmemory-policy allkeys-lru.
 */

#define ROCJIT_REMOTE_COUNTERS_VERSION 1

/* The remote tier's counters kept in the on-disk cache across processes (each context
 * adds its own when it closes), since the last rocjit_cache_zero. */
typedef struct rocjit_remote_counters {
	unsigned int version;      /* in: ROCJIT_REMOTE_COUNTERS_VERSION                */
	uint64_t hits, misses, errors, rejected, puts, put_errors, waits;
	uint64_t bytes_read, bytes_written;
	double saved_ms;           /* compile time the hits did not spend               */
	double remote_ms;          /* time spent talking to the servers                 */
} rocjit_remote_counters;

/* Reads them from the context's cache.  0, ROCJIT_EINVAL, ROCJIT_EIO (no cache). */
ROCJIT_API int rocjit_remote_counters_get(rocjit_remote_counters *out, rocjit_ctx *ctx);

/* Zeroes the fields of version (1 to ROCJIT_REMOTE_COUNTERS_VERSION) of *c and sets
 * c->version.  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_remote_counters_init(rocjit_remote_counters *c, unsigned int version);

#define ROCJIT_REMOTE_INFO_VERSION 1
#define ROCJIT_REMOTE_INFO_KEYS 0x1u /* count this tier's entries and bytes (a SCAN) */

/* What the servers of the context's remote tier say about themselves. */
typedef struct rocjit_remote_info {
	unsigned int version;      /* in: ROCJIT_REMOTE_INFO_VERSION                    */
	char url[512];             /* without its password                              */
	int cluster;               /* 1: a Redis Cluster                                */
	int readonly;              /* 1: the tier never writes                          */
	int servers;               /* the cluster's masters, else 1                     */
	double latency_ms;         /* the slowest server's PING round trip              */
	char server_version[32];   /* redis_version                                    */
	char maxmemory_policy[32]; /* "allkeys-lru" is what the tier wants              */
	uint64_t used_memory, maxmemory; /* bytes, summed over the servers (0: no limit) */
	int keys_counted;          /* 1 when the three below were counted               */
	uint64_t entries, bytes, locks; /* this tier's values, their bytes, compile locks */
} rocjit_remote_info;

/*
 * Asks every server of the context's remote tier (PING, INFO; with
 * ROCJIT_REMOTE_INFO_KEYS, a SCAN of the tier's keys).  Returns 0, ROCJIT_EINVAL (no
 * remote tier configured), ROCJIT_EUNSUPPORTED (built without hiredis), ROCJIT_EIO (a
 * server cannot be reached or refused: the message says which and why).  Any thread.
 */
ROCJIT_API int rocjit_remote_info_get(rocjit_remote_info *out, rocjit_ctx *ctx,
				      unsigned int what);

/* Zeroes the fields of version (1 to ROCJIT_REMOTE_INFO_VERSION) of *i and sets
 * i->version.  0, or ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_remote_info_init(rocjit_remote_info *i, unsigned int version);

/*
 * Puts the entries with these keys (32 hex digits each) of the context's cache on the
 * remote tier, never replacing a value there: a CI farm prewarms, then pushes.  *pushed,
 * *present (already there) and *failed (each may be NULL) get the counts; on_fail (may
 * be NULL) is called with each entry that could not be pushed and why.  With a signing
 * key, an entry is pushed signed as rocjit_cache_sign would sign it (or with the trusted
 * signature it keeps); one it would not sign is not pushed, and counts as failed with
 * why.  Without one, an entry goes with the signature it was stored with.  Returns 0,
 * ROCJIT_EINVAL (a malformed key, no remote tier, a read-only tier), ROCJIT_EIO (no
 * cache; or entries failed: the message has the first reason).  Any thread.
 */
ROCJIT_API int rocjit_remote_push(rocjit_ctx *ctx, const char *const *keys, size_t n,
				  size_t *pushed, size_t *present, size_t *failed,
				  rocjit_reject_fn on_fail, void *user);

/* ---- Compilers and devices -------------------------------------------------------------- */

/*
 * The identity of a platform's compiler as it enters cache keys ("nvrtc 13.0 ...",
 * "hiprtc 9.0; hip ...; comgr 2.4"), in a static string.  Loads the compiler unless this
 * process already knows it.  Returns 0, ROCJIT_EINVAL, ROCJIT_ENOCOMPILER.  Any thread.
 */
ROCJIT_API int rocjit_compiler_identity(const char **out, int platform);

/*
 * The targets a platform's installed compiler supports, space separated, into
 * buf[size] (size at least 16; " ..." ends a list cut short).  Returns 0,
 * ROCJIT_EINVAL, ROCJIT_ENOCOMPILER.  Any thread.
 */
ROCJIT_API int rocjit_compiler_targets_get(char *buf, size_t size, int platform);

/*
 * Where a platform's compiler libraries were loaded from, and which rule found each, into
 * buf[size] (cut short when too small): one line per library, "NAME\tFILE\tRULE\n"
 * (NAME: hiprtc, comgr, hip, nvrtc; RULE in words: "already loaded by the process",
 * "ROCJIT_HIP_LIBRARY=...", "ROCM_PATH=...", "the standard install folder /opt/rocm", "the
 * versioned install folder /opt/rocm-6.0.0", "the loader's search path ..."), then
 * "note\t\tTEXT\n" for each place searched and passed over (a ROCM_PATH without hipRTC).
 * AMD first uses a HIP runtime, hipRTC or comgr the application has loaded (by soname: a
 * second copy would not share its state), taking what it lacks from the loaded runtime's
 * folder; else it looks in ROCJIT_HIP_LIBRARY's folder alone when it is set, else
 * $ROCM_PATH/lib, /opt/rocm/lib, /opt/rocm-X.Y.Z/lib (newest version first), then the
 * loader's search path; comgr comes from hipRTC's folder.
 * Loads the compiler.  Returns 0, ROCJIT_EINVAL, ROCJIT_ENOCOMPILER (the notes are
 * written all the same).  Any thread.
 */
ROCJIT_API int rocjit_compiler_libraries_get(char *buf, size_t size, int platform);

/* How many GPUs of the platform this machine has into *count (0 with no driver).
 * Returns 0, ROCJIT_EINVAL.  Any thread. */
ROCJIT_API int rocjit_device_count_get(int *count, int platform);

/* The full target id of a device ("gfx90a:sramecc+:xnack-", "sm_90") into buf[size].
 * Returns 0, ROCJIT_EINVAL, ROCJIT_ENODEV, ROCJIT_EDEVICE.  Any thread. */
ROCJIT_API int rocjit_device_target_get(char *buf, size_t size, int platform, int device);

/* Deprecated spellings of the three above (their arguments in the old order). */
ROCJIT_API int rocjit_compiler_targets(int platform, char *buf, size_t size)
	ROCJIT_DEPRECATED("use rocjit_compiler_targets_get(buf, size, platform)");
ROCJIT_API int rocjit_device_count(int platform, int *count)
	ROCJIT_DEPRECATED("use rocjit_device_count_get(count, platform)");
ROCJIT_API int rocjit_device_target(int platform, int device, char *buf, size_t size)
	ROCJIT_DEPRECATED("use rocjit_device_target_get(buf, size, platform, device)");

/* ---- Code-object inspection ------------------------------------------------------------ */

#define ROCJIT_MAX_TARGET 64

/* What a code object says about itself.  Caller-owned; free with
 * rocjit_codeobj_info_free. */
typedef struct rocjit_codeobj_info {
	int platform;                  /* ROCJIT_PLATFORM_AMD or ROCJIT_PLATFORM_NVIDIA  */
	char target[ROCJIT_MAX_TARGET];/* AMD: "gfx90a:sramecc+:xnack-" from the metadata
	                                  note, else built from e_flags.  NVIDIA: "sm_90",
	                                  "sm_90a" from e_flags and the .nv.compat section
	                                  (an "sm_100f" object reads as "sm_100")        */
	char flags_target[ROCJIT_MAX_TARGET]; /* AMD: the target id e_flags alone give;
	                                  NVIDIA: the same as target                     */
	size_t num_kernels;
	char **kernels;                /* kernel symbol names in symbol-table order, each
	                                  once.  AMD: the ".kd" symbols, suffix cut.
	                                  NVIDIA: the __global__ entry functions
	                                  (STO_CUDA_ENTRY); never __device__ functions    */
} rocjit_codeobj_info;

/*
 * Reads an AMDGPU code object (ELF64, EM_AMDGPU) or an NVIDIA CUBIN (ELF64, EM_CUDA, as
 * NVRTC returns it; CUDA 13's and older layouts).  Never reads outside [data, data+size).
 * Returns 0, ROCJIT_EFORMAT (truncated, foreign or inconsistent data), ROCJIT_EINVAL,
 * ROCJIT_ENOMEM.  Any thread.
 */
ROCJIT_API int rocjit_codeobj_inspect(rocjit_codeobj_info **out, const void *data,
				      size_t size);

/* Frees what rocjit_codeobj_inspect returned. NULL is a no-op.  Any thread. */
ROCJIT_API void rocjit_codeobj_info_free(rocjit_codeobj_info *info);

/* Deprecated spelling of rocjit_codeobj_info_free. */
ROCJIT_API void rocjit_codeobj_free(rocjit_codeobj_info *info)
	ROCJIT_DEPRECATED("use rocjit_codeobj_info_free");

/* ---- Registered (embedded) sources ---------------------------------------------------------- */

/* One embedded source file: what rocjit_add_kernels() generates. */
typedef struct rocjit_source_file {
	const char *name;   /* path relative to the embedded folder: "axpy.hip" */
	const char *text;
	size_t length;
} rocjit_source_file;

/*
 * Registers sources under their names, process-wide.  The array and its strings must stay
 * valid for the life of the process (they are static data in generated code).  A name
 * registered twice keeps the first text.  Returns 0, ROCJIT_EINVAL, ROCJIT_ENOMEM.
 * Any thread.
 */
ROCJIT_API int rocjit_register_sources(const rocjit_source_file *files, size_t count);

/*
 * As rocjit_register_sources, for an array whose elements are elem_size bytes apart:
 * sizeof(rocjit_source_file) as the caller knows it, so that a rocjit_source_file that
 * grows in a later release is still read right (only the fields this library knows are
 * read).  Returns 0, ROCJIT_EINVAL (also: elem_size smaller than this first version of
 * rocjit_source_file, or not a multiple of its alignment), ROCJIT_ENOMEM.  Any thread.
 */
ROCJIT_API int rocjit_register_sources_v2(const rocjit_source_file *files, size_t count,
					  size_t elem_size);

/*
 * Registers files as headers, process-wide, whatever their names: extensionless headers
 * such as "cmath" or "cuda/std/limits" (files named *.h, *.hpp, *.cuh or *.inc need not
 * be registered here: rocjit_register_sources makes them headers by their names).  A
 * header can be included by every registered source under its registered name
 * (#include <cmath>, #include "cuda/std/limits") and is part of the key of every source
 * that reaches it (see rocjit_kernel_get_registered); it is never compiled on its own.  Same lifetime rule as rocjit_register_sources.
 * A name already registered keeps its first text but becomes a header, whichever call
 * came first.  rocjit_add_kernels(... HEADERS name...) calls this.  Returns 0,
 * ROCJIT_EINVAL, ROCJIT_ENOMEM.  Any thread.
 */
ROCJIT_API int rocjit_register_headers(const rocjit_source_file *files, size_t count);

/* As rocjit_register_headers, with elem_size as in rocjit_register_sources_v2. */
ROCJIT_API int rocjit_register_headers_v2(const rocjit_source_file *files, size_t count,
					  size_t elem_size);

/*
 * Whether name is a header of the registered set: registered by rocjit_register_headers,
 * or (registered or not) named like a header (rocjit_is_header_name).  Any thread.
 */
ROCJIT_API int rocjit_registered_is_header(const char *name);

/*
 * Finds a registered source by name; *out points into the registered (static) data.
 * Returns 0 or ROCJIT_ENOTFOUND.  Any thread.
 */
ROCJIT_API int rocjit_registered_source(const rocjit_source_file **out, const char *name);

/*
 * Whether a registered file is a header by its name (".h", ".hpp", ".cuh", ".inc"):
 * headers are compiled into no kernel of their own and are part of the key of every
 * registered kernel that includes them.  The one rule the library and `rocjit prewarm` use; files registered
 * with rocjit_register_headers (and prewarm's --header) are headers whatever their
 * names.  Any thread.
 */
ROCJIT_API int rocjit_is_header_name(const char *name);

/*
 * Includes between registered files: a quoted include resolves relative to the including
 * file's folder first, then from the registered root, as a C compiler does for files on
 * disk ("rj_ops.h" in "ops/unary.hip" is "ops/rj_ops.h" when that is registered, else
 * "rj_ops.h"; "../common.h" in "ops/unary.hip" is "common.h").  Angle-bracket includes
 * are resolved from the root only.  A path that leaves the root names no registered file:
 * nothing outside the registered files is ever read for an include.  Registered sources
 * are compiled with this rule applied; tools that compile a registered set themselves
 * (rocjit prewarm) apply it with this call, so that they compute the same keys.
 *
 * Gives the text the compiler is given for the file registered as name: quoted includes
 * that name one of headers (the set's header names) relative to name's folder are
 * rewritten to that header's registered name.  *out receives that text in a malloc'ed,
 * NUL-terminated buffer (release it with free()) and *out_length its bytes, or NULL and 0
 * when the text needs no change.  length 0: strlen(text).  Returns 0, ROCJIT_EINVAL,
 * ROCJIT_ENOMEM.  Any thread.
 */
ROCJIT_API int rocjit_include_resolve(char **out, size_t *out_length, const char *name,
				      const char *text, size_t length,
				      const char *const *headers, size_t num_headers);

#ifdef __cplusplus
}
#endif

#endif /* ROCJIT_H */
