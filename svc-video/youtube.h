/*
 * youtube - a YouTube link, checked, as the one form Gemini documents:
 * https://www.youtube.com/watch?v=ID.
 *
 * Accepted: https only; the hosts youtube.com, www., m., music. and
 * youtube-nocookie.com, and youtu.be; the paths /watch?v=ID (v may come
 * after other parameters), /shorts/ID, /embed/ID, /live/ID, /v/ID, /e/ID
 * and youtu.be/ID, each with an optional trailing slash.  The ID is
 * exactly 11 characters of [0-9A-Za-z_-].  Refused, each with its own
 * sentence: a playlist (a list= parameter anywhere, or /playlist), two
 * different v= values, user info or a port before the host, any other
 * host (look-alikes included) or scheme.  Other parameters (t, si,
 * feature, index) are dropped: the whole video is watched.
 */
#ifndef VIDEO_YOUTUBE_H
#define VIDEO_YOUTUBE_H

#include <stddef.h>

#define YOUTUBE_ID_LEN 11
#define YOUTUBE_CANONICAL_MAX sizeof "https://www.youtube.com/watch?v=" + YOUTUBE_ID_LEN

/* 0 with the canonical URL in out, or -1 with a sentence in err. */
int youtube_canonical(const char *url, char *out, size_t outlen, char *err, size_t errlen);
/* 1 when host (not NUL-terminated) is one of YouTube's. */
int youtube_is_host(const char *host, size_t len);

#endif
