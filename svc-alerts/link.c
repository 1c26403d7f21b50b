/*
 * link - the device link to the relay, run on svc-alerts' task thread.
 *
 * One loop, poll()-driven, with every timer in one place: the link's
 * socket (ws/ws.h), the task's wake pipe (a call spooled an alert or
 * asked for a restart), the task's socket to the broker (approval cards
 * and the outcomes of the phone's answers: phone_cards.c), and the
 * deadlines (settings re-read, reconnect backoff, the relay's ready,
 * pings and their pongs).  Only this thread
 * touches the WebSocket and writes the link's phase; the spool has its
 * own handle here, so calls add to it while the link sends from it.
 *
 * Why a restart is immediate and a drop backs off: a call that finds the
 * link not ready restarts it up to nine times in two seconds, and the
 * agent waits for those; a relay that drops the link on its own is
 * reconnected with a doubling, jittered wait, so a busy relay is not
 * hammered by every desktop at once.
 */
#include "link.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "clock.h"
#include "link_config.h"
#include "link_state.h"
#include "log.h"
#include "phone_cards.h"
#include "protocol.h"
#include "random.h"
#include "relay_proto.h"
#include "settings.h"
#include "sock.h"
#include "spool.h"
#include "tunables.h"
#include "ws.h"

#define SETTINGS_EVERY_MS 1000   /* how soon a settings change reaches the link */
#define CONNECT_TIMEOUT_MS 5000  /* TCP, TLS and the Upgrade; the task blocks that long at most */
#define SEND_BATCH 64            /* spooled alerts queued per turn of the loop */

struct link {
	struct hb_task *task;
	struct link_state *shared;
	struct hb_paths paths;
	struct link_config cfg;
	struct spool *spool;
	struct phone_cards *cards;       /* approval cards for the phone */
	void *broker;                    /* the task's socket to the broker */
	struct ws *ws;
	enum link_phase phase;           /* this thread's copy of what it last set */
	char error[LINK_REASON_MAX];
	int ping_ms, pong_ms, ready_ms, backoff_base_ms, backoff_cap_ms;
	int backoff_ms;                  /* the next wait after a drop */
	long long next_settings_ms, next_connect_ms;
	long long hello_ms;              /* when hello went (ready is awaited) */
	long long next_ping_ms, ping_sent_ms;
	unsigned long pongs_at_ping, restarts_seen;
	struct link_config_watch *watch; /* tells of settings changes, or NULL (link_config.h) */
	unsigned long changes_seen;
	int watch_said;                  /* why there is no watch was logged */
	int restarts_pending;            /* calls asked for more restarts than were made */
	char link_url[HB_RELAY_URL_MAX + 1];  /* what the live link was made with */
	char link_ca[HB_PATH_MAX];
	int64_t sent_upto;               /* spool sequence sent on this link */
	int more;                        /* a full batch went: more may wait */
};

/* The phase and last error, to the calls and (when changed) to the broker. */
static void set_phase(struct link *l, enum link_phase phase, const char *error)
{
	char summary[LINK_REASON_MAX + 64], *text;
	json_t *report;

	l->phase = phase;
	if (error && error != l->error)
		snprintf(l->error, sizeof l->error, "%s", error);
	if (!link_state_set(l->shared, phase, error))
		return;
	if (phase == LINK_READY || !l->error[0])
		snprintf(summary, sizeof summary, "relay link %s", link_phase_name(phase));
	else
		snprintf(summary, sizeof summary, "relay link %s: %s", link_phase_name(phase), l->error);
	report = json_pack("{s:s, s:s, s:s?}", "summary", summary, "link", link_phase_name(phase), "lastError",
			   l->error[0] ? l->error : NULL);
	text = report ? json_dumps(report, JSON_COMPACT) : NULL;
	if (!text || hb_task_report(l->task, text) < 0)
		log_debug(NULL, "relay link: the report was not sent");
	free(text);
	json_decref(report);
}

/* The wait after a drop: the backoff with a jitter of up to a quarter,
 * then doubled for the next one. */
static void schedule_reconnect(struct link *l, long long now)
{
	unsigned char r = 0;
	int wait = l->backoff_ms;

	if (hb_random_bytes(&r, 1, NULL, 0) == 0)
		wait -= (int)((long long)wait * r / 1024);
	l->next_connect_ms = now + wait;
	l->backoff_ms = l->backoff_ms > l->backoff_cap_ms / 2 ? l->backoff_cap_ms : l->backoff_ms * 2;
}

static void close_link(struct link *l)
{
	ws_free(l->ws);
	l->ws = NULL;
	l->sent_upto = 0;
	l->ping_sent_ms = 0;
}

