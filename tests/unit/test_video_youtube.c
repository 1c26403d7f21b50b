/*
 * test_video_youtube - the YouTube link rules of svc-video on a table of
 * real-world forms: every accepted form gives the canonical
 * https://www.youtube.com/watch?v=ID, and every refused one says why
 * (wrong ID lengths and alphabets, playlists, look-alike hosts, http,
 * other schemes, user info, ports).  Also the text rules of video_url,
 * which send YouTube links back to youtube_url (where its address leads
 * is decided at the connection: test_netaddr, itest_video).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../svc-video/probe.h"
#include "../../svc-video/youtube.h"

#define W "https://www.youtube.com/watch?v="

struct yt_case {
	const char *url;
	const char *id;   /* the canonical ID, or NULL when refused */
	const char *why;  /* a part of the refusal */
};

static const struct yt_case cases[] = {
	/* Accepted forms. */
	{ W "dQw4w9WgXcQ", "dQw4w9WgXcQ", NULL },
	{ "https://youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ", NULL },
	{ "https://m.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ", NULL },
	{ "https://music.youtube.com/watch?v=dQw4w9WgXcQ&feature=share", "dQw4w9WgXcQ", NULL },
	{ "https://WWW.YouTube.COM/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ", NULL },
	{ "https://youtu.be/dQw4w9WgXcQ", "dQw4w9WgXcQ", NULL },
	{ "https://youtu.be/dQw4w9WgXcQ?t=42", "dQw4w9WgXcQ", NULL },
	{ "https://youtu.be/dQw4w9WgXcQ?si=AbCdEfGh12345678", "dQw4w9WgXcQ", NULL },
	{ "https://www.youtube.com/shorts/9hE5-98ZeCg", "9hE5-98ZeCg", NULL },
	{ "https://youtube.com/shorts/9hE5-98ZeCg/", "9hE5-98ZeCg", NULL },
	{ "https://www.youtube.com/embed/9hE5-98ZeCg?start=30", "9hE5-98ZeCg", NULL },
	{ "https://www.youtube-nocookie.com/embed/9hE5-98ZeCg", "9hE5-98ZeCg", NULL },
	{ "https://www.youtube.com/live/XEzRZ35urlk?si=x", "XEzRZ35urlk", NULL },
	{ "https://www.youtube.com/v/XEzRZ35urlk", "XEzRZ35urlk", NULL },
	{ "https://www.youtube.com/e/XEzRZ35urlk", "XEzRZ35urlk", NULL },
	{ "https://www.youtube.com/watch?feature=youtu.be&v=M9cJMXmQ_ZU", "M9cJMXmQ_ZU", NULL },
	{ "https://www.youtube.com/watch?app=desktop&t=10s&v=M9cJMXmQ_ZU#comments", "M9cJMXmQ_ZU", NULL },
	{ W "M9cJMXmQ_ZU&index=3&t=1m2s", "M9cJMXmQ_ZU", NULL },
	{ W "M9cJMXmQ_ZU&v=M9cJMXmQ_ZU", "M9cJMXmQ_ZU", NULL },
	{ "https://www.youtube.com/watch/?v=M9cJMXmQ_ZU", "M9cJMXmQ_ZU", NULL },
	{ W "-_-_-_-_-_-", "-_-_-_-_-_-", NULL },
	/* Wrong ID lengths and alphabets. */
	{ W "dQw4w9WgXc", NULL, "has 10 characters; an ID has exactly 11" },
	{ W "dQw4w9WgXcQQ", NULL, "has 12 characters" },
	{ W, NULL, "has 0 characters" },
	{ "https://youtu.be/dQw4w9WgX", NULL, "has 9 characters" },
	{ "https://www.youtube.com/shorts/9hE5-98ZeCgX", NULL, "has 12 characters" },
	{ W "dQw4w9WgX.Q", NULL, "contains '.'" },
	{ W "dQw4w9Wg%5Q", NULL, "contains '%'" },
	{ W "dQw4w9Wg+cQ", NULL, "contains '+'" },
	{ "https://youtu.be/dQw4w9W/gXcQ", NULL, "names no video" },
	{ "https://www.youtube.com/embed/videoseries?list=PL9bw4S5ePsEHQKZ4uTtbNXNQGjjOB8bRk", NULL, "playlist" },
	{ "https://www.youtube.com/embed/videoseries", NULL, "player address" },
	{ "https://www.youtube.com/live/live_stream?channel=UCx", NULL, "player address" },
	/* Playlists. */
	{ W "dQw4w9WgXcQ&list=PL9bw4S5ePsEHQKZ4uTtbNXNQGjjOB8bRk", NULL, "is a playlist" },
	{ "https://youtu.be/dQw4w9WgXcQ?list=PL9bw4S5ePsEHQKZ4uTtbNXNQGjjOB8bRk", NULL, "is a playlist" },
	{ "https://www.youtube.com/watch?list=PLW4dVinRY435CBE_JD3t-0SRXKfnZHS1P&feature=youtu.be&v=M9cJMXmQ_ZU",
	  NULL, "is a playlist" },
	{ "https://www.youtube.com/playlist?list=PL9bw4S5ePsEHQKZ4uTtbNXNQGjjOB8bRk", NULL, "is a playlist" },
	{ W "dQw4w9WgXcQ&list=", NULL, "is a playlist" },
	/* Look-alike hosts. */
	{ "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ", NULL, "is not a YouTube host" },
	{ "https://www.youtube.co/watch?v=dQw4w9WgXcQ", NULL, "is not a YouTube host" },
	{ "https://youtu.be.example.com/dQw4w9WgXcQ", NULL, "is not a YouTube host" },
	{ "https://notyoutube.com/watch?v=dQw4w9WgXcQ", NULL, "is not a YouTube host" },
	{ "https://www.youtube.com.:443/watch?v=dQw4w9WgXcQ", NULL, "is not a YouTube host" },
	{ "https://gaming.youtube.com/watch?v=dQw4w9WgXcQ", NULL, "is not a YouTube host" },
	{ "https://www.youtube.com@evil.example/watch?v=dQw4w9WgXcQ", NULL, "user name" },
	{ "https://user@www.youtube.com/watch?v=dQw4w9WgXcQ", NULL, "user name" },
	/* http, other schemes, ports, no link at all. */
	{ "http://www.youtube.com/watch?v=dQw4w9WgXcQ", NULL, "must start with https://" },
	{ "http://youtu.be/dQw4w9WgXcQ", NULL, "must start with https://" },
	{ "ftp://www.youtube.com/watch?v=dQw4w9WgXcQ", NULL, "must start with https://" },
	{ "javascript:alert(1)//www.youtube.com/watch?v=dQw4w9WgXcQ", NULL, "is not a URL" },
	{ "www.youtube.com/watch?v=dQw4w9WgXcQ", NULL, "is not a URL" },
	{ "https://www.youtube.com:8443/watch?v=dQw4w9WgXcQ", NULL, "name no port" },
	{ "https://www.youtube.com/watch?v=dQw4w9WgXcQ extra", NULL, "is not a URL" },
	{ "https://www.youtube.com/", NULL, "names no video" },
	{ "https://www.youtube.com/watch?vv=dQw4w9WgXcQ", NULL, "names no video" },
	{ "https://www.youtube.com/channel/UCuAXFkgsw1L7xaCfnd5JJOw", NULL, "names no video" },
	{ "https://www.youtube.com/results?search_query=dQw4w9WgXcQ", NULL, "names no video" },
	{ W "dQw4w9WgXcQ&v=9hE5-98ZeCg", NULL, "two different videos" },
};

