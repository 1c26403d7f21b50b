/*
 * scene_refs - the two checks that the document walk and the CSS reader
 * both make (scene_refs.h): where a reference points, and which font
 * families a list names.
 */
#include "scene_refs.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fonts.h"

#define REFER_INSTEAD "refer to an element as \"#id\", or embed an image as a data: URI " \
	"(data:image/png;base64,...)"

static const char *const raster_types[] = { "image/png", "image/jpeg", "image/gif", "image/webp" };

/* At most the first 60 bytes of a value, for a message (data: URIs are long). */
static void excerpt(const char *v, size_t len, char *buf, size_t buflen)
{
	if (len > 60)
		snprintf(buf, buflen, "%.57s...", v);
	else
		snprintf(buf, buflen, "%.*s", (int)len, v);
}

static void check_data_uri(const char *subject, const char *ref, size_t len, const char *file, int line,
			   struct problems *p)
{
	size_t a = 5, b;

	while (a < len && ref[a] == ' ')
		a++;
	for (b = a; b < len && ref[b] != ';' && ref[b] != ','; b++)
		;
	for (size_t i = 0; i < sizeof raster_types / sizeof raster_types[0]; i++)
		if (b - a == strlen(raster_types[i]) && strncasecmp(ref + a, raster_types[i], b - a) == 0)
			return;
	if (b - a == 13 && strncasecmp(ref + a, "image/svg+xml", 13) == 0)
		problems_add(p, file, line, "%s embeds an SVG image, whose content would not be checked; put "
			     "its elements in the scene itself (in a <g> or a <symbol> used with <use href=\"#id\">)",
			     subject);
	else
		problems_add(p, file, line, "%s is a data: URI of type %.*s; a data: URI may hold only a PNG, "
			     "JPEG, GIF or WebP image", subject, b > a ? (int)(b - a) : 10,
			     b > a ? ref + a : "text/plain");
}

void scene_check_reference(const char *attr, const char *ref, size_t len, const char *file, int line,
			   struct problems *p)
{
	char value[80], subject[160];
	size_t scheme = 0;

	while (len > 0 && isspace((unsigned char)ref[0])) {
		ref++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)ref[len - 1]))
		len--;
	if (len > 1 && ref[0] == '#')
		return;
	excerpt(ref, len, value, sizeof value);
	if (attr)
		snprintf(subject, sizeof subject, "%s=\"%s\"", attr, value);
	else
		snprintf(subject, sizeof subject, "url(%s)", value);
	if (len >= 5 && strncasecmp(ref, "data:", 5) == 0) {
		check_data_uri(subject, ref, len, file, line, p);
		return;
	}
	if (len > 0 && isalpha((unsigned char)ref[0])) {
		scheme = 1;
		while (scheme < len && (isalnum((unsigned char)ref[scheme]) || strchr("+-.", ref[scheme])))
			scheme++;
		if (scheme >= len || ref[scheme] != ':')
			scheme = 0;
	}
	if (len <= 1)
		problems_add(p, file, line, "%s names nothing; " REFER_INSTEAD, subject);
	else if (ref[0] == '/' && ref[1] == '/')
		problems_add(p, file, line, "%s points outside the scene (a network address), and nothing is "
			     "ever fetched; " REFER_INSTEAD, subject);
	else if (scheme)
		problems_add(p, file, line, "%s points outside the scene (%.*s:), and nothing is ever fetched; "
			     REFER_INSTEAD, subject, (int)scheme, ref);
	else
		problems_add(p, file, line, "%s refers to a file, and nothing outside the scene is read; "
			     REFER_INSTEAD, subject);
}

void scene_check_family(const char *list, const char *file, int line, struct problems *p)
{
	char bad[128], shown[80];

	if (fonts_family_ok(list, bad, sizeof bad))
		return;
	excerpt(list, strlen(list), shown, sizeof shown);
	if (bad[0])
		problems_add(p, file, line, "font-family \"%s\": \"%s\" is not an installed family (text in "
			     "it would come out in another face); use only: %s", shown, bad,
			     fonts_family_list());
	else
		problems_add(p, file, line, "font-family \"%s\" has an empty family name; use only: %s", shown,
			     fonts_family_list());
}
