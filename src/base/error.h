/*
 * error.h - error recording and diagnostics shared by every module.
 *
 * Owns the per-thread last-error text and the ROCJIT_LOG switch.  Modules report a failure
 * with RJ_FAIL / RJ_CHECK, which record the message with the place it arose (visible at
 * ROCJIT_LOG=debug) and return the code; rocjit_last_error() hands the message to the
 * caller.  Must not depend on any other module.
 */
#ifndef ROCJIT_ERROR_H
#define ROCJIT_ERROR_H

#include "rocjit.h"

#if defined(__GNUC__)
#define RJ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RJ_PRINTF(a, b)
#endif

/* Records msg as the calling thread's last error and returns code (always < 0). */
int rj_error_set(int code, const char *file, int line, const char *fmt, ...) RJ_PRINTF(4, 5);
/* Clears the calling thread's last error (on entry to public calls that succeed). */
void rj_error_clear(void);

/* The calling thread's compiler log (rocjit_last_log): cleared on entry to every request,
 * set by the compile that request ran (a copy of log; NULL or "" clears it). */
void rj_last_log_clear(void);
void rj_last_log_set(const char *log);

/* Return code from the current function, recording why. */
#define RJ_FAIL(code, ...) return rj_error_set((code), __FILE__, __LINE__, __VA_ARGS__)
/* Fail with code and a message when cond holds. */
#define RJ_CHECK(cond, code, ...)                    \
	do {                                         \
		if (cond)                            \
			RJ_FAIL((code), __VA_ARGS__); \
	} while (0)
/* Propagate a negative result; the callee already recorded the message. */
#define RJ_FORWARD(expr)               \
	do {                           \
		int rj_fw_rc_ = (expr); \
		if (rj_fw_rc_ < 0)     \
			return rj_fw_rc_; \
	} while (0)

/* ---- Logging: ROCJIT_LOG=warn (default) | info | debug | off.  Each line goes to stderr,
 * or to the function of rocjit_set_log_callback (error.c).  Every message is one line,
 * escaped: the arguments may hold anything (a server's text, a stored field). ---- */

enum rj_level { RJ_LOG_OFF = 0, RJ_LOG_WARN = 1, RJ_LOG_INFO = 2, RJ_LOG_DEBUG = 3 };

/* The level from $ROCJIT_LOG, read once. */
int rj_log_level(void);
void rj_log(int level, const char *fmt, ...) RJ_PRINTF(2, 3);
/* fmt's line, then text's lines, each escaped and marked "  | " as quoted (a compiler's
 * output): no line of text can pass for one of rocjit's. */
void rj_log_block(int level, const char *text, const char *fmt, ...) RJ_PRINTF(3, 4);
/* Prints a warning once per process for each distinct once_key (a static string). */
void rj_warn_once(const char *once_key, const char *fmt, ...) RJ_PRINTF(2, 3);

#define RJ_LOG(level, ...)                               \
	do {                                             \
		if (rj_log_level() >= (level))           \
			rj_log((level), __VA_ARGS__);    \
	} while (0)

/* Monotonic milliseconds. */
double rj_now_ms(void);

#endif