static void test_url_table(void **state)
{
	size_t n = sizeof cases / sizeof cases[0];

	(void)state;
	assert_true(n >= 40);
	for (size_t i = 0; i < n; i++) {
		char out[YOUTUBE_CANONICAL_MAX], err[512] = "", want[80];
		int rc = youtube_canonical(cases[i].url, out, sizeof out, err, sizeof err);

		if (cases[i].id) {
			snprintf(want, sizeof want, "%s%s", W, cases[i].id);
			if (rc != 0 || strcmp(out, want) != 0)
				fail_msg("case %zu %s: wanted %s, got rc %d (%s)", i, cases[i].url, want, rc, err);
		} else if (rc == 0 || !strstr(err, cases[i].why)) {
			fail_msg("case %zu %s: wanted a refusal saying \"%s\", got rc %d (%s)", i, cases[i].url,
				 cases[i].why, rc, rc == 0 ? out : err);
		}
	}
}

/* The rules of the text alone: where the address leads is decided at the
 * connection (itest_video), so a private host passes here. */
static void test_video_url_addresses(void **state)
{
	static const struct {
		const char *url;
		int loopback_http;
		const char *why; /* NULL: accepted */
	} addr[] = {
		{ "https://cdn.example.com/talk.mp4", 0, NULL },
		{ "https://cdn.example.com:8443/talk.mp4?sig=abc", 0, NULL },
		{ "http://cdn.example.com/talk.mp4", 0, "must use https" },
		{ "ftp://cdn.example.com/talk.mp4", 0, "is not a web address" },
		{ "file:///home/me/talk.mp4", 0, "is not a web address" },
		{ "cdn.example.com/talk.mp4", 0, "is not a web address" },
		{ "https://me:secret@cdn.example.com/talk.mp4", 0, "user name or password" },
		{ "https://youtu.be/dQw4w9WgXcQ", 0, "pass it as youtube_url" },
		{ "https://www.youtube.com/watch?v=dQw4w9WgXcQ", 0, "pass it as youtube_url" },
		{ "https://127.0.0.1/talk.mp4", 0, NULL },
		{ "https://[::1]/talk.mp4", 0, NULL },
		{ "https://nas.local/talk.mp4", 0, NULL },
		/* Plain http only towards a loopback host, only in the tests. */
		{ "http://127.0.0.1:8080/video/a.mp4", 1, NULL },
		{ "http://[::1]:8080/video/a.mp4", 1, NULL },
		{ "http://localhost:8080/video/a.mp4", 1, NULL },
		{ "http://127.0.0.1:8080/video/a.mp4", 0, "must use https" },
		{ "http://127.1:8080/video/a.mp4", 1, "must use https" },
		{ "http://192.168.1.20/talk.mp4", 1, "must use https" },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof addr / sizeof addr[0]; i++) {
		int rc = video_probe_check_address(addr[i].url, addr[i].loopback_http, err, sizeof err);
		if (addr[i].why ? rc == 0 || !strstr(err, addr[i].why) : rc != 0)
			fail_msg("%s (loopback http %d): wanted %s, got %d (%s)", addr[i].url, addr[i].loopback_http,
				 addr[i].why ? addr[i].why : "acceptance", rc, rc ? err : "accepted");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_table),
		cmocka_unit_test(test_video_url_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
