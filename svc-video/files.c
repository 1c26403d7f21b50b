/*
 * files - the Files API requests.  Gemini's answers name the upload
 * session and the file; before the key follows either, the upload URL
 * must be on the base URL's origin and the file name must look like
 * "files/<id>" (hb_gemini_send refuses any other origin as well).
 */
#include "files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "gemini_error.h"
#include "log.h"
#include "url.h"

/* Headers captured from upload answers. */
enum { CAP_URL, CAP_STATUS, CAP_RECEIVED };

static int name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n <= 6 || n >= sizeof ((struct video_file *)0)->name || strncmp(name, "files/", 6) != 0)
		return 0;
	for (const char *c = name + 6; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
			return 0;
	return 1;
}

/* Take name, uri, state and the reason of a failure from a File object
 * (the upload's answer or a poll's). */
static int read_file(const json_t *file, struct video_file *f, char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(file, "name"));
	const char *uri = json_string_value(json_object_get(file, "uri"));
	const char *state = json_string_value(json_object_get(file, "state"));
	const char *why = json_string_value(json_object_get(json_object_get(file, "error"), "message"));
	struct hb_url u;

	if (!name || !name_ok(name) || !uri || strlen(uri) >= sizeof f->uri || hb_url_parse(uri, &u) < 0) {
		snprintf(err, errlen, "Gemini's answer about the uploaded file has no usable name and uri");
		return -1;
	}
	snprintf(f->name, sizeof f->name, "%s", name);
	snprintf(f->uri, sizeof f->uri, "%s", uri);
	snprintf(f->state, sizeof f->state, "%s", state ? state : "STATE_UNSPECIFIED");
	snprintf(f->reason, sizeof f->reason, "%s", why ? why : "");
	return 0;
}

