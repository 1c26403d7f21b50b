/*
 * bench-browser - the use_user_browser benchmark, one run, one table.
 *
 *   HB_BUILD=build bench-browser
 *
 * Starts a real headless Chromium (tests/harness/chromium.h) in
 * <dir>/xdg/chromium, so that svc-browser finds it the way it finds the
 * user's Chrome (DevToolsActivePort under $XDG_CONFIG_HOME/chromium), the
 * local test pages (tests/browser/pages.mjs), and hb-broker with
 * svc-browser as deployed, browser control on.  For each action it times
 * use_user_browser calls on one front-socket client (the path hbctl
 * takes, without a process start per call: client -> hb-broker ->
 * svc-browser -> Chromium and back) in the agent's tab, beside the same
 * DevTools commands, in the same order and with the same waits, sent
 * straight to the same Chromium by this program on a tab of its own at
 * the same page, alternating the two so that machine noise hits both
 * alike; and gives the medians' ratio: what svc-browser and the broker
 * add.
 *
 * svc-browser holds the one browser connection, so "the same connection"
 * of the issue is, most honestly, a second connection to the same
 * browser: the same Chromium, the same renderer work, the same pages.
 * The baseline parses every message as JSON (as any client must) and
 * does nothing else: no snapshot text, no PNG decoded or saved, no
 * answer sent anywhere.  Those are part of what is measured as ours.
 *
 * Both tabs are in front of windows of their own, as svc-browser opens
 * the agent's: Chromium draws no frames for a tab behind another, where a
 * screenshot waits for a frame that may never come and the first mouse
 * event of a click for about 5 s (docs/benchmarks.md).
 *
 * HB_BENCH_BROWSER_ROUNDS [20] sizes the run (after 2 rounds of warm-up);
 * HB_BENCH_BROWSER_ACTIONS ["open snapshot ... scroll": all] picks actions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "browser_bench_rig.h"
#include "ws.h"
#include "../harness/ws_pump.h"

#define WARMUP 2
#define ROUNDS_MAX 1000
/* svc-browser/act_read.c and act_input.c */
#include "browser_direct.h"

/* The run: the fixture, the client, the agent's tab. */
struct bench {
	struct browser_bench_rig rig;
	struct direct d;
	char tab[16];               /* the agent's tab (t1) */
	char ref[16];               /* the element acted on at the current page (e12) */
	char url[120];              /* the current page */
	long rounds;
};

struct action {
	const char *name;
	const char *page;
	const char *args;           /* the call's arguments after "tab"; %s: the url or the ref */
	int with_url;               /* args takes the page's url, not the ref */
	const char *what;           /* the baseline's commands, for the table's notes */
	int (*base)(struct direct *d, const char *url);
};

/* In the order they run: the actions on a page follow its open. */
static const struct action actions[] = {
	{ "open", "/form", "\"action\":\"open\",\"url\":\"%s\"", 1,
	  "Page.navigate, the load event, getFullAXTree, getTargetInfo", base_open },
	{ "snapshot", "/form", "\"action\":\"snapshot\"", 0, "getFullAXTree, getTargetInfo", base_snapshot },
	{ "read", "/form", "\"action\":\"read\"", 0, "Runtime.evaluate, getTargetInfo", base_read },
	{ "type", "/form", "\"action\":\"type\",\"ref\":\"%s\",\"text\":\"" TYPED "\"", 0,
	  "DOM.describeNode, focus, resolveNode, Runtime.callFunctionOn, Input.insertText, getFullAXTree, "
	  "getTargetInfo", base_type },
	{ "press", "/form", "\"action\":\"press\",\"key\":\"Tab\"", 0,
	  "2 Input.dispatchKeyEvent, the settle, getFullAXTree, getTargetInfo", base_press },
	{ "screenshot", "/form", "\"action\":\"screenshot\"", 0, "Page.captureScreenshot, getTargetInfo",
	  base_screenshot },
	{ "tabs", "/form", "\"action\":\"tabs\"", 0, "Target.getTargets", base_tabs },
	{ "click", "/button", "\"action\":\"click\",\"ref\":\"%s\"", 0,
	  "DOM.describeNode, scrollIntoViewIfNeeded, getContentQuads, 3 Input.dispatchMouseEvent, the "
	  "settle, getFullAXTree, getTargetInfo", base_click },
	{ "scroll", "/scroll", "\"action\":\"scroll\",\"direction\":\"down\",\"amount\":100", 0,
	  "Runtime.evaluate, 2 Input.dispatchMouseEvent, the wait until it stopped, the settle, getFullAXTree, "
	  "getTargetInfo", base_scroll },
};

/* One use_user_browser call with arguments args: its time in ms, or -1
 * after saying why.  *text (when text is not NULL) is the answer. */
