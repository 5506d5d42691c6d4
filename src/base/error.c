/*
 * error.c - error codes, the per-thread last-error text and compiler log, and the
 * diagnostics: ROCJIT_LOG's level, and where each line goes (stderr, or the function of
 * rocjit_set_log_callback).
 *
 * Every message and log line it hands out is escaped (base/text.c) as it is formatted:
 * messages quote what servers answered, stored fields and file names, and an
 * application prints them raw.  A control character, a bidirectional override or a byte
 * that is not UTF-8 reaches neither a terminal nor a log hook, and no text from outside
 * can end a line: each message is one line, and a multi-line text (a compiler's output)
 * is logged with rj_log_block, whose every line of it is marked as quoted.
 *
 * Owns nothing but thread-local text, the log level read once from the environment and
 * the log hook.  Must not call into any other module (every module calls into this one)
 * but the pure text functions below it.
 */
#include "base/config.h"
#include "base/error.h"
#include "base/parse.h"
#include "base/text.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static _Thread_local char last_error[1024];

/* The compiler log of the thread's last request (rocjit_last_log): malloc'ed, or NULL for
 * "".  Kept in a thread-specific key too, whose destructor frees it when the thread
 * exits. */
static _Thread_local char *last_log;
static pthread_key_t last_log_key;
static pthread_once_t last_log_once = PTHREAD_ONCE_INIT;

ROCJIT_API int rocjit_version(void)
{
	return ROCJIT_VERSION_NUMBER;
}

ROCJIT_API const char *rocjit_strerror(int code)
{
	switch (code) {
	case ROCJIT_OK: return "success";
	case ROCJIT_EINVAL: return "invalid argument";
	case ROCJIT_ENOMEM: return "out of memory";
	case ROCJIT_ENOTFOUND: return "not found";
	case ROCJIT_ECOMPILE: return "compile error";
	case ROCJIT_EUNSUPPORTED: return "target not supported by the compiler";
	case ROCJIT_ENODEV: return "no GPU device";
	case ROCJIT_ENOCOMPILER: return "compiler library not available";
	case ROCJIT_EDEVICE: return "GPU runtime error";
	case ROCJIT_EIO: return "I/O error";
	case ROCJIT_EFORMAT: return "malformed code object";
	case ROCJIT_ENOTCACHED: return "not cached and compiling is forbidden";
	default: return "unknown error";
	}
}

ROCJIT_API const char *rocjit_last_error(void)
{
	return last_error;
}

void rj_error_clear(void)
{
	last_error[0] = 0;
}

ROCJIT_API const char *rocjit_last_log(void)
{
	return last_log ? last_log : "";
}

static void make_last_log_key(void)
{
	pthread_key_create(&last_log_key, free);
}

void rj_last_log_clear(void)
{
	if (!last_log)
		return;
	free(last_log);
	last_log = NULL;
	pthread_setspecific(last_log_key, NULL);
}

/* Whole, not cut to a buffer: the log is what a developer reads to fix the kernel.  Out
 * of memory loses the log, never the request. */
void rj_last_log_set(const char *log)
{
	char *copy;

	rj_last_log_clear();
	if (!log || !*log || !(copy = strdup(log)))
		return;
	pthread_once(&last_log_once, make_last_log_key);
	if (pthread_setspecific(last_log_key, copy) != 0) {
		free(copy);
		return;
	}
	last_log = copy;
}

/*
 * Formats the message into the thread's buffer.  The origin (file:line) goes to the debug
 * log rather than into the message: callers show the message to users.
 */
