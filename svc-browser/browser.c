/*
 * browser - the connection to the user's browser and the agents' tabs.
 *
 * One connection per service, as Chrome asks the user to approve each
 * new one: opened by the first call that needs it, kept, and opened again
 * once it failed (Chrome quit or restarted).  Opening it holds the lock,
 * so calls that arrive meanwhile wait for the same connection instead of
 * each asking the user again.
 *
 * A tab belongs to the HB Code session whose agent opened it; an agent
 * acts only on its session's tabs, and another session's tabs are not
 * even listed to it (their titles and addresses are that session's
 * business).  A tab one of its tabs opened (a popup, window.open, a
 * link's target=_blank) is the session's too: its page is the agent's
 * doing, and another session must not read where it leads.  The list
 * lives in this process: after
 * svc-browser restarts, the tabs its agents opened stay open for the user
 * but are no agent's any more (an agent opens a new one), which errs on
 * the side of never touching a tab the user may have taken over.
 */
#include "browser.h"

#include <stdio.h>
#include <string.h>

#include "discover.h"
#include "log.h"
#include "ws.h"
#include "tunables.h"

#define CDP_SETUP_MS 5000
#define ACT_SENTENCE_MAX 2048

int browser_init(struct browser *b)
{
	memset(b, 0, sizeof *b);
	return pthread_mutex_init(&b->lock, NULL) == 0 ? 0 : -1;
}

void browser_destroy(struct browser *b)
{
	cdp_unref(b->cdp);
	b->cdp = NULL;
	pthread_mutex_destroy(&b->lock);
}

static int cancelled_flag(void *arg)
{
	return arg && atomic_load((const atomic_int *)arg);
}

/* The sentence for a connection that ep did not take, from the failure's
 * code (never its words): 1 when it is the answer (Chrome refused it, or
 * no one approved it in time: the user can act), 0 when the next endpoint
 * may be tried (a stale file's port answers as no browser of that path
 * does). */
static int refused_sentence(const struct browser_endpoint *ep, const struct ws_connect_failure *f, const char *why,
			    char *err, size_t errlen)
{
	if (f->kind == WS_CONNECT_REFUSED && (f->http_status == 403 || f->http_status == 401)) {
		snprintf(err, errlen,
			 "Chrome did not allow the connection (%.500s): approve it in the dialog Chrome shows when "
			 "HB Code connects, then try again.",
			 why);
		return 1;
	}
	if (f->kind == WS_CONNECT_TIMED_OUT) {
		int ms = hb_tunable(HB_T_BROWSER_CONNECT_MS);

		snprintf(err, errlen,
			 "Chrome did not accept the connection within %.*f s (%.500s): if Chrome shows a dialog "
			 "asking to allow remote debugging, approve it, then try again.",
			 ms % 1000 ? 1 : 0, ms / 1000.0, why);
		return 1;
	}
	if (ep->from_file)
		snprintf(err, errlen,
			 "Chrome does not answer at the address in %.1000s (%.500s): the file may be stale. Restart "
			 "Chrome and allow remote debugging at chrome://inspect/#remote-debugging.",
			 ep->source, why);
	else
		snprintf(err, errlen, "Chrome does not answer at %.1000s (%.500s).", ep->source, why);
	return !ep->from_file;
}

/* Under the lock: a new connection to the first endpoint that takes it:
 * 0 with *out, or -1 with the sentence of the first that did not (a
 * refusal or a wait for approval ends the search: that browser is the
 * user's). */
static int open_first(const struct browser_endpoint *eps, int n, struct cdp **out, char *err, size_t errlen)
{
	char why[CDP_ERR_MAX], sentence[ACT_SENTENCE_MAX];

	err[0] = '\0';
	for (int i = 0; i < n; i++) {
		struct ws_connect_failure f;

		if (cdp_open(eps[i].ws_url, hb_tunable(HB_T_BROWSER_CONNECT_MS), out, &f, why, sizeof why) == 0) {
			log_info(NULL, "browser: connected to %s", eps[i].source);
			return 0;
		}
		log_info(NULL, "browser: %s did not take the connection: %s", eps[i].source, why);
		if (refused_sentence(&eps[i], &f, why, sentence, sizeof sentence)) {
			snprintf(err, errlen, "%s", sentence);
			return -1;
		}
		if (!err[0])
			snprintf(err, errlen, "%s", sentence);
	}
	return -1;
}