static double ours(struct bench *b, const char *args, char **text)
{
	char *answer = NULL;
	int ok = 0;
	double t = browser_bench_call(&b->rig, args, &ok, &answer);

	if (t >= 0 && !ok)
		fprintf(stderr, "bench-browser: %s: %s\n", args, answer);
	if (t >= 0 && ok && text)
		*text = answer;
	else
		free(answer);
	return t >= 0 && ok ? t : -1;
}

/* The arguments of action a in the agent's tab, into out. */
static const char *args_of(struct bench *b, const struct action *a, char *out, size_t outlen)
{
	char tail[300];

	snprintf(tail, sizeof tail, a->args, a->with_url ? b->url : b->ref);
	snprintf(out, outlen, "{\"tab\":\"%s\",%s}", b->tab, tail);
	return out;
}

/* The ref on the line of the snapshot text that starts with line (after
 * the indentation), into out: 0, or -1. */
static int find_ref(const char *text, const char *line, char *out, size_t outlen)
{
	const char *at = strstr(text, line), *ref, *end;

	if (!at || !(ref = strstr(at, "[ref=")) || !(end = strchr(ref, ']')) ||
	    (strchr(at, '\n') && strchr(at, '\n') < ref) || (size_t)(end - ref - 5) >= outlen)
		return -1;
	snprintf(out, outlen, "%.*s", (int)(end - ref - 5), ref + 5);
	return 0;
}

/* Both tabs to page, and the element acted on there: its ref in the
 * agent's tab, its node in ours.  Not timed.  0, or -1. */
static int go_to(struct bench *b, const char *page)
{
	static const struct { const char *page, *line, *selector; } elements[] = {
		{ "/form", "textbox \"Name\"", "#name" },
		{ "/button", "button \"Show greeting\"", "#show" },
	};
	char args[400], expr[80], *text = NULL;
	json_t *r = NULL, *n = NULL;

	if (!test_pages_url(&b->rig.pages, page, b->url, sizeof b->url))
		return -1;
	snprintf(args, sizeof args, "{\"tab\":\"%s\",\"action\":\"open\",\"url\":\"%s\"}", b->tab, b->url);
	if (ours(b, args, &text) < 0 || base_open(&b->d, b->url) < 0)
		return free(text), -1;
	b->ref[0] = '\0';
	b->d.node = 0;
	for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++) {
		if (strcmp(elements[i].page, page) != 0)
			continue;
		snprintf(expr, sizeof expr, "document.querySelector('%s')", elements[i].selector);
		if (find_ref(text, elements[i].line, b->ref, sizeof b->ref) < 0 ||
		    cmd(&b->d, b->d.session, "Runtime.evaluate", json_pack("{s:s}", "expression", expr), &r) < 0 ||
		    cmd(&b->d, b->d.session, "DOM.describeNode",
			json_pack("{s:O}", "objectId", json_object_get(json_object_get(r, "result"), "objectId")),
			&n) < 0) {
			fprintf(stderr, "bench-browser: no %s on %s\n", elements[i].line, page);
			json_decref(r);
			free(text);
			return -1;
		}
		b->d.node = (long)json_integer_value(json_object_get(json_object_get(n, "node"), "backendNodeId"));
		json_decref(r);
		json_decref(n);
	}
	free(text);
	return 0;
}

/* p (0..1) of the n sorted values: the median as the mean of the middle
 * two, the others by nearest rank. */
static double quantile(const double *v, long n, double p)
{
	long k;

	if (p == 0.5)
		return (v[(n - 1) / 2] + v[n / 2]) / 2;
	k = (long)(p * (double)n + 0.999999) - 1;
	return v[k < 0 ? 0 : k];
}

/* The rounds of one action, alternating which side goes first.  0, or -1. */
static int bench_action(struct bench *b, const struct action *a)
{
	double t_ours[ROUNDS_MAX], t_base[ROUNDS_MAX], t0, p50o, p50b;
	char args[600];

	args_of(b, a, args, sizeof args);
	for (long r = -WARMUP; r < b->rounds; r++) {
		double to = 0, tb = 0;

		for (int side = 0; side < 2; side++) {
			if ((side ^ (int)(r & 1)) == 0) {
				if ((to = ours(b, args, NULL)) < 0)
					return -1;
			} else {
				t0 = bench_now_ms();
				if (a->base(&b->d, b->url) < 0)
					return -1;
				tb = bench_now_ms() - t0;
			}
		}
		if (r >= 0) {
			t_ours[r] = to;
			t_base[r] = tb;
		}
	}
	bench_sort(t_ours, (size_t)b->rounds);
	bench_sort(t_base, (size_t)b->rounds);
	p50o = quantile(t_ours, b->rounds, 0.5);
	p50b = quantile(t_base, b->rounds, 0.5);
	printf("  %-10s %-8s %8.2f %8.2f   %8.2f %8.2f   %6.2f %8.2f\n", a->name, a->page, p50o,
	       quantile(t_ours, b->rounds, 0.9), p50b, quantile(t_base, b->rounds, 0.9), p50b > 0 ? p50o / p50b : 0,
	       p50o - p50b);
	return 0;
}

