/*
 * chromium - a real headless Chromium (Debian's `chromium`, installed by
 * `make deps`) for the browser tests, found the way svc-browser finds the
 * user's own Chrome: through the DevToolsActivePort file Chromium writes
 * into its user data folder (first line the port, second the browser's
 * WebSocket path, /devtools/browser/<uuid>, with no newline after it).
 *
 * The browser runs in its own process group, so stopping or killing it
 * takes its renderers and helpers too.  Its HOME and TMPDIR are folders
 * inside the user data folder (Chromium writes ~/.config/chromium/Crash
 * Reports, ~/.cache and a /tmp/org.chromium.Chromium.* singleton folder
 * otherwise), and its output goes to chromium.log there.  It reaches
 * nothing but 127.0.0.1 even outside a network namespace: every host name
 * but 127.0.0.1 and localhost resolves to nothing, and every other request
 * goes to a proxy on 127.0.0.1:9 that refuses it.
 *
 * What Chromium 156 does with DevToolsActivePort (seen, not documented):
 * it never removes it.  After a clean exit (Browser.close) the file stays
 * with the old port; SIGTERM and SIGKILL leave it too (and SIGTERM or
 * SIGKILL also leave SingletonLock, which a clean exit removes).  A
 * browser started again on the same folder overwrites it.  So the file
 * alone never says the browser is there: a connection to its port does.
 */
#ifndef HB_CHROMIUM_H
#define HB_CHROMIUM_H

#include <sys/types.h>

struct chromium {
	pid_t pid;           /* the browser, leader of its process group; -1 when gone */
	int port;            /* DevToolsActivePort's first line */
	char ws_path[128];   /* its second line: /devtools/browser/<uuid> */
	char ws_url[160];    /* ws://127.0.0.1:PORT/devtools/browser/<uuid> */
	char dir[200];       /* --user-data-dir */
	int made_dir;        /* dir is a temporary folder chromium_stop removes */
};

/* Start the browser on user_data_dir (made if missing; NULL: a new
 * temporary folder) and wait, a bounded while, for a DevToolsActivePort
 * other than the one the folder held before (a stale one of a killed
 * browser is not taken).  0 with c filled, or -1 after saying why on
 * stderr (chromium not installed, or the last lines of its log), with
 * nothing left running. */
int chromium_start(struct chromium *c, const char *user_data_dir);
/* Start the browser again on c->dir after chromium_kill, as a user
 * restarting Chrome after a crash: the stale DevToolsActivePort is
 * replaced.  0, or -1 after saying why (nothing left running; c->dir is
 * still chromium_stop's to remove). */
int chromium_restart(struct chromium *c);
/* SIGTERM to the group, SIGKILL after a bounded wait, reap; remove the
 * folder if chromium_start made it.  0 when the browser ended on the
 * SIGTERM; -1 if it had to be killed or was not running. */
int chromium_stop(struct chromium *c);
/* SIGKILL to the group and reap, as a crash: the folder and its stale
 * DevToolsActivePort stay (chromium_restart starts the browser again;
 * chromium_stop still removes a temporary folder). */
void chromium_kill(struct chromium *c);
/* Read dir's DevToolsActivePort: 0 with its port and path, -1 when there
 * is none or it is not whole. */
int chromium_read_port_file(const char *dir, int *port, char *path, size_t pathlen);

#endif
