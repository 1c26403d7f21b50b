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
 */
#ifndef VIDEO_PROBE_H
#define VIDEO_PROBE_H

#include <stddef.h>

#include "video_args.h"
#include "video_mime.h"

#define VIDEO_MAX_REDIRECTS 5
/* Gemini fetches at most this much from a URL (gemini.md). */
#define VIDEO_URL_MAX_BYTES (100LL * 1000 * 1000)

struct video_probe {
	const char *url;
	/* Loopback hosts are accepted (over http too) only when Gemini itself
	 * runs on this machine, i.e. the tests' fake: the real Gemini could
	 * never fetch from here. */
	int allow_loopback;
	long connect_timeout_ms, timeout_ms;
	int (*cancelled)(void *arg);
	void *cancel_arg;
};

struct video_probed {
	char url[VIDEO_URL_MAX];   /* where the video is, after redirects */
	char mime[VIDEO_MIME_MAX]; /* Gemini's name of its type */
	long long length;          /* Content-Length, -1 when not sent */
};

enum video_probe_result { PROBE_OK, PROBE_FAILED, PROBE_CANCELLED };

enum video_probe_result video_probe_url(const struct video_probe *p, struct video_probed *out, char *err,
					size_t errlen);
/* The address rules alone (no request): https; plain http and loopback
 * hosts only with allow_loopback; no user info; not a YouTube host; not a
 * private network address.  0, or -1 with err. */
int video_probe_check_address(const char *url, int allow_loopback, char *err, size_t errlen);

#endif
