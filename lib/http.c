/*
 * http - the libcurl side of hb_http_perform and hb_http_stream: one
 * setup and one outcome for both (run), which differ only in where the
 * body goes and whose handle carries it.  Options are set in one
 * table-like run so that a refused option is one error, not a silent
 * default.
 */
#include "http.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Static_assert(HB_HTTP_ERROR_MAX >= CURL_ERROR_SIZE, "libcurl's error buffer must fit");

struct hb_http_conn {
	CURL *curl;
};

struct transfer {
	CURL *curl;
	const struct hb_http_request *rq;
	struct hb_http_response *rs;
	const struct hb_http_sink *sink; /* NULL: the body is kept in rs */
	size_t cap;
	int too_large;
	int refused;     /* address_ok said no to an address */
	int stopped;     /* the sink ended the transfer: it is still an answer */
	int lost_status; /* a body came without a status we could read */
};

/* The body in memory, for hb_http_perform. */
static size_t keep(struct transfer *t, const char *data, size_t n)
{
	struct hb_http_response *rs = t->rs;

	if (rs->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		char *d;
		while (cap < rs->len + n + 1)
			cap *= 2;
		if (!(d = realloc(rs->body, cap)))
			return 0;
		rs->body = d;
		t->cap = cap;
	}
	memcpy(rs->body + rs->len, data, n);
	rs->len += n;
	rs->body[rs->len] = '\0';
	return n;
}

/* The body to the sink; its status is read at the first piece, as the
 * sink is told it with each one. */
static size_t pass_on(struct transfer *t, const char *data, size_t n)
{
	struct hb_http_response *rs = t->rs;

	if (rs->status == 0 &&
	    (curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &rs->status) != CURLE_OK || rs->status == 0)) {
		rs->status = 0;
		t->lost_status = t->stopped = 1;
		return 0;
	}
	if (t->sink->fn(t->sink->arg, rs->status, data, n) != n) {
		t->stopped = 1;
		return 0; /* not the sink's value: CURL_WRITEFUNC_PAUSE is one libcurl would obey */
	}
	rs->len += n;
	return n;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t n = size * nmemb;

	if (t->rs->len + n > t->rq->max_answer) {
		t->too_large = 1;
		return 0; /* libcurl ends the transfer with a write error */
	}
	return t->sink ? pass_on(t, data, n) : keep(t, data, n);
}

/* Keep the headers the caller named; a new status line (after a
 * "100 Continue") starts the set again. */
static size_t on_header(char *line, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t n = size * nmemb;

	if (n >= 5 && strncmp(line, "HTTP/", 5) == 0) {
		memset(t->rs->captured, 0, sizeof t->rs->captured);
		return n;
	}
	for (int i = 0; t->rq->capture && t->rq->capture[i] && i < HB_HTTP_MAX_CAPTURE; i++) {
		size_t k = strlen(t->rq->capture[i]), v, e;
		if (n <= k || line[k] != ':' || strncasecmp(line, t->rq->capture[i], k) != 0)
			continue;
		for (v = k + 1; v < n && (line[v] == ' ' || line[v] == '\t'); v++)
			;
		for (e = n; e > v && (line[e - 1] == '\r' || line[e - 1] == '\n' || line[e - 1] == ' '); e--)
			;
		if (e - v < HB_HTTP_HEADER_MAX) {
			memcpy(t->rs->captured[i], line + v, e - v);
			t->rs->captured[i][e - v] = '\0';
		}
	}
	return n;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const struct hb_http_request *rq = ((struct transfer *)arg)->rq;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return rq->cancelled && rq->cancelled(rq->cancel_arg) ? 1 : 0;
}

/* libcurl opens every socket here, once it knows the numeric address
 * it will connect to: the only point where no spelling of a host, no DNS
 * answer and no redirect can hide where the connection goes. */
static curl_socket_t on_open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct transfer *t = arg;
	curl_socket_t fd;

	if (purpose != CURLSOCKTYPE_IPCXN ||
	    !t->rq->address_ok(t->rq->address_arg, &a->addr, (size_t)a->addrlen)) {
		t->refused = 1;
		return CURL_SOCKET_BAD; /* libcurl tries the next address, if any */
	}
	fd = socket(a->family, a->socktype, a->protocol);
	if (fd >= 0)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC); /* a child process gets no connection of ours */
	return fd;
}

/* The address check, and no proxy: through one, the address checked
 * would be the proxy's and the server's would stay unknown. */
static int set_address_check(CURL *curl, struct transfer *t)
{
	if (!t->rq->address_ok)
		return 0;
	return curl_easy_setopt(curl, CURLOPT_PROXY, "") != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, on_open_socket) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, t) != CURLE_OK
		       ? -1
		       : 0;
}

static int set_method(CURL *curl, const struct hb_http_request *rq)
{
	if (strcmp(rq->method, "HEAD") == 0)
		return curl_easy_setopt(curl, CURLOPT_NOBODY, 1L) == CURLE_OK ? 0 : -1;
	if (strcmp(rq->method, "POST") == 0)
		return curl_easy_setopt(curl, CURLOPT_POSTFIELDS, rq->body ? rq->body : "") == CURLE_OK &&
			       curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len) == CURLE_OK
		       ? 0
		       : -1;
	if (strcmp(rq->method, "GET") == 0)
		return curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L) == CURLE_OK ? 0 : -1;
	return curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, rq->method) == CURLE_OK ? 0 : -1;
}

