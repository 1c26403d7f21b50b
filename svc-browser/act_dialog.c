/*
 * act_dialog - JavaScript dialogs (alert, confirm, prompt, beforeunload)
 * on the session's tabs: which one is open, the sentence an action that
 * meets it answers with, and the action dialog that answers it.
 *
 * A dialog blocks its page until it is answered, and answering it is the
 * agent's choice (a confirm's yes or no changes what the page does), so
 * a dialog is never answered for the agent: it stays open, every action
 * on its tab but dialog and close answers at once by naming it, and the
 * user may answer it in Chrome too.  The tab's open dialog is followed
 * from the page's events (Page.javascriptDialogOpening and ...Closed)
 * before and after every call, and kept with the tab (browser.h).
 */
#include <stdio.h>
#include <string.h>

#include "actions.h"

/* Follow the dialog events of a->tab since its mark into a->tab's
 * dialog fields: the last one opened and not closed is the open one. */
static void track(struct act *a)
{
	unsigned long pos = a->tab.mark, next;
	json_t *ev = NULL;

	for (;;) {
		if (a->tab.dialog_type[0]) {
			if (!cdp_find_event(a->conn.cdp, a->tab.session, "Page.javascriptDialogClosed", pos, &ev, &next))
				break;
			a->tab.dialog_type[0] = a->tab.dialog_message[0] = '\0';
		} else {
			const char *type, *message;

			if (!cdp_find_event(a->conn.cdp, a->tab.session, "Page.javascriptDialogOpening", pos, &ev, &next))
				break;
			type = json_string_value(json_object_get(ev, "type"));
			message = json_string_value(json_object_get(ev, "message"));
			snprintf(a->tab.dialog_type, sizeof a->tab.dialog_type, "%s", type && *type ? type : "dialog");
			snprintf(a->tab.dialog_message, sizeof a->tab.dialog_message, "%s", message ? message : "");
		}
		json_decref(ev);
		ev = NULL;
		pos = next;
	}
}

/* The sentence naming the open dialog, and how to answer it. */
static int answer_dialog_open(struct act *a)
{
	int prompt = strcmp(a->tab.dialog_type, "prompt") == 0;

	return hb_call_failf(a->call,
			     "Tab %s shows a JavaScript %s: \"%.300s\". The page waits until it is answered: call "
			     "use_user_browser with action dialog and accept true (OK%s) or false (Cancel)%s, then "
			     "go on.",
			     a->tab.id, a->tab.dialog_type, a->tab.dialog_message,
			     strcmp(a->tab.dialog_type, "beforeunload") == 0 ? ", leave the page" : "",
			     prompt ? ", with text for what to type into it" : "");
}

int action_prelude(struct act *a)
{
	const char *action = json_string_value(json_object_get(a->args, "action"));

	track(a);
	a->tab.mark = a->dialog_mark = cdp_event_mark(a->conn.cdp);
	browser_tab_dialog(a->b, &a->tab);
	if (a->tab.dialog_type[0] && strcmp(action, "dialog") != 0 && strcmp(action, "close") != 0)
		return answer_dialog_open(a), -1;
	return 0;
}

void action_epilogue(struct act *a)
{
	track(a);
	browser_tab_dialog(a->b, &a->tab);
}

int action_dialog(struct act *a)
{
	const json_t *accept = json_object_get(a->args, "accept");
	const char *text = json_string_value(json_object_get(a->args, "text"));
	char type[sizeof a->tab.dialog_type], head[600], err[CDP_ERR_MAX];
	json_t *params, *res = NULL;
	enum cdp_fail f;

	if (!json_is_boolean(accept))
		return hb_call_fail(a->call, "Action dialog needs accept: true (OK) or false (Cancel), and text for "
					     "what to type into a prompt.");
	if (text && a->tab.dialog_type[0] && strcmp(a->tab.dialog_type, "prompt") != 0)
		return hb_call_failf(a->call, "Tab %s shows a JavaScript %s, which takes no text: answer it with "
					      "accept only.", a->tab.id, a->tab.dialog_type);
	/* the dialog answered, one the page opens next is the action's */
	a->dialog_mark = cdp_event_mark(a->conn.cdp);
	params = json_pack("{s:b}", "accept", json_is_true(accept));
	if (params && text)
		json_object_set_new(params, "promptText", json_string(text));
	/* asked of Chrome even when no dialog is known here: Chrome says
	 * whether one is showing */
	f = cdp_call(a->conn.cdp, a->tab.session, "Page.handleJavaScriptDialog", params, a->step_ms, a->cancel, &res, err,
		     sizeof err);
	json_decref(res);
	if (f == CDP_PROTOCOL && strstr(err, "No dialog")) {
		a->tab.dialog_type[0] = a->tab.dialog_message[0] = '\0';
		return hb_call_failf(a->call, "Tab %s shows no JavaScript dialog: there is nothing to answer.", a->tab.id);
	}
	if (f != CDP_OK)
		return act_fail(a, f, "answering the dialog", err);
	snprintf(type, sizeof type, "%s", a->tab.dialog_type[0] ? a->tab.dialog_type : "dialog");
	snprintf(head, sizeof head, "Answered the JavaScript %s %s%s%.300s%s.", type,
		 json_is_true(accept) ? "with OK" : "with Cancel", text ? ", typing \"" : "", text ? text : "",
		 text ? "\"" : "");
	a->tab.dialog_type[0] = a->tab.dialog_message[0] = '\0';
	return act_answer_with_snapshot(a, head);
}
