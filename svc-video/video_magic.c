/*
 * video_magic - one matcher per container family and, for each, the
 * types of video_mime.c a file of that family may be named as; the first
 * of them is the family's own type.
 */
#include "video_magic.h"

#include <string.h>

/* The start of a file, and its whole size. */
struct head {
	const unsigned char *b;
	size_t len;
	long long size;
};

static int at(const struct head *h, size_t off, const char *bytes, size_t n)
{
	return h->len >= off + n && memcmp(h->b + off, bytes, n) == 0;
}

/* ISO base media: the first box is "ftyp" (a major brand and a version
 * at least), or an old QuickTime file's first atom; its size fits in the
 * file (0: to the end of the file, for mdat; 1: a 64-bit size follows),
 * which a text whose bytes 4 to 7 happen to spell "free" never has. */
static int iso_media(const struct head *h)
{
	static const char *const atoms[] = { "moov", "mdat", "wide", "free", "skip", "pnot" };
	long long size;

	if (h->len < 16)
		return 0;
	size = (long long)h->b[0] << 24 | (long long)h->b[1] << 16 | (long long)h->b[2] << 8 | h->b[3];
	if (at(h, 4, "ftyp", 4))
		return size >= 16 && size <= h->size;
	for (size_t i = 0; i < sizeof atoms / sizeof atoms[0]; i++)
		if (at(h, 4, atoms[i], 4))
			return size == 1 || (size >= 8 && size <= h->size) || (size == 0 && i == 1);
	return 0;
}

/* The DocType of an EBML header: "webm", "matroska" or unknown (NULL).
 * It comes within the header's first bytes, as element 42 82 with a
 * one-byte size. */
static const char *ebml_doctype(const struct head *h)
{
	if (!at(h, 0, "\x1a\x45\xdf\xa3", 4))
		return NULL;
	for (size_t i = 4; i + 3 < h->len && i < 64; i++) {
		size_t n;

		if (h->b[i] != 0x42 || h->b[i + 1] != 0x82 || !(h->b[i + 2] & 0x80))
			continue;
		n = h->b[i + 2] & 0x7f;
		if (n == 4 && at(h, i + 3, "webm", 4))
			return "webm";
		if (n == 8 && at(h, i + 3, "matroska", 8))
			return "matroska";
		return NULL;
	}
	return NULL;
}

static int webm(const struct head *h)
{
	const char *t = ebml_doctype(h);

	return t && strcmp(t, "webm") == 0;
}

static int avi(const struct head *h)
{
	return at(h, 0, "RIFF", 4) && at(h, 8, "AVI ", 4);
}

static int flv(const struct head *h)
{
	return at(h, 0, "FLV\x01", 4);
}

/* A program stream, a bare video stream, or a transport stream (whose
 * sync byte 0x47 alone is too common: three packets in a row). */
static int mpeg(const struct head *h)
{
	return at(h, 0, "\x00\x00\x01\xba", 4) || at(h, 0, "\x00\x00\x01\xb3", 4) ||
	       (h->len > 2 * 188 && h->b[0] == 0x47 && h->b[188] == 0x47 && h->b[2 * 188] == 0x47);
}

/* The ASF header object's GUID. */
static int asf(const struct head *h)
{
	return at(h, 0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11\xa6\xd9\x00\xaa\x00\x62\xce\x6c", 16);
}

static const struct {
	int (*match)(const struct head *h);
	const char *types[3]; /* the first is the family's own */
} families[] = {
	{ iso_media, { "video/mp4", "video/quicktime", "video/3gpp" } },
	{ webm, { "video/webm" } },
	{ avi, { "video/avi" } },
	{ flv, { "video/x-flv" } },
	{ mpeg, { "video/mpeg", "video/mpg" } },
	{ asf, { "video/wmv" } },
};

/* An ISO file's own type, by its major brand: QuickTime's "qt  ", 3GPP's
 * "3gXX", else MP4; an old QuickTime file has no brand. */
static const char *iso_type(const struct head *h)
{
	if (!at(h, 4, "ftyp", 4) || at(h, 8, "qt  ", 4))
		return "video/quicktime";
	return at(h, 8, "3g", 2) ? "video/3gpp" : "video/mp4";
}

const char *video_magic_type(const unsigned char *head, size_t len, long long file_size, const char *named,
			     const char **container)
{
	const struct head h = { head, len, file_size };

	*container = NULL;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		if (!families[f].match(&h))
			continue;
		for (size_t t = 0; named && t < 3 && families[f].types[t]; t++)
			if (strcmp(families[f].types[t], named) == 0)
				return named;
		return families[f].match == iso_media ? iso_type(&h) : families[f].types[0];
	}
	if (ebml_doctype(&h)) /* not "webm": that matched above */
		*container = "Matroska (MKV)";
	return NULL;
}

const char *video_magic_list(void)
{
	return "MP4, QuickTime, 3GPP, WebM, AVI, FLV, MPEG, WMV";
}
