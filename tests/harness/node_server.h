/*
 * node_server - run one of the tests' Node servers (tests/ws/server.mjs,
 * tests/fake-relay/relay.mjs: those of tests/ws/cli.mjs) from a C test:
 * started with its arguments, its port read from the "PORT n" line it
 * prints first, stopped by closing its stdin, and reaped.
 *
 * Its pipes are close-on-exec, so a broker or service started afterwards
 * does not hold its stdin open and keep it alive past node_server_stop,
 * and the server never outlives the test (its stdin ends with the test).
 */
#ifndef HB_NODE_SERVER_H
#define HB_NODE_SERVER_H

#include <sys/types.h>

struct node_server {
	pid_t pid;
	int in_fd;   /* its stdin: closing it stops it */
	int out_fd;  /* its stdout, after the PORT line */
	int port;
};

/* node SCRIPT ARGS...: script is a path in the source tree
 * ("tests/ws/server.mjs"), found from $HB_BUILD/.. or the current folder;
 * args a NULL-terminated list (NULL for none).  Waits for its port.  0, or
 * -1 after saying why on stderr (nothing left running). */
int node_server_start(struct node_server *s, const char *script, const char *const *args);
/* The path of script ("tests/ws/server.mjs"), a path in this source tree,
 * from $HB_BUILD/.. or else from the current folder, into out: 0, or -1
 * when it is not there. */
int node_server_script(const char *script, char *out, size_t outlen);
/* Close its stdin and reap it (killed if it is still there after a long
 * while).  0 when it exited with status 0; -1 otherwise, or if it was not
 * running. */
int node_server_stop(struct node_server *s);

#endif
