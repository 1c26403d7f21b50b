/*
 * itest_badinput - the bad-input table: every tool of the deployed
 * services given hostile arguments, each with the exact answer expected;
 * and after all of it (the group's teardown, badinput_rig.h) every service
 * is the same process it was, status says "ok" and a normal call works.
 * (Raw frames on the front and back sockets: itest_badinput_frames.c.)
 *
 * The broker runs the seven services of deploy/services.conf as
 * deployed.  Speech, video and the explainer read the Gemini key before
 * their arguments, alerts and the browser their setting: a fake key is
 * saved and both settings are on, so that every call reaches its
 * argument checks.  No argument of the table passes them, so nothing
 * goes to Gemini or a browser; the Gemini base URL is a closed port of
 * 127.0.0.1 all the same, so that a check that ever lets one through
 * fails here instead of calling out.
 *
 * Answers are compared whole where they are fixed sentences.  Where a
 * part varies (the fixture's folder, jansson's column of a byte) the
 * case gives the longest fixed part and says so.  Every answer must be
 * UTF-8 whatever bytes the call carried.  HB_BADINPUT_SHOW=1 prints each
 * answer as a C string, for writing the table.
 */
#include "../harness/checks.h"
#include "utf8.h"

#include <msgpack.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>
#include "badinput_rig.h"

/* ---- every tool: what no tool may take --------------------------------- */

/* The service framework parses the arguments before any tool runs, so
 * these answers are the same sentence for every tool, after its name.
 * jansson's own wording follows "arguments are not valid JSON: ", with
 * the position (which moves with the text) at the end. */
static void test_every_tool_malformed(void **state)
{
	char *deep = deep_nesting(), *big = repeat("{\"k\":\"", 'a', HUGE_ARGS, "\"}"), want[512], what[128];
	struct hb_client c;

	(void)state;
	ck_client(&F, &c);
	for (int i = 0; tools[i]; i++) {
		const struct arg_case cases[] = {
			{ "an array", "[]", EXACT, "arguments must be a JSON object" },
			{ "a string", "\"x\"", EXACT,
			  "arguments are not valid JSON: '[' or '{' expected near '\"x\"' (at line 1, column 3)" },
			{ "null", "null", EXACT,
			  "arguments are not valid JSON: '[' or '{' expected near 'null' (at line 1, column 4)" },
			{ "cut JSON", "{\"a\":", EXACT,
			  "arguments are not valid JSON: unexpected token near end of file (at line 1, column 5)" },
			{ "a duplicate key", "{\"a\":1,\"a\":2}", EXACT,
			  "arguments are not valid JSON: duplicate object key near '\"a\"' (at line 1, column 10)" },
			{ "an escaped NUL", "{\"a\":\"x\\u0000y\"}", EXACT,
			  "arguments must not hold \\u0000 (a NUL character) in a string or a field name (at line 1, "
			  "column 15)" },
			{ "an escaped NUL in a key", "{\"a\\u0000b\":1}", EXACT,
			  "arguments must not hold \\u0000 (a NUL character) in a string or a field name (at line 1, "
			  "column 11)" },
			{ "raw bytes that are not UTF-8", "{\"a\":\"\xff\xfe\xc3\"}", EXACT,
			  "arguments are not valid JSON: unable to decode byte 0xff near '\"' (at line 1, column 6)" },
			{ "a lone surrogate", "{\"a\":\"\\ud800\"}", EXACT,
			  "arguments are not valid JSON: invalid Unicode '\\uD800' near '\"\\ud800\"' (at line 1, column 13)" },
			/* jansson stops at its depth limit of 2048: column 2053. */
			{ "10000 nested arrays", deep, EXACT,
			  "arguments are not valid JSON: maximum parsing depth reached near '[' (at line 1, column 2053)" },
		};

		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			snprintf(what, sizeof what, "%s, %s", tools[i], cases[k].tool);
			snprintf(want, sizeof want, "%s: %s", tools[i], cases[k].want);
			expect_refusal(&c, what, tools[i], cases[k].json, cases[k].match, want);
		}
		/* Over HB_MAX_PAYLOAD: the broker refuses it before any service. */
		snprintf(what, sizeof what, "%s, 5 MiB of arguments", tools[i]);
		snprintf(want, sizeof want, "the arguments are %zu bytes; at most %u are accepted", strlen(big),
			 HB_MAX_PAYLOAD);
		expect_refusal(&c, what, tools[i], big, EXACT, want);
	}
	hb_client_close(&c);
	free(deep);
	free(big);
}

