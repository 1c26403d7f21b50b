/*
 * itest_video - extract_video_context as an agent reaches it: the real
 * hb-broker and svc-video (the entry of deploy/services.conf) against the
 * fake Gemini server on 127.0.0.1 (tests/fake-gemini), which also plays
 * the public web server of the test video URLs.
 *
 * Covers: the key read on every call (deleted between two calls: the
 * exact sentence, no request) and sent only to Gemini, never to a video
 * host; the generateContent request (canonical YouTube link, video part
 * first, temperature 0.2, structured output with the intent's schema);
 * the HEAD check of video_url (supported types and aliases, unsupported,
 * missing and ambiguous types, private and missing files, redirects and
 * their limits, a redirect to any other place on this computer or a
 * private network refused without a connection); retries and refusals of
 * the analysis, an off-schema answer; toolCancel during the upload and
 * during the analysis (requests aborted, the upload cancelled or the file
 * deleted).
 * With one worker thread and without the tests' loopback port: failed
 * calls one after another each give their own reason (a FAILED file in
 * the upload's answer once gave the reason of the call before); every
 * spelling of a loopback, private or link-local address gets the same
 * answer and nothing connects.
 *
 * Local files: itest_video_files.c; the fixture: video_rig.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/fake_gemini.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "netaddr.h"
#include "sha256.h"
#include "video_rig.h"

/* ---- tests ----------------------------------------------------------------- */

static void test_youtube_and_the_key(void **state)
{
	const char *del[] = { "settings", "gemini-key", "delete", NULL };
	const char *args = "{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ?si=abc&t=42\",\"intent\":\"tutorial\","
			   "\"goal\":\"how to set up the project\"}";
	char *md, *out, *log;
	json_t *recs, *r, *req;
	FILE *in;

	(void)state;
	control("{\"videoJson\":" TUTORIAL_JSON "}");
	md = watch_ok(args);
	assert_non_null(strstr(md, "# Video notes (tutorial)"));
	assert_non_null(strstr(md, "- Source: https://youtu.be/dQw4w9WgXcQ?si=abc&t=42"));
	assert_non_null(strstr(md, "- Goal: how to set up the project"));
	assert_non_null(strstr(md, "## Gaps\n\n- **Windows** — not shown\n"));
	assert_non_null(strstr(md, "- **[01:15]** `python3 -m venv .venv` — creates it\n"));
	free(md);
	recs = fg_records(&G);
	assert_int_equal(json_array_size(recs), 1);
	r = json_array_get(recs, 0);
	assert_string_equal(fg_str(r, "kind"), "video");
	assert_string_equal(fg_str(r, "apiKey"), KEY);
	assert_string_equal(fg_str(r, "query"), "");
	assert_string_equal(fg_str(r, "path"), "/v1beta/models/gemini-3.1-pro-preview:generateContent");
	assert_string_equal(fg_str(r, "fileUri"), "https://www.youtube.com/watch?v=dQw4w9WgXcQ");
	assert_true(json_is_null(json_object_get(r, "fileMimeType")));
	assert_true(json_is_true(json_object_get(r, "videoFirst")));
	assert_true(json_number_value(json_object_get(r, "temperature")) > 0.199 &&
		    json_number_value(json_object_get(r, "temperature")) < 0.201);
	assert_string_equal(fg_str(r, "responseMimeType"), "application/json");
	req = json_object_get(json_object_get(r, "schema"), "required");
	assert_int_equal(json_array_size(req), 8);
	assert_non_null(strstr(fg_str(r, "text"), "how to set up the project"));
	json_decref(recs);

	/* The key deleted between two calls: the exact sentence, nothing sent. */
	assert_int_equal(fx_hbctl(&F, &out, del), 0);
	free(out);
	fg_clear(&G);
	assert_false(watch(args, &out));
	assert_string_equal(out, "Add a Gemini API key in Settings > API Keys.");
	free(out);
	assert_int_equal(fg_started(&G), 0);
	assert_int_equal(fx_save_gemini_key(KEY), 0);
	md = watch_ok(args);
	free(md);

	/* The key is in no log line of the broker or its services. */
	assert_non_null(in = fopen(F.log, "r"));
	assert_non_null(log = calloc(1, 1 << 22));
	assert_true(fread(log, 1, (1 << 22) - 1, in) > 0);
	fclose(in);
	assert_null(strstr(log, KEY));
	free(log);
}

