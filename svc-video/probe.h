/*
 * probe - what a public video URL is, learned from its server's answer to
 * a HEAD request, before Gemini is asked to fetch it.  We never download
 * the video: Gemini fetches it itself, so the URL must be one Gemini can
 * reach and whose type it reads.
 *
 * There are no fallbacks: a private (401, 403, 407), unreachable (no
 * answer, 404, 410, 429, 5xx), unsupported (another type, over 100 MB)
 * or ambiguous source (no Content-Type, application/octet-stream, a
 * server that refuses HEAD) fails with a sentence that says which and
 * why.  Redirects are followed by hand, at most VIDEO_MAX_REDIRECTS, each
 * new address checked like the first; the address Gemini gets is the
 * last one, the one whose type was seen.
 *
 * Where a request may connect is decided on the numeric address of each
 * connection (lib/netaddr.h), first hop and redirects alike: public
 * addresses only.  Anything else fails with VIDEO_URL_LOCAL, before any
 * byte is sent, the same sentence for every host spelling and port, so
 * that the answers tell nothing about what listens on this computer or
 * its network.
 */
#ifndef VIDEO_PROBE_H
#define VIDEO_PROBE_H

#include <stddef.h>

#include "video_args.h"
#include "video_mime.h"

#define VIDEO_MAX_REDIRECTS 5
/* Gemini fetches at most this much from a URL (gemini.md). */
#define VIDEO_URL_MAX_BYTES (100LL * 1000 * 1000)
#define VIDEO_URL_LOCAL                                                                                            \
	"video_url must be a public https address: it leads to this computer or a private network, which Gemini "  \
	"cannot reach (for a file on this computer, use local_file)"

struct video_probe {
	const char *url;
	/* 0, except in the tests, whose fake web server is on this computer:
	 * then connections to a loopback address on exactly this port are
	 * allowed, and plain http towards a loopback host (video.c says when
	 * it is set). */
	int loopback_port;
	long connect_timeout_ms, timeout_ms;
	int (*cancelled)(void *arg);
	void *cancel_arg;
};

struct video_probed {
	char url[VIDEO_URL_MAX];   /* where the video is, after redirects */
	char mime[VIDEO_MIME_MAX]; /* Gemini's name of its type */
	long long length;          /* Content-Length, -1 when not sent */
	char refused[64];          /* after VIDEO_URL_LOCAL: the address refused, for the log */
};

enum video_probe_result { PROBE_OK, PROBE_FAILED, PROBE_CANCELLED };

enum video_probe_result video_probe_url(const struct video_probe *p, struct video_probed *out, char *err,
					size_t errlen);
/* The rules of the text alone (no request): a web address; https, or
 * plain http towards a loopback host (127.0.0.1, [::1], localhost) with
 * loopback_http; no user info; not a YouTube host.  Where the address
 * leads is only known at the connection.  0, or -1 with err. */
int video_probe_check_address(const char *url, int loopback_http, char *err, size_t errlen);

#endif
