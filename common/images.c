/*
 * images - the wire form of an answer's images is written by hand, in one
 * buffer of its exact size: it is mostly megabytes of base64, which a
 * JSON library would copy and scan several times over.  The reader checks
 * every item, its declared type against its first bytes too, so whoever
 * passes the images on to a model (the broker, for either agent) never
 * passes on what a service got wrong.
 */
#include "images.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

static const unsigned char png_magic[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
static const unsigned char jpeg_magic[] = { 0xff, 0xd8, 0xff };

static const struct image_type {
	const char *mime, *name;
	const unsigned char *magic;
	size_t magic_len;
} types[] = {
	{ "image/png", "PNG", png_magic, sizeof png_magic },
	{ "image/jpeg", "JPEG", jpeg_magic, sizeof jpeg_magic },
};

#define ITEM_HEAD "{\"mimeType\":\""
#define ITEM_MID "\",\"data\":\""
#define ITEM_TAIL "\"}"

static const struct image_type *find_type(const char *mime)
{
	for (size_t i = 0; mime && i < sizeof types / sizeof types[0]; i++)
		if (strcmp(types[i].mime, mime) == 0)
			return &types[i];
	return NULL;
}

/* The type of image number (from 1) index, or NULL with err. */
static const struct image_type *check_bytes(size_t index, const char *mime, const unsigned char *data, size_t len,
					    char *err, size_t errlen)
{
	const struct image_type *t = find_type(mime);

	if (!t) {
		snprintf(err, errlen, "image %zu is of type \"%.64s\"; an answer carries only image/png and image/jpeg",
			 index, mime ? mime : "(none)");
		return NULL;
	}
	if (len < t->magic_len || memcmp(data, t->magic, t->magic_len) != 0) {
		snprintf(err, errlen, "image %zu is declared %s, but its bytes are not a %s", index, t->mime, t->name);
		return NULL;
	}
	return t;
}

size_t hb_images_wire_size(const struct hb_image *images, size_t n)
{
	size_t size = 2 + (n ? n - 1 : 0);

	for (size_t i = 0; i < n; i++)
		size += strlen(ITEM_HEAD) + strlen(images[i].mime_type ? images[i].mime_type : "") + strlen(ITEM_MID) +
			hb_base64_encoded_len(images[i].len) + strlen(ITEM_TAIL);
	return size;
}

static char *put(char *p, const char *s)
{
	size_t len = strlen(s);

	memcpy(p, s, len);
	return p + len;
}

char *hb_images_encode(const struct hb_image *images, size_t n, char *err, size_t errlen)
{
	char *wire, *p;

	for (size_t i = 0; i < n; i++)
		if (!check_bytes(i + 1, images[i].mime_type, images[i].data, images[i].len, err, errlen))
			return NULL;
	if (!(wire = p = malloc(hb_images_wire_size(images, n) + 1))) {
		snprintf(err, errlen, "out of memory for the answer's images");
		return NULL;
	}
	*p++ = '[';
	for (size_t i = 0; i < n; i++) {
		char *data = hb_base64_encode(images[i].data, images[i].len);

		if (!data) {
			free(wire);
			snprintf(err, errlen, "out of memory for the answer's images");
			return NULL;
		}
		if (i)
			*p++ = ',';
		p = put(p, ITEM_HEAD);
		p = put(p, images[i].mime_type); /* one of the two: nothing to escape */
		p = put(p, ITEM_MID);
		p = put(p, data); /* base64: nothing to escape */
		p = put(p, ITEM_TAIL);
		free(data);
	}
	*p++ = ']';
	*p = '\0';
	return wire;
}

/* Whether item (number index, from 1) is one image of the wire form. */
static int check_item(size_t index, const json_t *item, char *err, size_t errlen)
{
	const char *data = json_string_value(json_object_get(item, "data"));
	unsigned char *head;
	size_t len, bytes, head_len;
	int ok;

	if (!json_is_object(item) || json_object_size(item) != 2 || !data) {
		snprintf(err, errlen, "image %zu is not an object of exactly mimeType and data", index);
		return -1;
	}
	len = json_string_length(json_object_get(item, "data"));
	if (len == 0 || hb_base64_check(data, len, &bytes) < 0) {
		snprintf(err, errlen, "image %zu's data is not padded base64", index);
		return -1;
	}
	/* Twelve characters carry the first nine bytes: enough for either
	 * signature, without decoding megabytes. */
	if (!(head = hb_base64_decode(data, len < 12 ? len : 12, &head_len))) {
		snprintf(err, errlen, "out of memory reading image %zu", index);
		return -1;
	}
	ok = check_bytes(index, json_string_value(json_object_get(item, "mimeType")), head, head_len, err,
			 errlen) != NULL;
	free(head);
	return ok ? 0 : -1;
}

json_t *hb_images_parse(const char *wire, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *all = json_loads(wire, JSON_REJECT_DUPLICATES, &jerr), *item;
	size_t i;

	if (!json_is_array(all)) {
		snprintf(err, errlen, "the images are not a JSON array%s%.200s", all ? "" : ": ", all ? "" : jerr.text);
		json_decref(all);
		return NULL;
	}
	json_array_foreach(all, i, item)
		if (check_item(i + 1, item, err, errlen) < 0) {
			json_decref(all);
			return NULL;
		}
	return all;
}

const char *hb_image_mime(const json_t *item)
{
	return json_string_value(json_object_get(item, "mimeType"));
}

const char *hb_image_data(const json_t *item)
{
	return json_string_value(json_object_get(item, "data"));
}

size_t hb_image_size(const json_t *item)
{
	const json_t *data = json_object_get(item, "data");
	size_t bytes = 0;

	if (hb_base64_check(json_string_value(data), json_string_length(data), &bytes) < 0)
		return 0;
	return bytes;
}