/* The link is over or given up: down with why, and a reconnect later. */
static void drop_link(struct link *l, const char *why, long long now)
{
	if (l->ws)
		log_info(NULL, "relay link down: %s", why);
	close_link(l);
	set_phase(l, LINK_DOWN, why);
	schedule_reconnect(l, now);
}

/* hello with the credential, which lives only in this function's
 * buffers and is wiped before they are left. */
static int say_hello(struct link *l, char *err, size_t errlen)
{
	char cred[HB_DEVICE_CREDENTIAL_MAX + 1];
	char *hello;
	int rc;

	if ((rc = hb_settings_device_credential(&l->paths, cred, sizeof cred, err, errlen)) != 0) {
		if (rc > 0)
			snprintf(err, errlen,
				 "You are signed out, so the desktop keeps no link to the relay. Sign in again (hbctl "
				 "settings device-credential set).");
		return -1;
	}
	rc = -1;
	hello = hb_relay_hello(cred, err, errlen);
	explicit_bzero(cred, sizeof cred);
	if (!hello)
		return -1;
	if (ws_send_text(l->ws, hello, strlen(hello)) == 0)
		rc = 0;
	else
		snprintf(err, errlen, "The link to the relay closed before hello could be sent.");
	explicit_bzero(hello, strlen(hello));
	free(hello);
	return rc;
}

static void connect_link(struct link *l)
{
	struct ws_opts opts = { .timeout_ms = CONNECT_TIMEOUT_MS, .ca_file = l->cfg.ca_file[0] ? l->cfg.ca_file : NULL };
	char err[WS_ERROR_MAX + 128], why[LINK_REASON_MAX];
	int rc;

	close_link(l);
	set_phase(l, LINK_CONNECTING, NULL);
	snprintf(l->link_url, sizeof l->link_url, "%s", l->cfg.url);
	snprintf(l->link_ca, sizeof l->link_ca, "%s", l->cfg.ca_file);
	if ((rc = ws_connect(l->cfg.url, &opts, &l->ws, err, sizeof err)) < 0) {
		/* A refused certificate is no network problem: say what was
		 * refused and why, and where the trusted CAs come from. */
		if (rc == WS_CERT_REFUSED)
			snprintf(why, sizeof why, "The relay was reached, but its certificate was refused (%s), so "
				 "nothing was sent. Check the relay URL, and relayCaFile in settings.json for a private "
				 "relay.", err);
		else
			snprintf(why, sizeof why, "The relay cannot be reached: %s. Check the network connection.", err);
		drop_link(l, why, hb_monotonic_ms());
		return;
	}
	if (say_hello(l, why, sizeof why) < 0) {
		drop_link(l, why, hb_monotonic_ms());
		return;
	}
	l->hello_ms = hb_monotonic_ms();
}

/* Queue the spooled alerts not yet sent on this link, in spool order. */
static void send_spooled(struct link *l, long long now)
{
	struct hb_relay_event ev;
	char err[512];
	int64_t seq;
	int rc;

	l->more = 0;
	for (int n = 0; n < SEND_BATCH; n++) {
		char *text;

		seq = 0;
		if ((rc = spool_next(l->spool, l->sent_upto, &ev, &seq, err, sizeof err)) < 0 && seq > l->sent_upto) {
			/* a damaged row: said, and passed over so the rest go */
			log_error(NULL, "relay link: spooled alert %lld cannot be sent: %s", (long long)seq, err);
			l->sent_upto = seq;
			continue;
		}
		if (rc <= 0) {
			if (rc < 0)
				log_error(NULL, "relay link: reading the spool: %s", err);
			return;
		}
		if (!(text = hb_relay_event(&ev, err, sizeof err))) {
			/* spool_add checked it; a row that fails now is a bug,
			 * and skipping it keeps the rest flowing */
			log_error(NULL, "relay link: alert %s cannot be sent: %s", ev.id, err);
			l->sent_upto = seq;
			continue;
		}
		rc = ws_send_text(l->ws, text, strlen(text));
		free(text);
		if (rc < 0) {
			drop_link(l, "The link to the relay closed while alerts were sent.", now);
			return;
		}
		l->sent_upto = seq;
	}
	l->more = 1; /* more wait: the loop comes back at once */
}

/* Show the phone the open cards it has not seen on this link, and the
 * outcomes of its answers. */
static void send_cards(struct link *l, long long now)
{
	char *text;

	while (l->ws && (text = phone_cards_next(l->cards))) {
		int rc = ws_send_text(l->ws, text, strlen(text));
		free(text);
		if (rc < 0) {
			drop_link(l, "The link to the relay closed while approval cards were sent.", now);
			return;
		}
	}
}

