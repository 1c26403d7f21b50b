/*
 * pagelog - each tab's console and requests since its page was opened or
 * last navigated (pagelog.h says why they are not in cdp.c's ring).
 *
 * The entries are made here, as the events come, in the form the
 * actions show: a console message's text from its arguments (strings as
 * they are, other values as Chrome previews them), an exception's
 * description with its stack, a request's hops (a redirect is an entry of
 * its own, as the Network panel shows it).  A new page is the main
 * frame's Page.frameNavigated: everything before it goes but the request
 * that loaded the new page (its requestId is the frame's loaderId).  The
 * response headers that carry credentials (cookies, authorization) are
 * never kept: an agent reads a page's requests, not the user's sessions.
 *
 * Locking: pagelog_event runs on cdp.c's reader thread under the
 * connection's lock and takes this log's own; the readers take only this
 * one, so the order is always the connection's first.
 */
#include "pagelog.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "utf8.h"

#define HEADERS_MAX 8000   /* bytes of a response's headers kept */
#define WHERE_URL_MAX 300  /* bytes of a source location's url */

struct tablog {
	char session[64];
	json_t *console;          /* array of entries, oldest first */
	unsigned long console_dropped;
	json_t *requests;         /* array of entries, oldest first */
	json_t *by_request_id;    /* Chrome's requestId -> its newest entry */
	unsigned long requests_dropped;
	long next_id;
	struct tablog *next;
};

struct pagelog {
	pthread_mutex_t lock;
	struct tablog *tabs;
};

static const char *const redacted_headers[] = { "set-cookie", "cookie", "authorization", "proxy-authorization",
						NULL };

struct pagelog *pagelog_new(void)
{
	struct pagelog *l = calloc(1, sizeof *l);

	if (l && pthread_mutex_init(&l->lock, NULL) != 0) {
		free(l);
		return NULL;
	}
	return l;
}

static void tablog_free(struct tablog *t)
{
	json_decref(t->console);
	json_decref(t->requests);
	json_decref(t->by_request_id);
	free(t);
}

void pagelog_free(struct pagelog *l)
{
	if (!l)
		return;
	while (l->tabs) {
		struct tablog *t = l->tabs;

		l->tabs = t->next;
		tablog_free(t);
	}
	pthread_mutex_destroy(&l->lock);
	free(l);
}

int pagelog_only(const char *method)
{
	return strcmp(method, "Runtime.consoleAPICalled") == 0 || strcmp(method, "Runtime.exceptionThrown") == 0 ||
	       strcmp(method, "Log.entryAdded") == 0;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Under the lock: the session's record; made when make (NULL when out
 * of memory or not made). */
static struct tablog *tab_of(struct pagelog *l, const char *session, int make)
{
	struct tablog *t;

	for (t = l->tabs; t; t = t->next)
		if (strcmp(t->session, session) == 0)
			return t;
	if (!make || strlen(session) >= sizeof t->session || !(t = calloc(1, sizeof *t)))
		return NULL;
	snprintf(t->session, sizeof t->session, "%s", session);
	t->console = json_array();
	t->requests = json_array();
	t->by_request_id = json_object();
	t->next_id = 1;
	if (!t->console || !t->requests || !t->by_request_id) {
		tablog_free(t);
		return NULL;
	}
	t->next = l->tabs;
	l->tabs = t;
	return t;
}

static void drop_tab(struct pagelog *l, const char *session)
{
	for (struct tablog **pp = &l->tabs; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->session, session) == 0) {
			struct tablog *t = *pp;

			*pp = t->next;
			tablog_free(t);
			return;
		}
}

/* ---- console ------------------------------------------------------------ */

/* A string cut to max bytes on a character's boundary (it came from JSON,
 * so it is UTF-8), with "…" when cut. */
static json_t *cut_string(const char *s, size_t max)
{
	size_t len = strlen(s), keep;
	json_t *j;
	char *buf;

	if (len <= max)
		return json_string(s);
	keep = hb_utf8_fit(s, len, max, max);
	if (!(buf = malloc(keep + 4)))
		return NULL;
	memcpy(buf, s, keep);
	memcpy(buf + keep, "\xe2\x80\xa6", 4);
	j = json_string(buf);
	free(buf);
	return j;
}

/* A value of Chrome's preview ({name, type, value, subtype}). */
static void put_preview_value(FILE *f, const json_t *p)
{
	const char *type = str(p, "type"), *value = str(p, "value");

	if (type && strcmp(type, "string") == 0)
		fprintf(f, "\"%s\"", value ? value : "");
	else
		fputs(value ? value : type ? type : "?", f);
}

