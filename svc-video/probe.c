/*
 * probe - the HEAD request and what each answer means for the user.  The
 * request carries no key and no cookie: it is exactly what any stranger
 * (and Gemini) would get from that server.
 */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "netaddr.h"
#include "url.h"
#include "youtube.h"

/* The address of each connection: public, or (tests only) the one
 * loopback port of the fake web server. */
struct guard {
	int loopback_port;
	char *refused;
	size_t refused_len;
};

static int address_ok(void *arg, const struct sockaddr *sa, size_t len)
{
	struct guard *g = arg;
	enum hb_netaddr_class c = hb_netaddr_classify(sa, len);

	if (c == HB_NETADDR_PUBLIC ||
	    (c == HB_NETADDR_LOOPBACK && g->loopback_port > 0 && hb_netaddr_port(sa, len) == g->loopback_port))
		return 1;
	hb_netaddr_format(sa, len, g->refused, g->refused_len);
	return 0;
}

int video_probe_check_address(const char *url, int loopback_http, char *err, size_t errlen)
{
	struct hb_url u;

	if (hb_url_parse(url, &u) < 0 || (!hb_url_scheme_is(&u, "https") && !hb_url_scheme_is(&u, "http"))) {
		snprintf(err, errlen, "\"%.200s\" is not a web address: video_url takes a public https link to a "
			 "video file", url);
		return -1;
	}
	if (u.userinfo) {
		snprintf(err, errlen, "the video URL carries a user name or password (\"...@\"); Gemini only fetches "
			 "public links, without login");
		return -1;
	}
	if (youtube_is_host(u.host, u.host_len)) {
		snprintf(err, errlen, "this is a YouTube link: pass it as youtube_url");
		return -1;
	}
	if (!hb_url_scheme_is(&u, "https") && !(loopback_http && hb_url_host_is_loopback(&u))) {
		snprintf(err, errlen, "the video URL must use https, as Gemini requires (not %.*s)", (int)u.scheme_len,
			 u.scheme);
		return -1;
	}
	return 0;
}

/* The meaning of a status that is neither a success nor a redirect. */
static void refused(long status, const char *url, char *err, size_t errlen)
{
	const char *why;

	switch (status) {
	case 401:
	case 403:
	case 407:
		why = "is private: the server asks for a login or refuses access, and Gemini only fetches public "
		      "links";
		break;
	case 404:
	case 410:
		why = "is unreachable: the server has no such file";
		break;
	case 405:
	case 501:
		why = "is ambiguous: the server does not answer a HEAD request, so the video's type cannot be "
		      "learned (there is no fallback to downloading it)";
		break;
	case 429:
		why = "is unreachable for now: the server refuses requests (too many)";
		break;
	default:
		why = status >= 500 ? "is unreachable: the server failed" : "is unusable: the server refused the request";
	}
	snprintf(err, errlen, "the video URL %.300s %s (HTTP %ld)", url, why, status);
}

/* The type and length of a 2xx answer; -1 with err when it is no video
 * Gemini reads. */
static int judge(const struct hb_http_response *rs, const char *url, struct video_probed *out, char *err,
		 size_t errlen)
{
	const char *type = rs->captured[0], *gemini;
	char mime[VIDEO_MIME_MAX];

	out->length = rs->captured[1][0] ? strtoll(rs->captured[1], NULL, 10) : -1;
	if (!type[0] || video_mime_normalize(type, mime, sizeof mime) < 0) {
		snprintf(err, errlen, "the video URL %.300s is ambiguous: its server does not say what type the file "
			 "is (no Content-Type), so Gemini could not be told either", url);
		return -1;
	}
	if (strcmp(mime, "application/octet-stream") == 0 || strcmp(mime, "binary/octet-stream") == 0) {
		snprintf(err, errlen, "the video URL %.300s is ambiguous: its server sends it as %s, which could be any "
			 "file; Gemini needs one of the video types: %s", url, mime, video_mime_list());
		return -1;
	}
	if (!(gemini = video_mime_supported(mime))) {
		snprintf(err, errlen, "the video URL %.300s is %s%s; Gemini reads only %s", url, mime,
			 strncmp(mime, "text/html", 9) == 0 ? " (a web page, not the video file: link the file itself)"
			 : strncmp(mime, "video/", 6) != 0 ? ", not a video"
							   : ", a video type Gemini does not read",
			 video_mime_list());
		return -1;
	}
	if (out->length > VIDEO_URL_MAX_BYTES) {
		snprintf(err, errlen, "the video at %.300s is %lld MB; Gemini fetches at most 100 MB from a URL "
			 "(use local_file for a larger recording)", url, out->length / 1000000);
		return -1;
	}
	snprintf(out->mime, sizeof out->mime, "%s", gemini);
	return 0;
}

enum video_probe_result video_probe_url(const struct video_probe *p, struct video_probed *out, char *err,
					size_t errlen)
{
	static const char *const capture[] = { "content-type", "content-length", NULL };
	struct guard guard = { .loopback_port = p->loopback_port, .refused = out->refused,
			       .refused_len = sizeof out->refused };
	struct hb_http_request rq = { .method = "HEAD", .capture = capture, .connect_timeout_ms = p->connect_timeout_ms,
				      .timeout_ms = p->timeout_ms, .max_answer = 65536, .cancelled = p->cancelled,
				      .cancel_arg = p->cancel_arg, .address_ok = address_ok, .address_arg = &guard };
	struct hb_http_response rs;

	memset(out, 0, sizeof *out);
	snprintf(out->url, sizeof out->url, "%s", p->url);
	for (int hop = 0;; hop++) {
		enum hb_http_result r;
		int redirect;

		if (video_probe_check_address(out->url, p->loopback_port > 0, err, errlen) < 0)
			return PROBE_FAILED;
		rq.url = out->url;
		r = hb_http_perform(&rq, &rs);
		if (r == HB_HTTP_CANCELLED)
			return PROBE_CANCELLED;
		if (r == HB_HTTP_REFUSED) {
			snprintf(err, errlen, "%s", VIDEO_URL_LOCAL);
			return PROBE_FAILED;
		}
		if (r != HB_HTTP_ANSWERED) {
			snprintf(err, errlen, "the video URL %.300s is unreachable: %s", out->url,
				 r == HB_HTTP_TIMEOUT ? "its server did not answer in time" : rs.error);
			return PROBE_FAILED;
		}
		hb_http_response_free(&rs);
		redirect = rs.status == 301 || rs.status == 302 || rs.status == 303 || rs.status == 307 ||
			   rs.status == 308;
		if (redirect && !rs.redirect[0]) {
			snprintf(err, errlen, "the video URL %.300s redirects (HTTP %ld) without saying where", out->url,
				 rs.status);
			return PROBE_FAILED;
		}
		if (redirect && hop >= VIDEO_MAX_REDIRECTS) {
			snprintf(err, errlen, "the video URL %.300s is unreachable: more than %d redirects", p->url,
				 VIDEO_MAX_REDIRECTS);
			return PROBE_FAILED;
		}
		if (redirect) {
			snprintf(out->url, sizeof out->url, "%s", rs.redirect);
			continue;
		}
		if (rs.status < 200 || rs.status > 299) {
			refused(rs.status, out->url, err, errlen);
			return PROBE_FAILED;
		}
		return judge(&rs, out->url, out, err, errlen) < 0 ? PROBE_FAILED : PROBE_OK;
	}
}