/* ---- each tool: its own fields ------------------------------------------ */

static const struct arg_case field_cases[] = {
	/* svc-sessions */
	{ "maintain_sessions", "{}", EXACT, "\"action\" is required" },
	{ "maintain_sessions", "{\"action\":5}", EXACT, "\"action\" must be a string" },
	{ "maintain_sessions", "{\"action\":\"drop\"}", EXACT,
	  "\"action\" must be one of: guide, listSessions, resolveSession" },
	{ "maintain_sessions", "{\"action\":\"listSessions\",\"limit\":\"9\"}", EXACT,
	  "\"limit\" must be an integer from 1 to 200" },
	{ "maintain_sessions", "{\"action\":\"listSessions\",\"zz\":1}", EXACT,
	  "unknown field \"zz\"; accepted fields: action projectDirectoryHash limit includeArchived agent targetSessionId" },
	{ "maintain_sessions", "{\"action\":\"resolveSession\",\"targetSessionId\":\"../../etc/passwd\"}", EXACT,
	  "No session with id ../../etc/passwd. Find ids with maintain_sessions listSessions." },
	{ "manage_sessions", "{}", EXACT, "\"action\" is required" },
	{ "manage_sessions", "{\"action\":[\"create\"]}", EXACT, "\"action\" must be a string" },
	{ "manage_sessions", "{\"action\":\"create\",\"title\":5,\"agent\":\"codex\",\"projectPath\":\"/tmp\"}", EXACT,
	  "\"title\" must be a string" },
	{ "manage_sessions", "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"codex\",\"projectPath\":\"../../etc/passwd\"}",
	  EXACT, "the project path must be absolute (start with /)" },
	{ "manage_sessions", "{\"action\":\"create\",\"title\":\"a\\nb\",\"agent\":\"codex\",\"projectPath\":\"/tmp\"}",
	  EXACT, "title must not contain control characters (such as newlines or tabs)" },
	{ "manage_sessions", "{\"action\":\"create\",\"title\":\"t\",\"agent\":\"bash\",\"projectPath\":\"/tmp\"}", EXACT,
	  "\"agent\" must be one of: codex, claude, external" },
	{ "manage_sessions", "{\"action\":\"archive\",\"targetSessionId\":\"../../etc\"}", EXACT,
	  "No session with id ../../etc. Find ids with maintain_sessions listSessions." },
	/* svc-messages */
	{ "send_session_message", "{}", EXACT, "\"recipientSessionId\" is required" },
	{ "send_session_message", "{\"recipientSessionId\":5,\"message\":\"m\"}", EXACT,
	  "\"recipientSessionId\" must be a string" },
	{ "send_session_message", "{\"recipientSessionId\":\"s\",\"message\":{}}", EXACT, "\"message\" must be a string" },
	{ "send_session_message", "{\"recipientSessionId\":\"s\",\"message\":\"m\",\"from\":\"x\"}", EXACT,
	  "unknown field \"from\"; accepted fields: recipientSessionId message" },
	{ "send_session_message", "{\"recipientSessionId\":\"s\",\"message\":\" \\n \"}", EXACT,
	  "The message is empty. Write what the other session should read." },
	{ "send_session_message", "{\"recipientSessionId\":\"s\",\"message\":\"m\"}", EXACT,
	  "This session has no active run, so it cannot send a message to another session. Nothing was sent." },
	/* svc-speech */
	{ "synthesize_speech", "{}", EXACT, "\"text\" is required" },
	{ "synthesize_speech", "{\"text\":5}", EXACT, "\"text\" must be a string" },
	{ "synthesize_speech", "{\"text\":\"hi\",\"voice\":true}", EXACT, "\"voice\" must be a string" },
	{ "synthesize_speech", "{\"text\":\"hi\",\"style\":[]}", EXACT, "\"style\" must be a string" },
	{ "synthesize_speech", "{\"text\":\"hi\",\"voice\":\"../../etc/passwd\"}", PREFIX,
	  "unknown voice \"../../etc/passwd\"; \"voice\" must be one of: Zephyr, Puck," },
	{ "synthesize_speech", "{\"text\":\"hi\",\"speed\":2}", EXACT, "unknown field \"speed\"; accepted fields: text voice style" },
	/* svc-video */
	{ "extract_video_context", "{}", EXACT,
	  "name the video: exactly one of youtube_url, video_url (a public https link to a video file) or local_file "
	  "(with localFileConsent)" },
	{ "extract_video_context", "{\"youtube_url\":5,\"intent\":\"tutorial\",\"goal\":\"g\"}", EXACT,
	  "\"youtube_url\" must be a string" },
	{ "extract_video_context", "{\"video_url\":\"https://example.com/a.mp4\",\"intent\":3,\"goal\":\"g\"}", EXACT,
	  "\"intent\" must be a string" },
	{ "extract_video_context", "{\"video_url\":\"https://example.com/a.mp4\",\"intent\":\"tutorial\"}", EXACT,
	  "\"goal\" is required" },
	{ "extract_video_context",
	  "{\"local_file\":\"/tmp/a.mp4\",\"localFileConsent\":\"yes\",\"intent\":\"tutorial\",\"goal\":\"g\"}", EXACT,
	  "\"localFileConsent\" must be true or false" },
	{ "extract_video_context", "{\"local_file\":\"../../etc/passwd\",\"localFileConsent\":true,\"intent\":\"tutorial\",\"goal\":\"g\"}",
	  EXACT, "local_file must be an absolute path (starting with /), not \"../../etc/passwd\"" },
	{ "extract_video_context", "{\"youtube_url\":\"x\",\"video_url\":\"y\",\"intent\":\"tutorial\",\"goal\":\"g\"}", EXACT,
	  "name exactly one source of youtube_url, video_url and local_file; this call names 2" },
	{ "extract_video_context", "{\"youtube_url\":\"https://evil.example/watch?v=x\",\"intent\":\"tutorial\",\"goal\":\"g\"}",
	  EXACT, "\"evil.example\" is not a YouTube host: youtube_url takes links on youtube.com (www., m., music.) or "
	  "youtu.be; use video_url for other sites" },
	/* svc-explainer */
	{ "create_explainer_video", "{}", EXACT, "create_explainer_video: \"question\" is required" },
	{ "create_explainer_video", "{\"question\":5,\"facts\":\"f\"}", EXACT,
	  "create_explainer_video: \"question\" must be a string" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"sources\":\"s\"}", EXACT,
	  "create_explainer_video: sources must be an array of strings (URLs or titles)" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"sources\":[5]}", EXACT,
	  "create_explainer_video: sources[0] must be a non-empty string of at most 2000 bytes" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"videoPath\":7}", EXACT,
	  "create_explainer_video: \"videoPath\" must be a string" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"workdir\":\"/\"}", EXACT,
	  "create_explainer_video: unknown field \"workdir\"; accepted fields: question facts sources videoPath format fps "
	  "captions" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"format\":\"9x16\"}", EXACT,
	  "create_explainer_video: \"format\" is \"9x16\", which is not a format; give \"16:9\" (1920x1080, landscape, "
	  "the default), \"9:16\" (1080x1920, vertical) or \"1:1\" (1080x1080, square)" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"fps\":59.94}", EXACT,
	  "create_explainer_video: \"fps\" is 59.94, which is not a frame rate a video may have; give 30 (the default) "
	  "or 60" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"captions\":\"subtitles\"}", EXACT,
	  "create_explainer_video: \"captions\" must be one of: file, burn" },
	{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"f\",\"videoPath\":\"../../etc/passwd\"}", EXACT,
	  "create_explainer_video runs its worker on the agent and model of the calling session: call it from a "
	  "Codex or Claude session's run." },
	/* svc-alerts */
	{ "send_mobile_notification", "{}", EXACT,
	  "send_mobile_notification needs a title and a body, both strings. Nothing was sent." },
	{ "send_mobile_notification", "{\"title\":5,\"body\":\"b\"}", EXACT,
	  "send_mobile_notification needs a title and a body, both strings. Nothing was sent." },
	{ "send_mobile_notification", "{\"title\":\"t\",\"body\":\"b\",\"url\":\"u\"}", EXACT,
	  "send_mobile_notification takes only title and body; \"url\" is not one of them. Nothing was sent." },
	{ "send_mobile_notification", "{\"title\":\"\",\"body\":\"b\"}", EXACT,
	  "The title is empty: an alert needs a title and a body. Nothing was sent." },
	{ "send_mobile_notification", "{\"title\":\"t\",\"body\":\"b\"}", EXACT,
	  "send_mobile_notification names the session and the run that call it, so it works only from a Codex or "
	  "Claude session's run, and this call has none. Nothing was sent." },
	/* svc-browser */
	{ "use_user_browser", "{}", EXACT, "use_user_browser: \"action\" is required" },
	{ "use_user_browser", "{\"action\":5}", EXACT, "use_user_browser: \"action\" must be a string" },
	{ "use_user_browser", "{\"action\":\"format_disk\"}", EXACT,
	  "use_user_browser has no action \"format_disk\": tabs, open, snapshot, read, click, type, press, scroll, wait, "
	  "screenshot, close, hover, select, back, forward, dialog, drag, console, network, response, evaluate, "
	  "viewport or pdf." },
	{ "use_user_browser", "{\"action\":\"viewport\",\"width\":100,\"height\":800}", EXACT,
	  "use_user_browser: \"width\" is 100; it must be from 200 to 4000" },
	{ "use_user_browser", "{\"action\":\"viewport\",\"width\":400,\"height\":800,\"deviceScaleFactor\":true}",
	  EXACT, "use_user_browser: deviceScaleFactor must be a number from 0.5 to 4 (device pixels per CSS pixel)" },
	{ "use_user_browser", "{\"action\":\"open\",\"url\":5}", EXACT, "use_user_browser: \"url\" must be a string" },
	{ "use_user_browser", "{\"action\":\"scroll\",\"amount\":\"9\"}", EXACT,
	  "use_user_browser: \"amount\" must be an integer from 1 to 100000" },
	{ "use_user_browser", "{\"action\":\"scroll\",\"amount\":0}", EXACT,
	  "use_user_browser: \"amount\" is 0; it must be from 1 to 100000" },
	{ "use_user_browser", "{\"action\":\"type\",\"submit\":\"yes\"}", EXACT,
	  "use_user_browser: \"submit\" must be true or false" },
	{ "use_user_browser", "{\"action\":\"dialog\",\"accept\":\"yes\"}", EXACT,
	  "use_user_browser: \"accept\" must be true or false" },
	{ "use_user_browser", "{\"action\":\"tabs\",\"cdp\":\"ws://x\"}", EXACT,
	  "use_user_browser: unknown field \"cdp\"; accepted fields: action tab url ref selector text submit key "
	  "direction amount navigation timeoutMs fullPage maxChars offset option accept toRef toSelector request "
	  "expression width height deviceScaleFactor mobile reset filename to sessionId runId projectDirectory" },
	{ "use_user_browser", "{\"action\":\"scroll\",\"to\":9}", EXACT, "use_user_browser: \"to\" must be a string" },
};

