/*
 * text.h - text that came from outside, made safe to show: what a server answered, a
 * stored field, a file name, a compiler's output (see text.c).
 *
 * Plain functions over bytes, no state: the library (error.c, for every message and log
 * line it hands out) and the CLI (output.c, which compiles this file in) escape alike.
 */
#ifndef ROCJIT_TEXT_H
#define ROCJIT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The length of the valid UTF-8 character at s[0..n) (shortest form, no surrogate, at
 * most U+10FFFF) with *cp its code point; 0 when s does not start with one. */
size_t rj_utf8_char(const char *s, size_t n, uint32_t *cp);

/* Whether a character must not reach a terminal or a log raw: C0 (newlines included),
 * DEL, C1, bidirectional overrides and isolates, line and paragraph separators. */
int rj_unsafe_char(uint32_t c);

/* At most 4 bytes out per byte in, and the NUL. */
#define RJ_TEXT_MAX(n) (4 * (size_t)(n) + 1)
#define RJ_TEXT_LINES 1  /* keep newlines and tabs (a multi-line text shown as lines) */

/*
 * s[0..n) into out (size bytes, NUL-terminated when size > 0) with every unsafe
 * character escaped: \n \r \t, \xHH for other control bytes and for bytes that are not
 * UTF-8, \uHHHH for C1 and the bidirectional and separator characters; valid UTF-8 text,
 * backslashes included, unchanged, so escaping escaped text changes nothing.
 * RJ_TEXT_LINES keeps '\n' and '\t'.  Output that does not fit is cut before the first
 * character or escape that would not fit whole.  Returns out's length.  out and s must
 * not overlap.
 */
size_t rj_text_escape(char *out, size_t size, const char *s, size_t n, int flags);

#endif
