/*
 * tool - use_user_browser: the arguments, the setting, the connection and
 * the tab, then one action of the table.
 *
 * The arguments are checked against the catalog's schema here (the
 * broker hands them on as the model wrote them): a known action, only
 * the fields the actions take, each of its type and size.  sessionId,
 * runId and projectDirectory, which older Codex threads send with every
 * call, are ignored (page 000 says so of this tool): the session is the
 * broker's binding.  Browser control and the browser-url setting are
 * read on every call, so turning it off, or a browser-url edited by hand
 * to name another machine, stops the next call.
 */
#include "tool.h"

#include <stdio.h>
#include <string.h>

#include "act.h"
#include "actions.h"
#include "json.h"
#include "settings.h"
#include "tunables.h"

enum needs { NEEDS_BROWSER, NEEDS_TAB, NEEDS_TAB_OR_NEW };

struct action {
	const char *name;
	int (*fn)(struct act *a);
	enum needs needs;
};

static const struct action actions[] = {
	{ "tabs", action_tabs, NEEDS_BROWSER },
	{ "open", action_open, NEEDS_TAB_OR_NEW },
	{ "snapshot", action_snapshot, NEEDS_TAB },
	{ "read", action_read, NEEDS_TAB },
	{ "click", action_click, NEEDS_TAB },
	{ "type", action_type, NEEDS_TAB },
	{ "press", action_press, NEEDS_TAB },
	{ "scroll", action_scroll, NEEDS_TAB },
	{ "wait", action_wait, NEEDS_TAB },
	{ "screenshot", action_screenshot, NEEDS_TAB },
	{ "close", action_close, NEEDS_TAB },
	{ "hover", action_hover, NEEDS_TAB },
	{ "select", action_select, NEEDS_TAB },
	{ "back", action_back, NEEDS_TAB },
	{ "forward", action_forward, NEEDS_TAB },
	{ "dialog", action_dialog, NEEDS_TAB },
	{ "drag", action_drag, NEEDS_TAB },
	{ "console", action_console, NEEDS_TAB },
	{ "network", action_network, NEEDS_TAB },
	{ "response", action_response, NEEDS_TAB },
	{ "evaluate", action_evaluate, NEEDS_TAB },
	{ "viewport", action_viewport, NEEDS_TAB },
	{ "pdf", action_pdf, NEEDS_TAB },
};

static const char *const fields[] = {
	"action", "tab", "url", "ref", "selector", "text", "submit", "key", "direction", "amount",
	"navigation", "timeoutMs", "fullPage", "maxChars", "offset",
	"option",
	"accept",
	"toRef", "toSelector",
	"request", "expression",
	"width", "height", "deviceScaleFactor", "mobile", "reset", "filename",
	"to",
	/* sent by older Codex threads; ignored */
	"sessionId", "runId", "projectDirectory", NULL,
};

#define OFF_SENTENCE                                                                                          \
	"The browser bridge is off: use_user_browser cannot reach your browser until you turn it on (hbctl "   \
	"settings browser on) and allow remote debugging in Chrome (chrome://inspect/#remote-debugging)."

/* deviceScaleFactor, the one field that is a number and not an integer:
 * 0.5 to 4 when given. */
static int check_scale(const json_t *args, char *err, size_t errlen)
{
	const json_t *v = json_object_get(args, "deviceScaleFactor");

	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < 0.5 || json_number_value(v) > 4) {
		snprintf(err, errlen, "deviceScaleFactor must be a number from 0.5 to 4 (device pixels per CSS pixel)");
		return -1;
	}
	return 0;
}