static void test_tool_fields(void **state)
{
	struct hb_client c;
	char what[160];

	(void)state;
	ck_client(&F, &c);
	for (size_t i = 0; i < sizeof field_cases / sizeof field_cases[0]; i++) {
		const struct arg_case *k = &field_cases[i];

		snprintf(what, sizeof what, "%s %.100s", k->tool, k->json);
		expect_refusal(&c, what, k->tool, k->json, k->match, k->want);
	}
	hb_client_close(&c);
}

/* Strings too long for their field, and unknown field names that are long
 * or end in a character of several bytes where an answer might cut them. */
static void test_tool_long_strings(void **state)
{
	static const struct {
		const char *tool, *head, *tail, *want;
	} cases[] = {
		{ "maintain_sessions", "{\"action\":\"", "\"}", "\"action\" is too long (at most 64 bytes)" },
		{ "manage_sessions", "{\"action\":\"create\",\"agent\":\"codex\",\"projectPath\":\"/tmp\",\"title\":\"", "\"}",
		  "\"title\" is too long (at most 4096 bytes)" },
		{ "send_session_message", "{\"recipientSessionId\":\"", "\",\"message\":\"m\"}",
		  "\"recipientSessionId\" is too long (at most 127 bytes)" },
		{ "synthesize_speech", "{\"text\":\"", "\"}", "\"text\" is too long (at most 240000 bytes)" },
		{ "extract_video_context", "{\"intent\":\"tutorial\",\"goal\":\"g\",\"video_url\":\"", "\"}",
		  "\"video_url\" is too long (at most 2048 bytes)" },
		{ "create_explainer_video", "{\"question\":\"q\",\"facts\":\"", "\"}",
		  "create_explainer_video: \"facts\" is too long (at most 60000 bytes)" },
		{ "send_mobile_notification", "{\"body\":\"b\",\"title\":\"", "\"}",
		  "The title is 3145728 characters, and it may have at most 60 (a title at most 60, a body at most 180): put "
		  "the outcome first and shorten it. Nothing was sent." },
		{ "use_user_browser", "{\"action\":\"type\",\"text\":\"", "\"}",
		  "use_user_browser: \"text\" is too long (at most 100000 bytes)" },
	};
	struct hb_client c;
	char what[160];

	(void)state;
	ck_client(&F, &c);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *big = repeat(cases[i].head, 'a', BIG_STRING, cases[i].tail);

		snprintf(what, sizeof what, "%s, a 3 MiB string", cases[i].tool);
		expect_refusal(&c, what, cases[i].tool, big, EXACT, cases[i].want);
		free(big);
	}
	/* A field name of 63 bytes then "é": an answer that cuts it at 64
	 * bytes must not cut the character in two. */
	for (int i = 0; tools[i]; i++) {
		char *odd = repeat("{\"", 'x', 63, "\xc3\xa9\xc3\xa9\":1}");

		snprintf(what, sizeof what, "%s, an unknown field of 67 bytes", tools[i]);
		expect_refusal(&c, what, tools[i], odd, CONTAINS, "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		free(odd);
		/* 3000 bytes of "é" as a field name: cut wherever an answer
		 * cuts it, it stays UTF-8 (check_text). */
		odd = repeat("{\"", 'x', 0, "");
		{
			size_t n = strlen(odd);
			char *k = realloc(odd, n + 3000 + 8);

			assert_non_null(k);
			for (int j = 0; j < 1500; j++)
				memcpy(k + n + 2 * j, "\xc3\xa9", 2);
			strcpy(k + n + 3000, "\":1}");
			odd = k;
		}
		snprintf(what, sizeof what, "%s, an unknown field of 1500 characters", tools[i]);
		expect_refusal(&c, what, tools[i], odd, CONTAINS, "\xc3\xa9\xc3\xa9\xc3\xa9");
		free(odd);
	}
	/* The alert's answer quotes 64 bytes of the name: the cut "é" is
	 * one U+FFFD, not half a character. */
	{
		char *odd = repeat("{\"", 'x', 63, "\xc3\xa9\":1}");

		expect_refusal(&c, "send_mobile_notification, a name cut in a character", "send_mobile_notification", odd,
			       EXACT, "send_mobile_notification takes only title and body; \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xef\xbf\xbd\" is not one of them. Nothing was sent.");
		free(odd);
	}
	hb_client_close(&c);
}

