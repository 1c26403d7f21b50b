/*
 * test_video_notes - what svc-video asks of Gemini and what it makes of
 * the answer, without a network: the request body (the video part before
 * the prompt, the temperature, structured output with the intent's
 * schema), the notes read from an answer (thoughts skipped, parts joined;
 * blocked, cut off, not JSON and off-schema answers refused), the strict
 * schema check on a table of broken answers, timestamps, and the Markdown
 * of both intents against golden files (tests/fixtures/video/, one .md each).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-video/analyze.h"
#include "../../svc-video/render.h"
#include "../../svc-video/schema.h"

/* A fixture's text (tests/fixtures/video/NAME), from here or the build's parent. */
static char *fixture(const char *name)
{
	const char *build = getenv("HB_BUILD");
	char path[700];
	FILE *f;
	char *text;
	long n;

	snprintf(path, sizeof path, "tests/fixtures/video/%s", name);
	if (!(f = fopen(path, "rb"))) {
		snprintf(path, sizeof path, "%s/../tests/fixtures/video/%s", build ? build : "build", name);
		f = fopen(path, "rb");
	}
	if (!f)
		fail_msg("fixture %s not found", name);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	assert_non_null(text = calloc(1, (size_t)n + 1));
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

static void golden(enum video_intent intent, const char *json_name, const char *md_name)
{
	char *json = fixture(json_name), *want = fixture(md_name), *got, err[512];
	json_t *notes = json_loads(json, 0, NULL);
	struct video_render_info info = { .intent = intent,
					  .source = "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
					  .goal = "Set up the project\non a new laptop",
					  .model = "gemini-3.1-pro-preview" };

	assert_non_null(notes);
	if (video_schema_check(intent, notes, err, sizeof err) < 0)
		fail_msg("the fixture breaks the schema: %s", err);
	assert_non_null(got = video_render(&info, notes));
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "---- got ----\n%s---- want ----\n%s", got, want);
		fail_msg("%s differs from the rendering", md_name);
	}
	free(got);
	free(want);
	free(json);
	json_decref(notes);
}

static void test_golden_tutorial(void **state)
{
	(void)state;
	golden(VIDEO_TUTORIAL, "tutorial.json", "tutorial.md");
}

static void test_golden_meeting(void **state)
{
	(void)state;
	golden(VIDEO_MEETING, "meeting.json", "meeting.md");
}

