/*
 * server - the MCP methods of hb-mcp (server.h).
 *
 * tools/list asks the broker's catalog each time (the catalog reads the
 * settings for every request, docs/agents.md), so a list is never stale.
 * list_changed: once the client listed the tools, the settings folder is
 * watched (lib/dirwatch.h: the settings and the Gemini key are files of
 * that folder, replaced by a rename), and its descriptor is one more in
 * hb-mcp's sleep, so an idle hb-mcp wakes for nothing (issue 38).  Where
 * the system has no watch, or the folder is not there yet or went away,
 * the folder is looked at every second instead (a stat: a rename into it
 * changes its time), and a watch is tried again on each look but with
 * none on the system.  On a change the catalog is asked again, and
 * list_changed goes out only when the list is not the one the client
 * has; when the catalog does not answer (no broker now), it is asked
 * again every second until it does.
 */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "approval.h"
#include "calls.h"
#include "clock.h"
#include "dirwatch.h"
#include "jsonrpc.h"
#include "link.h"
#include "paths.h"
#include "tools.h"

static void on_event(struct mcp *m, const char *topic, const json_t *body)
{
	if (strncmp(topic, "call.", 5) == 0)
		calls_on_event(m, topic, body);
	else
		approval_on_event(m, topic, body);
}

static void on_gone(struct mcp *m, const char *why)
{
	calls_fail_all(m, why);
	approval_forget_all(m);
}

void server_init(struct mcp *m)
{
	m->hooks.reply = calls_on_reply;
	m->hooks.event = on_event;
	m->hooks.gone = on_gone;
}

json_t *server_initialize(struct mcp *m, const json_t *params)
{
	const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
	const char *name = json_string_value(json_object_get(json_object_get(params, "clientInfo"), "name"));
	const json_t *caps = json_object_get(params, "capabilities");

	snprintf(m->protocol, sizeof m->protocol, "%s", mcp_negotiate(asked));
	snprintf(m->client_name, sizeof m->client_name, "%s", name ? name : "");
	m->elicitation = json_is_object(json_object_get(caps, "elicitation")) && !m->no_elicitation;
	return json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s}, s:s}", "protocolVersion", m->protocol, "capabilities",
			 "tools", "listChanged", 1, "serverInfo", "name", MCP_NAME, "version", MCP_VERSION,
			 "instructions",
			 "The hbcode tools of HB Code (hb-broker): the user's browser, sessions, speech, video, "
			 "explainer videos and phone notifications. Agent-class calls wait for the user's approval.");
}

/* The list as MCP gives it, JSON text (malloc'd), or NULL with err. */
static char *current_listing(struct mcp *m, json_t **tools, char *err, size_t errlen)
{
	char *catalog = link_catalog(m, err, errlen), *text;

	*tools = catalog ? mcp_tools_from_catalog(catalog, err, errlen) : NULL;
	free(catalog);
	if (!*tools)
		return NULL;
	if (!(text = json_dumps(*tools, JSON_COMPACT | JSON_SORT_KEYS)))
		snprintf(err, errlen, "out of memory");
	return text;
}