/* An object as Chrome previews it: {a: 1, b: "x"} or [1, 2, …]. */
static void put_preview(FILE *f, const json_t *preview)
{
	int array = str(preview, "subtype") && strcmp(str(preview, "subtype"), "array") == 0;
	const json_t *props = json_object_get(preview, "properties"), *p;
	size_t i;

	fputs(array ? "[" : "{", f);
	json_array_foreach(props, i, p) {
		fputs(i ? ", " : "", f);
		if (!array)
			fprintf(f, "%s: ", str(p, "name") ? str(p, "name") : "?");
		put_preview_value(f, p);
	}
	if (json_is_true(json_object_get(preview, "overflow")))
		fputs(json_array_size(props) ? ", \xe2\x80\xa6" : "\xe2\x80\xa6", f);
	fputs(array ? "]" : "}", f);
}

/* One of a message's values (a RemoteObject) as the console shows it. */
static void put_remote(FILE *f, const json_t *o)
{
	const char *type = str(o, "type"), *sub = str(o, "subtype");
	const json_t *value = json_object_get(o, "value"), *preview = json_object_get(o, "preview");

	if (json_is_string(value)) {
		fputs(json_string_value(value), f);
	} else if (type && strcmp(type, "undefined") == 0) {
		fputs("undefined", f);
	} else if (str(o, "unserializableValue")) {
		fputs(str(o, "unserializableValue"), f);
	} else if (preview && (!sub || (strcmp(sub, "error") != 0 && strcmp(sub, "null") != 0))) {
		put_preview(f, preview);
	} else if (str(o, "description")) {
		fputs(str(o, "description"), f);
	} else if (value) {
		char *s = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);

		fputs(s ? s : "?", f);
		free(s);
	} else {
		fputs(type ? type : "?", f);
	}
}

/* "URL:LINE:COLUMN" (1-based, as people count) into where; "" when the
 * url is not known. */
static void where_of(const char *url, const json_t *line, const json_t *column, char *where, size_t wherelen)
{
	where[0] = '\0';
	if (!url || !*url)
		return;
	if (json_is_integer(line) && json_is_integer(column))
		snprintf(where, wherelen, "%.*s:%lld:%lld", WHERE_URL_MAX, url, (long long)json_integer_value(line) + 1,
			 (long long)json_integer_value(column) + 1);
	else if (json_is_integer(line))
		snprintf(where, wherelen, "%.*s:%lld", WHERE_URL_MAX, url, (long long)json_integer_value(line) + 1);
	else
		snprintf(where, wherelen, "%.*s", WHERE_URL_MAX, url);
}

static void where_of_stack(const json_t *stack, char *where, size_t wherelen)
{
	const json_t *top = json_array_get(json_object_get(stack, "callFrames"), 0);

	where_of(str(top, "url"), json_object_get(top, "lineNumber"), json_object_get(top, "columnNumber"), where,
		 wherelen);
}

/* Under the lock: a console entry (taken) at the end, the oldest going
 * past the bound. */
static void add_console(struct tablog *t, json_t *entry)
{
	if (!entry || json_array_append_new(t->console, entry) < 0)
		return;
	while (json_array_size(t->console) > PAGELOG_CONSOLE_KEEP) {
		json_array_remove(t->console, 0);
		t->console_dropped++;
	}
}

/* An entry {level, source?, text (cut), where?}; NULL when out of
 * memory. */
static json_t *console_entry(const char *level, const char *source, const char *text, const char *where)
{
	json_t *e = json_pack("{s:s, s:o}", "level", level, "text", cut_string(text ? text : "", PAGELOG_TEXT_MAX));

	if (e && source)
		json_object_set_new(e, "source", json_string(source));
	if (e && *where)
		json_object_set_new(e, "where", json_string(where));
	return e;
}

static void on_console_api(struct tablog *t, const json_t *params)
{
	const json_t *args = json_object_get(params, "args"), *arg;
	char *text = NULL, where[WHERE_URL_MAX + 64];
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	json_array_foreach(args, i, arg) {
		fputs(i ? " " : "", f);
		put_remote(f, arg);
		if (ftell(f) > PAGELOG_TEXT_MAX)
			break;
	}
	if (fclose(f) != 0) {
		free(text);
		return;
	}
	where_of_stack(json_object_get(params, "stackTrace"), where, sizeof where);
	add_console(t, console_entry(str(params, "type") ? str(params, "type") : "log", NULL, text, where));
	free(text);
}

