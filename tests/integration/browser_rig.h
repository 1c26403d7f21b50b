/*
 * browser_rig - what the integration tests of use_user_browser
 * (itest_browser.c, itest_browser_control.c) share: one headless Chromium
 * found the way a user's Chrome is (its user data folder under
 * <tmp>/xdg, XDG_CONFIG_HOME for the broker), the local test pages, one
 * broker with svc-sessions and svc-browser, and two Claude runs of two
 * sessions whose toolCalls carry their session's binding; calls and the
 * reading of their answers (text, tabs, snapshot refs).
 */
#ifndef TEST_BROWSER_RIG_H
#define TEST_BROWSER_RIG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../harness/checks.h"
#include "../harness/chromium.h"
#include "../harness/test_pages.h"

/* An answer that never comes fails the test after this (a hang guard; the
 * slowest action here waits out a 3 s load limit). */
#define ANSWER_MS 30000

/* A Claude run of one session: its calls are that session's. */
struct agent {
	struct hb_client c;
	char session[64];
	char run[32];
	int n;       /* the last requestId */
	char tab[16]; /* where open_page opens ("": in a new tab) */
};

extern struct fixture F;
extern struct chromium C;
extern struct test_pages P;
extern struct agent A, B;
extern char base_dir[64];     /* <tmp>: xdg/chromium inside */
extern char user_target[64];  /* the about:blank tab Chromium started with */
/* Whether Chromium has the page target id now, showing url (any when NULL). */
int chrome_has_page(const char *id, const char *url);
int hbctl(const char *const *args, char **out);
int browser_setup(void **state);
int browser_teardown(void **state);

/* ---- calls ------------------------------------------------------------ */

/* Send a call of use_user_browser on a's run: the request id. */
int64_t send_call(struct agent *a, const char *args);
/* The answer (Claude's own, parsed) to request id on a. */
json_t *answer_of(struct agent *a, int64_t id);
/* The answer's text (malloc'd), checked: ok or not, containing want. */
char *text_of(json_t *ans, int want_ok, const char *want, const char *args);
/* A call that must answer with want_ok and want in its text: the text. */
char *call(struct agent *a, int want_ok, const char *want, const char *args);
/* Open url in a->tab, or in a new tab when a->tab is "" (a new window
 * costs Chromium a second), which becomes a->tab. */
char *open_url(struct agent *a, const char *url, int want_ok, const char *want);
/* The same with a page of the test's server. */
char *open_page(struct agent *a, const char *path, int want_ok, const char *want);
/* The ref (e12) on the snapshot line holding needle, into ref. */
void ref_of(const char *snapshot, const char *needle, char *ref, size_t reflen);
/* The tab id an open answer names ("... in tab t3."), into id. */
void tab_of(const char *text, char *id, size_t idlen);

#endif