static void test_timestamps(void **state)
{
	static const struct {
		const char *ts;
		long seconds;
	} t[] = {
		{ "00:00", 0 },     { "00:42", 42 },   { "7:05", 425 },   { "75:10", 4510 },   { "123:59", 7439 },
		{ "1:02:03", 3723 }, { "10:00:00", 36000 }, { "5 min", -1 }, { "1:2", -1 },       { "01:60", -1 },
		{ "1:60:00", -1 },  { "1:00:60", -1 }, { ":30", -1 },     { "00:30:", -1 },    { "1234:00", -1 },
		{ "", -1 },         { "00-30", -1 },   { "1:2:03", -1 },  { "001:02:03", -1 }, { "0a:10", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (video_timestamp_seconds(t[i].ts) != t[i].seconds)
			fail_msg("\"%s\": wanted %ld, got %ld", t[i].ts, t[i].seconds, video_timestamp_seconds(t[i].ts));
}

/* The tutorial fixture with one change (a jansson path edit). */
static json_t *tutorial_with(const char *section, size_t idx, const char *key, json_t *value)
{
	char *json = fixture("tutorial.json");
	json_t *n = json_loads(json, 0, NULL), *target = n;

	free(json);
	assert_non_null(n);
	if (section)
		target = json_array_get(json_object_get(n, section), idx);
	if (section && !key) {
		json_array_set_new(json_object_get(n, section), idx, value);
		return n;
	}
	if (value)
		json_object_set_new(target, key, value);
	else
		json_object_del(target, key);
	return n;
}

static void test_schema_breaks(void **state)
{
	static const char *const whys[] = {
		"\"summary\" is missing",
		"\"caveats\" is missing or not an array",
		"a field \"chapters\" the tutorial schema does not have",
		"commands[1].timestamp is \"about 5 min\", not MM:SS or H:MM:SS",
		"concepts[0] has no timestamp",
		"concepts[1].explanation is missing or not a string",
		"procedures[0].steps is missing or not an array of strings",
		"procedures[0].steps is missing or not an array of strings",
		"code[0] has a field \"lines\" the schema does not have",
		"gaps[0] has a field \"timestamp\" the schema does not have",
		"onScreenText[0] is not an object",
		"\"gaps\" is missing or not an array",
	};
	json_t *broken[sizeof whys / sizeof whys[0]];
	char err[512];

	(void)state;
	broken[0] = tutorial_with(NULL, 0, "summary", NULL);
	broken[1] = tutorial_with(NULL, 0, "caveats", json_object());
	broken[2] = tutorial_with(NULL, 0, "chapters", json_array());
	broken[3] = tutorial_with("commands", 1, "timestamp", json_string("about 5 min"));
	broken[4] = tutorial_with("concepts", 0, "timestamp", NULL);
	broken[5] = tutorial_with("concepts", 1, "explanation", json_integer(3));
	broken[6] = tutorial_with("procedures", 0, "steps", json_string("Create it, then activate it."));
	broken[7] = tutorial_with("procedures", 0, "steps", json_pack("[s,i]", "Create it.", 2));
	broken[8] = tutorial_with("code", 0, "lines", json_integer(2));
	broken[9] = tutorial_with("gaps", 0, "timestamp", json_string("01:00"));
	broken[10] = tutorial_with("onScreenText", 0, NULL, json_string("Python Packaging"));
	broken[11] = tutorial_with(NULL, 0, "gaps", NULL);
	for (size_t i = 0; i < sizeof whys / sizeof whys[0]; i++) {
		if (video_schema_check(VIDEO_TUTORIAL, broken[i], err, sizeof err) == 0 || !strstr(err, whys[i]))
			fail_msg("broken answer %zu: wanted \"%s\", got \"%s\"", i, whys[i], err);
		json_decref(broken[i]);
	}
	/* A meeting answer is not a tutorial answer, and the other way round. */
	{
		char *json = fixture("meeting.json");
		json_t *m = json_loads(json, 0, NULL);
		assert_int_equal(video_schema_check(VIDEO_TUTORIAL, m, err, sizeof err), -1);
		assert_int_equal(video_schema_check(VIDEO_MEETING, m, err, sizeof err), 0);
		json_decref(m);
		free(json);
	}
	assert_int_equal(video_schema_check(VIDEO_MEETING, json_null(), err, sizeof err), -1);
}

/* The schema sent to Gemini names every field the check demands. */
static void test_schema_sent(void **state)
{
	(void)state;
	for (int in = VIDEO_TUTORIAL; in <= VIDEO_MEETING; in++) {
		const struct video_intent_def *d = video_intent_def((enum video_intent)in);
		json_t *s = video_schema((enum video_intent)in), *props = json_object_get(s, "properties");

		assert_non_null(s);
		assert_true(json_is_false(json_object_get(s, "additionalProperties")));
		assert_int_equal(json_array_size(json_object_get(s, "required")), d->nsections + 2);
		for (size_t i = 0; i < d->nsections; i++) {
			json_t *item = json_object_get(json_object_get(props, d->sections[i].key), "items");
			json_t *req = json_object_get(item, "required");
			assert_non_null(item);
			assert_string_equal(json_string_value(json_array_get(req, 0)), "timestamp");
			assert_true(json_is_false(json_object_get(item, "additionalProperties")));
		}
		assert_null(json_object_get(json_object_get(json_object_get(props, "gaps"), "items"), "timestamp"));
		json_decref(s);
	}
}

static void test_request_body(void **state)
{
	struct video_analysis a = { .model = "m", .temperature = 0.2, .intent = VIDEO_MEETING,
				    .goal = "What did we decide about \"uploads\"?",
				    .file_uri = "https://www.youtube.com/watch?v=dQw4w9WgXcQ" };
	char *text;
	json_t *b, *parts, *gc, *schema;

	(void)state;
	assert_non_null(text = video_request_body(&a));
	assert_non_null(b = json_loads(text, 0, NULL));
	parts = json_object_get(json_array_get(json_object_get(b, "contents"), 0), "parts");
	assert_int_equal(json_array_size(parts), 2);
	/* The video first, then the prompt; YouTube without a mimeType. */
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(parts, 0), "fileData"),
								"fileUri")),
			    a.file_uri);
	assert_null(json_object_get(json_object_get(json_array_get(parts, 0), "fileData"), "mimeType"));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(parts, 1), "text")), a.goal));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(parts, 1), "text")),
			       "decisions, requirements, blockers, action items and open questions"));
	gc = json_object_get(b, "generationConfig");
	assert_true(json_number_value(json_object_get(gc, "temperature")) > 0.199 &&
		    json_number_value(json_object_get(gc, "temperature")) < 0.201);
	assert_string_equal(json_string_value(json_object_get(gc, "responseMimeType")), "application/json");
	schema = video_schema(VIDEO_MEETING);
	assert_true(json_equal(json_object_get(gc, "responseJsonSchema"), schema));
	json_decref(schema);
	json_decref(b);
	free(text);
	/* A URL or an uploaded file carries its type. */
	a.mime = "video/mp4";
	assert_non_null(text = video_request_body(&a));
	assert_non_null(strstr(text, "\"mimeType\":\"video/mp4\""));
	free(text);
}

