/*
 * images - the images a tool answer may carry beside its text, and their
 * one wire form.
 *
 * A service answers with PNG or JPEG bytes (hb_call_succeed_with_images);
 * on back.sock and in a plain front reply they travel as the string field
 * `images`, JSON text
 *
 *	[{"mimeType":"image/png","data":"<padded base64>"}, ...]
 *
 * from which the broker writes each agent's own content items (dialect.c)
 * and hbctl prints a line per image.  Only these two types pass: they are
 * what both agents' models take, and a declared type must match the
 * bytes, so a model is never handed something that is not a picture.
 */
#ifndef HB_IMAGES_H
#define HB_IMAGES_H

#include <jansson.h>
#include <stddef.h>

/* One image of an answer; the bytes are the caller's. */
struct hb_image {
	const char *mime_type;          /* "image/png" or "image/jpeg" */
	const unsigned char *data;
	size_t len;
};

/* How many bytes the wire form of the n images takes (what
 * hb_images_encode would write): the size limit of an answer counts it,
 * and is checked before any encoding. */
size_t hb_images_wire_size(const struct hb_image *images, size_t n);
/* The wire form of the n images (malloc'd), or NULL with a sentence in
 * err: a type other than the two, bytes that do not begin as the type
 * they are declared to be (`image 2 is declared image/png, but its bytes
 * are not a PNG`), or no memory. */
char *hb_images_encode(const struct hb_image *images, size_t n, char *err, size_t errlen);
/* The wire form read back and checked: an array of objects with exactly
 * a mimeType of the two and a non-empty padded base64 data (not decoded).
 * A new reference, or NULL with a sentence in err. */
json_t *hb_images_parse(const char *wire, char *err, size_t errlen);
/* The members of an item of a parsed array; the bytes its data carries. */
const char *hb_image_mime(const json_t *item);
const char *hb_image_data(const json_t *item);
size_t hb_image_size(const json_t *item);

#endif