int rj_error_set(int code, const char *file, int line, const char *fmt, ...)
{
	char msg[sizeof last_error];
	va_list ap;
	int n;

	/* Through a copy: the arguments may be the last error itself. */
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	rj_text_escape(last_error, sizeof last_error, msg,
		       (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1, 0);
	if (rj_log_level() >= RJ_LOG_DEBUG)
		rj_log(RJ_LOG_DEBUG, "error %d (%s) at %s:%d: %s", code, rocjit_strerror(code),
		       file, line, last_error);
	return code;
}

static atomic_int log_level = -1;

/*
 * The level from ROCJIT_LOG (the environment or a configuration file, where config.c has
 * checked it).  A value that names no level is warned of once a process, and the default
 * (warnings) applies: it was never silent, and it must not turn the warnings off.
 */
static void log_level_init(void)
{
	const char *v = rj_config_lookup("ROCJIT_LOG", NULL);
	int level = v && *v ? rj_log_parse(v) : RJ_LOG_WARN;

	atomic_store_explicit(&log_level, level < 0 ? RJ_LOG_WARN : level, memory_order_relaxed);
	if (level < 0)
		rj_warn_once("ROCJIT_LOG", "ROCJIT_LOG=%s is not a log level: off (or quiet, none, 0), "
		       "error or warn (the default), info (or 1), debug (or 2); warnings are "
		       "on", v);
}

/* Benign race: every thread computes the same value from the same settings. */
int rj_log_level(void)
{
	int level = atomic_load_explicit(&log_level, memory_order_relaxed);

	if (level < 0) {
		log_level_init();
		level = atomic_load_explicit(&log_level, memory_order_relaxed);
	}
	return level;
}

/*
 * The log hook.  hook_used turns on at the first rocjit_set_log_callback, so that a
 * process that never sets one takes no lock to print.  A call of the hook holds
 * hook_lock for reading and the setter takes it for writing: when the setter returns, no
 * thread is still inside the old function, and a binding may release what user points
 * to.  The lock prefers writers, or threads that log without pause would keep a setter
 * waiting forever; a thread never takes it twice (in_hook), so that cannot deadlock.
 */
#ifdef PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
#define HOOK_LOCK_INIT PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
#else /* not glibc: the default lock, which may let a busy reader delay a setter */
#define HOOK_LOCK_INIT PTHREAD_RWLOCK_INITIALIZER
#endif
static pthread_rwlock_t hook_lock = HOOK_LOCK_INIT;
static rocjit_log_fn hook_fn;   /* under hook_lock */
static void *hook_user;         /* under hook_lock */
static atomic_int hook_used;
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;
/* This thread is inside the hook: a diagnostic made meanwhile (the hook called rocjit,
 * which it must not) goes to stderr instead of taking the lock again. */
static _Thread_local int in_hook;

/*
 * A fork child has only the thread that forked: readers of the parent that were inside
 * the hook never unlock the child's copy of the lock, and a setter there would wait for
 * them forever.  The child starts from a fresh lock, held again for reading when the
 * forking thread itself was inside the hook (it unlocks once the hook returns).
 */
static void hook_after_fork_child(void)
{
	static const pthread_rwlock_t fresh = HOOK_LOCK_INIT;

	hook_lock = fresh;
	if (in_hook)
		pthread_rwlock_rdlock(&hook_lock);
}

static void hook_register_atfork(void)
{
	pthread_atfork(NULL, NULL, hook_after_fork_child);
}

ROCJIT_API void rocjit_set_log_callback(rocjit_log_fn fn, void *user)
{
	/* From inside the hook it would wait for its own read lock: refused, said once. */
	if (in_hook) {
		fprintf(stderr, "rocjit: rocjit_set_log_callback called from inside the log "
			"callback: ignored (a callback must not call rocjit)\n");
		return;
	}
	pthread_once(&hook_once, hook_register_atfork);
	pthread_rwlock_wrlock(&hook_lock);
	hook_fn = fn;
	hook_user = user;
	atomic_store_explicit(&hook_used, 1, memory_order_release);
	pthread_rwlock_unlock(&hook_lock);
}

/* The public level (rocjit.h's ROCJIT_LOG_*) of an internal one. */
static int public_level(int level)
{
	switch (level) {
	case RJ_LOG_WARN: return ROCJIT_LOG_WARN;
	case RJ_LOG_INFO: return ROCJIT_LOG_INFO;
	default: return ROCJIT_LOG_DEBUG;
	}
}

/* Gives text's lines, one call each, to the hook; 0 when none is set (then the caller
 * prints).  text is the formatted message, written in place. */
static int to_hook(int level, char *text)
{
	int done = 0;

	if (!atomic_load_explicit(&hook_used, memory_order_acquire) || in_hook)
		return 0;
	pthread_rwlock_rdlock(&hook_lock);
	if (hook_fn) {
		char *line = text, *nl;
		in_hook = 1;
		do {
			nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			/* A trailing newline ends the last line; it is not a line of its own. */
			if (*line || nl)
				hook_fn(hook_user, public_level(level), line);
			line = nl ? nl + 1 : NULL;
		} while (line && *line);
		in_hook = 0;
		done = 1;
	}
	pthread_rwlock_unlock(&hook_lock);
	return done;
}

/* Hands the escaped line text (after the "rocjit: " prefix in buf) to the hook or stderr. */
static void emit(int level, char *buf, size_t prefix)
{
	size_t n;

	if (to_hook(level, buf + prefix))
		return;
	n = strlen(buf);
	buf[n++] = '\n';
	/* One write per line so lines of concurrent threads and processes do not interleave. */
	fwrite(buf, 1, n, stderr);
}

static const char *const log_tags[] = { "", "warning: ", "", "debug: " };
static const char log_prefix[] = "rocjit: ";
#define LOG_RAW 2048

static void vlog(int level, const char *fmt, va_list ap)
{
	char raw[LOG_RAW], buf[RJ_TEXT_MAX(LOG_RAW) + 32];
	int n = snprintf(buf, sizeof buf, "%s%s", log_prefix, log_tags[level]), m;

	m = vsnprintf(raw, sizeof raw, fmt, ap);
	if (m < 0)
		m = 0;
	/* One line, whatever the arguments held: room is left for emit's newline. */
	rj_text_escape(buf + n, sizeof buf - (size_t)n - 1, raw,
		       (size_t)m < sizeof raw ? (size_t)m : sizeof raw - 1, 0);
	emit(level, buf, (size_t)n);
}

void rj_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (rj_log_level() < level || level < RJ_LOG_WARN || level > RJ_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

/*
 * A text of several lines from outside (a compiler's or a worker's output) under a line
 * of its own: each of its lines is escaped and starts with "  | ", so none can pass for a
 * line of rocjit's.  On stderr the block is one write; a hook gets a call per line.
 * Lines past 4096 bytes are cut, blocks past 64 KB end with "  | ...".
 */
void rj_log_block(int level, const char *text, const char *fmt, ...)
{
	char raw[LOG_RAW], line[RJ_TEXT_MAX(LOG_RAW) + 32];
	size_t cap = 64 * 1024, used = 0, k;
	const char *p = text ? text : "", *nl;
	char *block = NULL;
	va_list ap;
	int n, m;

	if (rj_log_level() < level || level < RJ_LOG_WARN || level > RJ_LOG_DEBUG)
		return;
	n = snprintf(line, sizeof line, "%s%s", log_prefix, log_tags[level]);
	va_start(ap, fmt);
	m = vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	rj_text_escape(line + n, sizeof line - (size_t)n - 1, raw,
		       (size_t)m < sizeof raw ? (size_t)m : sizeof raw - 1, 0);
	if (to_hook(level, line + n)) {
		block = NULL; /* the hook takes each line as it comes */
	} else if ((block = malloc(cap + 16)) != NULL) {
		used = strlen(line);
		if (used > cap)
			used = cap;
		memcpy(block, line, used);
		block[used++] = '\n';
	} else {
		emit(level, line, (size_t)n); /* out of memory: the lines one by one */
	}
	while (*p) {
		size_t len;
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		memcpy(line, "  | ", 4);
		rj_text_escape(line + 4, 4096, p, len, 0);
		k = strlen(line);
		if (block && used + k + 1 > cap) {
			memcpy(block + used, "  | ...\n", 8);
			used += 8;
			break;
		}
		if (block) {
			memcpy(block + used, line, k);
			used += k;
			block[used++] = '\n';
		} else if (!to_hook(level, line)) {
			line[k] = '\n';
			fwrite(line, 1, k + 1, stderr);
		}
		p = nl ? nl + 1 : p + len;
	}
	if (block) {
		fwrite(block, 1, used, stderr);
		free(block);
	}
}

/* Keys are copied: a setting's name may come from a caller's buffer (rocjit_env_flag). */
#define MAX_ONCE 64
static char once_keys[MAX_ONCE][64];
static size_t once_count;
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

void rj_warn_once(const char *once_key, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	pthread_mutex_lock(&once_lock);
	for (i = 0; i < once_count; i++)
		if (strncmp(once_keys[i], once_key, sizeof once_keys[i] - 1) == 0)
			break;
	if (i < once_count) {
		pthread_mutex_unlock(&once_lock);
		return;
	}
	if (once_count < MAX_ONCE)
		snprintf(once_keys[once_count++], sizeof once_keys[0], "%s", once_key);
	pthread_mutex_unlock(&once_lock);
	if (rj_log_level() < RJ_LOG_WARN)
		return;
	va_start(ap, fmt);
	vlog(RJ_LOG_WARN, fmt, ap);
	va_end(ap);
}

double rj_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