/* Types and sizes of every field, whatever the action. */
static int check_fields(const json_t *args, char *err, size_t errlen)
{
	static const char *const strings[] = { "tab", "url", "ref", "selector", "text", "key", "direction",
						     "option", "expression", "toRef", "toSelector", "filename", "to", NULL };
	static const char *const bools[] = { "submit", "navigation", "fullPage", "accept", "mobile", "reset", NULL };
	const char *s;
	long long n;
	int b;

	if (hb_json_only_fields(args, fields, err, errlen) < 0)
		return -1;
	for (int i = 0; strings[i]; i++) {
		int long_text = strcmp(strings[i], "text") == 0 || strcmp(strings[i], "expression") == 0;

		if (hb_json_opt_string(args, strings[i], long_text ? 100000 : 4096, 0, &s, err, errlen) < 0)
			return -1;
	}
	for (int i = 0; bools[i]; i++)
		if (hb_json_opt_bool(args, bools[i], 0, &b, err, errlen) < 0)
			return -1;
	if (hb_json_opt_int(args, "amount", 1, 100000, 0, &n, err, errlen) < 0 ||
	    hb_json_opt_int(args, "timeoutMs", 1, 60000, 0, &n, err, errlen) < 0 ||
	    hb_json_opt_int(args, "maxChars", 1, 100000, 0, &n, err, errlen) < 0 ||
	    hb_json_opt_int(args, "offset", 0, 100000000, 0, &n, err, errlen) < 0 ||
	    hb_json_opt_int(args, "request", 1, 1000000000, 0, &n, err, errlen) < 0 ||
	    hb_json_opt_int(args, "width", 200, 4000, 0, &n, err, errlen) < 0 ||
	    hb_json_opt_int(args, "height", 200, 4000, 0, &n, err, errlen) < 0)
		return -1;
	return check_scale(args, err, errlen);
}

int browser_check_args(const json_t *args, const char **action, char *err, size_t errlen)
{
	if (!json_is_object(args)) {
		snprintf(err, errlen, "the arguments must be an object");
		return -1;
	}
	if (check_fields(args, err, errlen) < 0 || hb_json_req_string(args, "action", 32, action, err, errlen) < 0)
		return -1;
	return 0;
}

static const struct action *find_action(const char *name)
{
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
		if (strcmp(actions[i].name, name) == 0)
			return &actions[i];
	return NULL;
}

/* "tabs, open, ... or dialog": the table's names, as the agent reads them. */
static void action_names(char *out, size_t outlen)
{
	size_t n = sizeof actions / sizeof actions[0], used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && used < outlen; i++) {
		int w = snprintf(out + used, outlen - used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
				 actions[i].name);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

int browser_tool(struct hb_call *call, const json_t *args)
{
	struct act a = { .call = call, .ctx = hb_call_context(call), .args = args, .b = hb_call_service_arg(call),
			 .cancel = hb_call_cancel_flag(call) };
	const struct action *act;
	struct hb_settings s;
	const char *name, *tab;
	char err[ACT_ERR_MAX], url[HB_BROWSER_URL_MAX + 1];
	int rc;

	if (hb_paths_resolve(&a.paths, err, sizeof err) < 0 || hb_settings_load(&a.paths, &s, err, sizeof err) < 0)
		return hb_call_failf(call, "The settings cannot be read: %s", err);
	if (!s.browser)
		return hb_call_fail(call, OFF_SENTENCE);
	/* a browser-url that is not loopback stops every call, not only the
	 * next connection's */
	if (hb_settings_browser_url(&a.paths, url, sizeof url, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (browser_check_args(args, &name, err, sizeof err) < 0)
		return hb_call_failf(call, "use_user_browser: %s", err);
	if (!(act = find_action(name))) {
		action_names(err, sizeof err);
		return hb_call_failf(call, "use_user_browser has no action \"%.32s\": %s.", name, err);
	}
	a.step_ms = hb_tunable(HB_T_BROWSER_ACTION_MS);
	a.load_ms = hb_tunable(HB_T_BROWSER_LOAD_MS);
	if (browser_connect(a.b, &a.paths, a.cancel, &a.conn, err, sizeof err) < 0)
		return a.conn.renew ? hb_call_renew(call, "a browser wrote its DevToolsActivePort after this start", err)
				    : hb_call_fail(call, err);
	tab = json_string_value(json_object_get(args, "tab"));
	rc = 0;
	if (act->needs == NEEDS_TAB || (act->needs == NEEDS_TAB_OR_NEW && tab)) {
		if ((rc = browser_tab(a.b, &a.conn, a.ctx->session, tab, a.cancel, &a.tab, err, sizeof err)) < 0)
			hb_call_fail(call, err);
		else
			a.tab_ok = 1;
	}
	if (rc == 0 && a.tab_ok)
		rc = action_prelude(&a);
	if (rc == 0)
		rc = act->fn(&a);
	act_frame_leave(&a);
	if (a.tab_ok)
		action_epilogue(&a);
	if (a.tab_ok)
		browser_tab_seen(a.b, a.tab.target, cdp_event_mark(a.conn.cdp));
	browser_release(&a.conn);
	return rc;
}
