/*
 * youtube - the link rules of youtube.h.  The ID is checked character by
 * character rather than with a regex: percent-escapes, a twelfth
 * character or "videoseries" (an 11-letter word of the embed player) must
 * each fail with a message that names the problem.
 */
#include "youtube.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "url.h"

static const char *const video_hosts[] = {
	"youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com",
	"www.youtube-nocookie.com", NULL,
};

/* The path prefixes that carry an ID on the video hosts. */
static const char *const id_paths[] = { "/shorts/", "/embed/", "/live/", "/v/", "/e/", NULL };

int youtube_is_host(const char *host, size_t len)
{
	for (const char *const *h = video_hosts; *h; h++)
		if (strlen(*h) == len && strncasecmp(*h, host, len) == 0)
			return 1;
	return len == 8 && strncasecmp(host, "youtu.be", 8) == 0;
}

static int id_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '-';
}

/* An ID of len bytes at s (not NUL-terminated). */
static int check_id(const char *s, size_t len, char *err, size_t errlen)
{
	if (len != YOUTUBE_ID_LEN) {
		snprintf(err, errlen, "the YouTube video ID \"%.*s\" has %zu characters; an ID has exactly 11",
			 (int)(len > 40 ? 40 : len), s, len);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (!id_char(s[i])) {
			snprintf(err, errlen, "the YouTube video ID \"%.*s\" contains '%c'; an ID has only letters, "
				 "digits, '-' and '_'", (int)len, s, s[i]);
			return -1;
		}
	/* Words of the embed player that fit the shape but are no video. */
	if (strncmp(s, "videoseries", len) == 0 || strncmp(s, "live_stream", len) == 0) {
		snprintf(err, errlen, "\"%.*s\" is a YouTube player address, not a video ID", (int)len, s);
		return -1;
	}
	return 0;
}

/* Walk the query: 1 with a list= parameter, else 0; *v / *vlen the v=
 * value (-1 when two differ). */
static int scan_query(const struct hb_url *u, const char **v, size_t *vlen)
{
	const char *p = u->query, *end = u->query + u->query_len;
	int list = 0;

	*v = NULL;
	*vlen = 0;
	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p)), *stop = amp ? amp : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));
		size_t nlen = (size_t)((eq ? eq : stop) - p);
		const char *val = eq ? eq + 1 : stop;
		size_t len = (size_t)(stop - val);

		if (nlen == 4 && strncmp(p, "list", 4) == 0)
			list = 1;
		if (nlen == 1 && *p == 'v') {
			if (*v && (*vlen != len || strncmp(*v, val, len) != 0))
				return -1;
			*v = val;
			*vlen = len;
		}
		p = stop + (amp ? 1 : 0);
	}
	return list;
}

/* The ID from the path (after prefix), allowing one trailing slash. */
static int id_from_path(const char *s, size_t len, const char **id, size_t *idlen)
{
	if (len > 0 && s[len - 1] == '/')
		len--;
	if (memchr(s, '/', len))
		return -1;
	*id = s;
	*idlen = len;
	return 0;
}

static int no_id(char *err, size_t errlen)
{
	snprintf(err, errlen, "the YouTube link names no video: use a link like https://www.youtube.com/watch?v=ID, "
		 "https://youtu.be/ID or https://www.youtube.com/shorts/ID");
	return -1;
}

static int find_id(const struct hb_url *u, const char **id, size_t *idlen, char *err, size_t errlen)
{
	const char *v;
	size_t vlen;
	int list = scan_query(u, &v, &vlen);

	if (list < 0) {
		snprintf(err, errlen, "the YouTube link names two different videos (two v= parameters)");
		return -1;
	}
	if (list || (u->path_len >= 9 && strncasecmp(u->path, "/playlist", 9) == 0)) {
		snprintf(err, errlen, "the YouTube link is a playlist (it has a list= parameter); give the link of one "
			 "video, without list=");
		return -1;
	}
	if (hb_url_host_is(u, "youtu.be"))
		return u->path_len < 2 || id_from_path(u->path + 1, u->path_len - 1, id, idlen) < 0 ? no_id(err, errlen)
												       : 0;
	if ((u->path_len == 6 || (u->path_len == 7 && u->path[6] == '/')) && strncmp(u->path, "/watch", 6) == 0) {
		if (!v)
			return no_id(err, errlen);
		*id = v;
		*idlen = vlen;
		return 0;
	}
	for (const char *const *pre = id_paths; *pre; pre++) {
		size_t n = strlen(*pre);
		if (u->path_len > n && strncmp(u->path, *pre, n) == 0)
			return id_from_path(u->path + n, u->path_len - n, id, idlen) < 0 ? no_id(err, errlen) : 0;
	}
	return no_id(err, errlen);
}

int youtube_canonical(const char *url, char *out, size_t outlen, char *err, size_t errlen)
{
	struct hb_url u;
	const char *id;
	size_t idlen;

	if (hb_url_parse(url, &u) < 0) {
		snprintf(err, errlen, "\"%.200s\" is not a URL: give the video's link, e.g. "
			 "https://www.youtube.com/watch?v=ID", url);
		return -1;
	}
	if (u.userinfo) {
		snprintf(err, errlen, "the link has a user name before its host (\"...@\"), which hides where it "
			 "really goes; give the plain YouTube link");
		return -1;
	}
	if (!youtube_is_host(u.host, u.host_len)) {
		snprintf(err, errlen, "\"%.*s\" is not a YouTube host: youtube_url takes links on youtube.com "
			 "(www., m., music.) or youtu.be; use video_url for other sites",
			 (int)(u.host_len > 100 ? 100 : u.host_len), u.host);
		return -1;
	}
	if (!hb_url_scheme_is(&u, "https") || u.port >= 0) {
		snprintf(err, errlen, "the YouTube link must start with https:// and name no port");
		return -1;
	}
	if (find_id(&u, &id, &idlen, err, errlen) < 0 || check_id(id, idlen, err, errlen) < 0)
		return -1;
	if (outlen < YOUTUBE_CANONICAL_MAX) {
		snprintf(err, errlen, "no room for the YouTube link");
		return -1;
	}
	snprintf(out, outlen, "https://www.youtube.com/watch?v=%.*s", (int)idlen, id);
	return 0;
}
