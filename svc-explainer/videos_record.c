/*
 * videos_record - video.json read, checked and written (videos_record.h),
 * and the names it holds: video ids and session ids.
 *
 * The record is what tells a folder this tool made from one a person (or
 * another program) made by hand, so reading it is strict about the keys
 * it needs and their types.
 */
#include "videos_record.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "canvas.h"
#include "flatdir.h"
#include "random.h"
#include "readfile.h"

/* Far above any record we write (the question is at most 64 KiB, which
 * JSON escaping can make six times longer). */
#define RECORD_FILE_MAX (1024 * 1024)

static int copy_string(char *out, size_t outlen, const char *s)
{
	size_t len = strlen(s);

	if (len >= outlen)
		return -1;
	memcpy(out, s, len + 1);
	return 0;
}

/* The fields of a parsed record into r; -1 with err naming the first bad one. */
static int take_fields(json_t *root, struct video_record *r, char *err, size_t errlen)
{
	const char *id, *session, *created, *updated, *question;
	json_int_t revision, scenes;
	struct canvas canvas = canvas_default();
	json_error_t je;
	double duration;
	char why[256];

	if (json_unpack_ex(root, &je, 0, "{s:s, s:s, s:I, s:s, s:s, s:F, s:I, s:s}", "id", &id, "session", &session,
			   "revision", &revision, "created", &created, "updated", &updated, "durationSeconds",
			   &duration, "scenes", &scenes, "question", &question) < 0) {
		snprintf(err, errlen, "it is not a record of this tool: %s", je.text);
		return -1;
	}
	if (!video_id_valid(id) || copy_string(r->id, sizeof r->id, id) < 0)
		snprintf(err, errlen, "its \"id\" is not a video id");
	else if (!video_session_valid(session) || copy_string(r->session, sizeof r->session, session) < 0)
		snprintf(err, errlen, "its \"session\" is not a session id");
	else if (revision < 0 || scenes < 0 || !isfinite(duration) || duration < 0)
		snprintf(err, errlen, "its revision, scenes or duration is negative");
	else if (copy_string(r->created, sizeof r->created, created) < 0 ||
		 copy_string(r->updated, sizeof r->updated, updated) < 0)
		snprintf(err, errlen, "its times are too long");
	else if (canvas_read(root, &canvas, why, sizeof why) < 0)
		snprintf(err, errlen, "%s", why);
	else if (!(r->question = strdup(question)))
		snprintf(err, errlen, "out of memory");
	else {
		r->revision = (long)revision;
		r->scenes = (long)scenes;
		r->duration = duration;
		r->width = canvas.width;
		r->height = canvas.height;
		r->fps = canvas.fps;
		return 0;
	}
	return -1;
}

int video_record_read(const char *path, struct video_record *r, char *err, size_t errlen)
{
	char why[256];
	size_t len;
	char *text = read_small_file(path, RECORD_FILE_MAX, READFILE_NOFOLLOW, &len, why, sizeof why);
	json_error_t je;
	json_t *root;
	int rc;

	memset(r, 0, sizeof *r);
	if (!text) {
		snprintf(err, errlen, "%s %s", VIDEO_RECORD_FILE, why);
		return -1;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!root) {
		snprintf(err, errlen, "%s is not JSON: %s (line %d)", VIDEO_RECORD_FILE, je.text, je.line);
		return -1;
	}
	if ((rc = take_fields(root, r, why, sizeof why)) < 0)
		snprintf(err, errlen, "%s is broken: %s", VIDEO_RECORD_FILE, why);
	json_decref(root);
	return rc;
}

int video_record_write(const char *path, const struct video_record *r, char *err, size_t errlen)
{
	json_t *root = json_pack("{s:s, s:s, s:I, s:s, s:s, s:f, s:I, s:s}", "id", r->id, "session", r->session,
				 "revision", (json_int_t)r->revision, "created", r->created, "updated", r->updated,
				 "durationSeconds", r->duration, "scenes", (json_int_t)r->scenes, "question",
				 r->question ? r->question : "");
	char *text = root && canvas_write(root, &(struct canvas){ r->width, r->height, r->fps }) == 0
			     ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
	int rc;

	json_decref(root);
	if (!text) {
		snprintf(err, errlen, "out of memory while writing %s (or the question is not UTF-8)", path);
		return -1;
	}
	rc = flatdir_write_file(path, text, strlen(text), err, errlen);
	free(text);
	return rc;
}

void video_record_free(struct video_record *r)
{
	free(r->question);
	r->question = NULL;
}

void video_record_now(char out[VIDEO_TIME_MAX + 1])
{
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || strftime(out, VIDEO_TIME_MAX + 1, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, VIDEO_TIME_MAX + 1, "1970-01-01T00:00:00Z");
}

int video_record_new_id(char out[VIDEO_ID_LEN + 1], char *err, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char bytes[3];
	time_t now = time(NULL);
	struct tm tm;

	if (hb_random_bytes(bytes, sizeof bytes, err, errlen) < 0)
		return -1;
	if (!gmtime_r(&now, &tm) || strftime(out, VIDEO_ID_LEN + 1, "%Y%m%d-%H%M%S-", &tm) != 16) {
		snprintf(err, errlen, "cannot read the clock for a video id");
		return -1;
	}
	for (size_t i = 0; i < sizeof bytes; i++) {
		out[16 + 2 * i] = digits[bytes[i] >> 4];
		out[17 + 2 * i] = digits[bytes[i] & 0x0f];
	}
	out[VIDEO_ID_LEN] = '\0';
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

int video_id_valid(const char *name)
{
	if (strlen(name) != VIDEO_ID_LEN || name[8] != '-' || name[15] != '-')
		return 0;
	for (int i = 0; i < VIDEO_ID_LEN; i++)
		if (i != 8 && i != 15 && !(i < 15 ? is_digit(name[i]) : is_hex(name[i])))
			return 0;
	return 1;
}

int video_session_valid(const char *name)
{
	size_t len = strlen(name);

	/* Not "", ".", "..", nor a hidden name: the first character is a letter or digit. */
	if (len == 0 || len > VIDEO_SESSION_MAX || !(is_digit(name[0]) || (name[0] >= 'a' && name[0] <= 'z') ||
						       (name[0] >= 'A' && name[0] <= 'Z')))
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' ||
		      c == '.'))
			return 0;
	}
	return 1;
}
