/*
 * act - one use_user_browser call while it runs: the arguments, the
 * connection, the tab it acts on, its time limits, and the steps every
 * action is made of (a DevTools command on the tab whose failure becomes
 * a sentence for the agent, an element found by ref or selector, the
 * wait for a page to load, the tab's title and address, its snapshot).
 */
#ifndef BROWSER_ACT_H
#define BROWSER_ACT_H

#include <jansson.h>
#include <stdatomic.h>

#include "browser.h"
#include "paths.h"
#include "service.h"

#define ACT_SNAPSHOT_CHARS 12000   /* the snapshot an action's answer ends with */
#define ACT_ERR_MAX 2048

struct act {
	struct hb_call *call;
	const struct hb_call_context *ctx;
	const json_t *args;
	struct browser *b;
	struct browser_conn conn;
	struct tab tab;                /* the tab acted on, when tab_ok */
	int tab_ok;
	const atomic_int *cancel;
	int step_ms, load_ms;
	struct hb_paths paths;
	char note[512];                /* said before the answer */
	unsigned long dialog_mark;     /* a dialog opened since ends the action's steps (act_dialog.c) */
};

/* A DevTools command on the act's tab (browser-wide when on_browser):
 * 0 with *res (a new reference, may be NULL), or -1 after answering the
 * call with a sentence that says what happened and what to do. */
int act_tab_call(struct act *a, const char *method, json_t *params, json_t **res);
int act_browser_call(struct act *a, const char *method, json_t *params, json_t **res);
/* The same with its own time limit. */
int act_tab_call_ms(struct act *a, const char *method, json_t *params, int timeout_ms, json_t **res);

/* Answer with the failure of a step (the kind from cdp.h), as the two
 * above do; a timeout is said with the action limit, or with limit_ms,
 * the limit the step really had. */
int act_fail(struct act *a, enum cdp_fail f, const char *what, const char *err);
int act_fail_within(struct act *a, enum cdp_fail f, const char *what, const char *err, int limit_ms);
/* A limit in milliseconds as a person reads it: "20 s", "2.5 s". */
void act_seconds(int ms, char *out, size_t outlen);

/* The element of a ref ("e12", from a snapshot) or a CSS selector:
 * 0 with its backend node id, or -1 after answering. */
int act_element(struct act *a, const char *ref, const char *selector, long *node);

/* Wait until the tab's page has loaded (the load event since mark), at
 * most the load limit; a page that does not is stopped (its scripts
 * too) and the call answered: -1.  0 when it loaded. */
int act_wait_load(struct act *a, unsigned long mark, const char *what);
/* Wait until the tab's frame stopped loading (since mark), at most the
 * load limit, as above: a navigation, or a jump within the page. */
int act_wait_stopped(struct act *a, unsigned long mark, const char *what);
/* After a click or a key (mark taken before it): wait for what it
 * caused - a navigation to load, else the network and the DOM to be
 * quiet for a moment, at most a bounded while (act_settle.c).  0, or -1
 * after answering. */
int act_settle(struct act *a, unsigned long mark);

/* "Tab t1: TITLE (URL)" into out. */
void act_tab_line(struct act *a, char *out, size_t outlen);
/* Answer with head, then the tab line and its snapshot (cut at
 * ACT_SNAPSHOT_CHARS): what an agent reads after every action that may
 * change the page. */
int act_answer_with_snapshot(struct act *a, const char *head);
/* Which part of the page a snapshot shows: the subtree of the element of
 * ref or selector (neither: the page), from the offset a cut snapshot
 * named (0: from its start). */
struct act_scope {
	const char *ref, *selector;
	long long offset;
};
/* The snapshot text of the tab (malloc'd), bounded by max_chars, of the
 * whole page (scope NULL) or a part, or NULL after answering.  A cut one
 * ends by saying how to ask for the next part (act_snap.c). */
char *act_snapshot(struct act *a, size_t max_chars, const struct act_scope *scope);

/* A JavaScript dialog the tab's page opened since a->dialog_mark and
 * still shows: 1 with its type and message in err, else 0 (act_dialog.c).
 * Every step on the tab asks first: a dialog that opened between two
 * steps blocks the page before the next step's own wait begins. */
int act_dialog_open_since(struct act *a, char *err, size_t errlen);

/* The remote object of backend node id in the page, made in object group
 * group: its objectId (malloc'd), or NULL after answering. */
char *act_node_object(struct act *a, long id, const char *group);
/* The remote object of expression's value (document, say), made in
 * group: its objectId (malloc'd), or NULL after answering (with none
 * when the value is no object). */
char *act_eval_object(struct act *a, const char *expression, const char *group, const char *none);
/* Let go of the objects made in group, whatever happened before. */
void act_release_group(struct act *a, const char *group);

/* The JSON value of expression evaluated in the tab's page: 0 with *value
 * (a new reference), or -1 after answering. */
int act_eval(struct act *a, const char *expression, json_t **value);

#endif