/* The sentence and the backoff an error message of the relay gives. */
static void relay_error(struct link *l, const struct hb_relay_msg *m, long long now)
{
	char why[LINK_REASON_MAX];

	if (strcmp(m->code, "bad-credential") == 0)
		snprintf(why, sizeof why,
			 "The relay refused the device credential: sign in again (hbctl settings device-credential "
			 "set).");
	else if (strcmp(m->code, "unsupported-protocol") == 0)
		snprintf(why, sizeof why,
			 "The relay does not speak this desktop's protocol (version %d): update hbcode-tools.",
			 HB_RELAY_PROTOCOL);
	else
		snprintf(why, sizeof why, "The relay ended the link (%s%s%.400s); it is tried again shortly.",
			 m->code, m->text[0] ? ": " : "", m->text);
	if (strcmp(m->code, "bad-message") == 0)
		log_error(NULL, "relay link: the relay refused a message of ours (%s): a bug", m->text);
	drop_link(l, why, now);
	/* a refusal that retrying cannot mend waits the longest */
	if (strcmp(m->code, "bad-credential") == 0 || strcmp(m->code, "unsupported-protocol") == 0) {
		l->next_connect_ms = now + l->backoff_cap_ms;
		l->backoff_ms = l->backoff_cap_ms;
	}
}

static void on_message(struct link *l, const char *text, size_t len, long long now)
{
	struct hb_relay_msg m;
	char err[512], why[LINK_REASON_MAX];

	if (hb_relay_parse(text, len, HB_RELAY_FROM_RELAY, &m, err, sizeof err) < 0) {
		snprintf(why, sizeof why, "The relay sent a message this desktop does not understand (%.400s).", err);
		drop_link(l, why, now);
		return;
	}
	switch (m.type) {
	case HB_RELAY_READY:
		if (l->phase == LINK_READY) {
			drop_link(l, "The relay said ready twice.", now);
			break;
		}
		log_info(NULL, "relay link ready");
		set_phase(l, LINK_READY, "");
		l->backoff_ms = l->backoff_base_ms;
		l->sent_upto = 0;
		l->next_ping_ms = now + l->ping_ms;
		if (l->cards)
			phone_cards_relink(l->cards, l->broker);
		break;
	case HB_RELAY_ERROR:
		relay_error(l, &m, now);
		break;
	case HB_RELAY_ACK:
		if (spool_remove(l->spool, m.id, err, sizeof err) < 0)
			log_error(NULL, "relay link: removing acknowledged alert %s: %s", m.id, err);
		break;
	case HB_RELAY_DROPPED:
		/* past the relay is a silent drop: one line, never the text */
		log_info(NULL, "relay dropped alert %s: %s", m.id, m.text);
		break;
	case HB_RELAY_RESOLVE:
		if (l->phase != LINK_READY) {
			drop_link(l, "The relay sent an approval answer before ready.", now);
			break;
		}
		if (l->cards)
			phone_cards_answer(l->cards, l->broker, &m);
		break;
	default:
		drop_link(l, "The relay sent a message only a device sends.", now);
		break;
	}
	hb_relay_msg_wipe(&m);
}

/* The link's socket was ready: read, answer, and see whether it is over. */
static void on_socket(struct link *l, short revents, long long now)
{
	enum ws_state st = ws_state(l->ws);
	char why[LINK_REASON_MAX], *msg;
	size_t len;

	if (revents & (POLLIN | POLLHUP | POLLERR))
		st = ws_on_readable(l->ws);
	while (l->ws && (msg = ws_next_message(l->ws, &len))) {
		on_message(l, msg, len, now);
		free(msg);
	}
	if (!l->ws)
		return;
	if ((revents & POLLOUT) && st != WS_FAILED && st != WS_CLOSED)
		st = ws_on_writable(l->ws);
	if (st == WS_CLOSED) {
		snprintf(why, sizeof why, "The relay closed the link (code %d%s%s); it is tried again shortly.",
			 ws_close_code(l->ws), ws_close_reason(l->ws)[0] ? ": " : "", ws_close_reason(l->ws));
		drop_link(l, why, now);
	} else if (st == WS_FAILED) {
		snprintf(why, sizeof why, "The link to the relay broke (%s); it is tried again shortly.",
			 ws_error(l->ws));
		drop_link(l, why, now);
	}
}