static void on_exception(struct tablog *t, const json_t *params)
{
	const json_t *d = json_object_get(params, "exceptionDetails"), *exc = json_object_get(d, "exception");
	char *text = NULL, where[WHERE_URL_MAX + 64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	/* "Uncaught" and the value thrown: an Error's description holds its
	 * message and stack */
	fputs(str(d, "text") ? str(d, "text") : "Uncaught", f);
	if (exc) {
		fputs(" ", f);
		put_remote(f, exc);
	}
	if (fclose(f) != 0) {
		free(text);
		return;
	}
	where_of(str(d, "url"), json_object_get(d, "lineNumber"), json_object_get(d, "columnNumber"), where,
		 sizeof where);
	if (!where[0])
		where_of_stack(json_object_get(d, "stackTrace"), where, sizeof where);
	/* an Error's stack names it already */
	add_console(t, console_entry("exception", NULL, text, strstr(text, where) ? "" : where));
	free(text);
}

/* A message of the browser itself: a failed load, a violation, a
 * deprecation. */
static void on_log_entry(struct tablog *t, const json_t *params)
{
	const json_t *e = json_object_get(params, "entry");
	char where[WHERE_URL_MAX + 64];

	where_of(str(e, "url"), json_object_get(e, "lineNumber"), NULL, where, sizeof where);
	add_console(t, console_entry(str(e, "level") ? str(e, "level") : "info", str(e, "source") ? str(e, "source") : "other",
				     str(e, "text") ? str(e, "text") : "", where));
}

/* ---- network ------------------------------------------------------------ */

static void add_request(struct tablog *t, const char *request_id, json_t *entry)
{
	if (!entry || json_array_append(t->requests, entry) < 0) {
		json_decref(entry);
		return;
	}
	json_object_set_new(t->by_request_id, request_id, entry);
	while (json_array_size(t->requests) > PAGELOG_REQUESTS_KEEP) {
		json_t *old = json_array_get(t->requests, 0);
		const char *rid = str(old, "requestId");

		if (rid && json_object_get(t->by_request_id, rid) == old)
			json_object_del(t->by_request_id, rid);
		json_array_remove(t->requests, 0);
		t->requests_dropped++;
	}
}

static int redacted(const char *name)
{
	for (int i = 0; redacted_headers[i]; i++)
		if (strcasecmp(name, redacted_headers[i]) == 0)
			return 1;
	return 0;
}

/* A response's status, type and headers into entry. */
static void set_response(json_t *entry, const json_t *response)
{
	const json_t *headers = json_object_get(response, "headers"), *status = json_object_get(response, "status");
	const json_t *value;
	json_t *kept = json_object();
	size_t bytes = 0;
	const char *name;

	if (json_is_number(status))
		json_object_set_new(entry, "status", json_integer((json_int_t)json_number_value(status)));
	if (str(response, "statusText"))
		json_object_set_new(entry, "statusText", cut_string(str(response, "statusText"), 200));
	if (str(response, "mimeType"))
		json_object_set_new(entry, "mimeType", cut_string(str(response, "mimeType"), 200));
	if (!kept)
		return;
	json_object_foreach((json_t *)headers, name, value) {
		const char *v = redacted(name) ? "(not shown: it carries credentials)" : json_string_value(value);

		if (!v)
			continue;
		bytes += strlen(name) + strlen(v) + 4;
		if (bytes > HEADERS_MAX) {
			json_object_set_new(entry, "headersCut", json_true());
			break;
		}
		json_object_set_new(kept, name, json_string(v));
	}
	json_object_set_new(entry, "headers", kept);
}

static void on_request(struct tablog *t, const json_t *params)
{
	const char *rid = str(params, "requestId"), *type = str(params, "type");
	const json_t *req = json_object_get(params, "request"), *redirect = json_object_get(params, "redirectResponse");
	json_t *entry, *prev;

	if (!rid)
		return;
	/* a redirect: the hop before ends here, with the redirect's status */
	if (redirect && (prev = json_object_get(t->by_request_id, rid))) {
		set_response(prev, redirect);
		json_object_set_new(prev, "state", json_string("redirected"));
	}
	entry = json_pack("{s:I, s:s, s:s, s:o, s:s}", "id", (json_int_t)t->next_id++, "requestId", rid, "method",
			  str(req, "method") ? str(req, "method") : "GET", "url",
			  cut_string(str(req, "url") ? str(req, "url") : "", PAGELOG_URL_MAX), "state", "pending");
	if (entry && type)
		json_object_set_new(entry, "type", json_string(type));
	add_request(t, rid, entry);
}

static void on_response(struct tablog *t, const json_t *params)
{
	json_t *entry = json_object_get(t->by_request_id, str(params, "requestId") ? str(params, "requestId") : "");

	if (!entry)
		return;
	set_response(entry, json_object_get(params, "response"));
	if (str(params, "type"))
		json_object_set_new(entry, "type", json_string(str(params, "type")));
}

static void on_finished(struct tablog *t, const json_t *params, int failed)
{
	json_t *entry = json_object_get(t->by_request_id, str(params, "requestId") ? str(params, "requestId") : "");
	const json_t *size = json_object_get(params, "encodedDataLength");

	if (!entry)
		return;
	json_object_set_new(entry, "state", json_string(failed ? "failed" : "done"));
	if (!failed && json_is_number(size))
		json_object_set_new(entry, "size", json_integer((json_int_t)json_number_value(size)));
	if (failed && str(params, "errorText"))
		json_object_set_new(entry, "error", cut_string(str(params, "errorText"), 300));
	if (failed && json_is_true(json_object_get(params, "canceled")))
		json_object_set_new(entry, "error", json_string("canceled"));
}

/* The main frame committed a new page: what the old one did goes, but
 * the request that loaded the new one. */
static void on_navigated(struct tablog *t, const json_t *params)
{
	const json_t *frame = json_object_get(params, "frame");
	const char *loader = str(frame, "loaderId");
	json_t *doc = loader ? json_incref(json_object_get(t->by_request_id, loader)) : NULL;

	if (!frame || json_object_get(frame, "parentId"))
		return;
	json_array_clear(t->console);
	json_array_clear(t->requests);
	json_object_clear(t->by_request_id);
	t->console_dropped = t->requests_dropped = 0;
	if (doc && json_array_append(t->requests, doc) == 0)
		json_object_set(t->by_request_id, loader, doc);
	json_decref(doc);
}

void pagelog_event(struct pagelog *l, const char *session, const char *method, const json_t *params)
{
	struct tablog *t;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	if (strcmp(method, "Target.detachedFromTarget") == 0 && str(params, "sessionId")) {
		drop_tab(l, str(params, "sessionId"));
	} else if (*session && (strncmp(method, "Network.", 8) == 0 || strncmp(method, "Runtime.", 8) == 0 ||
				strcmp(method, "Log.entryAdded") == 0 || strcmp(method, "Page.frameNavigated") == 0) &&
		   (t = tab_of(l, session, 1))) {
		if (strcmp(method, "Runtime.consoleAPICalled") == 0)
			on_console_api(t, params);
		else if (strcmp(method, "Runtime.exceptionThrown") == 0)
			on_exception(t, params);
		else if (strcmp(method, "Log.entryAdded") == 0)
			on_log_entry(t, params);
		else if (strcmp(method, "Network.requestWillBeSent") == 0)
			on_request(t, params);
		else if (strcmp(method, "Network.responseReceived") == 0)
			on_response(t, params);
		else if (strcmp(method, "Network.loadingFinished") == 0)
			on_finished(t, params, 0);
		else if (strcmp(method, "Network.loadingFailed") == 0)
			on_finished(t, params, 1);
		else if (strcmp(method, "Page.frameNavigated") == 0)
			on_navigated(t, params);
	}
	pthread_mutex_unlock(&l->lock);
}

/* A deep copy of the session's console or requests (an empty array for
 * a session that sent nothing yet), with the count dropped. */
static json_t *copy_of(struct pagelog *l, const char *session, int requests, unsigned long *dropped)
{
	struct tablog *t;
	json_t *copy;

	pthread_mutex_lock(&l->lock);
	t = tab_of(l, session, 0);
	*dropped = t ? (requests ? t->requests_dropped : t->console_dropped) : 0;
	copy = t ? json_deep_copy(requests ? t->requests : t->console) : json_array();
	pthread_mutex_unlock(&l->lock);
	return copy;
}

json_t *pagelog_console(struct pagelog *l, const char *session, unsigned long *dropped)
{
	return copy_of(l, session, 0, dropped);
}

json_t *pagelog_requests(struct pagelog *l, const char *session, unsigned long *dropped)
{
	return copy_of(l, session, 1, dropped);
}

json_t *pagelog_request(struct pagelog *l, const char *session, long id)
{
	struct tablog *t;
	json_t *found = NULL, *e;
	size_t i;

	pthread_mutex_lock(&l->lock);
	if ((t = tab_of(l, session, 0)))
		json_array_foreach(t->requests, i, e)
			if (json_integer_value(json_object_get(e, "id")) == id) {
				found = json_deep_copy(e);
				break;
			}
	pthread_mutex_unlock(&l->lock);
	return found;
}
