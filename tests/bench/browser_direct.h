/*
 * browser_direct - the baseline of the use_user_browser benchmark
 * (bench-browser.c): this program's own DevTools connection to the same
 * Chromium, and the same commands as svc-browser/act*.c, in the same
 * order and with the same waits, each message parsed as JSON and nothing
 * more (no snapshot text, no PNG decoded or saved, no broker).
 */
#ifndef TEST_BROWSER_DIRECT_H
#define TEST_BROWSER_DIRECT_H

#include <jansson.h>

#include "../harness/chromium.h"

#define PATIENCE_MS 30000        /* a bound on one command of the baseline, not a measure */
#define TYPED "Ada Lovelace"     /* what the type action types */

/* This program's own connection to the browser: the baseline. */
struct direct {
	struct ws *ws;
	int next_id;
	json_t *events;             /* {method, sessionId} of the events since the last mark */
	char target[64], session[64];
	long node;                  /* the element acted on at the current page (backend node id) */
	int step_ms, load_ms;       /* svc-browser's limits, which travel in some commands */
};

/* method with params (taken; NULL: none) on session (NULL: the browser):
 * 0 with *result (when result is not NULL; the caller frees it), or -1
 * after saying why. */
int cmd(struct direct *d, const char *session, const char *method, json_t *params, json_t **result);
int eval(struct direct *d, const char *expr, json_t **result);
/* The baseline of each action: svc-browser/act*.c's commands. */

int base_open(struct direct *d, const char *url);
int base_snapshot(struct direct *d, const char *url);
int base_read(struct direct *d, const char *url);
int base_click(struct direct *d, const char *url);
int base_type(struct direct *d, const char *url);
int base_press(struct direct *d, const char *url);
int base_scroll(struct direct *d, const char *url);
int base_screenshot(struct direct *d, const char *url);
int base_tabs(struct direct *d, const char *url);
/* This program's connection and tab, set up as svc-browser sets up its
 * own (browser.c: attach). */
int direct_start(struct direct *d, const struct chromium *c);

#endif
