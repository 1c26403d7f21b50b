/*
 * test_video_args - the arguments of extract_video_context and the video
 * types: exactly one source, the consent and absolute path a local file
 * needs, intent and goal; the twelve accepted MIME types (the nine of
 * Gemini's list and three aliases, each sent under Gemini's name), how a
 * Content-Type value is read, and the file extensions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../svc-video/video_args.h"
#include "../../svc-video/video_mime.h"

static void test_mime_types(void **state)
{
	static const char *const gemini[] = { "video/mp4", "video/mpeg", "video/quicktime", "video/avi", "video/x-flv",
					      "video/mpg", "video/webm", "video/wmv", "video/3gpp", NULL };
	static const struct {
		const char *alias, *as;
	} aliases[] = { { "video/mov", "video/quicktime" }, { "video/x-msvideo", "video/avi" },
			{ "video/x-ms-wmv", "video/wmv" } };
	static const char *const refused[] = { "video/x-matroska", "video/ogg", "audio/mp4", "application/mp4",
					       "text/html", "video/", "video/mp4x", NULL };
	char list[600], *tok, *save = NULL, m[VIDEO_MIME_MAX];
	int n = 0;

	(void)state;
	for (const char *const *g = gemini; *g; g++)
		assert_string_equal(video_mime_supported(*g), *g);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(video_mime_supported(aliases[i].alias), aliases[i].as);
	for (const char *const *r = refused; *r; r++)
		assert_null(video_mime_supported(*r));
	/* The list in the messages is exactly the accepted set: twelve. */
	snprintf(list, sizeof list, "%s", video_mime_list());
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save), n++)
		assert_non_null(video_mime_supported(tok));
	assert_int_equal(n, 12);
	/* Content-Type values as servers send them. */
	assert_int_equal(video_mime_normalize(" Video/MP4; codecs=\"avc1\"", m, sizeof m), 0);
	assert_string_equal(m, "video/mp4");
	assert_int_equal(video_mime_normalize("video/webm;charset=binary", m, sizeof m), 0);
	assert_string_equal(m, "video/webm");
	assert_int_equal(video_mime_normalize("", m, sizeof m), -1);
	assert_int_equal(video_mime_normalize("video", m, sizeof m), -1);
	assert_int_equal(video_mime_normalize("/mp4", m, sizeof m), -1);
	assert_int_equal(video_mime_normalize("video/mp4/x", m, sizeof m), -1);
	/* Extensions, any case; none or another is no video. */
	assert_string_equal(video_mime_for_path("/home/me/Talk.MOV"), "video/quicktime");
	assert_string_equal(video_mime_for_path("/tmp/a.b/clip.3gp"), "video/3gpp");
	assert_string_equal(video_mime_for_path("/tmp/screen.webm"), "video/webm");
	assert_null(video_mime_for_path("/tmp/clip.mkv"));
	assert_null(video_mime_for_path("/tmp/mp4"));
	assert_null(video_mime_for_path("/tmp/.mp4"));
	assert_null(video_mime_for_path("/tmp/clip.mp4/"));
}

static int parse(const char *json, struct video_args *a, char *err, size_t errlen)
{
	json_t *args = json_loads(json, 0, NULL);
	int rc;

	assert_non_null(args);
	rc = video_args_parse(args, a, err, errlen);
	json_decref(args);
	return rc;
}

static void test_sources_and_consent(void **state)
{
	static const struct {
		const char *json, *why; /* why NULL: accepted */
	} t[] = {
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"tutorial\",\"goal\":\"g\"}", NULL },
		{ "{\"video_url\":\"https://cdn.example.com/a.mp4\",\"intent\":\"meeting\",\"goal\":\"g\"}", NULL },
		{ "{\"local_file\":\"/home/me/a.mp4\",\"localFileConsent\":true,\"intent\":\"meeting\",\"goal\":\"g\"}",
		  NULL },
		{ "{\"local_file\":\"/home/me/a.mp4\",\"intent\":\"meeting\",\"goal\":\"g\"}", "localFileConsent" },
		{ "{\"local_file\":\"/home/me/a.mp4\",\"localFileConsent\":false,\"intent\":\"meeting\",\"goal\":\"g\"}",
		  "localFileConsent" },
		{ "{\"local_file\":\"a.mp4\",\"localFileConsent\":true,\"intent\":\"meeting\",\"goal\":\"g\"}",
		  "absolute path" },
		{ "{\"local_file\":\"./a.mp4\",\"localFileConsent\":true,\"intent\":\"meeting\",\"goal\":\"g\"}",
		  "absolute path" },
		{ "{\"local_file\":\"\",\"localFileConsent\":true,\"intent\":\"meeting\",\"goal\":\"g\"}",
		  "\"local_file\" must not be empty" },
		{ "{\"intent\":\"meeting\",\"goal\":\"g\"}", "exactly one of" },
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"local_file\":\"/a.mp4\",\"localFileConsent\":true,"
		  "\"intent\":\"meeting\",\"goal\":\"g\"}", "this call names 2" },
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"video_url\":\"https://x.example/a.mp4\","
		  "\"local_file\":\"/a.mp4\",\"intent\":\"meeting\",\"goal\":\"g\"}", "this call names 3" },
		{ "{\"youtube_url\":7,\"intent\":\"meeting\",\"goal\":\"g\"}", "\"youtube_url\" must be a string" },
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"goal\":\"g\"}", "\"intent\" is required" },
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"Tutorial\",\"goal\":\"g\"}",
		  "must be one of: tutorial, meeting" },
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\",\"goal\":\"\"}",
		  "\"goal\" must not be empty" },
		{ "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\",\"goal\":\"g\","
		  "\"sessionId\":\"s-1\"}", "unknown field \"sessionId\"" },
	};
	struct video_args a;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = parse(t[i].json, &a, err, sizeof err);
		if (t[i].why ? rc == 0 || !strstr(err, t[i].why) : rc != 0)
			fail_msg("%s: wanted %s, got %d (%s)", t[i].json, t[i].why ? t[i].why : "acceptance", rc,
				 rc ? err : "accepted");
	}
	assert_int_equal(parse(t[0].json, &a, err, sizeof err), 0);
	assert_int_equal(a.source, VIDEO_YOUTUBE);
	assert_string_equal(a.youtube, "https://www.youtube.com/watch?v=dQw4w9WgXcQ");
	assert_int_equal(a.intent, VIDEO_TUTORIAL);
	assert_int_equal(parse(t[2].json, &a, err, sizeof err), 0);
	assert_int_equal(a.source, VIDEO_LOCAL);
	assert_int_equal(a.intent, VIDEO_MEETING);
}

static void test_goal_length(void **state)
{
	char json[12000], goal[9000];
	struct video_args a;
	char err[512];
	size_t n = 0;

	(void)state;
	/* 2,000 characters (each 2 bytes in UTF-8) pass; 2,001 do not. */
	for (int i = 0; i < 2000; i++, n += 2)
		memcpy(goal + n, "é", 2);
	goal[n] = '\0';
	snprintf(json, sizeof json, "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\","
		 "\"goal\":\"%s\"}", goal);
	assert_int_equal(parse(json, &a, err, sizeof err), 0);
	snprintf(json, sizeof json, "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\","
		 "\"goal\":\"%sx\"}", goal);
	assert_int_equal(parse(json, &a, err, sizeof err), -1);
	assert_non_null(strstr(err, "\"goal\" is 2001 characters long; at most 2000"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mime_types),
		cmocka_unit_test(test_sources_and_consent),
		cmocka_unit_test(test_goal_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
