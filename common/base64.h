/*
 * base64 - decoding of the standard base64 alphabet (RFC 4648), for the
 * binary payloads Gemini sends inside JSON (inlineData.data).
 */
#ifndef HB_BASE64_H
#define HB_BASE64_H

#include <stddef.h>

/* Decode len characters of text (padding optional, no whitespace) into a
 * malloc'd buffer; *outlen gets its size.  NULL when text is not base64
 * (errno EINVAL) or memory runs out. */
unsigned char *hb_base64_decode(const char *text, size_t len, size_t *outlen);

#endif