/* Deadlines of a live link: ready after hello, pings and their pongs. */
static void check_timers(struct link *l, long long now)
{
	char why[LINK_REASON_MAX];

	if (l->phase == LINK_CONNECTING && now - l->hello_ms >= l->ready_ms) {
		snprintf(why, sizeof why,
			 "The relay did not confirm the link within %d ms of hello; it is tried again shortly.",
			 l->ready_ms);
		drop_link(l, why, now);
		return;
	}
	if (l->phase != LINK_READY)
		return;
	if (l->ping_sent_ms && ws_pongs(l->ws) != l->pongs_at_ping)
		l->ping_sent_ms = 0;
	if (l->ping_sent_ms && now - l->ping_sent_ms >= l->pong_ms) {
		drop_link(l, "The relay stopped answering pings; the link is tried again shortly.", now);
		return;
	}
	if (!l->ping_sent_ms && now >= l->next_ping_ms) {
		l->pongs_at_ping = ws_pongs(l->ws);
		if (ws_ping(l->ws) == 0)
			l->ping_sent_ms = now;
		l->next_ping_ms = now + l->ping_ms;
	}
}

/* Read the settings.  The watch comes first, and the count of its changes
 * is taken before the read, so that no change after it goes unseen;
 * without a watch the next read is on the timer. */
static void read_settings(struct link *l, long long now)
{
	char err[256];

	if (!link_config_watching(l->watch)) {
		link_config_unwatch(l->watch);
		if (!(l->watch = link_config_watch(&l->paths, l->task, err, sizeof err)) && err[0] && !l->watch_said++)
			log_warn(NULL, "relay link: no watch of the settings (%s); they are read every %d ms", err,
				 SETTINGS_EVERY_MS);
	}
	l->changes_seen = link_config_changes(l->watch);
	link_config_read(&l->paths, &l->cfg);
	l->next_settings_ms = now + (link_config_watching(l->watch) ? LINK_SETTINGS_WATCHED_MS : SETTINGS_EVERY_MS);
}

/* The broker's idle.ask (svc-alerts is its idleTask): it holds work
 * while the settings want the link, as they are now (read again here: a
 * change its watch has not told yet counts). */
static void on_other(void *arg, const struct hb_env *e)
{
	struct link *l = arg;

	if (strcmp(hb_env_str(e, "op"), HB_OP_IDLE_ASK) != 0)
		return;
	read_settings(l, hb_monotonic_ms());
	if (hb_task_answer_idle(l->task, e, l->cfg.wanted,
				l->cfg.wanted ? "the settings want the relay link" : l->cfg.reason) < 0)
		log_warn(NULL, "cannot answer the broker's idle.ask: %s", zmq_strerror(errno));
}

/* Settings, restarts and reconnects: whether a link should be up now. */
static void steer(struct link *l, long long now)
{
	unsigned long restarts = link_state_restarts(l->shared);
	int restart = restarts != l->restarts_seen;

	/* one restart per request, even when a slow connect let several
	 * pile up: each of a call's attempts is a connection to the relay */
	if (restart)
		l->restarts_seen++;
	l->restarts_pending = l->restarts_seen != restarts;
	if (restart || now >= l->next_settings_ms || link_config_changes(l->watch) != l->changes_seen)
		read_settings(l, now);
	if (l->ws && !restart && l->cfg.wanted &&
	    (strcmp(l->cfg.url, l->link_url) != 0 || strcmp(l->cfg.ca_file, l->link_ca) != 0)) {
		log_info(NULL, "relay link: the relay's URL or CA changed; connecting again");
		restart = 1;
	}
	if (!l->cfg.wanted) {
		if (l->ws)
			log_info(NULL, "relay link closed: the settings no longer want it");
		close_link(l);
		set_phase(l, l->phase == LINK_NEVER_STARTED ? LINK_NEVER_STARTED : LINK_DOWN, l->cfg.reason);
		return;
	}
	if (!l->spool) {
		set_phase(l, l->phase == LINK_NEVER_STARTED ? LINK_NEVER_STARTED : LINK_DOWN, l->error);
		return;
	}
	if (restart && l->ws && l->phase == LINK_CONNECTING)
		/* what the calls that asked will tell the agent if no attempt
		 * gets further */
		set_phase(l, LINK_CONNECTING,
			  "The relay took the connection but did not confirm the link after hello; it may be busy or "
			  "in maintenance. Try again later.");
	if (restart || (!l->ws && now >= l->next_connect_ms))
		connect_link(l);
}

