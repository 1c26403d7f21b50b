/*
 * blocks_svg - the small SVG-writing helpers every building block uses
 * (blocks_int.h): text escaped for XML, colours checked, a readable ink on
 * a background.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_int.h"

void blocks_text(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(s[i], f);
		}
}

int blocks_colour_ok(const char *s)
{
	size_t n = strlen(s);

	if (s[0] != '#' || (n != 4 && n != 7))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* One channel of #rgb or #rrggbb, 0..255. */
static int channel(const char *c, int i)
{
	char two[3];

	if (strlen(c) == 4) {
		two[0] = two[1] = c[1 + i];
	} else {
		two[0] = c[1 + 2 * i];
		two[1] = c[2 + 2 * i];
	}
	two[2] = '\0';
	return (int)strtol(two, NULL, 16);
}

const char *blocks_ink_on(const char *bg)
{
	/* Rec. 601 luma: close enough to choose between black and white. */
	double luma = 0.299 * channel(bg, 0) + 0.587 * channel(bg, 1) + 0.114 * channel(bg, 2);

	return luma > 140 ? "#1a1a1a" : "#ffffff";
}

long blocks_bad_char(const char *s, size_t len, const char *allowed, size_t *at)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		*at = i;
		if ((c < 0x20 || c == 0x7f) && (c == 0 || !strchr(allowed, c)))
			return c;
		/* U+FFFE and U+FFFF are EF BF BE and EF BF BF */
		if (c == 0xef && i + 2 < len && (unsigned char)s[i + 1] == 0xbf && ((unsigned char)s[i + 2] & 0xfe) == 0xbe)
			return 0xfffe + ((unsigned char)s[i + 2] & 1);
	}
	return -1;
}

size_t blocks_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}
