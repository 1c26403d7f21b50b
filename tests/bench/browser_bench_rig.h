/*
 * browser_bench_rig - what the use_user_browser benchmarks (bench-browser.c,
 * bench-browser-peers.c) share: hb-broker with svc-browser as deployed
 * (browser control on) finding a real headless Chromium the way it finds
 * the user's Chrome (DevToolsActivePort under <dir>/xdg/chromium), the
 * local test pages (tests/browser/pages.mjs), one front-socket client,
 * and one use_user_browser call on it, timed.
 */
#ifndef TEST_BROWSER_BENCH_RIG_H
#define TEST_BROWSER_BENCH_RIG_H

#include "../harness/chromium.h"
#include "../harness/harness.h"
#include "../harness/test_pages.h"

struct browser_bench_rig {
	struct fixture f;
	struct hb_client cl;        /* on the broker's front socket */
	struct test_pages pages;
	struct chromium c;
	int client_up, pages_up, browser_up;
};

/* The broker, the pages, the browser; who names the program in messages.
 * 0, or -1 after saying why (browser_bench_rig_stop still cleans up). */
int browser_bench_rig_start(struct browser_bench_rig *r, const char *who);
/* Stop what is running; with failed, print the broker's log first. */
void browser_bench_rig_stop(struct browser_bench_rig *r, int failed);
/* One use_user_browser call with the JSON arguments args on the rig's
 * client: its time in ms, with *ok (whether the tool succeeded) and *text
 * (malloc'd, the answer's text or error) when text is not NULL; or -1
 * when no answer came (said on stderr). */
double browser_bench_call(struct browser_bench_rig *r, const char *args, int *ok, char **text);

#endif