static int set_options(CURL *curl, struct transfer *t, struct curl_slist *headers)
{
	const struct hb_http_request *rq = t->rq;

	return curl_easy_setopt(curl, CURLOPT_URL, rq->url) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, rq->connect_timeout_ms) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, rq->timeout_ms) != CURLE_OK ||
			       (rq->recv_buffer > 0 &&
				curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, rq->recv_buffer) != CURLE_OK) ||
			       curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_WRITEDATA, t) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_HEADERDATA, t) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_XFERINFODATA, t) != CURLE_OK ||
			       curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, t->rs->error) != CURLE_OK ||
			       set_address_check(curl, t) < 0 || set_method(curl, rq) < 0
		       ? -1
		       : 0;
}

/* What a transfer that got no HTTP answer means. */
static enum hb_http_result failed(CURLcode rc, const struct transfer *t)
{
	if (!t->rs->error[0])
		snprintf(t->rs->error, sizeof t->rs->error, "%s", curl_easy_strerror(rc));
	if (rc == CURLE_ABORTED_BY_CALLBACK)
		return HB_HTTP_CANCELLED;
	/* Whatever else went wrong, a refused address is the reason: the
	 * caller's one answer for it then never varies with what the other
	 * addresses did. */
	if (t->refused)
		return HB_HTTP_REFUSED;
	if (t->too_large)
		return HB_HTTP_TOO_LARGE;
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return HB_HTTP_TIMEOUT;
	/* A broken URL or TLS setup stays broken; a dropped connection may not. */
	return rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT || rc == CURLE_PEER_FAILED_VERIFICATION ||
			       rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_OUT_OF_MEMORY
		       ? HB_HTTP_BROKEN
		       : HB_HTTP_NETWORK;
}

/* The header lines for libcurl; "Expect:" keeps a large POST from waiting
 * for a "100 Continue" that some servers never send. */
static struct curl_slist *header_list(const struct hb_http_request *rq)
{
	struct curl_slist *list = curl_slist_append(NULL, "Expect:"), *next;

	for (int i = 0; list && rq->headers && rq->headers[i]; i++) {
		if (!(next = curl_slist_append(list, rq->headers[i]))) {
			curl_slist_free_all(list);
			return NULL;
		}
		list = next;
	}
	return list;
}

/* One request on curl (NULL: libcurl could not make a handle), rs
 * filled from scratch. */
static enum hb_http_result run(CURL *curl, const struct hb_http_request *rq, const struct hb_http_sink *sink,
			       struct hb_http_response *rs)
{
	struct transfer t = { .curl = curl, .rq = rq, .rs = rs, .sink = sink };
	struct curl_slist *headers = header_list(rq);
	enum hb_http_result res = HB_HTTP_BROKEN;
	char *location = NULL;
	CURLcode cc;

	memset(rs, 0, sizeof *rs);
	if (!headers || !curl)
		snprintf(rs->error, sizeof rs->error, "out of memory while preparing the request");
	else if (set_options(curl, &t, headers) < 0)
		snprintf(rs->error, sizeof rs->error, "libcurl refused an option of the request");
	else if ((cc = curl_easy_perform(curl)) != CURLE_OK && !(cc == CURLE_WRITE_ERROR && t.stopped))
		res = failed(cc, &t);
	else if (t.lost_status || curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &rs->status) != CURLE_OK)
		snprintf(rs->error, sizeof rs->error, "libcurl lost the HTTP status of the answer");
	else
		res = HB_HTTP_ANSWERED;
	if (res == HB_HTTP_ANSWERED && curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK &&
	    location && strlen(location) < sizeof rs->redirect)
		memcpy(rs->redirect, location, strlen(location) + 1);
	for (struct curl_slist *h = headers; h; h = h->next) /* a key among them leaves no copy */
		memset(h->data, 0, strlen(h->data));
	curl_slist_free_all(headers);
	if (res != HB_HTTP_ANSWERED)
		hb_http_response_free(rs);
	return res;
}

/* One request on a handle of its own. */
static enum hb_http_result once(const struct hb_http_request *rq, const struct hb_http_sink *sink,
				struct hb_http_response *rs)
{
	CURL *curl = curl_easy_init();
	enum hb_http_result res = run(curl, rq, sink, rs);

	curl_easy_cleanup(curl);
	return res;
}

enum hb_http_result hb_http_perform(const struct hb_http_request *rq, struct hb_http_response *rs)
{
	return once(rq, NULL, rs);
}

enum hb_http_result hb_http_stream(struct hb_http_conn *conn, const struct hb_http_request *rq,
				   const struct hb_http_sink *sink, struct hb_http_response *rs)
{
	enum hb_http_result res;

	if (!conn)
		return once(rq, sink, rs);
	/* Options start afresh each time; the connection stays. */
	curl_easy_reset(conn->curl);
	res = run(conn->curl, rq, sink, rs);
	/* Nothing of this request (its header list, rs's error buffer) stays set. */
	curl_easy_reset(conn->curl);
	return res;
}

struct hb_http_conn *hb_http_conn_new(void)
{
	struct hb_http_conn *conn = malloc(sizeof *conn);

	if (conn && !(conn->curl = curl_easy_init())) {
		free(conn);
		conn = NULL;
	}
	return conn;
}

void hb_http_conn_free(struct hb_http_conn *conn)
{
	if (!conn)
		return;
	curl_easy_cleanup(conn->curl);
	free(conn);
}

int hb_http_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void hb_http_global_cleanup(void)
{
	curl_global_cleanup();
}

void hb_http_response_free(struct hb_http_response *rs)
{
	free(rs->body);
	rs->body = NULL;
	rs->len = 0;
}
