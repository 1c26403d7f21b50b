/*
 * act_settle - after a click or a key, wait for what the input caused
 * and no longer, so the snapshot the agent reads shows its effect and a
 * page where nothing happens answers at once (no fixed wait).
 *
 * The rule (docs/browser.md, "Waiting after an action"), like
 * Playwright's and chrome-devtools-mcp's: a navigation the input started
 * (Page.frameStartedLoading since the mark) is waited for until it
 * stopped loading, at the load limit; otherwise the page is settled when
 * for QUIET_MS together no request started since the mark is still open
 * (Network.requestWillBeSent against loadingFinished / loadingFailed), no
 * network or navigation event came, and the DOM did not change (a
 * MutationObserver in the page counts the changes).  A page that never
 * goes quiet (one that polls its server) is answered at SETTLE_MAX_MS or
 * the action limit, whichever is first, with what it shows then.
 */
#include "act.h"

#include <string.h>
#include <time.h>

#include "clock.h"

#define QUIET_MS 50        /* quiet for this long: settled */
#define POLL_MS 10         /* how often the page and the events are looked at */
#define SETTLE_MAX_MS 2000 /* the longest a page that never goes quiet is waited for */

/* The page's count of DOM changes since its observer was put in (by the
 * first call; a new document gets a new one).  Hidden from the page's
 * own scripts' enumeration. */
static const char count_mutations[] =
	"(() => { const k = Symbol.for('hbcode.settle'); let s = window[k];"
	" if (!s) { s = { n: 0 }; Object.defineProperty(window, k, { value: s });"
	" new MutationObserver((r) => { s.n += r.length; }).observe(document,"
	" { subtree: true, childList: true, attributes: true, characterData: true }); }"
	" return s.n; })()";

/* Events since mark that say the network or a navigation is busy. */
static const char *const activity_events[] = {
	"Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed",
	"Page.frameRequestedNavigation", "Page.frameStartedNavigating",
};

/* The number of activity events since mark, and in *open the requests
 * started since mark that have not ended. */
static long network_activity(struct act *a, unsigned long mark, long *open)
{
	json_t *started = json_object(), *ev;
	unsigned long from, next;
	long count = 0;

	for (size_t i = 0; i < sizeof activity_events / sizeof *activity_events; i++) {
		int starts = i == 0, ends = i == 1 || i == 2;

		for (from = mark; cdp_find_event(a->conn.cdp, a->tab.session, activity_events[i], from, &ev, &next);
		     from = next) {
			const char *id = json_string_value(json_object_get(ev, "requestId"));

			count++;
			if (id && starts && started)
				json_object_set_new(started, id, json_true());
			else if (id && ends && started)
				json_object_del(started, id);
			json_decref(ev);
		}
	}
	*open = started ? (long)json_object_size(started) : 0;
	json_decref(started);
	return count;
}

/* The page's DOM change count: 0 with *n; 1 when the page could not say
 * (its document is being replaced); 2 when it did not answer in time
 * (busy: settling ends); -1 after answering a failure. */
static int mutations(struct act *a, int timeout_ms, long *n)
{
	char err[CDP_ERR_MAX];
	json_t *res = NULL;
	enum cdp_fail f = cdp_call(a->conn.cdp, a->tab.session, "Runtime.evaluate",
				   json_pack("{s:s, s:b}", "expression", count_mutations, "returnByValue", 1),
				   timeout_ms, a->cancel, &res, err, sizeof err);
	json_t *value;

	if (f == CDP_TIMEOUT)
		return 2;
	if (f == CDP_PROTOCOL)
		return 1;
	if (f != CDP_OK)
		return act_fail(a, f, "waiting for the page", err), -1;
	value = json_object_get(json_object_get(res, "result"), "value");
	*n = json_is_integer(value) ? (long)json_integer_value(value) : -1;
	json_decref(res);
	return *n < 0;
}

static void sleep_ms(long long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int act_settle(struct act *a, unsigned long mark)
{
	long long now = hb_monotonic_ms();
	long long until = now + (a->step_ms < SETTLE_MAX_MS ? a->step_ms : SETTLE_MAX_MS), quiet_since = now;
	long last_activity = -1, last_mutations = -1;
	json_t *ev = NULL;
	unsigned long next;

	for (;;) {
		long activity, open = 0, n = -1;
		int r;

		if (a->cancel && atomic_load(a->cancel))
			return act_fail(a, CDP_CANCELLED, "waiting for the page", ""), -1;
		if (cdp_find_event(a->conn.cdp, a->tab.session, "Page.frameStartedLoading", mark, &ev, &next)) {
			json_decref(ev);
			return act_wait_stopped(a, mark, "loading the page the action opened");
		}
		activity = network_activity(a, mark, &open);
		if ((r = mutations(a, (int)(until - now > POLL_MS ? until - now : POLL_MS), &n)) < 0)
			return -1;
		if (r == 2)
			return 0; /* the page is busy: its snapshot will tell */
		now = hb_monotonic_ms();
		if (r == 1 || open > 0 || activity != last_activity || n != last_mutations) {
			quiet_since = now;
			last_activity = activity;
			last_mutations = n;
		} else if (now - quiet_since >= QUIET_MS) {
			return 0;
		}
		if (now >= until)
			return 0; /* never quiet: answer with what it shows now */
		sleep_ms(until - now < POLL_MS ? until - now : POLL_MS);
		now = hb_monotonic_ms();
	}
}
