/*
 * activation - socket activation of the front socket: take the socket the
 * service manager passed (systemd's hb-broker.socket, launchd's Sockets
 * key) when it is the one the broker would have bound itself.
 */
#ifndef HB_ACTIVATION_H
#define HB_ACTIVATION_H

#include <stddef.h>

/* path: where the broker binds front.sock (in its private runtime folder).
 * 1 with *fd: the socket passed, a listening AF_UNIX stream socket bound
 * to path, whose file is this user's and closed to everyone else; 0: no
 * socket was passed (bind path yourself); -1: a socket was passed that is
 * not that one, refused (and closed) with a sentence in err saying what
 * it is and what was expected. */
int activation_front_fd(const char *path, int *fd, char *err, size_t errlen);

#endif