static void say(const struct video_upload *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A progress line for the timeline. */
static void say(const struct video_upload *u, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (!u->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	u->progress(u->progress_arg, line);
}

static enum video_files_result start(const struct video_upload *u, struct video_file *f, char *err,
				     size_t errlen)
{
	static const char *const capture[] = { "x-goog-upload-url", "x-goog-upload-status", NULL };
	char url[HB_GEMINI_URL_MAX + 64], length[80], type[160];
	const char *headers[] = { "X-Goog-Upload-Protocol: resumable", "X-Goog-Upload-Command: start", length, type,
				  "Content-Type: application/json", NULL };
	json_t *meta = json_pack("{s:{s:s}}", "file", "display_name", u->display_name);
	struct hb_gemini_request rq = { .method = "POST", .url = url, .headers = headers, .capture = capture,
					.empty_ok = 1 };
	struct hb_gemini_reply r;
	enum hb_gemini_outcome o;
	char *body;

	if (!meta) /* a file name that is not UTF-8 cannot go in JSON */
		meta = json_pack("{s:{s:s}}", "file", "display_name", "video");
	body = meta ? json_dumps(meta, JSON_COMPACT) : NULL;
	json_decref(meta);
	rq.body = body;
	rq.body_len = body ? strlen(body) : 0;
	if (!body) {
		snprintf(err, errlen, "out of memory while starting the upload");
		return FILES_FAILED;
	}
	snprintf(url, sizeof url, "%s/upload/v1beta/files", u->gemini->base_url);
	snprintf(length, sizeof length, "X-Goog-Upload-Header-Content-Length: %lld", u->size);
	snprintf(type, sizeof type, "X-Goog-Upload-Header-Content-Type: %s", u->mime);
	o = hb_gemini_send_retrying(u->gemini, &rq, VIDEO_UPLOAD_ATTEMPTS, u->backoff_ms, &r);
	free(body);
	if (o == HB_GEMINI_OK && !hb_url_same_origin(r.captured[CAP_URL], u->gemini->base_url))
		snprintf(r.message, sizeof r.message, "Gemini's upload address is %s (not on %.200s)",
			 r.captured[CAP_URL][0] ? "missing or elsewhere" : "missing", u->gemini->base_url);
	else if (o == HB_GEMINI_OK)
		snprintf(f->upload_url, sizeof f->upload_url, "%s", r.captured[CAP_URL]);
	hb_gemini_reply_free(&r);
	if (o == HB_GEMINI_CANCELLED)
		return FILES_CANCELLED;
	if (o != HB_GEMINI_OK || !f->upload_url[0]) {
		snprintf(err, errlen, "cannot start the upload: %s", r.message);
		return FILES_FAILED;
	}
	return FILES_OK;
}

/* One request to the upload session; cmd is its X-Goog-Upload-Command. */
static enum hb_gemini_outcome session(const struct video_upload *u, const struct video_file *f, const char *cmd,
				      long long off, const void *data, size_t len, struct hb_gemini_reply *r)
{
	static const char *const capture[] = { "x-goog-upload-url", "x-goog-upload-status",
					       "x-goog-upload-size-received", NULL };
	char command[64], offset[64];
	const char *headers[] = { command, offset, "Content-Type: application/octet-stream", NULL };
	struct hb_gemini_request rq = { .method = "POST", .url = f->upload_url, .headers = headers, .body = data,
					.body_len = len, .capture = capture, .empty_ok = 1 };

	snprintf(command, sizeof command, "X-Goog-Upload-Command: %s", cmd);
	snprintf(offset, sizeof offset, "X-Goog-Upload-Offset: %lld", off);
	if (off < 0)
		headers[1] = NULL;
	return hb_gemini_send(u->gemini, &rq, r);
}

/* The final answer: {"file":{...}}. */
static int finished(const struct hb_gemini_reply *r, struct video_file *f, char *err, size_t errlen)
{
	if (strcmp(r->captured[CAP_STATUS], "final") != 0 || !r->body) {
		snprintf(err, errlen, "Gemini did not confirm the end of the upload");
		return -1;
	}
	f->finalized = 1;
	return read_file(json_object_get(r->body, "file"), f, err, errlen);
}

/* After a failed chunk: where the server stands.  1 when the upload is
 * in fact complete, 0 with *off set, -1 when the query failed too. */
static int query(const struct video_upload *u, struct video_file *f, long long *off, char *err, size_t errlen)
{
	struct hb_gemini_reply r;
	enum hb_gemini_outcome o = session(u, f, "query", -1, NULL, 0, &r);
	int rc = -1;

	if (o == HB_GEMINI_OK && strcmp(r.captured[CAP_STATUS], "final") == 0) {
		rc = finished(&r, f, err, errlen) < 0 ? -1 : 1;
	} else if (o == HB_GEMINI_OK && r.captured[CAP_RECEIVED][0]) {
		char *end;
		long long got = strtoll(r.captured[CAP_RECEIVED], &end, 10);
		if (*end == '\0' && got >= 0 && got <= u->size) {
			*off = got;
			rc = 0;
		}
	}
	hb_gemini_reply_free(&r);
	return rc;
}

static int read_at(int fd, unsigned char *buf, size_t len, long long off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, (off_t)(off + (long long)done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* The chunks, from offset 0 to the end. */
static enum video_files_result send_chunks(const struct video_upload *u, struct video_file *f,
					   unsigned char *buf, char *err, size_t errlen)
{
	long long off = 0;
	int failures = 0;

	while (!f->finalized) {
		size_t len = (size_t)(u->size - off < u->chunk ? u->size - off : u->chunk);
		int last = off + (long long)len == u->size;
		struct hb_gemini_reply r;
		enum hb_gemini_outcome o;
		long wait;

		if (read_at(u->fd, buf, len, off) < 0) {
			snprintf(err, errlen, "cannot read the local file at byte %lld: %s", off,
				 errno ? strerror(errno) : "it became shorter");
			return FILES_FAILED;
		}
		o = session(u, f, last ? "upload, finalize" : "upload", off, buf, len, &r);
		if (o == HB_GEMINI_OK && last) {
			int rc = finished(&r, f, err, errlen);
			hb_gemini_reply_free(&r);
			return rc < 0 ? FILES_FAILED : FILES_OK;
		}
		if (o == HB_GEMINI_OK) {
			hb_gemini_reply_free(&r);
			off += (long long)len;
			failures = 0;
			say(u, "video: uploaded %lld of %lld bytes", off, u->size);
			continue;
		}
		snprintf(err, errlen, "uploading the local file failed at byte %lld: %s", off, r.message);
		hb_gemini_reply_free(&r);
		if (o == HB_GEMINI_CANCELLED)
			return FILES_CANCELLED;
		if (o == HB_GEMINI_FAIL || ++failures >= VIDEO_UPLOAD_ATTEMPTS)
			return FILES_FAILED;
		wait = hb_gemini_backoff_ms(failures, u->backoff_ms, r.retry_after_ms);
		if (wait > HB_GEMINI_MAX_RETRY_DELAY_MS)
			return FILES_FAILED;
		log_info(u->log_key, "video: %s; asking where the upload stands", err);
		if (hb_gemini_sleep(u->gemini, wait) < 0)
			return FILES_CANCELLED;
		if (query(u, f, &off, err, errlen) == 1)
			return FILES_OK;
	}
	return FILES_OK;
}

enum video_files_result video_files_upload(const struct video_upload *u, struct video_file *f, char *err,
					   size_t errlen)
{
	enum video_files_result res;
	unsigned char *buf;

	memset(f, 0, sizeof *f);
	if (u->chunk <= 0 || u->chunk % VIDEO_CHUNK_UNIT != 0 || u->size <= 0) {
		snprintf(err, errlen, "the upload chunk size %ld is not a multiple of 256 KiB", u->chunk);
		return FILES_FAILED;
	}
	if ((res = start(u, f, err, errlen)) != FILES_OK)
		return res;
	if (!(buf = malloc((size_t)(u->size < u->chunk ? u->size : u->chunk)))) {
		snprintf(err, errlen, "out of memory for the upload");
		return FILES_FAILED;
	}
	say(u, "video: uploading %lld bytes", u->size);
	res = send_chunks(u, f, buf, err, errlen);
	free(buf);
	return res;
}

/* GET the File object again. */
static enum hb_gemini_outcome poll_once(const struct video_upload *u, struct video_file *f, char *err,
					size_t errlen)
{
	char url[HB_GEMINI_URL_MAX + 100];
	struct hb_gemini_request rq = { .method = "GET", .url = url };
	struct hb_gemini_reply r;
	enum hb_gemini_outcome o;

	snprintf(url, sizeof url, "%s/v1beta/%s", u->gemini->base_url, f->name);
	o = hb_gemini_send_retrying(u->gemini, &rq, VIDEO_UPLOAD_ATTEMPTS, u->backoff_ms, &r);
	if (o == HB_GEMINI_OK) {
		if (read_file(r.body, f, err, errlen) < 0)
			o = HB_GEMINI_FAIL;
	} else {
		snprintf(err, errlen, "cannot ask Gemini whether the upload is ready: %s", r.message);
	}
	hb_gemini_reply_free(&r);
	return o;
}

enum video_files_result video_files_wait_active(const struct video_upload *u, struct video_file *f, char *err,
						size_t errlen)
{
	long long deadline = hb_monotonic_ms() + u->processing_ms;
	long delay = u->poll_ms;

	while (strcmp(f->state, "ACTIVE") != 0) {
		enum hb_gemini_outcome o;

		/* Every way out says why in err, whichever answer (the upload's
		 * or a poll's) brought the state. */
		if (strcmp(f->state, "FAILED") == 0) {
			snprintf(err, errlen, "Gemini could not process the video (state FAILED): %.400s",
				 f->reason[0] ? f->reason : "no reason given");
			return FILES_FAILED;
		}
		if (strcmp(f->state, "PROCESSING") != 0) {
			snprintf(err, errlen, "Gemini reports the uploaded video in state %s", f->state);
			return FILES_FAILED;
		}
		if (hb_monotonic_ms() + delay > deadline) {
			snprintf(err, errlen, "Gemini was still processing the video after %ld s; try again later or with "
				 "a shorter recording", u->processing_ms / 1000);
			return FILES_FAILED;
		}
		say(u, "video: Gemini is processing the upload (next look in %ld ms)", delay);
		if (hb_gemini_sleep(u->gemini, delay) < 0)
			return FILES_CANCELLED;
		o = poll_once(u, f, err, errlen);
		if (o == HB_GEMINI_CANCELLED)
			return FILES_CANCELLED;
		if (o != HB_GEMINI_OK)
			return FILES_FAILED;
		delay = delay * 2 > u->poll_max_ms ? u->poll_max_ms : delay * 2;
	}
	return FILES_OK;
}

void video_files_cleanup(const struct hb_gemini *g, struct video_file *f, const char *log_key)
{
	struct hb_gemini quiet = *g;
	char url[HB_GEMINI_URL_MAX + 100];
	struct hb_gemini_request rq = { .method = "DELETE", .url = url, .empty_ok = 1 };
	static const char *const cancel[] = { "X-Goog-Upload-Command: cancel", NULL };
	struct hb_gemini_reply r;
	enum hb_gemini_outcome o;

	/* The call may be cancelled already: this request must still go. */
	quiet.cancelled = NULL;
	quiet.timeout_ms = quiet.timeout_ms < 15000 ? quiet.timeout_ms : 15000;
	if (f->name[0]) {
		snprintf(url, sizeof url, "%s/v1beta/%s", g->base_url, f->name);
	} else if (f->upload_url[0] && !f->finalized) {
		rq.method = "POST";
		rq.url = f->upload_url;
		rq.headers = cancel;
	} else {
		hb_gemini_forget(&quiet);
		return;
	}
	o = hb_gemini_send(&quiet, &rq, &r);
	if (o == HB_GEMINI_OK)
		log_info(log_key, "video: %s %s", f->name[0] ? "deleted" : "cancelled the upload of",
			 f->name[0] ? f->name : "the local file");
	else
		log_warn(log_key, "video: cannot remove %s from Gemini: %s", f->name[0] ? f->name : "the unfinished upload",
			 r.message);
	hb_gemini_reply_free(&r);
	hb_gemini_forget(&quiet);
	f->name[0] = f->upload_url[0] = '\0';
}