static int next_timeout(const struct link *l, long long now)
{
	long long at = l->next_settings_ms;

	if (l->more || l->restarts_pending || (l->ws && l->phase == LINK_READY && l->cards && phone_cards_pending(l->cards)) ||
	    (l->ws && (ws_state(l->ws) == WS_CLOSED || ws_state(l->ws) == WS_FAILED)))
		return 0;

	if (!l->ws && l->cfg.wanted && l->next_connect_ms < at)
		at = l->next_connect_ms;
	if (l->ws && l->phase == LINK_CONNECTING && l->hello_ms + l->ready_ms < at)
		at = l->hello_ms + l->ready_ms;
	if (l->ws && l->phase == LINK_READY)
		at = l->ping_sent_ms ? (l->ping_sent_ms + l->pong_ms < at ? l->ping_sent_ms + l->pong_ms : at)
				     : (l->next_ping_ms < at ? l->next_ping_ms : at);
	return at <= now ? 0 : (int)(at - now);
}

static int open_spool(struct link *l)
{
	char path[HB_PATH_MAX], err[1024], why[LINK_REASON_MAX];

	if (hb_paths_resolve(&l->paths, err, sizeof err) == 0 && spool_path(&l->paths, path, sizeof path, err,
									   sizeof err) == 0 &&
	    spool_open(path, &l->spool, err, sizeof err) == 0)
		return 0;
	log_error(NULL, "relay link: %s", err);
	snprintf(why, sizeof why, "svc-alerts cannot open its spool: %.400s", err);
	set_phase(l, LINK_NEVER_STARTED, why);
	return -1;
}

void link_run(struct hb_task *task, void *arg)
{
	struct link l = { .task = task, .shared = arg, .broker = hb_task_socket(task) };
	int broker_fd = -1;
	size_t fdlen = sizeof broker_fd;

	l.ping_ms = hb_tunable(HB_T_ALERTS_PING_MS);
	l.pong_ms = hb_tunable(HB_T_ALERTS_PONG_MS);
	l.ready_ms = hb_tunable(HB_T_ALERTS_READY_MS);
	l.backoff_base_ms = l.backoff_ms = hb_tunable(HB_T_ALERTS_BACKOFF_MS);
	l.backoff_cap_ms = hb_tunable(HB_T_ALERTS_BACKOFF_CAP_MS);
	l.restarts_seen = link_state_restarts(l.shared);
	(void)open_spool(&l);
	set_phase(&l, LINK_NEVER_STARTED, l.error);
	if (!(l.cards = phone_cards_new()))
		log_error(NULL, "relay link: out of memory: approval cards are not shown on the phone");
	/* ZMQ_FD says only that the socket's state changed: each turn reads
	 * the socket to its end before it sleeps. */
	if (l.cards && zmq_getsockopt(l.broker, ZMQ_FD, &broker_fd, &fdlen) < 0) {
		log_error(NULL, "relay link: the task's socket has no descriptor: %s", zmq_strerror(errno));
		broker_fd = -1;
	}

	while (!hb_task_stopping(task)) {
		struct pollfd fds[3] = { { hb_task_wake_fd(task), POLLIN, 0 }, { -1, 0, 0 }, { broker_fd, POLLIN, 0 } };
		long long now = hb_monotonic_ms();
		int n;

		if (l.cards)
			phone_cards_from_broker(l.cards, l.broker, on_other, &l);
		steer(&l, now);
		if (l.ws)
			check_timers(&l, now);
		/* the cards first: a person waits on them, an alert waits on nobody */
		if (l.ws && l.phase == LINK_READY && l.cards)
			send_cards(&l, now);
		if (l.ws && l.phase == LINK_READY)
			send_spooled(&l, now);
		if (l.ws) {
			fds[1].fd = ws_fd(l.ws);
			fds[1].events = POLLIN | (ws_want_write(l.ws) ? POLLOUT : 0);
		}
		n = poll(fds, 3, next_timeout(&l, hb_monotonic_ms()));
		if (n < 0 && errno != EINTR) {
			log_error(NULL, "relay link: poll: %s", strerror(errno));
			break;
		}
		if (n < 0)
			continue;
		if (fds[0].revents)
			hb_task_drain_wake(task);
		/* a link over already has no socket to poll */
		if (l.ws && (fds[1].revents || fds[1].fd < 0))
			on_socket(&l, fds[1].revents, hb_monotonic_ms());
	}
	link_config_unwatch(l.watch);
	if (l.ws) {
		/* a goodbye the relay may read; the spool keeps what was not
		 * acknowledged for the next incarnation */
		if (ws_close(l.ws, 1000, "going away") == 0)
			(void)ws_on_writable(l.ws);
	}
	close_link(&l);
	spool_close(l.spool);
	phone_cards_free(l.cards);
}
