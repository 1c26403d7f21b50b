/*
 * alert - the tool send_mobile_notification (page 000, "Alerts written by
 * the agent"): one push alert about the calling session, queued on the
 * device link to the relay.
 *
 * Exactly the page's outcomes.  Requested: the link is ready, so the
 * alert goes into the durable spool (the link's task sends it) and the
 * call returns at once with a receipt that promises the queueing and
 * nothing past it.  Visible failure: a link that started but is not
 * ready is restarted and tried 8 more times, 250 ms apart, then the
 * agent gets the last error, a sentence with what the user can do; a
 * link that never started since the service started fails at once.  The
 * silent drop past the relay is the link's log line, never this answer.
 *
 * Everything is checked on every call: the notifications setting, the
 * limits in characters (refused, never cut: the limit is what makes an
 * agent put the outcome first), and who is calling, which comes from the
 * broker's binding and never from the arguments.
 */
#include "alert.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "link_config.h"
#include "link_state.h"
#include "log.h"
#include "paths.h"
#include "relay_proto.h"
#include "session_title.h"
#include "settings.h"
#include "spool.h"

#define ATTEMPTS 9        /* the first and 8 more, as the page says */
#define ATTEMPT_GAP_MS 250
#define NOTHING_SENT "Nothing was sent."

/* title and body, the only fields: 0, or -1 with a sentence. */
static int read_args(const json_t *args, const char **title, const char **body, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(args)) {
		snprintf(err, errlen, "send_mobile_notification takes an object with title and body. " NOTHING_SENT);
		return -1;
	}
	json_object_foreach((json_t *)args, key, v) {
		if (strcmp(key, "title") != 0 && strcmp(key, "body") != 0) {
			snprintf(err, errlen,
				 "send_mobile_notification takes only title and body; \"%.64s\" is not one of them. "
				 NOTHING_SENT, key);
			return -1;
		}
	}
	*title = json_string_value(json_object_get(args, "title"));
	*body = json_string_value(json_object_get(args, "body"));
	if (!*title || !*body) {
		snprintf(err, errlen, "send_mobile_notification needs a title and a body, both strings. " NOTHING_SENT);
		return -1;
	}
	return 0;
}

/* A title or a body within its limit, counted in characters. */
static int check_text(const char *what, const char *s, long max, char *err, size_t errlen)
{
	long n = hb_relay_chars(s);

	if (n < 0)
		snprintf(err, errlen, "The %s is not valid UTF-8. " NOTHING_SENT, what);
	else if (n == 0)
		snprintf(err, errlen, "The %s is empty: an alert needs a title and a body. " NOTHING_SENT, what);
	else if (n > max)
		snprintf(err, errlen,
			 "The %s is %ld characters, and it may have at most %ld (a title at most %d, a body at most "
			 "%d): put the outcome first and shorten it. " NOTHING_SENT,
			 what, n, max, HB_RELAY_TITLE_MAX, HB_RELAY_BODY_MAX);
	else
		return 0;
	return -1;
}

int alert_check_args(const json_t *args, const char **title, const char **body, char *err, size_t errlen)
{
	if (read_args(args, title, body, err, errlen) < 0 ||
	    check_text("title", *title, HB_RELAY_TITLE_MAX, err, errlen) < 0 ||
	    check_text("body", *body, HB_RELAY_BODY_MAX, err, errlen) < 0)
		return -1;
	return 0;
}

static long long realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The alert as it will travel, checked as the relay will check it. */
static int build_event(struct hb_call *call, const struct hb_call_context *ctx, const char *title, const char *body,
		       struct hb_relay_event *ev, char *err, size_t errlen)
{
	char why[512];

	memset(ev, 0, sizeof *ev);
	if (!ctx->session[0] || !ctx->run[0]) {
		snprintf(err, errlen,
			 "send_mobile_notification names the session and the run that call it, so it works only "
			 "from a Codex or Claude session's run, and this call has none. " NOTHING_SENT);
		return -1;
	}
	if (spool_new_id(ev->id, sizeof ev->id) < 0) {
		snprintf(err, errlen, "No id could be made for the alert (no random bytes). " NOTHING_SENT);
		return -1;
	}
	snprintf(ev->session_id, sizeof ev->session_id, "%s", ctx->session);
	snprintf(ev->run_id, sizeof ev->run_id, "%s", ctx->run);
	snprintf(ev->title, sizeof ev->title, "%s", title);
	snprintf(ev->body, sizeof ev->body, "%s", body);
	if (session_title(call, ctx->session, ev->session_title, sizeof ev->session_title, why, sizeof why) < 0)
		log_warn(ctx->key, "alert without the session's title: %s", why);
	ev->created_at_ms = realtime_ms();
	if (hb_relay_check_event(ev, why, sizeof why) < 0) {
		snprintf(err, errlen, "The alert cannot be sent as it is (%s). " NOTHING_SENT, why);
		return -1;
	}
	return 0;
}

