/*
 * text.c - escaping text that came from outside (text.h).  A server's error, a stored
 * field or a compiler's output printed raw could move the cursor, rewrite the screen or
 * the terminal's title, hide text behind bidirectional overrides, or, through a newline,
 * forge whole "rocjit:" lines in a log.  One decoder and one escaper serve the library's
 * messages and the CLI's output, so both show the same bytes the same way.
 *
 * Pure functions: no state, no allocation, no other module.
 */
#include <stdio.h>
#include <string.h>

#include "base/text.h"

size_t rj_utf8_char(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len;
	uint32_t c, min;

	if (!n)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0; /* a continuation byte, an overlong lead (0xc0 0xc1), or 0xf5..0xff */
	}
	if (n < len)
		return 0; /* cut short */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0; /* overlong, beyond Unicode, or a surrogate */
	*cp = c;
	return len;
}

int rj_unsafe_char(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || /* C0, DEL, C1 (0x9b is a CSI) */
	       c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || /* bidi */
	       (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

size_t rj_text_escape(char *out, size_t size, const char *s, size_t n, int flags)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, k = 0;

	if (!size)
		return 0;
	while (i < n) {
		char esc[8];
		const char *piece = esc;
		uint32_t c = 0;
		size_t len = rj_utf8_char(s + i, n - i, &c), in, m;

		if (len && (!rj_unsafe_char(c) ||
			    ((flags & RJ_TEXT_LINES) && (c == '\n' || c == '\t')))) {
			piece = s + i, m = len, in = len;
		} else if (len == 1 && (c == '\n' || c == '\r' || c == '\t')) {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
			m = 2, in = 1;
		} else if (len > 1) {
			m = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c); /* C1, bidi */
			in = len;
		} else {
			unsigned char b = (unsigned char)s[i]; /* ESC, DEL, a stray byte */
			esc[0] = '\\', esc[1] = 'x', esc[2] = hex[b >> 4], esc[3] = hex[b & 15];
			m = 4, in = 1;
		}
		if (k + m >= size)
			break;
		memcpy(out + k, piece, m);
		k += m;
		i += in;
	}
	out[k] = 0;
	return k;
}
