/*
 * base64 - the standard base64 alphabet (RFC 4648): decoding the binary
 * payloads Gemini sends inside JSON (inlineData.data), and encoding the
 * images a tool answer carries to the agents (images.h).
 */
#ifndef HB_BASE64_H
#define HB_BASE64_H

#include <stddef.h>

/* Decode len characters of text (padding optional, no whitespace) into a
 * malloc'd buffer; *outlen gets its size.  NULL when text is not base64
 * (errno EINVAL) or memory runs out. */
unsigned char *hb_base64_decode(const char *text, size_t len, size_t *outlen);

/* The length of the padded encoding of len bytes (without a NUL). */
size_t hb_base64_encoded_len(size_t len);
/* len bytes as padded base64 text, NUL-terminated and malloc'd; NULL when
 * memory runs out. */
char *hb_base64_encode(const unsigned char *data, size_t len);
/* 0 when the len characters of text are padded base64 (what
 * hb_base64_encode writes: a multiple of four, at most two '=' at the
 * end), with *decoded the number of bytes they carry; -1 otherwise.
 * Nothing is decoded: a reader that passes the text on checks it cheaply. */
int hb_base64_check(const char *text, size_t len, size_t *decoded);

#endif
