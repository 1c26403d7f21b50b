/*
 * url - the parts of an absolute URL, found in place, and the one rule on
 * where plain http may go.
 *
 * Shared by the Gemini client (its base URL, the upload URL Gemini hands
 * back) and svc-video (YouTube links, public video URLs), so that every
 * URL the tools send anything to is read by the same code.  Only what
 * those callers need: no percent-decoding, no relative references, and
 * anything with blanks, control or non-ASCII bytes is refused outright.
 */
#ifndef HB_URL_H
#define HB_URL_H

#include <stddef.h>

struct hb_url {
	const char *scheme, *host, *path, *query, *fragment;  /* into the text */
	size_t scheme_len, host_len, path_len, query_len, fragment_len;
	int has_query, has_fragment;  /* a '?' / '#' was there, even if empty */
	int userinfo;                 /* "user@" before the host */
	long port;                    /* -1 when not written */
};

/* scheme://[user@]host[:port][/path][?query][#fragment]; an IPv6 host
 * keeps its brackets.  0, or -1 when url is not such a URL. */
int hb_url_parse(const char *url, struct hb_url *u);
/* Case-insensitive comparisons of the scheme and the host. */
int hb_url_scheme_is(const struct hb_url *u, const char *scheme);
int hb_url_host_is(const struct hb_url *u, const char *host);
/* This machine by name or address: 127.0.0.1, [::1], localhost. */
int hb_url_host_is_loopback(const struct hb_url *u);
/* https, or plain http to a loopback host: where a secret may travel. */
int hb_url_transport_ok(const struct hb_url *u);
/* Same scheme, host and port (the default port written or not). */
int hb_url_same_origin(const char *a, const char *b);

#endif
