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
	/* Where the element act_element found lives: in the tab's process
	 * (node_owner 0, node_session ""), or in an out-of-process iframe:
	 * its <iframe> element's backend id in the tab's page and the
	 * frame's own session, attached for this call (act_frames.c). */
	long node_owner;
	char node_session[64];
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

/* The element of a ref ("e12", or "f9e14" in an out-of-process iframe,
 * from a snapshot) or a CSS selector (in the tab's page): 0 with its
 * backend node id, and a->node_owner and a->node_session set to where it
 * lives; or -1 after answering (act_element.c). */
int act_element(struct act *a, const char *ref, const char *selector, long *node);
/* A DevTools command on the session of the element act_element found
 * (the tab's, or its iframe's): as act_tab_call. */
int act_node_call(struct act *a, const char *method, json_t *params, json_t **res);
/* A DevTools command on session ("" or NULL: the browser): as act_tab_call. */
int act_session_call(struct act *a, const char *session, const char *method, json_t *params, json_t **res);

/* ---- iframes (act_frames.c) ---------------------------------------- */

/* The frames a snapshot or a read goes into, at most. */
#define ACT_FRAMES_MAX 16
/* The member act_frames_graft puts on every node it adds: the backend id
 * of the frame's <iframe> in the tab's process (where the next part of a
 * cut snapshot starts: a frame's own elements have no place in the
 * page's order). */
#define ACT_IN_FRAME "hbInFrame"

/* Enter the out-of-process iframe whose <iframe> element is owner (a
 * ref's "f" part): a->node_owner and a->node_session set.  0, or -1 after
 * answering (ref names the ref, for a stale one). */
int act_frame_enter(struct act *a, long owner, const char *ref);
/* Leave the frame act_frame_enter entered, if any (its session detached). */
void act_frame_leave(struct act *a);
/* A point (*x, *y) of the element act_element found, measured in its
 * frame's viewport, into the tab's viewport, where the mouse goes: as it
 * is in the tab's process; in an out-of-process iframe moved by where
 * the iframe's content box is, after its part box (x, y, width, height
 * in the frame's viewport) was scrolled into the tab's view.  0, or -1
 * after answering. */
int act_node_on_tab(struct act *a, const double box[4], double *x, double *y);
/* Put the trees of the page's iframes (ACT_FRAMES_MAX at most) into
 * nodes, Chrome's tree of the tab's page, each under its <iframe>'s node:
 * 0, or -1 after answering. */
int act_frames_graft(struct act *a, json_t *nodes);
/* The text of the page's iframes, each after a line naming its <iframe>
 * ("[iframe e8: URL]"), each cut at max_chars: malloc'd ("" when none),
 * or NULL after answering. */
char *act_frames_text(struct act *a, size_t max_chars);

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
 * still shows: 1 with its type and message in err, else 0 (act.c).
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

/* ---- the files an action makes (act_save.c) ---------------------------- */

#define ACT_FILE_NAME_MAX 100
/* <cache>/browser/<session>/, made private if needed, into dir: 0, or -1
 * with err. */
int act_save_dir(struct act *a, char *dir, size_t dirlen, char *err, size_t errlen);
/* Whether name is a plain file name ending in ext: letters, digits, '.',
 * '-' and '_', not starting with '.', at most ACT_FILE_NAME_MAX. */
int act_file_name_ok(const char *name, const char *ext);
/* Save data in the session's folder as name (NULL: "<tab>-<time><ext>",
 * a new file), its path into path: 0, or -1 with err.  A name that is
 * not plain (act_file_name_ok), or that is there as a link or a folder,
 * is refused; a file of that name is replaced. */
int act_save_file(struct act *a, const char *name, const char *ext, const void *data, size_t len, char *path,
		  size_t pathlen, char *err, size_t errlen);

/* The box of the element of ref or selector, scrolled into view, as a
 * captureScreenshot clip in the page's coordinates (act_clip.c): the
 * clip, with *beyond set when it is larger than the view (to be drawn
 * beyond it), or NULL after answering. */
json_t *act_element_clip(struct act *a, const char *ref, const char *selector, int *beyond);

#endif
