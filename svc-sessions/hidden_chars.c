/*
 * hidden_chars - see hidden_chars.h.  One table of ranges with a name a
 * person can look up; the text is decoded as it is walked (it is valid
 * UTF-8: JSON strings are), so no allocation.
 */
#include "hidden_chars.h"

static const struct {
	unsigned long lo, hi;
	const char *name;
} hidden[] = {
	{ 0x00AD, 0x00AD, "SOFT HYPHEN" },
	{ 0x061C, 0x061C, "ARABIC LETTER MARK" },
	{ 0x180E, 0x180E, "MONGOLIAN VOWEL SEPARATOR" },
	{ 0x200B, 0x200B, "ZERO WIDTH SPACE" },
	{ 0x200E, 0x200E, "LEFT-TO-RIGHT MARK" },
	{ 0x200F, 0x200F, "RIGHT-TO-LEFT MARK" },
	{ 0x2028, 0x2028, "LINE SEPARATOR" },
	{ 0x2029, 0x2029, "PARAGRAPH SEPARATOR" },
	{ 0x202A, 0x202A, "LEFT-TO-RIGHT EMBEDDING" },
	{ 0x202B, 0x202B, "RIGHT-TO-LEFT EMBEDDING" },
	{ 0x202C, 0x202C, "POP DIRECTIONAL FORMATTING" },
	{ 0x202D, 0x202D, "LEFT-TO-RIGHT OVERRIDE" },
	{ 0x202E, 0x202E, "RIGHT-TO-LEFT OVERRIDE" },
	{ 0x2060, 0x2060, "WORD JOINER" },
	{ 0x2061, 0x2064, "an invisible mathematical operator" },
	{ 0x2066, 0x2066, "LEFT-TO-RIGHT ISOLATE" },
	{ 0x2067, 0x2067, "RIGHT-TO-LEFT ISOLATE" },
	{ 0x2068, 0x2068, "FIRST STRONG ISOLATE" },
	{ 0x2069, 0x2069, "POP DIRECTIONAL ISOLATE" },
	{ 0x206A, 0x206F, "a deprecated format character" },
	{ 0xFEFF, 0xFEFF, "ZERO WIDTH NO-BREAK SPACE (byte order mark)" },
	{ 0xFFF9, 0xFFFB, "an interlinear annotation character" },
	{ 0xE0000, 0xE007F, "a tag character" },
};

/* The code point at s[*i] (valid UTF-8); *i moves past it. */
static unsigned long decode(const unsigned char *s, size_t len, size_t *i)
{
	unsigned char c = s[*i];
	int more = c < 0x80 ? 0 : c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
	unsigned long cp = more == 0 ? c : more == 1 ? c & 0x1f : more == 2 ? c & 0x0f : c & 0x07;

	(*i)++;
	for (; more > 0 && *i < len; more--, (*i)++)
		cp = (cp << 6) | (s[*i] & 0x3f);
	return cp;
}

int hb_hidden_char_find(const char *s, size_t len, struct hb_hidden_char *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, at = 0;

	while (i < len) {
		unsigned long cp = decode(u, len, &i);

		at++;
		if (cp < 0xAD)
			continue;
		for (size_t k = 0; k < sizeof hidden / sizeof hidden[0]; k++)
			if (cp >= hidden[k].lo && cp <= hidden[k].hi) {
				out->cp = cp;
				out->at = at;
				out->name = hidden[k].name;
				return 1;
			}
	}
	return 0;
}