static void test_argument_refusals(void **state)
{
	(void)state;
	control("{\"videoJson\":" TUTORIAL_JSON "}");
	watch_fails("{\"youtube_url\":\"https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL9bw4S5ePsEHQKZ4uTtbNXNQGjjOB8bRk\","
		    "\"intent\":\"tutorial\",\"goal\":\"g\"}", "is a playlist");
	watch_fails("{\"youtube_url\":\"https://www.youtube.com/watch?v=dQw4w9WgXc\",\"intent\":\"tutorial\",\"goal\":\"g\"}",
		    "an ID has exactly 11");
	watch_fails("{\"intent\":\"tutorial\",\"goal\":\"g\"}", "exactly one of youtube_url, video_url");
	watch_fails("{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"video_url\":\"https://x.example/a.mp4\","
		    "\"intent\":\"tutorial\",\"goal\":\"g\"}", "names 2");
	watch_fails("{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"lecture\",\"goal\":\"g\"}",
		    "\"intent\" must be one of: tutorial, meeting");
	watch_fails("{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\",\"goal\":\" \\n\"}",
		    "\"goal\" holds only blanks");
	watch_fails("{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\"}", "\"goal\" is required");
	watch_fails("{\"youtube_url\":\"https://youtu.be/dQw4w9WgXcQ\",\"intent\":\"meeting\",\"goal\":\"g\",\"fps\":2}",
		    "unknown field \"fps\"");
	assert_int_equal(fg_started(&G), 0);
}

/* The public web server's answers to HEAD decide; nothing reaches Gemini
 * for a source that fails, and the video host never sees the key. */
static void test_video_url_types(void **state)
{
	static const struct {
		const char *name, *why;
	} bad[] = {
		{ "film.mkv", "is video/x-matroska, a video type Gemini does not read; Gemini reads only video/mp4" },
		{ "page", "is text/html (a web page, not the video file" },
		{ "untyped.mp4", "is ambiguous: its server does not say what type the file is (no Content-Type)" },
		{ "blob", "is ambiguous: its server sends it as application/octet-stream" },
		{ "gone.mp4", "is unreachable: the server has no such file (HTTP 404)" },
		{ "private.mp4", "is private: the server asks for a login or refuses access" },
		{ "nohead.mp4", "does not answer a HEAD request" },
		{ "loop", "more than 5 redirects" },
		{ "out", "must use https" },
		{ "huge.mp4", "is 250 MB; Gemini fetches at most 100 MB from a URL" },
		{ "broken", "is unreachable: the server failed (HTTP 500)" },
	};
	char *args, *md, want[200];
	json_t *recs;
	size_t i;

	(void)state;
	control("{\"videoJson\":" MEETING_JSON ",\"heads\":{"
		"\"/video/talk.mp4\":{\"contentType\":\"video/mp4\",\"contentLength\":5000000},"
		"\"/video/old.mov\":{\"contentType\":\"Video/MOV; charset=binary\"},"
		"\"/video/r1\":{\"status\":301,\"location\":\"/video/r2\"},"
		"\"/video/r2\":{\"status\":307,\"location\":\"/video/talk.mp4\"},"
		"\"/video/film.mkv\":{\"contentType\":\"video/x-matroska\"},"
		"\"/video/page\":{\"contentType\":\"text/html; charset=utf-8\"},"
		"\"/video/untyped.mp4\":{},"
		"\"/video/blob\":{\"contentType\":\"application/octet-stream\"},"
		"\"/video/private.mp4\":{\"status\":403,\"contentType\":\"text/html\"},"
		"\"/video/nohead.mp4\":{\"status\":405},"
		"\"/video/loop\":{\"status\":302,\"location\":\"/video/loop\"},"
		"\"/video/out\":{\"status\":302,\"location\":\"http://cdn.example.com/a.mp4\"},"
		"\"/video/huge.mp4\":{\"contentType\":\"video/mp4\",\"contentLength\":250000000},"
		"\"/video/broken\":{\"status\":500}}}");
	args = url_args("talk.mp4", "meeting");
	md = watch_ok(args);
	free(args);
	assert_non_null(strstr(md, "# Video notes (meeting)"));
	assert_non_null(strstr(md, "- **[12:30]** **Ship behind a flag**\n"));
	free(md);
	recs = fg_records(&G);
	assert_int_equal(json_array_size(recs), 2);
	assert_string_equal(fg_str(json_array_get(recs, 0), "kind"), "head");
	assert_string_equal(fg_str(json_array_get(recs, 0), "method"), "HEAD");
	assert_string_equal(fg_str(json_array_get(recs, 0), "apiKey"), ""); /* the key goes to Gemini only */
	snprintf(want, sizeof want, "%s/video/talk.mp4", G.base_url);
	assert_string_equal(fg_str(json_array_get(recs, 1), "fileUri"), want);
	assert_string_equal(fg_str(json_array_get(recs, 1), "fileMimeType"), "video/mp4");
	json_decref(recs);

	/* An alias, sent under the name in Gemini's list. */
	fg_clear(&G);
	args = url_args("old.mov", "meeting");
	free(watch_ok(args));
	free(args);
	recs = fg_records_of(&G, "video");
	assert_string_equal(fg_str(json_array_get(recs, 0), "fileMimeType"), "video/quicktime");
	json_decref(recs);

	/* Redirects are followed, each checked; Gemini gets the last address. */
	fg_clear(&G);
	args = url_args("r1", "meeting");
	free(watch_ok(args));
	free(args);
	assert_int_equal(count_of("head"), 3);
	recs = fg_records_of(&G, "video");
	assert_string_equal(fg_str(json_array_get(recs, 0), "fileUri"), want);
	json_decref(recs);

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fg_clear(&G);
		args = url_args(bad[i].name, "meeting");
		watch_fails(args, bad[i].why);
		free(args);
		assert_int_equal(count_of("video"), 0);
	}
	assert_int_equal(count_of("head"), 1); /* the last one: no second address */
}

