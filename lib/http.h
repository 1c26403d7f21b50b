/*
 * http - one blocking libcurl transfer on the calling thread: the request
 * as data, the answer in memory (hb_http_perform) or handed to the
 * caller's sink piece by piece as it arrives (hb_http_stream), the headers
 * a caller asked to keep, and an early end when the caller's cancel test
 * says so (polled from libcurl's progress callback).
 *
 * The one place that drives libcurl, for the Gemini client (gemini.c,
 * which adds the key), svc-speech's streamed generateContent (fetch.c),
 * svc-browser's /json/version and svc-video's look at a public video URL
 * (a HEAD without any key).  Both calls share one setup, so the request
 * rules, timeouts and error sentences are the same whichever is used.
 * Redirects are never followed here: a caller that follows one checks
 * the new address first.  A caller that must not reach some addresses
 * judges each one libcurl is about to connect to (address_ok), whatever
 * the URL's spelling of the host.  Every header
 * line handed to libcurl is zeroed once the transfer ends, so a key in one
 * leaves no copy behind.
 */
#ifndef HB_HTTP_H
#define HB_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#define HB_HTTP_MAX_CAPTURE 3
#define HB_HTTP_HEADER_MAX 1024
#define HB_HTTP_ERROR_MAX 256  /* libcurl's CURL_ERROR_SIZE */

struct hb_http_request {
	const char *method;            /* GET, HEAD, POST or DELETE */
	const char *url;
	const char *const *headers;    /* header lines, NULL-terminated; may be NULL */
	const void *body;              /* the POST body (NULL: empty) */
	size_t body_len;
	const char *const *capture;    /* response headers to keep, NULL-terminated */
	long connect_timeout_ms;
	long timeout_ms;               /* the whole transfer */
	size_t max_answer;             /* a longer answer ends the transfer */
	long recv_buffer;              /* libcurl's receive buffer in bytes; 0: its default (16 KiB) */
	int (*cancelled)(void *arg);   /* nonzero: abort now; may be NULL */
	void *cancel_arg;
	/* Asked before every connection, with the numeric address libcurl
	 * resolved (each of a name's addresses it tries); 0 refuses that one.
	 * NULL: any address.  A request that sets it goes to no proxy, so the
	 * address judged is the server's own. */
	int (*address_ok)(void *arg, const struct sockaddr *sa, size_t len);
	void *address_arg;
};

enum hb_http_result {
	HB_HTTP_ANSWERED,   /* a status came (any status) */
	HB_HTTP_CANCELLED,
	HB_HTTP_TIMEOUT,
	HB_HTTP_TOO_LARGE,
	HB_HTTP_BROKEN,     /* retrying cannot help: a bad URL, TLS refused, no memory */
	HB_HTTP_NETWORK,    /* no answer this time (refused, reset, no such host) */
	HB_HTTP_REFUSED,    /* address_ok refused an address and no other one answered */
};

struct hb_http_response {
	long status;
	char *body;                    /* malloc'd and NUL-terminated, or NULL when empty */
	size_t len;
	/* The values of request.capture, "" when absent (of the last
	 * response: a "100 Continue" before it does not count). */
	char captured[HB_HTTP_MAX_CAPTURE][HB_HTTP_HEADER_MAX];
	char redirect[HB_HTTP_HEADER_MAX]; /* a 3xx's Location, made absolute */
	char error[HB_HTTP_ERROR_MAX];       /* libcurl's words when there was no answer */
};

/* Where hb_http_stream puts the body: fn is given each piece as it
 * arrives, with the answer's status (any status; the same for every piece
 * of one answer).  It returns n to go on; anything else ends the transfer
 * at once, and the call still reports HB_HTTP_ANSWERED, since the status
 * came: the sink knows why it stopped. */
struct hb_http_sink {
	size_t (*fn)(void *arg, long status, const void *data, size_t n);
	void *arg;
};

/* A connection kept from one hb_http_stream to the next (libcurl's handle:
 * its open connection, TLS session and DNS answers; none of a request's
 * options).  One thread's at a time. */
struct hb_http_conn;

/* libcurl's global set-up and clean-up, which must run while the process
 * has one thread: a service's pre_init and at_exit hooks (service.h). */
int hb_http_global_init(void);
void hb_http_global_cleanup(void);

enum hb_http_result hb_http_perform(const struct hb_http_request *rq, struct hb_http_response *rs);
void hb_http_response_free(struct hb_http_response *rs);

/* hb_http_perform with the body going to sink instead of rs->body (which
 * stays NULL; rs->len counts the bytes the sink took).  conn NULL: a
 * connection for this request only. */
enum hb_http_result hb_http_stream(struct hb_http_conn *conn, const struct hb_http_request *rq,
				   const struct hb_http_sink *sink, struct hb_http_response *rs);
/* NULL when out of memory. */
struct hb_http_conn *hb_http_conn_new(void);
void hb_http_conn_free(struct hb_http_conn *conn); /* NULL: nothing */

#endif
