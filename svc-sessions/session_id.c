/*
 * session_id - random session ids from the system's random source
 * (lib/random.h).
 */
#include "session_id.h"

#include "random.h"

int session_id_generate(char out[SESSION_ID_LEN + 1], char *err, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char bytes[8];
	if (hb_random_bytes(bytes, sizeof bytes, err, errlen) != 0)
		return -1;
	out[0] = 's';
	out[1] = '-';
	for (size_t i = 0; i < sizeof bytes; i++) {
		out[2 + 2 * i] = digits[bytes[i] >> 4];
		out[3 + 2 * i] = digits[bytes[i] & 0x0f];
	}
	out[SESSION_ID_LEN] = '\0';
	return 0;
}