/* ---- paths: traversal and links out of a folder -------------------------- */

static void test_paths_and_links(void **state)
{
	char link[400], args[1200], want[1200], dir[300];
	struct hb_client c;

	(void)state;
	snprintf(dir, sizeof dir, "%s/hostile", F.dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(link, sizeof link, "%s/notes.mp4", dir);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	ck_client(&F, &c);

	/* A link named like a video that leads out to /etc/passwd: judged by
	 * the file it reaches, named in the answer, and never sent. */
	snprintf(args, sizeof args,
		 "{\"local_file\":\"%s\",\"localFileConsent\":true,\"intent\":\"tutorial\",\"goal\":\"g\"}", link);
	snprintf(want, sizeof want, "Video context failed: local_file \"%s\" (which is \"/etc/passwd\") is not a "
		 "video: its contents are none of the video types Gemini reads (MP4, QuickTime, 3GPP, WebM, AVI, FLV, "
		 "MPEG, WMV), whatever its name says", link);
	expect_refusal(&c, "local_file, a link to /etc/passwd", "extract_video_context", args, EXACT, want);

	/* Dots that climb out of the fixture to /etc/passwd. */
	snprintf(args, sizeof args,
		 "{\"local_file\":\"%s/../../../../../../etc/passwd\",\"localFileConsent\":true,\"intent\":\"tutorial\","
		 "\"goal\":\"g\"}", dir);
	snprintf(want, sizeof want, "Video context failed: local_file \"%s/../../../../../../etc/passwd\" is not a "
		 "video type Gemini reads; the name must end in one of .mp4, .m4v, .mpeg, .mpg, .mov, .qt, .avi, .flv, "
		 ".webm, .wmv, .3gp, .3gpp", dir);
	expect_refusal(&c, "local_file climbing to /etc/passwd", "extract_video_context", args, EXACT, want);

	/* A folder named like a video. */
	snprintf(args, sizeof args, "{\"local_file\":\"%s/d.mp4\",\"localFileConsent\":true,\"intent\":\"tutorial\","
		 "\"goal\":\"g\"}", dir);
	snprintf(link, sizeof link, "%s/d.mp4", dir);
	assert_int_equal(mkdir(link, 0700), 0);
	snprintf(want, sizeof want, "Video context failed: local_file \"%s/d.mp4\" is a folder, not a regular file",
		 dir);
	expect_refusal(&c, "local_file, a folder", "extract_video_context", args, EXACT, want);

	/* A path whose 300th byte starts "é": the answer quotes 300 bytes. */
	{
		char *path = repeat("", 'x', 299, "\xc3\xa9.mp4"), *a;

		/* Folders of nine letters: no name is too long for open(). */
		for (int i = 0; i < 300; i += 10)
			path[i] = '/';

		a = malloc(strlen(path) + 100);
		assert_non_null(a);
		sprintf(a, "{\"local_file\":\"%s\",\"localFileConsent\":true,\"intent\":\"tutorial\",\"goal\":\"g\"}",
			path);
		path[299] = '\0';
		snprintf(want, sizeof want, "Video context failed: cannot open local_file \"%s\xef\xbf\xbd\": there is no "
			 "such file", path);
		expect_refusal(&c, "local_file cut in a character", "extract_video_context", a, EXACT, want);
		free(a);
		free(path);
	}
	hb_client_close(&c);
}

/* create_explainer_video judges videoPath only for a session's run: a
 * Claude run on a session of the fixture. */
static void test_explainer_video_paths(void **state)
{
	char session[64], link[400], args[800], what[100];
	struct hb_client c;
	const char *paths[4];
	char want[4][1200];

	(void)state;
	assert_int_equal(fx_create_session(&F, "Bad input", "claude", "/tmp", "full-auto", session, sizeof session), 0);
	snprintf(link, sizeof link, "%s/hostile-video.mp4", F.dir);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	paths[0] = "../../etc/passwd";
	paths[1] = "/etc/passwd";
	paths[2] = link;
	paths[3] = "/nonexistent/../etc/passwd";
	snprintf(want[0], sizeof want[0], "videoPath must be the absolute path that create_explainer_video answered; "
		 "\"../../etc/passwd\" is relative.");
	for (int i = 1; i < 3; i++)
		snprintf(want[i], sizeof want[i], "%s was not made by create_explainer_video (it is not the video.mp4 of "
			 "a video folder in %s/data/explainers); only a videoPath that it answered can be revised. Call it "
			 "without videoPath to make a new video.", paths[i], F.dir);
	snprintf(want[3], sizeof want[3], "There is no video at /nonexistent/../etc/passwd: it was moved or deleted. "
		 "Call create_explainer_video without videoPath to make a new one.");
	ck_client(&F, &c);
	assert_int_equal(fx_open_run(&c, "run-badinput", session, "/tmp", "claude", "full-auto"), 0);
	for (int i = 0; i < 4; i++) {
		struct hb_env reply;
		int64_t id, got = -1;

		snprintf(args, sizeof args, "{\"question\":\"q\",\"facts\":\"f\",\"videoPath\":\"%s\"}", paths[i]);
		id = fx_claude_call(&c, 10 + i, "create_explainer_video", args);
		ck_recv(&c, &reply, CK_WAIT_MS, &got);
		assert_int_equal(got, id);
		snprintf(what, sizeof what, "videoPath %s", paths[i]);
		{
			json_t *j = json_loads(hb_env_str_or(&reply, "json", ""), 0, NULL);
			json_t *item = json_array_get(json_object_get(j, "content"), 0);

			if (!j || !json_is_true(json_object_get(j, "isError")))
				fail_msg("%s: not a tool error: %s", what, hb_env_str_or(&reply, "json", "(none)"));
			check_text(what, fx_jstr(item, "text"), EXACT, want[i]);
			json_decref(j);
		}
		hb_env_free(&reply);
	}
	hb_client_close(&c);
}

/* ---- tool names ---------------------------------------------------------- */

static void test_tool_names(void **state)
{
	static const struct arg_case cases[] = {
		{ "_session_info", "{}", EXACT, "unknown tool \"_session_info\": no service of this broker serves it" },
		{ "_messages_send", "{}", EXACT, "unknown tool \"_messages_send\": no service of this broker serves it" },
		{ "_messages_list", "{}", EXACT, "unknown tool \"_messages_list\": no service of this broker serves it" },
		{ "_messages_discard", "{}", EXACT,
		  "unknown tool \"_messages_discard\": no service of this broker serves it" },
		{ "_link_thread", "{}", EXACT, "unknown tool \"_link_thread\": no service of this broker serves it" },
		{ "_link_claude", "{}", EXACT, "unknown tool \"_link_claude\": no service of this broker serves it" },
		{ "../svc-sessions", "{}", EXACT, "unknown tool \"../svc-sessions\": no service of this broker serves it" },
		{ "manage_sessions ", "{}", EXACT, "unknown tool \"manage_sessions \": no service of this broker serves it" },
		{ "MANAGE_SESSIONS", "{}", EXACT, "unknown tool \"MANAGE_SESSIONS\": no service of this broker serves it" },
		{ "manage_sessions\n", "{}", EXACT,
		  "unknown tool \"manage_sessions\\x0a\": no service of this broker serves it" },
		{ "\xff\xfe", "{}", EXACT, "unknown tool \"\\xff\\xfe\": no service of this broker serves it" },
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xa9\xc3\xa9", "{}", EXACT,
		  "unknown tool \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\xc3\": no service of this "
		  "broker serves it" },
	};
	struct hb_client c;
	char what[160];

	(void)state;
	ck_client(&F, &c);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(what, sizeof what, "tool name %zu", i);
		expect_refusal(&c, what, cases[i].tool, cases[i].json, cases[i].match, cases[i].want);
	}
	hb_client_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_tool_malformed),
		cmocka_unit_test(test_tool_fields),
		cmocka_unit_test(test_tool_long_strings),
		cmocka_unit_test(test_paths_and_links),
		cmocka_unit_test(test_explainer_video_paths),
		cmocka_unit_test(test_tool_names),
	};

	return ck_run_group_tests(tests, badinput_setup, badinput_teardown_checked);
}
