/*
 * itest_speech - synthesize_speech as an agent reaches it: the real
 * hb-broker and svc-speech (the entry of deploy/services.conf) against the
 * fake Gemini server on 127.0.0.1 (tests/fake-gemini), with the key saved
 * in a temporary HB_HOME.
 *
 * Covers: the key read on every call (deleted between two calls: the exact
 * sentence, and no request leaves) and sent only in its header; three
 * requests in flight, counted at the server; the parts stitched in order
 * with exactly 180 ms of silence, checked with sox (soxi for the header,
 * sox for the samples); retries of 429/500/503 and of text instead of
 * audio with their growing waits, and none for other 4xx; a part at 16 kHz
 * resampled, a part that is not PCM refused; toolCancel and run stop
 * aborting the requests in flight and leaving no file; the subcall path
 * the explainer uses; readable argument errors; a key file that cannot
 * be used (a FIFO, too large, a value too long) answered with a sentence
 * naming it, not as "no key".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/fake_gemini.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "paths.h"

#define KEY "AIzaTestKeyForTheFakeServer0123456789"
#define GAP_SAMPLES 4320 /* 180 ms at 24 kHz */
#define BACKOFF_MS 300   /* HB_SPEECH_BACKOFF_MS for this broker */

static const char echo_conf[] = "[service svc-echo]\n"
				"exec = @BUILD@/tests/svc-echo\n"
				"concurrency = 2\n"
				"tools = subcall\n";

static struct fixture F;
static struct fake_gemini G;
static char gdir[64];

/* ---- helpers --------------------------------------------------------------- */

static void save_key(void)
{
	assert_int_equal(fx_save_gemini_key(KEY), 0);
}

static void control(const char *json)
{
	assert_int_equal(fg_reset(&G, json), 0);
}

/* Call synthesize_speech with args; returns ok, *text the answer. */
static int speak(const char *args, char **text)
{
	int ok = 0;

	if (fx_call(&F, "synthesize_speech", args, &ok, text) < 0)
		fail_msg("no answer from the broker: %s", *text ? *text : "?");
	return ok;
}

/* The answer of a call that must succeed, parsed. */
static json_t *speak_ok(const char *args)
{
	char *text = NULL;
	json_t *j;

	if (!speak(args, &text))
		fail_msg("synthesize_speech failed: %s", text);
	j = json_loads(text, 0, NULL);
	if (!json_is_object(j))
		fail_msg("the answer is not a JSON object: %s", text);
	free(text);
	return j;
}

/* A call that must fail with want in its text. */
static void speak_fails(const char *args, const char *want)
{
	char *text = fx_call_expect(&F, "synthesize_speech", args, 0, want);

	assert_non_null(text);
	free(text);
}

/* Entries in <cache>/agent-speech (hidden temporary files included). */
static int speech_files(void)
{
	char path[400];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof path, "%s/cache/agent-speech", F.dir);
	if (!(d = opendir(path)))
		return 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void remove_speech_files(void)
{
	char cmd[400];

	snprintf(cmd, sizeof cmd, "rm -rf '%s/cache/agent-speech'", F.dir);
	assert_int_equal(system(cmd), 0);
}

/* soxi's answer for one option (-r, -c, -b, -s) on the file. */
static long long soxi(const char *opt, const char *file)
{
	char cmd[700], out[64] = "";
	FILE *p;

	snprintf(cmd, sizeof cmd, "soxi %s '%s' 2>&1", opt, file);
	assert_non_null(p = popen(cmd, "r"));
	if (!fgets(out, sizeof out, p))
		out[0] = '\0';
	assert_int_equal(pclose(p), 0);
	return atoll(out);
}

