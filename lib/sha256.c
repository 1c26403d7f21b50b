/*
 * sha256 - SHA-256 as specified in FIPS 180-4, section 6.2.
 *
 * Written for hbcode from the standard; the streaming form exists so tests
 * can feed a million bytes without building them in memory.
 */
#include "sha256.h"

#include <string.h>

static const uint32_t round_constants[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void compress_block(uint32_t state[8], const unsigned char block[64])
{
	uint32_t w[64];
	for (int t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}

	uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
	uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
	for (int t = 0; t < 64; t++) {
		uint32_t sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
		uint32_t choose = (e & f) ^ (~e & g);
		uint32_t t1 = h + sigma1 + choose + round_constants[t] + w[t];
		uint32_t sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
		uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = sigma0 + majority;
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
	state[5] += f;
	state[6] += g;
	state[7] += h;
}

void hb_sha256_init(struct hb_sha256 *ctx)
{
	static const uint32_t initial[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(ctx->state, initial, sizeof initial);
	ctx->total_len = 0;
	ctx->block_len = 0;
}

void hb_sha256_update(struct hb_sha256 *ctx, const void *data, size_t len)
{
	const unsigned char *in = data;
	ctx->total_len += len;
	while (len > 0) {
		size_t take = sizeof ctx->block - ctx->block_len;
		if (take > len)
			take = len;
		memcpy(ctx->block + ctx->block_len, in, take);
		ctx->block_len += take;
		in += take;
		len -= take;
		if (ctx->block_len == sizeof ctx->block) {
			compress_block(ctx->state, ctx->block);
			ctx->block_len = 0;
		}
	}
}

void hb_sha256_final(struct hb_sha256 *ctx, unsigned char out[HB_SHA256_LEN])
{
	uint64_t bit_len = ctx->total_len * 8;

	/* Padding: one 1 bit, zeros up to 56 bytes mod 64, then the bit length. */
	ctx->block[ctx->block_len++] = 0x80;
	if (ctx->block_len > 56) {
		memset(ctx->block + ctx->block_len, 0, sizeof ctx->block - ctx->block_len);
		compress_block(ctx->state, ctx->block);
		ctx->block_len = 0;
	}
	memset(ctx->block + ctx->block_len, 0, 56 - ctx->block_len);
	store_be32(ctx->block + 56, (uint32_t)(bit_len >> 32));
	store_be32(ctx->block + 60, (uint32_t)bit_len);
	compress_block(ctx->state, ctx->block);

	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, ctx->state[i]);
	memset(ctx, 0, sizeof *ctx);
}

void hb_sha256(const void *data, size_t len, unsigned char out[HB_SHA256_LEN])
{
	struct hb_sha256 ctx;
	hb_sha256_init(&ctx);
	hb_sha256_update(&ctx, data, len);
	hb_sha256_final(&ctx, out);
}

void hb_sha256_hex(const void *data, size_t len, char out[HB_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char digest[HB_SHA256_LEN];
	hb_sha256(data, len, digest);
	for (int i = 0; i < HB_SHA256_LEN; i++) {
		out[2 * i] = digits[digest[i] >> 4];
		out[2 * i + 1] = digits[digest[i] & 0x0f];
	}
	out[HB_SHA256_HEX_LEN] = '\0';
}
