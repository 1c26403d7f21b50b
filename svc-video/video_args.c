/*
 * video_args - argument checks.  The consent rule is the page's: a local
 * recording goes to Gemini only when the call sets localFileConsent,
 * which the agent is told to do only for a file the user gave; the path
 * must be absolute, so a relative path can never resolve against some
 * folder the user did not mean.
 */
#include "video_args.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "utf8.h"

static int blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/* Exactly one of the three sources. */
static int pick_source(const json_t *args, struct video_args *out, char *err, size_t errlen)
{
	static const char *const names[] = { "youtube_url", "video_url", "local_file" };
	const char *v[3];
	int count = 0;

	for (int i = 0; i < 3; i++) {
		if (hb_json_opt_string(args, names[i], i == 2 ? 4096 : VIDEO_URL_MAX, 1, &v[i], err, errlen) < 0)
			return -1;
		if (v[i]) {
			out->source = (enum video_source)i;
			out->given = v[i];
			count++;
		}
	}
	if (count == 0) {
		snprintf(err, errlen, "name the video: exactly one of youtube_url, video_url (a public https link to a "
			 "video file) or local_file (with localFileConsent)");
		return -1;
	}
	if (count > 1) {
		snprintf(err, errlen, "name exactly one source of youtube_url, video_url and local_file; this call "
			 "names %d", count);
		return -1;
	}
	return 0;
}

static int check_local(int consent, const char *path, char *err, size_t errlen)
{
	if (!consent) {
		snprintf(err, errlen, "a local file is sent to Gemini only with \"localFileConsent\": true, for a file "
			 "the user provided, selected, dropped or recorded for this task");
		return -1;
	}
	if (path[0] != '/') {
		snprintf(err, errlen, "local_file must be an absolute path (starting with /), not \"%.200s\"", path);
		return -1;
	}
	return 0;
}

int video_args_parse(const json_t *args, struct video_args *out, char *err, size_t errlen)
{
	static const char *const fields[] = { "youtube_url", "video_url", "local_file", "localFileConsent",
					      "intent", "goal", NULL };
	static const char *const intents[] = { "tutorial", "meeting", NULL };
	const char *intent;
	int consent;

	memset(out, 0, sizeof *out);
	if (hb_json_only_fields(args, fields, err, errlen) < 0 || pick_source(args, out, err, errlen) < 0 ||
	    hb_json_opt_bool(args, "localFileConsent", 0, &consent, err, errlen) < 0 ||
	    hb_json_req_string(args, "intent", 32, &intent, err, errlen) < 0 ||
	    hb_json_check_choice("intent", intent, intents, err, errlen) < 0 ||
	    hb_json_req_string(args, "goal", VIDEO_GOAL_MAX_CHARS * 4, &out->goal, err, errlen) < 0)
		return -1;
	out->intent = strcmp(intent, "meeting") == 0 ? VIDEO_MEETING : VIDEO_TUTORIAL;
	if (blank(out->goal)) {
		snprintf(err, errlen, "\"goal\" holds only blanks: say what the notes are for");
		return -1;
	}
	if (hb_utf8_count(out->goal, strlen(out->goal)) > VIDEO_GOAL_MAX_CHARS) {
		snprintf(err, errlen, "\"goal\" is %zu characters long; at most %d are accepted", hb_utf8_count(out->goal, strlen(out->goal)),
			 VIDEO_GOAL_MAX_CHARS);
		return -1;
	}
	switch (out->source) {
	case VIDEO_YOUTUBE:
		return youtube_canonical(out->given, out->youtube, sizeof out->youtube, err, errlen);
	case VIDEO_LOCAL:
		return check_local(consent, out->given, err, errlen);
	case VIDEO_URL:
		break;
	}
	return 0;
}