int browser_connect(struct browser *b, const struct hb_paths *p, const atomic_int *cancel, struct browser_conn *out,
		    char *err, size_t errlen)
{
	struct browser_endpoint eps[DISCOVER_MAX];
	struct cdp *c;
	int n, rc = -1;

	out->cdp = NULL;
	out->renew = 0;
	pthread_mutex_lock(&b->lock);
	if (b->cdp && cdp_alive(b->cdp)) {
		out->cdp = cdp_ref(b->cdp);
		out->gen = b->gen;
		pthread_mutex_unlock(&b->lock);
		return 0;
	}
	if ((n = discover_browser(p, eps, DISCOVER_MAX, cancelled_flag, (void *)cancel, &out->renew, err, errlen)) < 0 ||
	    open_first(eps, n, &c, err, errlen) < 0)
		goto out;
	if (b->cdp)
		log_info(NULL, "browser: connected again (Chrome restarted or dropped the connection)");
	cdp_unref(b->cdp);
	b->cdp = c;
	b->gen++;
	/* the tabs' sessions were the old connection's */
	for (int i = 0; i < b->ntabs; i++)
		b->tabs[i].session[0] = '\0';
	out->cdp = cdp_ref(c);
	out->gen = b->gen;
	rc = 0;
out:
	pthread_mutex_unlock(&b->lock);
	return rc;
}

void browser_release(struct browser_conn *c)
{
	cdp_unref(c->cdp);
	c->cdp = NULL;
}

/* Under the lock: the index of the tab, or -1. */
static int find_tab(const struct browser *b, const char *owner, const char *id)
{
	int best = -1;

	for (int i = 0; i < b->ntabs; i++) {
		if (strcmp(b->tabs[i].owner, owner) != 0)
			continue;
		if (id && *id ? strcmp(b->tabs[i].id, id) == 0 : 1)
			best = i; /* without an id: the newest, which is last */
		if (id && *id && best >= 0)
			break;
	}
	return best;
}

static int find_target(const struct browser *b, const char *target)
{
	for (int i = 0; i < b->ntabs; i++)
		if (strcmp(b->tabs[i].target, target) == 0)
			return i;
	return -1;
}

/* Under the lock: 1 when target was forgotten lately (a closed tab that
 * Chrome still lists). */
static int forgotten(const struct browser *b, const char *target)
{
	unsigned n = b->ngone < TABS_GONE_MAX ? b->ngone : TABS_GONE_MAX;

	for (unsigned k = 0; k < n; k++)
		if (strcmp(b->gone[k], target) == 0)
			return 1;
	return 0;
}

static void remove_at(struct browser *b, int i)
{
	memmove(&b->tabs[i], &b->tabs[i + 1], (size_t)(b->ntabs - i - 1) * sizeof b->tabs[0]);
	b->ntabs--;
}

void browser_forget_tab(struct browser *b, const char *target)
{
	int i;

	pthread_mutex_lock(&b->lock);
	if ((i = find_target(b, target)) >= 0) {
		remove_at(b, i);
		snprintf(b->gone[b->ngone++ % TABS_GONE_MAX], sizeof b->gone[0], "%s", target);
	}
	pthread_mutex_unlock(&b->lock);
}

void browser_tab_seen(struct browser *b, const char *target, unsigned long mark)
{
	int i;

	pthread_mutex_lock(&b->lock);
	if ((i = find_target(b, target)) >= 0 && b->tabs[i].mark < mark)
		b->tabs[i].mark = mark;
	pthread_mutex_unlock(&b->lock);
}

