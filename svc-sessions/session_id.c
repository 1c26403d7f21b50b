/*
 * session_id - random session ids from /dev/urandom.
 *
 * /dev/urandom exists on every POSIX system we target (Linux, macOS, the
 * BSDs), unlike getrandom() or getentropy() declarations, which move between
 * headers; it never blocks once the system has booted.
 */
#include "session_id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int read_random(unsigned char *buf, size_t len, char *err, size_t errlen)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open /dev/urandom: %s", strerror(errno));
		return -1;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
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

int session_id_generate(char out[SESSION_ID_LEN + 1], char *err, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char bytes[8];
	if (read_random(bytes, sizeof bytes, err, errlen) != 0)
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