/* The folder's change time as text, "" when it cannot be read. */
static void settings_stamp(char *out, size_t outlen)
{
	struct hb_paths p;
	struct stat st;
	char err[512];

	out[0] = '\0';
	if (hb_paths_resolve(&p, err, sizeof err) == 0 && stat(p.config, &st) == 0)
#ifdef __APPLE__
		snprintf(out, outlen, "%lld.%ld %lld", (long long)st.st_mtimespec.tv_sec,
			 (long)st.st_mtimespec.tv_nsec, (long long)st.st_ino);
#else
		snprintf(out, outlen, "%lld.%ld %lld", (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
			 (long long)st.st_ino);
#endif
}

/* Open the settings folder's watch if there is none: 1 when it opened. */
static int watch_settings(struct mcp *m)
{
	struct hb_paths p;
	char err[512];

	if (m->settings_watch || m->settings_unwatchable || hb_paths_resolve(&p, err, sizeof err) < 0)
		return 0;
	if ((m->settings_watch = hb_dirwatch_open(p.config)))
		return 1;
	m->settings_unwatchable = errno == ENOSYS;
	return 0;
}

static void tools_list(struct mcp *m, const json_t *id)
{
	char err[512], *text;
	json_t *tools;

	/* The watch before the catalog: no change after it goes unseen. */
	if (!m->listing) {
		(void)watch_settings(m);
		settings_stamp(m->settings_stamp, sizeof m->settings_stamp);
		m->next_settings_look = hb_monotonic_ms() + SERVER_SETTINGS_LOOK_MS;
	}
	if (!(text = current_listing(m, &tools, err, sizeof err))) {
		mcp_send(m, mcp_rpc_error(id, MCP_INTERNAL_ERROR, err));
		return;
	}
	free(m->listing);
	m->listing = text;
	mcp_send(m, mcp_rpc_result(id, json_pack("{s:o}", "tools", tools)));
}

int server_settings_fd(const struct mcp *m)
{
	/* Not before a list is given: nothing would drain it (a change
	 * until then is read with the first look after it). */
	return m->listing && m->settings_watch ? hb_dirwatch_fd(m->settings_watch) : -1;
}

int server_settings_wait_ms(const struct mcp *m)
{
	return !m->listing || (m->settings_watch && !m->settings_unread) ? -1 : SERVER_SETTINGS_LOOK_MS;
}

/* Whether the settings may have changed since the catalog was asked. */
static int settings_news(struct mcp *m, long long now)
{
	char stamp[sizeof m->settings_stamp];
	enum hb_dirwatch_news news;

	if (m->settings_watch) {
		if ((news = hb_dirwatch_drain(m->settings_watch)) == HB_DIRWATCH_OVER) {
			/* the folder went: looked at on the timer from now on */
			hb_dirwatch_close(m->settings_watch);
			m->settings_watch = NULL;
			settings_stamp(m->settings_stamp, sizeof m->settings_stamp);
		}
		if (news != HB_DIRWATCH_QUIET)
			return 1;
		return m->settings_unread && now >= m->next_settings_look;
	}
	if (now < m->next_settings_look)
		return 0;
	m->next_settings_look = now + SERVER_SETTINGS_LOOK_MS;
	if (watch_settings(m))
		return 1; /* the folder is back: what it holds now is read */
	settings_stamp(stamp, sizeof stamp);
	if (strcmp(stamp, m->settings_stamp) == 0)
		return m->settings_unread;
	memcpy(m->settings_stamp, stamp, sizeof stamp);
	return 1;
}

void server_look_at_settings(struct mcp *m)
{
	long long now = hb_monotonic_ms();
	char err[512], *text;
	json_t *tools;

	if (!m->listing || !settings_news(m, now))
		return;
	m->next_settings_look = now + SERVER_SETTINGS_LOOK_MS;
	if (!(text = current_listing(m, &tools, err, sizeof err))) {
		m->settings_unread = 1; /* no broker now: asked again on the timer */
		return;
	}
	m->settings_unread = 0;
	json_decref(tools);
	if (strcmp(text, m->listing) == 0) {
		free(text);
		return;
	}
	free(m->listing);
	m->listing = text;
	mcp_send(m, mcp_rpc_notification("notifications/tools/list_changed", NULL));
}

void server_free(struct mcp *m)
{
	hb_dirwatch_close(m->settings_watch);
	m->settings_watch = NULL;
}

static void request(struct mcp *m, const char *method, const json_t *id, const json_t *params)
{
	char why[200];

	if (strcmp(method, "initialize") == 0) {
		if (m->initialized) {
			mcp_send(m, mcp_rpc_error(id, MCP_INVALID_REQUEST, "initialize was answered already; a "
						  "connection is initialized once"));
			return;
		}
		m->initialized = 1;
		mcp_send(m, mcp_rpc_result(id, server_initialize(m, params)));
	} else if (strcmp(method, "ping") == 0) {
		mcp_send(m, mcp_rpc_result(id, json_object()));
	} else if (strcmp(method, "tools/list") == 0) {
		tools_list(m, id);
	} else if (strcmp(method, "tools/call") == 0) {
		calls_start(m, id, params);
	} else {
		snprintf(why, sizeof why, "Method not found: hb-mcp serves tools only, not %.100s", method);
		mcp_send(m, mcp_rpc_error(id, MCP_METHOD_NOT_FOUND, why));
	}
}

void server_line(struct mcp *m, const char *line, size_t len)
{
	enum mcp_kind kind;
	json_t *msg, *answer;
	const char *method;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	if (mcp_rpc_read(line, len, &msg, &kind, &answer) < 0) {
		if (answer)
			mcp_send(m, answer);
		return;
	}
	method = json_string_value(json_object_get(msg, "method"));
	if (kind == MCP_MSG_REQUEST)
		request(m, method, json_object_get(msg, "id"), json_object_get(msg, "params"));
	else if (kind == MCP_MSG_RESPONSE)
		(void)approval_on_response(m, msg);
	else if (strcmp(method, "notifications/cancelled") == 0)
		calls_cancel(m, json_object_get(json_object_get(msg, "params"), "requestId"));
	/* Other notifications (initialized, roots changed) need nothing. */
	json_decref(msg);
}
