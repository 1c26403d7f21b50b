/*
 * cdp - one connection to the user's browser over the Chrome DevTools
 * Protocol, shared by every call of svc-browser: the browser's WebSocket
 * (ws/ws.h) with tabs reached as flat sessions (Target.attachToTarget
 * with flatten), a reader thread that matches answers to the commands
 * waiting for them and keeps the recent events, and calls that wait with
 * a deadline and a cancel flag.
 *
 * A call on a tab's session also ends early, with its own kind, when the
 * tab opens a JavaScript dialog (the page's renderer is blocked until the
 * dialog is answered), goes away, or crashes: the waiting agent learns at
 * once instead of at its deadline.
 *
 * Reference counted: the service keeps one connection and hands each call
 * a reference; a connection that failed stays failed (every call on it
 * fails at once) until the last reference goes and a new one is opened.
 */
#ifndef BROWSER_CDP_H
#define BROWSER_CDP_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "ws.h"

#define CDP_ERR_MAX 1024

enum cdp_fail {
	CDP_OK,
	CDP_PROTOCOL,   /* the browser answered with an error (its message in err) */
	CDP_TIMEOUT,
	CDP_CANCELLED,
	CDP_CLOSED,     /* the connection is gone (Chrome ended or dropped it) */
	CDP_DIALOG,     /* the tab opened a dialog: err holds its type and message */
	CDP_GONE,       /* the tab was closed or its session detached */
	CDP_CRASHED,    /* the tab's renderer crashed */
	CDP_TOO_BIG,    /* the answer was past CDP_MAX_ANSWER: dropped (its size in err), the connection goes on */
};

/* The largest answer taken; a larger one fails its own call only. */
#define CDP_MAX_ANSWER (32 * 1024 * 1024)

struct cdp;
struct pagelog;

/* Connect to ws_url (ws://127.0.0.1:PORT/devtools/browser/...), at most
 * connect_ms; the peer must be a loopback address.  0 with *out (one
 * reference), or -1 with err and the failure's code in *why (refused with
 * an HTTP status, as when the user did not allow the connection; timed
 * out, as when no one answered Chrome's dialog). */
int cdp_open(const char *ws_url, int connect_ms, struct cdp **out, struct ws_connect_failure *why, char *err,
	     size_t errlen);
struct cdp *cdp_ref(struct cdp *c);
void cdp_unref(struct cdp *c);
/* Nonzero while the connection works. */
int cdp_alive(struct cdp *c);
/* Each tab's console and requests on this connection (pagelog.h): as
 * long as the caller's reference. */
struct pagelog *cdp_pagelog(struct cdp *c);

/* method with params (an object, taken; NULL for none) on session ("" or
 * NULL: the browser itself); waits up to timeout_ms, or until *cancel
 * (may be NULL).  CDP_OK with *result (a new reference; may be NULL),
 * else the kind, with a sentence in err. */
enum cdp_fail cdp_call(struct cdp *c, const char *session, const char *method, json_t *params, int timeout_ms,
		       const atomic_int *cancel, json_t **result, char *err, size_t errlen);

/* Events: every event gets a number; cdp_event_mark is the number the
 * next one will get.  Wait for method on session (NULL: any session)
 * numbered at or after mark: CDP_OK with *params (a new reference) and
 * *next the number after it; the dialog, gone and crash kinds end the
 * wait as they end a call. */
unsigned long cdp_event_mark(struct cdp *c);
enum cdp_fail cdp_wait_event(struct cdp *c, const char *session, const char *method, unsigned long mark,
			     int timeout_ms, const atomic_int *cancel, json_t **params, unsigned long *next, char *err,
			     size_t errlen);
/* The same without waiting: 1 found (as above), 0 not yet. */
int cdp_find_event(struct cdp *c, const char *session, const char *method, unsigned long mark, json_t **params,
		   unsigned long *next);

#endif
