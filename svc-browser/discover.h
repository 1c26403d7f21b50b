/*
 * discover - where the user's browser listens for the DevTools protocol:
 * the browser-url setting (resolved through /json/version), or the
 * DevToolsActivePort file that Chrome writes into its user data folder
 * when the user allows remote debugging (chrome://inspect/#remote-
 * debugging), looked for in the standard folders in a fixed order.
 * Only loopback, ever: the URL given back names 127.0.0.1 or [::1] and
 * the connection is checked again once made (cdp.c).
 */
#ifndef BROWSER_DISCOVER_H
#define BROWSER_DISCOVER_H

#include <stddef.h>

#include "paths.h"

#define DISCOVER_URL_MAX 512
#define DISCOVER_REASON_MAX 1024
#define DISCOVER_MAX 16                    /* endpoints given back at most */
#define DISCOVER_FILE_MAX 4096             /* DevToolsActivePort is two short lines */

struct browser_endpoint {
	char ws_url[DISCOVER_URL_MAX];     /* ws://127.0.0.1:PORT/devtools/browser/... */
	char source[HB_PATH_MAX + 64];     /* where it came from, for sentences: the file or the setting */
	int from_file;                     /* 1: a DevToolsActivePort file (it may be stale) */
};

/* The endpoints to try connecting to, in order, into out[0..max): how
 * many (at least one), or -1 with a sentence that says what the user can
 * do (turn on remote debugging, start Chrome, fix the setting).  A port
 * file is left out when it is not a regular file of at most
 * DISCOVER_FILE_MAX bytes holding Chrome's two lines, when nothing
 * answers at its port, or when its port answers /json/version with
 * another browser's WebSocket path (a stale file whose port another
 * program took).  Chrome's WebSocket-only mode (chrome://inspect)
 * answers /json/version 404: such an endpoint is given, and the Upgrade
 * tells.  cancelled may be NULL.  *renew is set to 1 when the only port
 * file was written after this service was confined, which it can then
 * read only once started anew (hb_call_ask_renew). */
int discover_browser(const struct hb_paths *p, struct browser_endpoint *out, int max, int (*cancelled)(void *),
		     void *arg, int *renew, char *err, size_t errlen);

/* The user data folders searched, in order, for this system and this
 * HOME / XDG_CONFIG_HOME: writes up to max paths into dirs (each
 * HB_PATH_MAX bytes) and returns how many. */
int discover_folders(char (*dirs)[HB_PATH_MAX], int max);

#endif