void browser_tab_dialog(struct browser *b, const struct tab *t)
{
	int i;

	pthread_mutex_lock(&b->lock);
	if ((i = find_target(b, t->target)) >= 0) {
		snprintf(b->tabs[i].dialog_type, sizeof b->tabs[i].dialog_type, "%s", t->dialog_type);
		snprintf(b->tabs[i].dialog_message, sizeof b->tabs[i].dialog_message, "%s", t->dialog_message);
	}
	pthread_mutex_unlock(&b->lock);
}

int browser_adopt_opened(struct browser *b, const char *target, const char *opener)
{
	struct tab t = { 0 };
	int i, taken = 0;

	if (strlen(target) >= sizeof t.target)
		return 0;
	pthread_mutex_lock(&b->lock);
	if (find_target(b, target) < 0 && !forgotten(b, target) && (i = find_target(b, opener)) >= 0 &&
	    b->ntabs < TABS_MAX) {
		snprintf(t.target, sizeof t.target, "%s", target);
		snprintf(t.owner, sizeof t.owner, "%s", b->tabs[i].owner);
		snprintf(t.id, sizeof t.id, "t%u", ++b->next_tab);
		/* no session yet: browser_tab attaches on its first use */
		b->tabs[b->ntabs++] = t;
		taken = 1;
	}
	pthread_mutex_unlock(&b->lock);
	return taken;
}

enum tab_whose browser_tab_whose(struct browser *b, const char *owner, const char *target, char *id, size_t idlen)
{
	enum tab_whose w = TAB_USERS;
	int i;

	id[0] = '\0';
	pthread_mutex_lock(&b->lock);
	if (forgotten(b, target)) {
		w = TAB_CLOSED;
	} else if ((i = find_target(b, target)) >= 0) {
		w = strcmp(b->tabs[i].owner, owner) == 0 ? TAB_MINE : TAB_OTHERS;
		if (w == TAB_MINE)
			snprintf(id, idlen, "%s", b->tabs[i].id);
	}
	pthread_mutex_unlock(&b->lock);
	return w;
}

/* Attach to target on c: the session id into session.  Page events (load,
 * dialogs) are what the actions wait on; Network, Runtime and Log events
 * fill the tab's pagelog. */
static int attach(struct browser_conn *c, const char *target, const atomic_int *cancel, char *session,
		  size_t sessionlen, char *err, size_t errlen)
{
	json_t *res = NULL;
	const char *sid;
	enum cdp_fail f;

	f = cdp_call(c->cdp, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", target, "flatten", 1),
		     CDP_SETUP_MS, cancel, &res, err, errlen);
	if (f != CDP_OK)
		return -1;
	sid = json_string_value(json_object_get(res, "sessionId"));
	if (!sid || strlen(sid) >= sessionlen) {
		snprintf(err, errlen, "Chrome attached to the tab without a session id");
		json_decref(res);
		return -1;
	}
	snprintf(session, sessionlen, "%s", sid);
	json_decref(res);
	if (cdp_call(c->cdp, session, "Page.enable", NULL, CDP_SETUP_MS, cancel, &res, err, errlen) != CDP_OK)
		return -1;
	json_decref(res);
	/* the requests a click starts are what act_settle waits for */
	if (cdp_call(c->cdp, session, "Network.enable", NULL, CDP_SETUP_MS, cancel, &res, err, errlen) != CDP_OK)
		return -1;
	json_decref(res);
	/* the page's console and uncaught exceptions (Runtime, which also
	 * sends again what the page wrote before), and the browser's own
	 * messages about it (Log: a failed load, a blocked request), for the
	 * action console (pagelog.h) */
	if (cdp_call(c->cdp, session, "Runtime.enable", NULL, CDP_SETUP_MS, cancel, &res, err, errlen) != CDP_OK)
		return -1;
	json_decref(res);
	if (cdp_call(c->cdp, session, "Log.enable", NULL, CDP_SETUP_MS, cancel, &res, err, errlen) != CDP_OK)
		return -1;
	json_decref(res);
	/* an agent's tab saves no downloads into the user's folders; an old
	 * Chrome without the method is fine */
	if (cdp_call(c->cdp, session, "Page.setDownloadBehavior", json_pack("{s:s}", "behavior", "deny"),
		     CDP_SETUP_MS, cancel, &res, err, errlen) == CDP_OK)
		json_decref(res);
	return 0;
}

