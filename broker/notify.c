/*
 * notify - sd_notify in a few lines: AF_UNIX datagram to $NOTIFY_SOCKET,
 * where a leading '@' names Linux's abstract namespace.
 */
#include "notify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int notify_manager(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr;
	size_t len;
	ssize_t n;
	int fd;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if (len >= sizeof addr.sun_path || (path[0] != '/' && path[0] != '@'))
		return -1;
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path, path, len);
	if (path[0] == '@')
		addr.sun_path[0] = '\0';
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0)
		return -1;
	n = sendto(fd, state, strlen(state), 0, (struct sockaddr *)&addr,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	close(fd);
	return n < 0 ? -1 : 0;
}
