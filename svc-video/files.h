/*
 * files - a local recording through Gemini's Files API (gemini.md): a
 * resumable upload in chunks, polling until Gemini has processed the file
 * (PROCESSING -> ACTIVE; FAILED is an error), and the delete afterwards.
 *
 * Every chunk but the last is sent with "upload", the last with "upload,
 * finalize".  A chunk that fails in a way worth retrying is followed by a
 * "query", and the upload goes on from the offset the server says it
 * holds (at most VIDEO_UPLOAD_ATTEMPTS tries without progress).  Polling
 * waits poll_ms, doubling up to poll_max_ms, for at most processing_ms in
 * all.  A cancel aborts the request in flight; video_files_cleanup then
 * deletes the uploaded file, or cancels the unfinished upload, with a
 * request of its own that the cancel does not stop.
 */
#ifndef VIDEO_FILES_H
#define VIDEO_FILES_H

#include <stddef.h>

#include "gemini.h"

#define VIDEO_UPLOAD_ATTEMPTS 3
/* The resumable protocol wants chunks in multiples of 256 KiB. */
#define VIDEO_CHUNK_UNIT (256L * 1024)
#define VIDEO_CHUNK_DEFAULT (8L * 1024 * 1024)
/* Gemini's limit for one file (gemini.md: 2 GB on the free tier). */
#define VIDEO_FILE_MAX_BYTES (2LL * 1000 * 1000 * 1000)

struct video_file {
	char name[80];                     /* "files/abc123" once Gemini has it */
	char uri[HB_HTTP_HEADER_MAX];      /* what generateContent names */
	char upload_url[HB_HTTP_HEADER_MAX]; /* the upload session, until finalized */
	char state[32];
	char reason[420];                  /* a FAILED file's error.message, "" when none */
	int finalized;
};

struct video_upload {
	const struct hb_gemini *gemini;    /* its cancel test aborts the transfers */
	int fd;                            /* the open file */
	long long size;
	const char *mime;                  /* Gemini's name for its type */
	const char *display_name;
	long chunk;                        /* bytes per request, a multiple of VIDEO_CHUNK_UNIT */
	long backoff_ms;                   /* before the first retry */
	long poll_ms, poll_max_ms, processing_ms;
	void (*progress)(void *arg, const char *line);
	void *progress_arg;
	const char *log_key;
};

enum video_files_result { FILES_OK, FILES_FAILED, FILES_CANCELLED };

/* Upload and finalize: f gets the file's name, uri and state. */
enum video_files_result video_files_upload(const struct video_upload *u, struct video_file *f, char *err,
					   size_t errlen);
/* Poll until the file is ACTIVE; a FAILED file (already in the upload's
 * answer, or in a poll's) fails with Gemini's reason. */
enum video_files_result video_files_wait_active(const struct video_upload *u, struct video_file *f, char *err,
						size_t errlen);
/* Delete what Gemini holds of f (best effort, logged; never cancelled). */
void video_files_cleanup(const struct hb_gemini *g, struct video_file *f, const char *log_key);

#endif