/* Whether HB_BENCH_BROWSER_ACTIONS (words; unset: all) names the action. */
static int chosen(const char *name)
{
	const char *list = getenv("HB_BENCH_BROWSER_ACTIONS"), *at;
	size_t len = strlen(name);

	if (!list || !*list)
		return 1;
	for (at = list; (at = strstr(at, name)); at += len)
		if ((at == list || at[-1] == ' ') && (at[len] == '\0' || at[len] == ' '))
			return 1;
	return 0;
}

/* The baseline did the work: the greeting shows, the field holds the text. */
static int check_page(struct direct *d, const char *expr, const char *want)
{
	json_t *r = NULL;
	const char *got;
	int rc;

	if (eval(d, expr, &r) < 0)
		return -1;
	got = json_string_value(json_object_get(json_object_get(r, "result"), "value"));
	rc = got && strcmp(got, want) == 0 ? 0 : -1;
	if (rc < 0)
		fprintf(stderr, "bench-browser: the baseline's %s is \"%s\", not \"%s\"\n", expr, got ? got : "?", want);
	json_decref(r);
	return rc;
}

static int run(struct bench *b)
{
	const char *page = "";
	char *text = NULL, args[300];
	const char *t;
	int n, reloaded = 0;

	/* the agent's tab, opened as an agent opens it */
	if (!test_pages_url(&b->rig.pages, "/form", b->url, sizeof b->url))
		return -1;
	snprintf(args, sizeof args, "{\"action\":\"open\",\"url\":\"%s\"}", b->url);
	if (ours(b, args, &text) < 0)
		return -1;
	t = strstr(text, " in tab ");
	n = t ? sscanf(t, " in tab %15[a-z0-9]", b->tab) : 0;
	free(text);
	if (n != 1)
		return fprintf(stderr, "bench-browser: no tab in the answer to open\n"), -1;
	printf("  %-10s %-8s %8s %8s   %8s %8s   %6s %8s\n", "action", "page", "ours p50", "p90", "direct", "p90", "ratio",
	       "added");
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
		if (!chosen(actions[i].name))
			continue;
		/* after open, the page is a new one: its elements have new refs */
		if ((strcmp(actions[i].page, page) != 0 || reloaded) && go_to(b, page = actions[i].page) < 0)
			return -1;
		if (bench_action(b, &actions[i]) < 0)
			return -1;
		reloaded = actions[i].with_url;
		if (strcmp(actions[i].name, "type") == 0 &&
		    check_page(&b->d, "document.getElementById('name').value", TYPED) < 0)
			return -1;
		if (strcmp(actions[i].name, "click") == 0 &&
		    check_page(&b->d, "document.getElementById('greeting').textContent", "Hello, agent!") < 0)
			return -1;
	}
	printf("\nratio: ours p50 / direct p50; added: ours p50 - direct p50 (ms).  svc-browser holds the\n"
	       "browser's one connection, so direct is a second connection to the same Chromium: the same\n"
	       "commands of svc-browser/act*.c, in their order, with its waits (the load event, the quiet\n"
	       "wait after a click or a key), on this program's own tab at the same page, each message\n"
	       "parsed as JSON and nothing more (no snapshot text, no PNG decoded or saved, no broker).\n"
	       "Both tabs are in front of windows of their own, as svc-browser opens its tabs:\n"
	       "Chromium draws no frames for a tab behind another.\n");
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
		if (chosen(actions[i].name))
			printf("  %-10s %s\n", actions[i].name, actions[i].what);
	return 0;
}

int main(void)
{
	static struct bench b;
	const char *v = getenv("HB_BENCH_BROWSER_ROUNDS");
	int rc = -1;

	b.rounds = v && atol(v) > 0 && atol(v) <= ROUNDS_MAX ? atol(v) : 20;
	if (browser_bench_rig_start(&b.rig, "bench-browser") == 0 && direct_start(&b.d, &b.rig.c) == 0) {
		printf("use_user_browser, each action in the agent's tab (client -> hb-broker -> svc-browser ->\n"
		       "Chromium and back, on one client) beside its DevTools commands sent straight to the\n"
		       "same Chromium (direct), alternating, %ld rounds after %d of warm-up, ms:\n",
		       b.rounds, WARMUP);
		rc = run(&b);
	}
	ws_free(b.d.ws);
	json_decref(b.d.events);
	browser_bench_rig_stop(&b.rig, rc < 0);
	return rc == 0 ? 0 : 1;
}
