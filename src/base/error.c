/*
 * error.c - error codes, the per-thread last-error text, and ROCJIT_LOG diagnostics.
 *
 * Owns nothing but thread-local text and the log level read once from the environment.
 * Must not call into any other module (every module calls into this one).
 */
#include "base/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static _Thread_local char last_error[1024];

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

/*
 * Formats the message into the thread's buffer.  The origin (file:line) goes to the debug
 * log rather than into the message: callers show the message to users.
 */
int rj_error_set(int code, const char *file, int line, const char *fmt, ...)
{
	char msg[sizeof last_error];
	va_list ap;

	/* Through a copy: the arguments may be the last error itself. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	memcpy(last_error, msg, sizeof msg);
	if (rj_log_level() >= RJ_LOG_DEBUG)
		rj_log(RJ_LOG_DEBUG, "error %d (%s) at %s:%d: %s", code, rocjit_strerror(code),
		       file, line, last_error);
	return code;
}

static atomic_int log_level = -1;

static void log_level_init(void)
{
	const char *v = getenv("ROCJIT_LOG");
	int level = RJ_LOG_WARN;

	if (v && *v) {
		if (!strcasecmp(v, "off") || !strcmp(v, "0") || !strcasecmp(v, "none"))
			level = RJ_LOG_OFF;
		else if (!strcasecmp(v, "info") || !strcmp(v, "1"))
			level = RJ_LOG_INFO;
		else if (!strcasecmp(v, "debug") || !strcmp(v, "2"))
			level = RJ_LOG_DEBUG;
	}
	atomic_store_explicit(&log_level, level, memory_order_relaxed);
}

/* Benign race: every thread computes the same value from the same environment. */
int rj_log_level(void)
{
	int level = atomic_load_explicit(&log_level, memory_order_relaxed);

	if (level < 0) {
		log_level_init();
		level = atomic_load_explicit(&log_level, memory_order_relaxed);
	}
	return level;
}

static void vlog(const char *tag, const char *fmt, va_list ap)
{
	char buf[2048];
	int n = snprintf(buf, sizeof buf, "rocjit: %s", tag);

	vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	/* One write per line so lines of concurrent threads and processes do not interleave. */
	fwrite(buf, 1, (size_t)n, stderr);
}

void rj_log(int level, const char *fmt, ...)
{
	va_list ap;
	static const char *const tags[] = { "", "warning: ", "", "debug: " };

	if (rj_log_level() < level)
		return;
	va_start(ap, fmt);
	vlog(tags[level], fmt, ap);
	va_end(ap);
}

#define MAX_ONCE 64
static const char *once_keys[MAX_ONCE];
static size_t once_count;
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

void rj_warn_once(const char *once_key, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	pthread_mutex_lock(&once_lock);
	for (i = 0; i < once_count; i++)
		if (strcmp(once_keys[i], once_key) == 0)
			break;
	if (i < once_count) {
		pthread_mutex_unlock(&once_lock);
		return;
	}
	if (once_count < MAX_ONCE)
		once_keys[once_count++] = once_key;
	pthread_mutex_unlock(&once_lock);
	if (rj_log_level() < RJ_LOG_WARN)
		return;
	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

double rj_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