/* The samples of the file as sox decodes them; *n their count. */
static short *sox_samples(const char *file, size_t *n)
{
	char cmd[700];
	size_t cap = 1 << 20, len = 0, r;
	unsigned char *buf = malloc(cap);
	short *s;
	FILE *p;

	snprintf(cmd, sizeof cmd, "sox '%s' -t raw -e signed-integer -b 16 -L -", file);
	assert_non_null(buf);
	assert_non_null(p = popen(cmd, "r"));
	while ((r = fread(buf + len, 1, cap - len, p)) > 0) {
		len += r;
		if (len == cap)
			assert_non_null(buf = realloc(buf, cap *= 2));
	}
	assert_int_equal(pclose(p), 0);
	*n = len / 2;
	assert_non_null(s = malloc(*n * sizeof *s + 1));
	for (size_t i = 0; i < *n; i++)
		s[i] = (short)(buf[2 * i] | buf[2 * i + 1] << 8);
	free(buf);
	return s;
}

/* A sentence of exactly 110 characters naming marker (no full stop inside). */
static void sentence(char *out, const char *marker, int i)
{
	int n = snprintf(out, 120, "%s says line %02d", marker, i);

	while (n < 108)
		n += snprintf(out + n, (size_t)(120 - n), " and more");
	strcpy(out + 108, ". ");
}

/* A text whose pieces are exactly the groups of 16 sentences (1,760
 * characters: one more sentence would pass 1,800), one marker a group. */
static char *text_of(const char *const *markers, int groups)
{
	char *t = calloc((size_t)groups, 16 * 110 + 1), s[120];

	assert_non_null(t);
	for (int g = 0; g < groups; g++)
		for (int i = 0; i < 16; i++) {
			sentence(s, markers[g], i);
			strcat(t, s);
		}
	return t;
}

/* {"text":TEXT,...extra} as JSON text. */
static char *args_with(const char *text, const char *voice, const char *style)
{
	json_t *a = json_pack("{s:s}", "text", text);
	char *out;

	if (voice)
		json_object_set_new(a, "voice", json_string(voice));
	if (style)
		json_object_set_new(a, "style", json_string(style));
	out = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return out;
}

/* The records of requests whose transcript contains marker, in order of arrival. */
static json_t *requests_for(const char *marker)
{
	json_t *all = fg_records(&G), *out = json_array(), *r;
	size_t i;

	json_array_foreach(all, i, r)
		if (strstr(fg_str(r, "transcript"), marker))
			json_array_append(out, r);
	json_decref(all);
	/* Ended-order is arrival order here: one request at a time per piece. */
	return out;
}

static double gap_ms(const json_t *reqs, size_t i)
{
	return json_number_value(json_object_get(json_array_get(reqs, i), "arrivedMs")) -
	       json_number_value(json_object_get(json_array_get(reqs, i - 1), "doneMs"));
}

/* The answer's file, read by sox: 24 kHz mono 16-bit; the parts of the
 * groups' markers in the text's order, each exactly as long as the last
 * answer for it, with exactly 4,320 samples of silence between them and
 * nothing else; the answer's duration is the file's.  per_marker: the
 * requests each marker must have had (0: any).  Returns the parts seen. */