int browser_tab(struct browser *b, struct browser_conn *c, const char *owner, const char *id,
		const atomic_int *cancel, struct tab *out, char *err, size_t errlen)
{
	char session[64];
	int i;

	pthread_mutex_lock(&b->lock);
	if ((i = find_tab(b, owner, id)) < 0) {
		pthread_mutex_unlock(&b->lock);
		if (id && *id)
			snprintf(err, errlen,
				 "There is no tab \"%.32s\" of this session: act on the tabs you opened (action tabs "
				 "lists them), or open one with action open.",
				 id);
		else
			snprintf(err, errlen, "This session has no tab yet: open one with action open and a url.");
		return -1;
	}
	*out = b->tabs[i];
	pthread_mutex_unlock(&b->lock);
	if (out->session[0] && out->gen == c->gen)
		return 0;
	if (attach(c, out->target, cancel, session, sizeof session, err, errlen) < 0) {
		if (strstr(err, "No target") || strstr(err, "not found")) {
			browser_forget_tab(b, out->target);
			snprintf(err, errlen, "Tab %s was closed (by you, or Chrome restarted): open a new one.", out->id);
		}
		return -1;
	}
	pthread_mutex_lock(&b->lock);
	if ((i = find_target(b, out->target)) >= 0) {
		snprintf(b->tabs[i].session, sizeof b->tabs[i].session, "%s", session);
		b->tabs[i].gen = c->gen;
		/* a dialog seen on the old connection is not known on this one */
		b->tabs[i].dialog_type[0] = b->tabs[i].dialog_message[0] = '\0';
		*out = b->tabs[i];
	}
	pthread_mutex_unlock(&b->lock);
	if (i < 0) {
		snprintf(err, errlen, "Tab %s was closed meanwhile.", out->id);
		return -1;
	}
	return 0;
}

int browser_new_tab(struct browser *b, struct browser_conn *c, const char *owner, const atomic_int *cancel,
		    struct tab *out, char *err, size_t errlen)
{
	json_t *res = NULL;
	const char *target;
	struct tab t = { 0 };

	pthread_mutex_lock(&b->lock);
	if (b->ntabs >= TABS_MAX) {
		pthread_mutex_unlock(&b->lock);
		snprintf(err, errlen, "The agents have %d tabs open already: close some with action close.", TABS_MAX);
		return -1;
	}
	pthread_mutex_unlock(&b->lock);
	/* in a window of its own, behind: the user's own tab stays in front,
	 * and the agent's tab is its window's shown tab.  A background tab in
	 * the user's window draws no frames, so Chrome never answers a
	 * screenshot or a mouse event there (seen with headless Chromium). */
	if (cdp_call(c->cdp, NULL, "Target.createTarget",
		     json_pack("{s:s, s:b, s:b}", "url", "about:blank", "background", 1, "newWindow", 1), CDP_SETUP_MS,
		     cancel, &res, err, errlen) != CDP_OK)
		return -1;
	target = json_string_value(json_object_get(res, "targetId"));
	if (!target || strlen(target) >= sizeof t.target) {
		json_decref(res);
		snprintf(err, errlen, "Chrome made a tab without an id");
		return -1;
	}
	snprintf(t.target, sizeof t.target, "%s", target);
	json_decref(res);
	snprintf(t.owner, sizeof t.owner, "%s", owner);
	if (attach(c, t.target, cancel, t.session, sizeof t.session, err, errlen) < 0) {
		if (cdp_call(c->cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", t.target), CDP_SETUP_MS,
			     NULL, &res, err, errlen) == CDP_OK)
			json_decref(res);
		return -1;
	}
	t.gen = c->gen;
	t.mark = cdp_event_mark(c->cdp);
	pthread_mutex_lock(&b->lock);
	snprintf(t.id, sizeof t.id, "t%u", ++b->next_tab);
	b->tabs[b->ntabs++] = t;
	pthread_mutex_unlock(&b->lock);
	*out = t;
	return 0;
}