/* Notes read from an answer given as JSON text. */
static int notes_of(const char *answer, json_t **notes, char *err, size_t errlen)
{
	struct hb_gemini_reply r;
	char *copy = strdup(answer);
	int rc;

	memset(&r, 0, sizeof r);
	assert_non_null(copy);
	assert_int_equal(hb_gemini_parse_answer(&r, copy, strlen(copy)), 0);
	rc = video_answer_notes(&r, VIDEO_MEETING, notes, err, errlen);
	hb_gemini_reply_free(&r);
	return rc;
}

static void test_answers(void **state)
{
	static const char split[] =
		"{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Let me think.\",\"thought\":true},"
		"{\"text\":\"{\\\"summary\\\":\\\"s\\\",\\\"gaps\\\":[],\\\"decisions\\\":[],\"},"
		"{\"text\":\"\\\"requirements\\\":[],\\\"blockers\\\":[],\\\"actionItems\\\":[],\\\"openQuestions\\\":[]}\"}]},"
		"\"finishReason\":\"STOP\"}]}";
	static const struct {
		const char *answer, *why;
	} bad[] = {
		{ "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{\\\"summary\\\":\"}]},\"finishReason\":\"MAX_TOKENS\"}]}",
		  "cut off at its output limit" },
		{ "{\"candidates\":[{\"content\":{\"parts\":[]},\"finishReason\":\"SAFETY\"}]}", "finishReason SAFETY" },
		{ "{\"promptFeedback\":{\"blockReason\":\"PROHIBITED_CONTENT\"}}", "blocked the request (PROHIBITED_CONTENT)" },
		{ "{\"candidates\":[]}", "no candidates" },
		{ "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Here are your notes: ...\"}]}}]}",
		  "not the JSON it was asked for" },
		{ "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{\\\"summary\\\":\\\"s\\\"}\"}]}}]}",
		  "breaks the meeting notes schema: \"decisions\" is missing" },
		{ "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\",\"thought\":true}]}}]}", "holds no text" },
	};
	json_t *notes;
	char err[512];

	(void)state;
	assert_int_equal(notes_of(split, &notes, err, sizeof err), 0);
	assert_string_equal(json_string_value(json_object_get(notes, "summary")), "s");
	json_decref(notes);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (notes_of(bad[i].answer, &notes, err, sizeof err) == 0 || !strstr(err, bad[i].why))
			fail_msg("answer %zu: wanted \"%s\", got \"%s\"", i, bad[i].why, err);
		assert_null(notes);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_tutorial),
		cmocka_unit_test(test_golden_meeting),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_schema_breaks),
		cmocka_unit_test(test_schema_sent),
		cmocka_unit_test(test_request_body),
		cmocka_unit_test(test_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