static int stitched(const json_t *res, const char *const *m, int groups, size_t per_marker)
{
	const char *file = json_string_value(json_object_get(res, "file"));
	size_t n, at = 0;
	short *s;
	int g;

	assert_non_null(file);
	assert_int_equal(soxi("-r", file), 24000);
	assert_int_equal(soxi("-c", file), 1);
	assert_int_equal(soxi("-b", file), 16);
	s = sox_samples(file, &n);
	assert_int_equal(soxi("-s", file), (long long)n);
	for (g = 0; g < groups; g++) {
		json_t *reqs = requests_for(m[g]), *last = json_array_get(reqs, json_array_size(reqs) - 1);
		long long want = fg_int(last, "samples"), v = fg_int(last, "value");
		size_t run = 0;

		if (per_marker)
			assert_int_equal(json_array_size(reqs), per_marker);
		json_decref(reqs);
		while (at < n && s[at] == v)
			at++, run++;
		assert_int_equal(run, want);
		if (g < groups - 1) {
			for (run = 0; at < n && s[at] == 0; at++)
				run++;
			assert_int_equal(run, GAP_SAMPLES);
		}
	}
	assert_int_equal(at, n);
	assert_true(json_number_value(json_object_get(res, "durationSeconds")) * 24000 > (double)n - 1);
	assert_true(json_number_value(json_object_get(res, "durationSeconds")) * 24000 < (double)n + 1);
	free(s);
	return g;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_key_read_on_every_call(void **state)
{
	const char *del[] = { "settings", "gemini-key", "delete", NULL };
	json_t *res, *recs;
	char *out, *log;
	FILE *in;

	(void)state;
	control("{}");
	res = speak_ok("{\"text\":\"Hello there. This is a short test.\"}");
	assert_int_equal(json_integer_value(json_object_get(res, "parts")), 1);
	assert_string_equal(json_string_value(json_object_get(res, "voice")), "Kore");
	assert_string_equal(json_string_value(json_object_get(res, "model")), "gemini-3.1-flash-tts-preview");
	json_decref(res);
	recs = fg_records(&G);
	assert_int_equal(json_array_size(recs), 1);
	/* The key travels in its header only, to the model's path. */
	assert_string_equal(fg_str(json_array_get(recs, 0), "apiKey"), KEY);
	assert_string_equal(fg_str(json_array_get(recs, 0), "query"), "");
	assert_string_equal(fg_str(json_array_get(recs, 0), "path"),
			    "/v1beta/models/gemini-3.1-flash-tts-preview:generateContent");
	assert_non_null(strstr(fg_str(json_array_get(recs, 0), "contentType"), "application/json"));
	json_decref(recs);

	assert_int_equal(fx_hbctl(&F, &out, del), 0);
	free(out);
	fg_clear(&G);
	speak_fails("{\"text\":\"Hello again.\"}", "Add a Gemini API key in Settings > API Keys.");
	{
		char *text = NULL;
		assert_false(speak("{\"text\":\"Hello again.\"}", &text));
		assert_string_equal(text, "Add a Gemini API key in Settings > API Keys.");
		free(text);
	}
	assert_int_equal(fg_started(&G), 0);
	save_key();

	/* The key is in no log line of the broker or its services. */
	assert_non_null(in = fopen(F.log, "r"));
	assert_non_null(log = calloc(1, 1 << 22));
	assert_true(fread(log, 1, (1 << 22) - 1, in) > 0);
	fclose(in);
	assert_null(strstr(log, KEY));
	free(log);
	remove_speech_files();
}

/* Write n bytes of 'k' to path, replacing what is there. */
static void write_key_bytes(const char *path, size_t n)
{
	FILE *f;

	assert_non_null(f = fopen(path, "w"));
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(fputc('k', f), EOF);
	assert_int_equal(fclose(f), 0);
}

/* The key file is there but cannot be used: each call says which file
 * and what is wrong with it (and sends nothing), where it used to say
 * that no key was set. */
static void test_unusable_key_file(void **state)
{
	char path[HB_PATH_MAX + 32], want[2 * HB_PATH_MAX + 256], err[256];
	struct hb_paths p;

	(void)state;
	control("{}");
	assert_int_equal(hb_paths_resolve(&p, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/gemini-api-key", p.config);

	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(want, sizeof want, "The Gemini key file cannot be used: %s is a FIFO (named pipe), not a regular "
		 "file; replace it with a plain file or delete it", path);
	speak_fails("{\"text\":\"Hello.\"}", want);

	assert_int_equal(unlink(path), 0);
	write_key_bytes(path, 400);
	snprintf(want, sizeof want, "The Gemini key file cannot be used: %s is 400 bytes, more than the 320 bytes it "
		 "may have; fix or delete it", path);
	speak_fails("{\"text\":\"Hello.\"}", want);

	write_key_bytes(path, 300);
	snprintf(want, sizeof want, "The Gemini key file cannot be used: %s holds 300 bytes, more than the 256 it may "
		 "have; fix or delete it", path);
	speak_fails("{\"text\":\"Hello.\"}", want);
	assert_int_equal(fg_started(&G), 0);

	save_key();
	json_decref(speak_ok("{\"text\":\"Hello again.\"}"));
}

static void test_parts_in_flight_and_stitched(void **state)
{
	static const char *const m[] = { "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot" };
	char *text = text_of(m, 6), *args = args_with(text, "puck", "Warm and slow, like a bedtime story."), *p;
	json_t *res, *recs, *r;
	const char *file;
	size_t i, total = 0;
	long long max_inflight = 0;

	(void)state;
	/* Answers wait until three requests are in flight (or 3 s): with
	 * fewer at a time the count below never reaches 3. */
	control("{\"holdUntilInflight\":3,\"holdMaxMs\":3000}");
	res = speak_ok(args);
	free(args);
	assert_int_equal(json_integer_value(json_object_get(res, "parts")), 6);
	assert_string_equal(json_string_value(json_object_get(res, "voice")), "Puck");
	file = json_string_value(json_object_get(res, "file"));
	assert_non_null(strstr(file, "/cache/agent-speech/speech-"));
	assert_int_equal(strncmp(file, F.dir, strlen(F.dir)), 0);
	assert_string_equal(file + strlen(file) - 4, ".wav");

	recs = fg_records(&G);
	assert_int_equal(json_array_size(recs), 6);
	json_array_foreach(recs, i, r) {
		const char *t = fg_str(r, "text"), *tr = fg_str(r, "transcript");
		char want[64];

		if (fg_int(r, "inflight") > max_inflight)
			max_inflight = fg_int(r, "inflight");
		assert_string_equal(fg_str(r, "voice"), "Puck");
		/* The notes stay outside the transcript; the part is named but
		 * the model is told not to say it. */
		assert_non_null(strstr(t, "Warm and slow, like a bedtime story."));
		assert_null(strstr(tr, "bedtime"));
		assert_null(strstr(tr, "part"));
		snprintf(want, sizeof want, "of 6 of one continuous text. Do not say the part number");
		assert_non_null(strstr(t, want));
		assert_non_null(p = strstr(text, tr)); /* the transcript is a piece of the text */
		total += strlen(tr) + 1;               /* + the blank trimmed after its last sentence */
	}
	assert_int_equal(max_inflight, 3);
	assert_int_equal(total, strlen(text));

	assert_int_equal(stitched(res, m, 6, 1), 6);
	json_decref(recs);
	json_decref(res);
	free(text);
	remove_speech_files();
}

/* The part next in order is written while its answer arrives; an answer
 * that breaks off after all its audio (the JSON never ends) is asked
 * again, and what the broken one wrote is not in the file.  Whiskey is
 * the first part (written from the start), Xray the second (written once
 * Whiskey is done), Yankee comes whole. */
static void test_broken_answer_asked_again(void **state)
{
	static const char *const m[] = { "Whiskey", "Xray", "Yankee" };
	char *text = text_of(m, 3), *args = args_with(text, NULL, NULL);
	json_t *res, *reqs;

	(void)state;
	control("{\"rules\":[{\"match\":\"Whiskey\",\"times\":1,\"reply\":\"broken\"},"
		"{\"match\":\"Xray\",\"times\":1,\"reply\":\"broken\"}]}");
	res = speak_ok(args);
	assert_int_equal(json_integer_value(json_object_get(res, "parts")), 3);
	reqs = requests_for("Whiskey");
	/* The broken answer had all its audio: 200, as long as the good one. */
	assert_int_equal(fg_int(json_array_get(reqs, 0), "status"), 200);
	assert_int_equal(fg_int(json_array_get(reqs, 0), "samples"), fg_int(json_array_get(reqs, 1), "samples"));
	assert_int_equal(json_array_size(reqs), 2);
	json_decref(reqs);
	reqs = requests_for("Xray");
	assert_int_equal(json_array_size(reqs), 2);
	json_decref(reqs);
	reqs = requests_for("Yankee");
	assert_int_equal(json_array_size(reqs), 1);
	json_decref(reqs);
	assert_int_equal(stitched(res, m, 3, 0), 3);
	json_decref(res);
	free(args);
	free(text);
	remove_speech_files();
}

static void test_one_part_prompt(void **state)
{
	json_t *res, *recs;
	const char *t;

	(void)state;
	control("{}");
	res = speak_ok("{\"text\":\"Just one sentence.\",\"style\":\"Cheerful.\"}");
	assert_int_equal(json_integer_value(json_object_get(res, "parts")), 1);
	json_decref(res);
	recs = fg_records(&G);
	t = fg_str(json_array_get(recs, 0), "text");
	assert_null(strstr(t, "part"));
	assert_non_null(strstr(t, "Cheerful."));
	assert_string_equal(fg_str(json_array_get(recs, 0), "transcript"), "Just one sentence.");
	json_decref(recs);
	remove_speech_files();
}

static void test_retries_and_waits(void **state)
{
	json_t *res, *reqs;

	(void)state;
	control("{\"rules\":[{\"match\":\"Hotel\",\"times\":2,\"status\":503},"
		"{\"match\":\"India\",\"times\":1,\"status\":429,\"retryDelay\":\"1.5s\"},"
		"{\"match\":\"Juliett\",\"times\":1,\"reply\":\"text\"},"
		"{\"match\":\"Kilo\",\"times\":1,\"status\":500},{\"match\":\"Kilo\",\"times\":1,\"status\":504}]}");
	/* Two 503s, then audio: waits of at least 300 and 600 ms. */
	res = speak_ok("{\"text\":\"Hotel is the word.\"}");
	json_decref(res);
	reqs = requests_for("Hotel");
	assert_int_equal(json_array_size(reqs), 3);
	assert_int_equal(fg_int(json_array_get(reqs, 0), "status"), 503);
	assert_int_equal(fg_int(json_array_get(reqs, 1), "status"), 503);
	assert_int_equal(fg_int(json_array_get(reqs, 2), "status"), 200);
	assert_true(gap_ms(reqs, 1) >= BACKOFF_MS);
	assert_true(gap_ms(reqs, 2) >= 2 * BACKOFF_MS);
	json_decref(reqs);

	/* A 429 with RetryInfo: its delay wins over the shorter backoff. */
	res = speak_ok("{\"text\":\"India is the word.\"}");
	json_decref(res);
	reqs = requests_for("India");
	assert_int_equal(json_array_size(reqs), 2);
	assert_int_equal(fg_int(json_array_get(reqs, 0), "status"), 429);
	assert_true(gap_ms(reqs, 1) >= 1500);
	json_decref(reqs);

	/* Text instead of audio (the 3.1 model's quirk) is worth a retry; so are 500 and 504. */
	res = speak_ok("{\"text\":\"Juliett is the word.\"}");
	json_decref(res);
	reqs = requests_for("Juliett");
	assert_int_equal(json_array_size(reqs), 2);
	json_decref(reqs);
	res = speak_ok("{\"text\":\"Kilo is the word.\"}");
	json_decref(res);
	reqs = requests_for("Kilo");
	assert_int_equal(json_array_size(reqs), 3);
	assert_int_equal(fg_int(json_array_get(reqs, 1), "status"), 504);
	json_decref(reqs);
	remove_speech_files();
}

static void test_failures_leave_no_file(void **state)
{
	(void)state;
	control("{\"rules\":[{\"match\":\"Lima\",\"status\":500},{\"match\":\"Mike\",\"status\":400},"
		"{\"match\":\"November\",\"reply\":\"text\"},{\"match\":\"Oscar\",\"mimeType\":\"audio/mpeg\"},"
		"{\"match\":\"Papa\",\"reply\":\"blocked\"}]}");
	/* Retryable, three times: the error says what and how often. */
	speak_fails("{\"text\":\"Lima is the word.\"}", "Gemini had an internal error (HTTP 500 INTERNAL): An internal "
							 "error has occurred.");
	speak_fails("{\"text\":\"Lima is the word.\"}", "(3 attempts)");
	assert_int_equal(fg_started(&G), 6);
	/* Not retryable: one request only. */
	fg_clear(&G);
	speak_fails("{\"text\":\"Mike is the word.\"}", "Gemini refused the request (HTTP 400 INVALID_ARGUMENT)");
	assert_int_equal(fg_started(&G), 1);
	fg_clear(&G);
	speak_fails("{\"text\":\"November is the word.\"}", "Gemini answered with text instead of audio (3 attempts)");
	assert_int_equal(fg_started(&G), 3);
	fg_clear(&G);
	speak_fails("{\"text\":\"Oscar is the word.\"}", "Gemini sent the audio as \"audio/mpeg\", not as 16-bit mono PCM");
	assert_int_equal(fg_started(&G), 1);
	speak_fails("{\"text\":\"Papa is the word.\"}", "Gemini blocked the text (PROHIBITED_CONTENT)");
	assert_int_equal(speech_files(), 0);
}

static void test_other_rates_and_mime_spellings(void **state)
{
	json_t *res, *recs;
	const char *file;
	long long src, got;

	(void)state;
	/* 16 kHz: resampled to 24 kHz, one and a half times the samples. */
	control("{\"mimeType\":\"audio/L16;codec=pcm;rate=16000\"}");
	res = speak_ok("{\"text\":\"Quebec is a word that takes a while to say.\"}");
	file = json_string_value(json_object_get(res, "file"));
	recs = fg_records(&G);
	src = fg_int(json_array_get(recs, 0), "samples");
	got = soxi("-s", file);
	assert_int_equal(soxi("-r", file), 24000);
	assert_true(got >= src * 3 / 2 - 2 && got <= src * 3 / 2 + 2);
	json_decref(recs);
	json_decref(res);
	/* The 3.1 model's spelling of the same type. */
	control("{\"mimeType\":\"audio/l16; rate=24000; channels=1\"}");
	res = speak_ok("{\"text\":\"Romeo.\"}");
	recs = fg_records(&G);
	assert_int_equal(soxi("-s", json_string_value(json_object_get(res, "file"))),
			 fg_int(json_array_get(recs, 0), "samples"));
	json_decref(recs);
	json_decref(res);
	remove_speech_files();
}

/* toolCancel (Claude) and run stop: the requests in flight are aborted at
 * the server, no retry follows, no file is left. */
static void test_cancel_mid_synthesis(void **state)
{
	static const char *const m[] = { "Sierra", "Tango", "Uniform", "Victor" };
	char *text = text_of(m, 4), *args = args_with(text, NULL, NULL);
	struct hb_client a;
	struct hb_env req;
	char err[256], session[64];
	int64_t id, cid;
	json_t *recs, *r;
	size_t i;

	(void)state;
	control("{\"delayMs\":60000}");
	assert_int_equal(fx_client(&F, &a, 20000), 0);
	assert_int_equal(fx_create_session(&F, "Speech", "claude", "/tmp", "full-auto", session, sizeof session), 0);
	assert_int_equal(fx_open_run(&a, "run-speech", session, "/tmp", "claude", "full-auto"), 0);

	for (int round = 0; round < 2; round++) {
		fg_clear(&G);
		assert_true((id = fx_claude_call(&a, round, "synthesize_speech", args)) >= 0);
		for (long long end = fx_now_ms() + 20000; fg_started(&G) < 3 && fx_now_ms() < end;)
			fx_sleep_ms(20);
		assert_int_equal(fg_started(&G), 3);
		if (round == 0) { /* the agent's toolCancel */
			cid = fx_claude_cancel(&a, round);
		} else { /* the desktop stops the run */
			hb_env_init(&req);
			hb_env_set_str(&req, "op", "run.stop");
			hb_env_set_str(&req, "run", "run-speech");
			assert_int_equal(hb_client_send(&a, &req, &cid, err, sizeof err), 0);
		}
		assert_int_equal(fx_expect_stopped(&a, id, cid), 0);
		/* The three requests end as aborted, long before their 60 s. */
		assert_int_equal(fg_wait_records(&G, 3, 20000), 0);
		for (long long end = fx_now_ms() + 20000;
		     fx_service_num(&F, "svc-speech", "slotsBusy") != 0 && fx_now_ms() < end;)
			fx_sleep_ms(20);
		assert_int_equal(fx_service_num(&F, "svc-speech", "slotsBusy"), 0);
		recs = fg_records(&G);
		json_array_foreach(recs, i, r)
			assert_true(json_is_true(json_object_get(r, "aborted")));
		json_decref(recs);
		assert_int_equal(fg_started(&G), 3);
		assert_int_equal(speech_files(), 0);
	}
	hb_client_close(&a);
	free(args);
	free(text);
}

/* The explainer's path: another service calls the tool through the broker. */
static void test_subcall(void **state)
{
	json_t *res;
	char *text = NULL, *json;
	int ok = 0;

	(void)state;
	control("{}");
	assert_int_equal(fx_call(&F, "subcall",
				 "{\"tool\":\"synthesize_speech\",\"json\":\"{\\\"text\\\":\\\"Narration for a scene.\\\","
				 "\\\"voice\\\":\\\"Charon\\\"}\"}",
				 &ok, &text), 0);
	if (!ok)
		fail_msg("the subcall failed: %s", text);
	assert_non_null(json = strstr(text, "{"));
	res = json_loads(json, 0, NULL);
	assert_non_null(res);
	assert_string_equal(json_string_value(json_object_get(res, "voice")), "Charon");
	assert_int_equal(access(json_string_value(json_object_get(res, "file")), R_OK), 0);
	json_decref(res);
	free(text);
	remove_speech_files();
}

static void test_argument_errors(void **state)
{
	(void)state;
	control("{}");
	speak_fails("{\"text\":\"Hi.\",\"voice\":\"Robot\"}", "unknown voice \"Robot\"; \"voice\" must be one of: Zephyr, Puck,");
	speak_fails("{\"text\":\"Hi.\",\"voice\":\"Robot\"}", "Sadaltager, Sulafat");
	speak_fails("{\"text\":\"Hi.\",\"speed\":2}", "unknown field \"speed\"");
	speak_fails("{\"text\":\"  \\n \"}", "nothing to speak");
	speak_fails("{}", "\"text\" is required");
	assert_int_equal(fg_started(&G), 0);
}

/* ---- fixture --------------------------------------------------------------- */

static int setup(void **state)
{
	const char *env[] = { "HB_SPEECH_BACKOFF_MS=300", "HB_GEMINI_TIMEOUT_MS=20000", NULL };
	/* svc-speech and svc-sessions as deployed (a run opens only on a
	 * session svc-sessions knows), and svc-echo for the subcall. */
	char *conf = fx_deployed_config(echo_conf, "svc-speech", "svc-sessions", (char *)NULL);
	int rc;

	(void)state;
	if (!conf)
		return -1;
	snprintf(gdir, sizeof gdir, "/tmp/hbgemini.XXXXXX");
	rc = fg_fixture_start(&G, &F, gdir, conf, env, KEY);
	free(conf);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	return fg_fixture_stop(&G, &F, gdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_read_on_every_call),
		cmocka_unit_test(test_unusable_key_file),
		cmocka_unit_test(test_parts_in_flight_and_stitched),
		cmocka_unit_test(test_broken_answer_asked_again),
		cmocka_unit_test(test_one_part_prompt),
		cmocka_unit_test(test_retries_and_waits),
		cmocka_unit_test(test_failures_leave_no_file),
		cmocka_unit_test(test_other_rates_and_mime_spellings),
		cmocka_unit_test(test_cancel_mid_synthesis),
		cmocka_unit_test(test_subcall),
		cmocka_unit_test(test_argument_errors),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
