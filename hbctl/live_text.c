/*
 * live_text - columns of UTF-8 text and cuts at a whole character (see
 * live_text.h).  The rows come from JSON, so they are UTF-8; a byte that
 * does not start a whole character is shown as '?' rather than trusted.
 * Wide characters are the East Asian wide ranges and the emoji blocks,
 * enough to keep a line on one screen line without the C library's
 * locale-dependent wcwidth.
 */
#include "live_text.h"

#include <stdint.h>
#include <string.h>

#include "utf8.h"

/* The bytes of the character at s (1 to 4), its code point in *cp;
 * 1 with *cp '?' for a byte that starts no whole character. */
static size_t char_at(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 ? 2 : (*u & 0xf0) == 0xe0 ? 3 : (*u & 0xf8) == 0xf0 ? 4 : 0;

	if (len == 0 || strnlen(s, len) < len || !hb_utf8_valid(s, len)) {
		*cp = '?';
		return 1;
	}
	*cp = len == 1 ? u[0] : len == 2 ? u[0] & 0x1fu : len == 3 ? u[0] & 0x0fu : u[0] & 0x07u;
	for (size_t i = 1; i < len; i++)
		*cp = (*cp << 6) | (u[i] & 0x3fu);
	return len;
}

static int is_wide(uint32_t cp)
{
	return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
	       (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
	       (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	       (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd);
}

static size_t cols_of(uint32_t cp)
{
	return is_wide(cp) ? 2 : 1;
}

size_t live_cols(const char *s)
{
	size_t n = 0;
	uint32_t cp;

	while (*s) {
		s += char_at(s, &cp);
		n += cols_of(cp);
	}
	return n;
}

size_t live_fit(char *out, size_t outlen, const char *s, size_t cols)
{
	const size_t mark = sizeof LIVE_ELLIPSIS - 1;
	/* a control character and a stray byte become one byte each, so
	 * the copy has the bytes of s */
	int cut = (cols && live_cols(s) > cols) || strlen(s) + 1 > outlen;
	size_t col_room = !cut ? (size_t)-1 : cols ? cols - 1 : (size_t)-1;
	size_t byte_room = !cut ? outlen - 1 : outlen > mark ? outlen - 1 - mark : outlen - 1;
	size_t used = 0, at = 0;

	if (outlen == 0)
		return 0;
	while (*s) {
		uint32_t cp;
		size_t len = char_at(s, &cp), w = cols_of(cp);

		if (used + w > col_room || at + len > byte_room)
			break;
		if (cp < 0x20 || cp == 0x7f)
			out[at] = ' ';
		else if (len == 1)
			out[at] = (char)cp;
		else
			memcpy(out + at, s, len);
		at += len;
		used += w;
		s += len;
	}
	if (cut && outlen > mark && (!cols || used < cols)) {
		memcpy(out + at, LIVE_ELLIPSIS, mark);
		at += mark;
		used++;
	}
	out[at] = '\0';
	return used;
}
