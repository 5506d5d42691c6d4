/*
 * parse.h - the parsers of the values people write (see parse.c): pure functions, below
 * the log and the settings, so that both may use them.
 */
#ifndef ROCJIT_PARSE_H
#define ROCJIT_PARSE_H

#include <stdint.h>

/* A switch's text: 1 on (1, true, yes, on, any case), 0 off (NULL, "", 0, false, no,
 * off), -1 neither. */
int rj_parse_flag(const char *text);

/* A size (rocjit_parse_size's rules) into *bytes: 0; -1 when text is no size; -2 when it
 * is larger than 2^64-1 bytes. */
int rj_parse_size_raw(const char *text, uint64_t *bytes);

/* A ROCJIT_LOG value as a level (RJ_LOG_* of error.h), or -1 when it names none. */
int rj_log_parse(const char *text);

/* Whether text is a whole number (fraction: or a decimal number) of at most 18 digits. */
int rj_parse_is_number(const char *text, int fraction);

#endif
