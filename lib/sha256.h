/*
 * sha256 - SHA-256 (FIPS 180-4) of a byte string, as raw bytes or lowercase hex.
 *
 * Our own small implementation, so hashing a project path needs no crypto
 * library; it is not meant for secrets (no constant-time or wiping concerns).
 */
#ifndef HB_SHA256_H
#define HB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HB_SHA256_LEN 32
#define HB_SHA256_HEX_LEN 64

struct hb_sha256 {
	uint32_t state[8];
	uint64_t total_len;        /* bytes fed so far */
	unsigned char block[64];
	size_t block_len;          /* bytes waiting in block */
};

void hb_sha256_init(struct hb_sha256 *ctx);
void hb_sha256_update(struct hb_sha256 *ctx, const void *data, size_t len);
void hb_sha256_final(struct hb_sha256 *ctx, unsigned char out[HB_SHA256_LEN]);

/* One-shot forms. */
void hb_sha256(const void *data, size_t len, unsigned char out[HB_SHA256_LEN]);
/* out gets 64 lowercase hex digits and a NUL. */
void hb_sha256_hex(const void *data, size_t len, char out[HB_SHA256_HEX_LEN + 1]);

#endif
