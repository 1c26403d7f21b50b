/*
 * msgpack_check - walk a MessagePack frame's headers before anything
 * unpacks it.
 *
 * The msgpack-c unpacker reserves 24 bytes per announced element before it
 * reads any (a 5-byte frame claiming 2^32-1 elements asks for 96 GiB), and
 * its depth limit is a compile-time constant.  So: no array or map may
 * claim more elements than bytes are left (each takes at least one), no
 * str/bin more bytes than are left, depth is capped, 0xc1 and ext types
 * are refused, and the value must end exactly at the end of the frame.
 */
#include "envelope.h"

#include <stdio.h>

static uint64_t read_be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Header size and payload or element count of the item starting with b.
 * kind: 0 scalar (payload bytes in *size), 1 array, 2 map (count in *size),
 * -1 refused. */
static int item_shape(const unsigned char *p, size_t left, size_t *hdr, uint64_t *size,
		      char *err, size_t errlen)
{
	unsigned b = p[0];
	int lenbytes = 0, kind = 0;

	*hdr = 1;
	*size = 0;
	if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
		return 0;
	if (b >= 0x80 && b <= 0x8f) {
		*size = b & 0x0f;
		return 2;
	}
	if (b >= 0x90 && b <= 0x9f) {
		*size = b & 0x0f;
		return 1;
	}
	if (b >= 0xa0 && b <= 0xbf) {
		*size = b & 0x1f;
		return 0;
	}
	switch (b) {
	case 0xc1:
		snprintf(err, errlen, "byte 0xc1 is never used in MessagePack");
		return -1;
	case 0xc4: case 0xd9: case 0xcc: case 0xd0: lenbytes = 1; break;
	case 0xc5: case 0xda: case 0xcd: case 0xd1: case 0xdc: case 0xde: lenbytes = 2; break;
	case 0xc6: case 0xdb: case 0xce: case 0xd2: case 0xca: case 0xdd: case 0xdf: lenbytes = 4; break;
	case 0xcf: case 0xd3: case 0xcb: lenbytes = 8; break;
	default:
		snprintf(err, errlen, "MessagePack extension types are not accepted");
		return -1;
	}
	if (left < 1 + (size_t)lenbytes) {
		snprintf(err, errlen, "frame ends inside an item header");
		return -1;
	}
	switch (b) {
	case 0xcc: case 0xcd: case 0xce: case 0xcf:
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: case 0xca: case 0xcb:
		*size = (uint64_t)lenbytes; /* fixed-size number after the type byte */
		return 0;
	case 0xdc: case 0xdd: kind = 1; break;
	case 0xde: case 0xdf: kind = 2; break;
	default: kind = 0; break; /* str and bin: length-prefixed payload */
	}
	*hdr = 1 + (size_t)lenbytes;
	*size = read_be(p + 1, lenbytes);
	return kind;
}

int hb_msgpack_check(const unsigned char *buf, size_t len, int max_depth, char *err, size_t errlen)
{
	uint64_t need[HB_MAX_DEPTH + 2];
	size_t pos = 0;
	int depth = 0;

	if (max_depth > HB_MAX_DEPTH)
		max_depth = HB_MAX_DEPTH;
	need[0] = 1;
	while (depth >= 0) {
		size_t hdr;
		uint64_t size;
		int kind;

		if (need[depth] == 0) {
			depth--;
			continue;
		}
		need[depth]--;
		if (pos >= len) {
			snprintf(err, errlen, "frame is truncated");
			return -1;
		}
		kind = item_shape(buf + pos, len - pos, &hdr, &size, err, errlen);
		if (kind < 0)
			return -1;
		pos += hdr;
		if (kind == 0) {
			if (size > len - pos) {
				snprintf(err, errlen, "an item claims %llu bytes but only %zu are left",
					 (unsigned long long)size, len - pos);
				return -1;
			}
			pos += (size_t)size;
			continue;
		}
		if (kind == 2)
			size *= 2;
		/* Every element takes at least one byte. */
		if (size > len - pos) {
			snprintf(err, errlen, "a container claims %llu elements but only %zu bytes are left",
				 (unsigned long long)size, len - pos);
			return -1;
		}
		if (depth + 1 > max_depth) {
			snprintf(err, errlen, "nesting is deeper than %d levels", max_depth);
			return -1;
		}
		need[++depth] = size;
	}
	if (pos != len) {
		snprintf(err, errlen, "%zu trailing bytes after the envelope", len - pos);
		return -1;
	}
	return 0;
}