/* A TCP port on 127.0.0.1 that listens and never answers: a connection
 * to it stays in its queue, where accept() finds it.  The fd, or -1. */
static int listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* The first hop is the fake (the loopback port the tests may reach); a
 * redirect from it to any other place on this computer or a private
 * network, in any spelling, is refused with the one answer before a
 * connection: neither the other loopback port (a listener that would
 * queue it) nor a proxy (the environment names the fake as one, for
 * all but 127.0.0.1) sees one.  The same redirect to the fake's own
 * port by another name is followed, so the refusals are not a
 * consequence of redirects as such. */
static void test_redirect_to_local(void **state)
{
	static const char *const to[] = {
		"http://127.0.0.1:%d/video/talk.mp4", "http://localhost:%d/video/talk.mp4",
		"http://[::1]:%d/video/talk.mp4",     "https://127.1:%d/video/talk.mp4",
		"https://0x7f.1:%d/video/talk.mp4",   "https://[::ffff:127.0.0.1]:%d/video/talk.mp4",
		"https://0.0.0.0:%d/video/talk.mp4",  "https://10.1/video/talk.mp4",
		"https://169.254.169.254/latest/meta-data/", "https://192.168.1.1:%d/video/talk.mp4",
	};
	char ctl[2048], loc[200], name[40], *args, *text;
	size_t n = 0;
	int other = 0, fd = listener(&other);

	(void)state;
	assert_true(fd >= 0);
	n += (size_t)snprintf(ctl + n, sizeof ctl - n, "{\"videoJson\":" MEETING_JSON ",\"heads\":{"
			      "\"/video/talk.mp4\":{\"contentType\":\"video/mp4\"},"
			      "\"/video/hop\":{\"status\":302,\"location\":\"/video/to0\"},"
			      "\"/video/by-name\":{\"status\":302,\"location\":\"http://localhost:%d/video/talk.mp4\"}",
			      G.port);
	for (size_t i = 0; i < sizeof to / sizeof to[0]; i++) {
		snprintf(loc, sizeof loc, to[i], other);
		n += (size_t)snprintf(ctl + n, sizeof ctl - n, ",\"/video/to%zu\":{\"status\":307,\"location\":\"%s\"}", i,
				      loc);
	}
	assert_true(n + 3 < sizeof ctl);
	snprintf(ctl + n, sizeof ctl - n, "}}");

	control(ctl);
	args = url_args("by-name", "meeting");
	free(watch_ok(args));
	free(args);
	assert_int_equal(count_of("head"), 2);
	for (size_t i = 0; i < sizeof to / sizeof to[0]; i++) {
		control(ctl);
		snprintf(name, sizeof name, "to%zu", i);
		args = url_args(name, "meeting");
		if (watch(args, &text) || strcmp(text, LOCAL_ANSWER) != 0)
			fail_msg("redirect to %s: %s", to[i], text);
		free(text);
		free(args);
		assert_int_equal(count_of("head"), 1);
		assert_int_equal(fg_connections(&G), 1); /* the first hop's */
		assert_int_equal(count_of("video"), 0);
	}
	/* Two allowed hops, then the refused one: the same answer. */
	control(ctl);
	args = url_args("hop", "meeting");
	assert_false(watch(args, &text));
	assert_string_equal(text, LOCAL_ANSWER);
	free(text);
	free(args);
	assert_int_equal(count_of("head"), 2);
	assert_int_equal(accept(fd, NULL, NULL), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	close(fd);
}

static void test_analysis_errors(void **state)
{
	char *args = url_args("talk.mp4", "tutorial");
	json_t *v;

	(void)state;
	/* Off the schema (a meeting answer for a tutorial): an error, not a guess. */
	control("{\"videoJson\":" MEETING_JSON ",\"heads\":{\"/video/talk.mp4\":{\"contentType\":\"video/mp4\"}}}");
	watch_fails(args, "Gemini's answer breaks the tutorial notes schema: \"concepts\" is missing or not an array");
	assert_int_equal(count_of("video"), 1);
	/* 503 twice, then notes: three requests. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"heads\":{\"/video/talk.mp4\":{\"contentType\":\"video/mp4\"}},"
		"\"rules\":[{\"kind\":\"video\",\"times\":2,\"status\":503}]}");
	free(watch_ok(args));
	v = fg_records_of(&G, "video");
	assert_int_equal(json_array_size(v), 3);
	assert_int_equal(fg_int(json_array_get(v, 0), "status"), 503);
	assert_int_equal(fg_int(json_array_get(v, 2), "status"), 200);
	json_decref(v);
	/* A 400 is not retried; a cut-off answer is refused. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"heads\":{\"/video/talk.mp4\":{\"contentType\":\"video/mp4\"}},"
		"\"rules\":[{\"kind\":\"video\",\"status\":400,\"message\":\"Cannot fetch content from the provided URL.\"}]}");
	watch_fails(args, "Gemini refused the request (HTTP 400 INVALID_ARGUMENT): Cannot fetch content from the "
			  "provided URL.");
	assert_int_equal(count_of("video"), 1);
	control("{\"videoJson\":" TUTORIAL_JSON ",\"finishReason\":\"MAX_TOKENS\","
		"\"heads\":{\"/video/talk.mp4\":{\"contentType\":\"video/mp4\"}}}");
	watch_fails(args, "cut off at its output limit");
	free(args);
}

/* A Claude toolCall on an open run, then its toolCancel once `done`
 * requests of kind `kind` ended and the next one hangs at the fake; the
 * answer must be "Run stopped.". */
static void call_and_cancel(struct hb_client *a, int n, const char *args, const char *kind, size_t done)
{
	int64_t id, cid;

	assert_true((id = fx_claude_call(a, n, "extract_video_context", args)) >= 0);
	for (long long end = fx_now_ms() + 20000; fx_now_ms() < end; fx_sleep_ms(20)) {
		json_t *all = fg_records(&G);
		size_t ended = json_array_size(all);

		json_decref(all);
		if (count_of(kind) == done && fg_started(&G) == ended + 1)
			break;
	}
	assert_true((cid = fx_claude_cancel(a, n)) >= 0);
	assert_int_equal(fx_expect_stopped(a, id, cid), 0);
}

/* Wait until svc-video has no call running (its cleanup is done). */
static void wait_idle(void)
{
	for (long long end = fx_now_ms() + 20000;
	     fx_service_num(&F, "svc-video", "slotsBusy") != 0 && fx_now_ms() < end;)
		fx_sleep_ms(20);
	assert_int_equal(fx_service_num(&F, "svc-video", "slotsBusy"), 0);
}

static void test_cancel(void **state)
{
	char *args = file_args(clip), session[64];
	struct hb_client a;
	json_t *v;

	(void)state;
	assert_int_equal(fx_client(&F, &a, 20000), 0);
	assert_int_equal(fx_create_session(&F, "Video", "claude", "/tmp", "full-auto", session, sizeof session), 0);
	assert_int_equal(fx_open_run(&a, "run-video", session, "/tmp", "claude", "full-auto"), 0);

	/* During the analysis: the request is aborted, the file deleted. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0,"
		"\"rules\":[{\"kind\":\"video\",\"delayMs\":60000}]}");
	call_and_cancel(&a, 1, args, "upload", 3);
	wait_idle();
	v = fg_records_of(&G, "video");
	assert_int_equal(json_array_size(v), 1);
	assert_true(json_is_true(json_object_get(json_array_get(v, 0), "aborted")));
	json_decref(v);
	assert_int_equal(count_of("file-delete"), 1);

	/* During the upload: the chunk is aborted, the session cancelled. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"rules\":[{\"kind\":\"upload\",\"delayMs\":60000}]}");
	call_and_cancel(&a, 2, args, "upload-start", 1);
	wait_idle();
	v = fg_records_of(&G, "upload");
	assert_int_equal(json_array_size(v), 1);
	assert_true(json_is_true(json_object_get(json_array_get(v, 0), "aborted")));
	json_decref(v);
	assert_int_equal(count_of("upload-cancel"), 1);
	assert_int_equal(count_of("video"), 0);
	hb_client_close(&a);
	free(args);
}

/* ---- one worker, no loopback port ----------------------------------------- */

/* Calls that fail one after another on the one worker thread each say
 * their own reason: a file that Gemini reports FAILED already in the
 * answer to the upload's finalize once failed with whatever the call
 * before had left in the error buffer (there, a path on this computer). */
static void test_failed_reason_is_its_own(void **state)
{
	char empty[128], *args, *text;
	json_t *ups;
	int fd;

	(void)state;
	snprintf(empty, sizeof empty, "%s/first-call-secret.webm", gdir);
	assert_true((fd = open(empty, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	args = file_args(empty);
	watch_fails(args, "first-call-secret.webm\" is empty");
	free(args);

	args = file_args(clip);
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0,\"fileState\":\"FAILED\","
		"\"fileError\":\"the second call's reason\"}");
	assert_false(watch(args, &text));
	assert_string_equal(text, "Video context failed: Gemini could not process the video (state FAILED): the "
				  "second call's reason");
	free(text);
	ups = fg_records_of(&G, "upload");
	assert_string_equal(fg_str(json_array_get(ups, json_array_size(ups) - 1), "state"), "FAILED");
	json_decref(ups);
	assert_int_equal(count_of("file-get"), 0);
	assert_int_equal(count_of("video"), 0);
	assert_int_equal(count_of("file-delete"), 1);

	/* A FAILED upload right after a FAILED upload, this time without a
	 * reason from Gemini. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0,\"fileState\":\"FAILED\","
		"\"fileError\":null}");
	assert_false(watch(args, &text));
	assert_string_equal(text, "Video context failed: Gemini could not process the video (state FAILED): no reason "
				  "given");
	free(text);
	assert_int_equal(count_of("file-delete"), 1);
	free(args);
}

/* The host names /etc/hosts gives an address of this computer or a
 * private network (this computer's own name often is one): at most max,
 * each under 64 bytes.  Names only there, so no DNS server is asked. */
static size_t local_names(char (*names)[64], size_t max)
{
	char line[512], *save, *tok;
	size_t n = 0;
	FILE *f = fopen("/etc/hosts", "r");

	while (f && n < max && fgets(line, sizeof line, f)) {
		struct sockaddr_storage ss = { 0 };
		struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
		char *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		if (!(tok = strtok_r(line, " \t\r\n", &save)))
			continue;
		if (inet_pton(AF_INET, tok, &v4->sin_addr) == 1)
			ss.ss_family = AF_INET;
		else if (inet_pton(AF_INET6, tok, &v6->sin6_addr) == 1)
			ss.ss_family = AF_INET6;
		if (!ss.ss_family || hb_netaddr_classify((struct sockaddr *)&ss, sizeof ss) == HB_NETADDR_PUBLIC)
			continue;
		while (n < max && (tok = strtok_r(NULL, " \t\r\n", &save)))
			if (strlen(tok) < sizeof names[0])
				snprintf(names[n++], sizeof names[0], "%s", tok);
	}
	if (f)
		fclose(f);
	return n;
}

/* video_url at host (with the fake's port or none) must get the one
 * answer. */
static void refused_at(const char *host, int port)
{
	char url[300], args[400], *text;

	if (port)
		snprintf(url, sizeof url, "https://%s:%d/video/talk.mp4", host, port);
	else
		snprintf(url, sizeof url, "https://%s/video/talk.mp4", host);
	snprintf(args, sizeof args, "{\"video_url\":\"%s\",\"intent\":\"meeting\",\"goal\":\"g\"}", url);
	if (watch(args, &text) || strcmp(text, LOCAL_ANSWER) != 0)
		fail_msg("%s: %s", url, text);
	free(text);
}

/* Without the tests' loopback port, every spelling of this computer, of
 * a private or link-local network, and of addresses that are no single
 * host gets the same answer, whatever the port, and nothing connects:
 * the fake, on 127.0.0.1 at the port each URL names, counts no
 * connection. */
static void test_local_addresses_refused(void **state)
{
	static const char *const hosts[] = {
		"127.0.0.1", "127.1", "0177.0.0.1", "0x7f.1", "0x7f000001", "2130706433", "127.9.8.7",
		"0.0.0.0", "0", "10.1", "10.0.0.1", "172.16.0.1", "172.31.255.254", "192.168.1.1",
		"100.64.0.1", "169.254.1.1", "169.254.169.254", "224.0.0.1", "255.255.255.255", "[::1]",
		"[0::1]", "[0:0:0:0:0:0:0:1]", "[::]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
		"[::ffff:10.0.0.1]", "[64:ff9b::7f00:1]", "[fd00::1]", "[fe80::1]", "[ff02::1]",
		"localhost", "LocalHost",
	};
	char names[8][64], args[400];
	size_t n = local_names(names, 8);

	(void)state;
	control("{\"videoJson\":" MEETING_JSON ",\"heads\":{\"/video/talk.mp4\":{\"contentType\":\"video/mp4\"}}}");
	for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		refused_at(hosts[i], G.port);
		refused_at(hosts[i], 0);
	}
	assert_true(n >= 1); /* localhost, at least */
	for (size_t i = 0; i < n; i++)
		refused_at(names[i], G.port);
	/* Plain http is refused for being http, before any connection too. */
	snprintf(args, sizeof args, "{\"video_url\":\"%s/video/talk.mp4\",\"intent\":\"meeting\",\"goal\":\"g\"}",
		 G.base_url);
	watch_fails(args, "the video URL must use https");
	assert_int_equal(fg_connections(&G), 0);
	assert_int_equal(fg_started(&G), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_youtube_and_the_key),
		cmocka_unit_test(test_argument_refusals),
		cmocka_unit_test(test_video_url_types),
		cmocka_unit_test(test_redirect_to_local),
		cmocka_unit_test(test_analysis_errors),
		cmocka_unit_test(test_cancel),
	};

	const struct CMUnitTest strict[] = {
		cmocka_unit_test(test_failed_reason_is_its_own),
		cmocka_unit_test(test_local_addresses_refused),
	};
	int failed = ck_run_group_tests_name("with the fake web server", tests, video_setup, video_teardown);

	return failed + ck_run_group_tests_name("one worker, no loopback port", strict, video_setup_strict, video_teardown);
}
