/*
 * random - see random.h.  One open per call: callers want a few bytes now
 * and then, so keeping a descriptor open (and shared between threads) is
 * not worth it.
 */
#include "random.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hb_random_bytes(void *buf, size_t len, char *err, size_t errlen)
{
	unsigned char *out = buf;
	size_t got = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open /dev/urandom: %s", strerror(errno));
		return -1;
	}
	while (got < len) {
		ssize_t n = read(fd, out + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot read /dev/urandom: %s", n < 0 ? strerror(errno) : "end of file");
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	return 0;
}

int hb_random_uuid(char out[37], char *err, size_t errlen)
{
	unsigned char r[16];

	if (hb_random_bytes(r, sizeof r, err, errlen) < 0)
		return -1;
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2],
		 r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
	return 0;
}
