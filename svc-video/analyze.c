/*
 * analyze - the request body, the request, and the answer read back.
 * The prompt says what the schema cannot: scope to the goal, exact copies
 * of commands and code, and what counts as a gap.
 */
#include "analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char prompt_format[] =
	"You are watching this video for a software developer's coding agent.\n"
	"%s\n"
	"The user's goal: %s\n"
	"Keep only what serves this goal, and say in the summary what the video offers for it. Give every "
	"entry the moment it happens in the video as MM:SS (H:MM:SS after the first hour). Copy commands, "
	"code and on-screen text exactly as shown; never invent, fix or complete them. Under gaps, list what "
	"the goal needs that the video does not show or say, and anything you could not read or hear clearly. "
	"A section with nothing relevant is an empty list.";

static char *prompt(const struct video_analysis *a)
{
	const char *focus = video_intent_def(a->intent)->focus;
	size_t n = sizeof prompt_format + strlen(focus) + strlen(a->goal);
	char *p = malloc(n);

	if (p)
		snprintf(p, n, prompt_format, focus, a->goal);
	return p;
}

char *video_request_body(const struct video_analysis *a)
{
	char *text = prompt(a), *out = NULL;
	json_t *file = json_pack("{s:s}", "fileUri", a->file_uri), *body = NULL;

	if (a->mime && file)
		json_object_set_new(file, "mimeType", json_string(a->mime));
	if (text && file)
		body = json_pack("{s:[{s:s, s:[{s:O}, {s:s}]}], s:{s:f, s:s, s:o}}", "contents", "role", "user",
				 "parts", "fileData", file, "text", text, "generationConfig", "temperature",
				 a->temperature, "responseMimeType", "application/json", "responseJsonSchema",
				 video_schema(a->intent));
	if (body)
		out = json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(body);
	json_decref(file);
	free(text);
	return out;
}

/* Why a candidate ended, when that is not a normal end. */
static int stopped(const json_t *cand, char *err, size_t errlen)
{
	const char *finish = json_string_value(json_object_get(cand, "finishReason"));

	if (!finish || strcmp(finish, "STOP") == 0 || strcmp(finish, "FINISH_REASON_UNSPECIFIED") == 0)
		return 0;
	if (strcmp(finish, "MAX_TOKENS") == 0)
		snprintf(err, errlen, "Gemini's notes were cut off at its output limit (finishReason MAX_TOKENS); "
			 "ask again with a narrower goal");
	else
		snprintf(err, errlen, "Gemini stopped before finishing the notes (finishReason %.40s)", finish);
	return -1;
}

/* The text parts that are not thoughts, joined; NULL with err. */
static char *joined_text(const struct hb_gemini_reply *r, char *err, size_t errlen)
{
	const json_t *body = r->body, *cands = json_object_get(body, "candidates"), *part;
	const char *block = json_string_value(json_object_get(json_object_get(body, "promptFeedback"), "blockReason"));
	const json_t *cand = json_array_get(cands, 0);
	char *out = NULL;
	size_t len = 0, i;
	FILE *f;

	if (block) {
		snprintf(err, errlen, "Gemini blocked the request (%.60s)", block);
		return NULL;
	}
	if (!cand) {
		snprintf(err, errlen, "Gemini's answer has no candidates");
		return NULL;
	}
	if (stopped(cand, err, errlen) < 0)
		return NULL;
	if (!(f = open_memstream(&out, &len))) {
		snprintf(err, errlen, "out of memory while reading Gemini's answer");
		return NULL;
	}
	json_array_foreach(json_object_get(json_object_get(cand, "content"), "parts"), i, part) {
		size_t n;
		const char *t = hb_gemini_string(r, json_object_get(part, "text"), &n);
		if (t && !json_is_true(json_object_get(part, "thought")) && fwrite(t, 1, n, f) != n)
			break;
	}
	if (ferror(f) | (fclose(f) != 0)) {
		free(out);
		snprintf(err, errlen, "out of memory while reading Gemini's answer");
		return NULL;
	}
	if (len == 0) {
		free(out);
		snprintf(err, errlen, "Gemini's answer holds no text");
		return NULL;
	}
	return out;
}

int video_answer_notes(const struct hb_gemini_reply *r, enum video_intent intent, json_t **notes, char *err,
		       size_t errlen)
{
	char *text = joined_text(r, err, errlen), why[400];
	json_error_t jerr;

	*notes = NULL;
	if (!text)
		return -1;
	*notes = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!*notes) {
		snprintf(err, errlen, "Gemini's answer is not the JSON it was asked for: %s (line %d, column %d)",
			 jerr.text, jerr.line, jerr.column);
		return -1;
	}
	if (video_schema_check(intent, *notes, why, sizeof why) < 0) {
		snprintf(err, errlen, "Gemini's answer breaks the %s notes schema: %s", video_intent_def(intent)->name,
			 why);
		json_decref(*notes);
		*notes = NULL;
		return -1;
	}
	return 0;
}

enum video_analyze_result video_analyze(const struct video_analysis *a, json_t **notes, char *err, size_t errlen)
{
	static const char *const json[] = { "Content-Type: application/json", NULL };
	char url[HB_GEMINI_URL_MAX + 200], *body;
	struct hb_gemini_request rq = { .method = "POST", .url = url, .headers = json };
	struct hb_gemini_reply r;
	enum hb_gemini_outcome o;
	int rc;

	*notes = NULL;
	if (!hb_gemini_model_ok(a->model)) {
		snprintf(err, errlen, "the video model setting \"%.100s\" is not a model name", a->model);
		return ANALYZE_FAILED;
	}
	if (!(body = video_request_body(a))) {
		snprintf(err, errlen, "out of memory while writing the request");
		return ANALYZE_FAILED;
	}
	snprintf(url, sizeof url, "%s/v1beta/models/%s:generateContent", a->gemini->base_url, a->model);
	rq.body = body;
	rq.body_len = strlen(body);
	o = hb_gemini_send_retrying(a->gemini, &rq, VIDEO_ATTEMPTS, a->backoff_ms, &r);
	free(body);
	if (o != HB_GEMINI_OK) {
		snprintf(err, errlen, "%s", r.message);
		hb_gemini_reply_free(&r);
		return o == HB_GEMINI_CANCELLED ? ANALYZE_CANCELLED : ANALYZE_FAILED;
	}
	rc = video_answer_notes(&r, a->intent, notes, err, errlen);
	hb_gemini_reply_free(&r);
	return rc < 0 ? ANALYZE_FAILED : ANALYZE_OK;
}
