/*
 * videos_record - video.json, the record that makes a folder under
 * <data>/explainers/ an explainer video of create_explainer_video:
 *
 *	{ "id": "20261201-153012-a1b2c3", "session": "s-0123456789abcdef",
 *	  "revision": 1, "created": "2026-12-01T15:30:12Z",
 *	  "updated": "2026-12-01T15:41:07Z", "durationSeconds": 74.5,
 *	  "scenes": 6, "question": "How does TCP's slow start work?",
 *	  "format": "16:9", "fps": 30 }
 *
 * "format" and "fps" are the video's canvas (canvas.h), kept so that a
 * revision keeps them unless its call gives new ones; a record without
 * them (written before videos had formats) is 16:9 at 30 fps.
 * "revision" is the number of the video at video.mp4 (0: the first one);
 * before the first video is saved it is 0 with no duration and no scenes.
 * Times are UTC.  Keys a later version adds are ignored when reading (and
 * dropped by the next write), so such a record still names its video.
 */
#ifndef EXPLAINER_VIDEOS_RECORD_H
#define EXPLAINER_VIDEOS_RECORD_H

#include <stddef.h>

#define VIDEO_RECORD_FILE "video.json"
/* "YYYYmmdd-HHMMSS-" and 6 random hex digits. */
#define VIDEO_ID_LEN 22
/* A session id is a folder name: letters, digits, '-', '_', '.'. */
#define VIDEO_SESSION_MAX 64
/* "YYYY-mm-ddTHH:MM:SSZ" and room to spare. */
#define VIDEO_TIME_MAX 31
#define VIDEO_QUESTION_MAX 65536

struct video_record {
	char id[VIDEO_ID_LEN + 1];
	char session[VIDEO_SESSION_MAX + 1];
	long revision;
	char created[VIDEO_TIME_MAX + 1];
	char updated[VIDEO_TIME_MAX + 1];
	double duration;   /* seconds */
	long scenes;
	char *question;    /* owned */
	int width, height; /* the canvas: 1920x1080 unless the call chose another format */
	int fps;
};

/* Reads and checks the record at path (a regular file, not a link).
 * 0, or -1 with a sentence in err about what is wrong with it; on -1, r
 * holds nothing to free. */
int video_record_read(const char *path, struct video_record *r, char *err, size_t errlen);
/* Writes r to path (created or truncated, mode 0600, flushed to disk); the
 * caller renames it into place.  0, or -1 with err. */
int video_record_write(const char *path, const struct video_record *r, char *err, size_t errlen);
void video_record_free(struct video_record *r);
/* The current time as "YYYY-mm-ddTHH:MM:SSZ". */
void video_record_now(char out[VIDEO_TIME_MAX + 1]);
/* A new video id for this second, with 24 random bits. 0, or -1 with err. */
int video_record_new_id(char out[VIDEO_ID_LEN + 1], char *err, size_t errlen);
/* 1 when name has the shape of a video id / of a session id that may name
 * a folder; 0 otherwise. */
int video_id_valid(const char *name);
int video_session_valid(const char *name);

#endif
