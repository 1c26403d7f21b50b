/*
 * pagelog - what each tab's page wrote to its console (and the exceptions
 * it did not catch) and which requests it made, since the page was opened
 * or last navigated: the record the actions console, network and
 * response read (act_devtools.c).
 *
 * cdp.c's reader thread hands every event of its connection to
 * pagelog_event; the calls read copies.  The record is kept per DevTools
 * session (one attached tab) and not in cdp.c's shared ring of events:
 * the ring holds the last few thousand events of every tab for the
 * waits, so one chatty page would push another tab's console out of it
 * (and its messages out of the waits' reach), and an agent asks for a
 * console long after the page wrote it.  Here each tab keeps its own
 * bounded record, dropped when its page navigates or its session ends.
 */
#ifndef BROWSER_PAGELOG_H
#define BROWSER_PAGELOG_H

#include <jansson.h>

#define PAGELOG_CONSOLE_KEEP 1000   /* console entries kept per tab (the newest) */
#define PAGELOG_REQUESTS_KEEP 1000  /* requests kept per tab (the newest) */
#define PAGELOG_TEXT_MAX 4000       /* bytes of one console entry's text */
#define PAGELOG_URL_MAX 2000        /* bytes of a request's url */

struct pagelog;

/* NULL when out of memory. */
struct pagelog *pagelog_new(void);
void pagelog_free(struct pagelog *l);

/* The events pagelog alone keeps (cdp.c's ring leaves them out): the
 * console's messages, many and large, which no wait looks for. */
int pagelog_only(const char *method);

/* One event of the connection (session "" for the browser's own). */
void pagelog_event(struct pagelog *l, const char *session, const char *method, const json_t *params);

/* Copies for a call, oldest first, each with in *dropped the entries of
 * the same page no longer kept (past the bound).
 *
 * Console entries: {"level": "log" | "info" | "debug" | "warning" |
 * "error" | "exception" | ..., "source"?: "network" | ... (a browser
 * message), "text", "where"?: "URL:LINE:COLUMN"}.
 *
 * Requests: {"id": N (the tab's own number, never reused), "requestId"
 * (Chrome's), "method", "url", "type"?, "status"?, "statusText"?,
 * "mimeType"?, "headers"? (the response's, sensitive ones redacted),
 * "headersCut"?, "size"? (bytes transferred), "state": "pending" | "done"
 * | "failed" | "redirected", "error"?}. */
json_t *pagelog_console(struct pagelog *l, const char *session, unsigned long *dropped);
json_t *pagelog_requests(struct pagelog *l, const char *session, unsigned long *dropped);
/* The request numbered id of the session's page, or NULL. */
json_t *pagelog_request(struct pagelog *l, const char *session, long id);

#endif