/* Into the durable spool, then the link's task is woken to send it. */
static int queue(struct hb_call *call, const struct hb_relay_event *ev)
{
	struct hb_paths p;
	struct spool *sp = NULL;
	char path[HB_PATH_MAX], err[1024];
	int rc = -1;

	if (hb_paths_resolve(&p, err, sizeof err) == 0 && spool_path(&p, path, sizeof path, err, sizeof err) == 0 &&
	    spool_open(path, &sp, err, sizeof err) == 0)
		rc = spool_add(sp, ev, err, sizeof err);
	spool_close(sp);
	if (rc < 0)
		return hb_call_failf(call, "The alert could not be queued: %s " NOTHING_SENT, err);
	hb_call_wake_task(call);
	log_info(hb_call_context(call)->key, "alert %s queued for the relay", ev->id);
	return hb_call_succeedf(call,
				"Alert %s queued for the relay. Delivery to the phone is not confirmed: the relay "
				"sends the push on its own, and nothing reports back.",
				ev->id);
}

/* Wait one gap between attempts; nonzero when the call was cancelled. */
static int gap(struct hb_call *call)
{
	for (int waited = 0; waited < ATTEMPT_GAP_MS; waited += 50) {
		struct timespec ts = { 0, 50 * 1000000L };

		if (hb_call_cancelled(call))
			return 1;
		nanosleep(&ts, NULL);
	}
	return hb_call_cancelled(call);
}

int alert_send(struct hb_call *call, const json_t *args)
{
	const struct hb_call_context *ctx = hb_call_context(call);
	struct link_state *ls = hb_call_service_arg(call);
	struct hb_settings s;
	struct hb_relay_event ev;
	struct link_config cfg;
	struct link_view view;
	struct hb_paths p;
	const char *title, *body;
	char err[1024];

	if (hb_paths_resolve(&p, err, sizeof err) < 0 || hb_settings_load(&p, &s, err, sizeof err) < 0)
		return hb_call_failf(call, "The settings cannot be read, so no alert was sent: %s", err);
	if (!s.notifications)
		return hb_call_fail(call, "Desktop and phone notifications are off, so no alert was sent. Turn them "
					  "on in Settings > General (hbctl settings notifications on).");
	if (alert_check_args(args, &title, &body, err, sizeof err) < 0 ||
	    build_event(call, ctx, title, body, &ev, err, sizeof err) < 0)
		return hb_call_fail(call, err);

	/* the settings now, not as the link last read them (at their change):
	 * Allow Remote Access turned off stops the very next alert */
	link_config_read(&p, &cfg);
	link_state_view(ls, &view);
	if (view.phase == LINK_READY && cfg.wanted)
		return queue(call, &ev);
	if (view.phase == LINK_NEVER_STARTED && !cfg.wanted)
		return hb_call_failf(call,
				     "No alert was sent: the desktop's link to the relay has not started since "
				     "svc-alerts started. %s",
				     cfg.reason);
	for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
		link_state_ask_restart(ls);
		hb_call_wake_task(call);
		if (gap(call))
			return hb_call_fail(call, "The call was cancelled, so no alert was sent.");
		link_config_read(&p, &cfg);
		link_state_view(ls, &view);
		if (view.phase == LINK_READY && cfg.wanted)
			return queue(call, &ev);
	}
	return hb_call_failf(call,
			     "No alert was sent: the link to the relay is not ready after %d attempts over about %d "
			     "seconds. %s",
			     ATTEMPTS, ATTEMPTS * ATTEMPT_GAP_MS / 1000,
			     !cfg.wanted ? cfg.reason
					 : view.error[0] ? view.error : "It may come back on its own; try again later.");
}
