/*
 * videos - the entries under <data>/explainers/: made, found by the
 * videoPath an agent passes back, locked while open, described in the
 * tool's answer (videos.h).  Revisions are in videos_revise.c.
 *
 * A videoPath comes from the model, so it is judged by the file it really
 * leads to (realpath), never by how it is spelled: a link may point into
 * the tree, but nothing outside <data>/explainers/ is ever taken, and a
 * folder inside it counts only with a record that names it.  The lock is
 * flock(2) on the entry's folder: one per open file description, so two
 * calls in one process exclude each other as two processes do, and it
 * goes away with a killed process, so a crash never leaves a video locked.
 * The descriptor is close-on-exec, so the worker's processes, which may
 * outlive us for a moment, never hold it.
 */
#include "videos.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canvas.h"
#include "flatdir.h"
#include "log.h"

/* Tries at a fresh video id when the one drawn is taken (24 random bits
 * within one second: a second try is already rare). */
#define NEW_ID_TRIES 5
#define SHOWN_PATH_MAX 200

static int set_paths(struct video_entry *e, const char *dir)
{
	if (strlen(dir) >= sizeof e->dir)
		return -1;
	strcpy(e->dir, dir);
	if (hb_path_join(e->video, sizeof e->video, dir, VIDEO_FILE) < 0 ||
	    hb_path_join(e->source, sizeof e->source, dir, VIDEO_SOURCE_DIR) < 0 ||
	    hb_path_join(e->next_source, sizeof e->next_source, dir, VIDEO_NEXT_SOURCE_DIR) < 0 ||
	    hb_path_join(e->next_video, sizeof e->next_video, dir, VIDEO_NEXT_FILE) < 0 ||
	    hb_path_join(e->vtt, sizeof e->vtt, dir, VIDEO_VTT_FILE) < 0 ||
	    hb_path_join(e->srt, sizeof e->srt, dir, VIDEO_SRT_FILE) < 0 ||
	    hb_path_join(e->poster, sizeof e->poster, dir, VIDEO_POSTER_FILE) < 0 ||
	    hb_path_join(e->next_vtt, sizeof e->next_vtt, dir, VIDEO_NEXT_VTT_FILE) < 0 ||
	    hb_path_join(e->next_srt, sizeof e->next_srt, dir, VIDEO_NEXT_SRT_FILE) < 0 ||
	    hb_path_join(e->next_poster, sizeof e->next_poster, dir, VIDEO_NEXT_POSTER_FILE) < 0)
		return -1;
	return 0;
}

static void open_nothing(struct video_entry *e)
{
	memset(e, 0, sizeof *e);
	e->lock_fd = -1;
}

int videos_private_subdir(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int made = mkdir(path, 0700) == 0;

	if (!made && errno != EEXIST) {
		snprintf(err, errlen, "cannot create the folder %s: %s", path, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) < 0) {
		snprintf(err, errlen, "cannot look at the folder %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		snprintf(err, errlen, "%s is not a folder (a link or a file is in its place); remove it", path);
	else if (st.st_uid != geteuid())
		snprintf(err, errlen, "the folder %s belongs to uid %ld, not to you; remove it", path, (long)st.st_uid);
	else if ((st.st_mode & 0777) == 0700 || (made && chmod(path, 0700) == 0))
		return 0;
	else
		snprintf(err, errlen, "the folder %s has mode %04o, so other users may reach into it; it must be 0700: "
			 "run chmod 700 on it", path, (unsigned)(st.st_mode & 0777));
	return -1;
}

/* <real data folder>/explainers: the one place entries may be. */
static int explainers_root(const struct hb_paths *p, char *root, size_t rootlen, char *err, size_t errlen)
{
	char real[PATH_MAX];

	if (!realpath(p->data, real)) {
		snprintf(err, errlen, "cannot find the data folder %s: %s", p->data, strerror(errno));
		return -1;
	}
	if (hb_path_join(root, rootlen, real, VIDEOS_DIR) < 0) {
		snprintf(err, errlen, "the data folder path %s is too long", real);
		return -1;
	}
	return 0;
}

static int lock_entry(struct video_entry *e, char *err, size_t errlen)
{
	int fd = open(e->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open the folder of the video %s: %s", e->video, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			snprintf(err, errlen, "The video %s is being made or revised by another call right now; wait "
				 "for that call to finish, then try again.", e->video);
		else
			snprintf(err, errlen, "cannot lock the video %s: %s", e->video, strerror(errno));
		close(fd);
		return -1;
	}
	e->lock_fd = fd;
	return 0;
}

static void bad_session(const char *session, char *err, size_t errlen)
{
	char shown[2 * VIDEO_SESSION_MAX];

	hb_escape(session, strlen(session), VIDEO_SESSION_MAX, shown, sizeof shown);
	snprintf(err, errlen, "the session id \"%s\" cannot name a folder (1 to %d letters, digits, '-', '_' or '.')",
		 shown, VIDEO_SESSION_MAX);
}

/* Makes the entry's folder (exclusive: a taken id draws another; *made
 * says it is there) with source/ inside, locks it and writes its first
 * record; 0, or -1 with err. */
static int make_entry(struct video_entry *e, const char *session_dir, const char *session, const char *question,
		      int *made, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX], record[HB_PATH_MAX], next[HB_PATH_MAX];
	int tries = 0;

	for (;;) {
		if (video_record_new_id(e->record.id, err, errlen) < 0)
			return -1;
		if (hb_path_join(dir, sizeof dir, session_dir, e->record.id) < 0 || set_paths(e, dir) < 0) {
			snprintf(err, errlen, "the folder path %s is too long for a video", session_dir);
			return -1;
		}
		if (mkdir(dir, 0700) == 0) {
			*made = 1;
			break;
		}
		if (errno != EEXIST || ++tries == NEW_ID_TRIES) {
			snprintf(err, errlen, "cannot create a folder for the video in %s: %s", session_dir, strerror(errno));
			return -1;
		}
	}
	snprintf(e->record.session, sizeof e->record.session, "%s", session);
	/* the call sets its own canvas before the first commit */
	e->record.width = CANVAS_DEFAULT_WIDTH;
	e->record.height = CANVAS_DEFAULT_HEIGHT;
	e->record.fps = CANVAS_DEFAULT_FPS;
	video_record_now(e->record.created);
	memcpy(e->record.updated, e->record.created, sizeof e->record.updated);
	if (!(e->record.question = strdup(question)))
		snprintf(err, errlen, "out of memory");
	else if (chmod(dir, 0700) < 0 || mkdir(e->source, 0700) < 0 || chmod(e->source, 0700) < 0)
		snprintf(err, errlen, "cannot create the folders of the video in %s: %s", dir, strerror(errno));
	else if (lock_entry(e, err, errlen) == 0 &&
		 hb_path_join(record, sizeof record, dir, VIDEO_RECORD_FILE) == 0 &&
		 hb_path_join(next, sizeof next, dir, VIDEO_RECORD_FILE ".next") == 0 &&
		 video_record_write(next, &e->record, err, errlen) == 0) {
		if (rename(next, record) == 0)
			return 0;
		snprintf(err, errlen, "cannot write %s: %s", record, strerror(errno));
	}
	return -1;
}

int videos_create(const struct hb_paths *p, const char *session, const char *question, struct video_entry *out,
		  char *err, size_t errlen)
{
	char root[HB_PATH_MAX], session_dir[HB_PATH_MAX], ignored[256];
	int made = 0;

	open_nothing(out);
	if (!video_session_valid(session)) {
		bad_session(session, err, errlen);
		return -1;
	}
	if (strlen(question) > VIDEO_QUESTION_MAX) {
		snprintf(err, errlen, "the question has %zu bytes, more than the %d a video's record keeps",
			 strlen(question), VIDEO_QUESTION_MAX);
		return -1;
	}
	if (hb_dir_make_private(p, HB_DIR_DATA, err, errlen) < 0 ||
	    explainers_root(p, root, sizeof root, err, errlen) < 0 || videos_private_subdir(root, err, errlen) < 0)
		return -1;
	if (hb_path_join(session_dir, sizeof session_dir, root, session) < 0) {
		snprintf(err, errlen, "the data folder path %s is too long", root);
		return -1;
	}
	if (videos_private_subdir(session_dir, err, errlen) < 0)
		return -1;
	if (make_entry(out, session_dir, session, question, &made, err, errlen) < 0) {
		if (made)
			(void)flatdir_remove(out->dir, ignored, sizeof ignored);
		videos_close(out);
		return -1;
	}
	return 0;
}

/* "<session>/<id>/video.mp4" after root in real: the two names, or -1. */
static int split_entry(const char *real, const char *root, char *session, char *id)
{
	size_t rlen = strlen(root);
	const char *rel = real + rlen, *slash1, *slash2;

	if (strncmp(real, root, rlen) != 0 || *rel != '/')
		return -1;
	rel++;
	if (!(slash1 = strchr(rel, '/')) || !(slash2 = strchr(slash1 + 1, '/')) || strcmp(slash2 + 1, VIDEO_FILE) != 0)
		return -1;
	if ((size_t)(slash1 - rel) > VIDEO_SESSION_MAX || (size_t)(slash2 - slash1 - 1) != VIDEO_ID_LEN)
		return -1;
	memcpy(session, rel, (size_t)(slash1 - rel));
	session[slash1 - rel] = '\0';
	memcpy(id, slash1 + 1, VIDEO_ID_LEN);
	id[VIDEO_ID_LEN] = '\0';
	return video_session_valid(session) && video_id_valid(id) ? 0 : -1;
}

static void not_ours(const char *shown, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s was not made by create_explainer_video (%s); only a videoPath that it answered "
		 "can be revised. Call it without videoPath to make a new video.", shown, why);
}

/* The entry of real (a real path), its record read and matched, not yet
 * locked; 0, or -1 with the sentence for the agent. */
static int open_entry(const struct hb_paths *p, const char *real, const char *shown, struct video_entry *e,
		      char *err, size_t errlen)
{
	char root[HB_PATH_MAX], session[VIDEO_SESSION_MAX + 1], id[VIDEO_ID_LEN + 1], dir[HB_PATH_MAX];
	char record[HB_PATH_MAX], why[HB_PATH_MAX + 512];

	if (hb_dir_check_private(p, HB_DIR_DATA, why, sizeof why) < 0) {
		if (errno == ENOENT)
			not_ours(shown, "there is no data folder yet", err, errlen);
		else
			snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (explainers_root(p, root, sizeof root, err, errlen) < 0)
		return -1;
	if (split_entry(real, root, session, id) < 0) {
		snprintf(why, sizeof why, "it is not the %s of a video folder in %s", VIDEO_FILE, root);
		not_ours(shown, why, err, errlen);
		return -1;
	}
	if (snprintf(dir, sizeof dir, "%s/%s/%s", root, session, id) >= (int)sizeof dir || set_paths(e, dir) < 0 ||
	    hb_path_join(record, sizeof record, dir, VIDEO_RECORD_FILE) < 0) {
		not_ours(shown, "its path is too long", err, errlen);
		return -1;
	}
	if (video_record_read(record, &e->record, why, sizeof why) < 0) {
		not_ours(shown, why, err, errlen);
		return -1;
	}
	if (strcmp(e->record.id, id) != 0 || strcmp(e->record.session, session) != 0) {
		not_ours(shown, "its " VIDEO_RECORD_FILE " names another video", err, errlen);
		return -1;
	}
	return 0;
}

static void no_video(const char *shown, char *err, size_t errlen)
{
	snprintf(err, errlen, "There is no video at %s: it was moved or deleted. Call create_explainer_video "
		 "without videoPath to make a new one.", shown);
}

int videos_find(const struct hb_paths *p, const char *session, const char *video_path, struct video_entry *out,
		char *err, size_t errlen)
{
	char shown[4 * SHOWN_PATH_MAX + 8], real[PATH_MAX];
	struct stat st;

	open_nothing(out);
	hb_escape(video_path, strlen(video_path), SHOWN_PATH_MAX, shown, sizeof shown);
	if (!video_session_valid(session)) {
		bad_session(session, err, errlen);
		return -1;
	}
	if (video_path[0] != '/') {
		snprintf(err, errlen, "videoPath must be the absolute path that create_explainer_video answered; "
			 "\"%s\" is relative.", shown);
		return -1;
	}
	if (strlen(video_path) >= HB_PATH_MAX) {
		not_ours(shown, "the path is too long", err, errlen);
		return -1;
	}
	if (!realpath(video_path, real)) {
		if (errno == ENOENT || errno == ENOTDIR)
			no_video(shown, err, errlen);
		else
			snprintf(err, errlen, "cannot look at the videoPath %s: %s", shown, strerror(errno));
		return -1;
	}
	if (open_entry(p, real, shown, out, err, errlen) < 0)
		goto fail;
	if (strcmp(out->record.session, session) != 0) {
		snprintf(err, errlen, "%s belongs to another HB Code session; a video can be revised only from the "
			 "session that made it. Call create_explainer_video without videoPath to make a new one here.",
			 shown);
		goto fail;
	}
	if (lock_entry(out, err, errlen) < 0 || videos_settle(out, err, errlen) < 0)
		goto fail;
	if (lstat(out->video, &st) < 0 || !S_ISREG(st.st_mode)) {
		no_video(shown, err, errlen);
		goto fail;
	}
	return 0;
fail:
	videos_close(out);
	return -1;
}

/* Settles the entry id of session_dir when it is one of ours and no call
 * has it open, or removes it when it never got a video; 0 also when it is
 * skipped. */
static int tidy_entry(const char *session_dir, const char *session, const char *id, char *err, size_t errlen)
{
	char dir[HB_PATH_MAX], record[HB_PATH_MAX], why[512];
	struct video_entry e;
	int rc = 0;

	open_nothing(&e);
	if (hb_path_join(dir, sizeof dir, session_dir, id) < 0 || set_paths(&e, dir) < 0 ||
	    hb_path_join(record, sizeof record, dir, VIDEO_RECORD_FILE) < 0 ||
	    video_record_read(record, &e.record, why, sizeof why) < 0 || strcmp(e.record.id, id) != 0 ||
	    strcmp(e.record.session, session) != 0 || lock_entry(&e, why, sizeof why) < 0) {
		videos_close(&e);
		return 0;
	}
	rc = videos_settle(&e, err, errlen);
	/* No call has it and it has no video: its first call was killed
	 * before a finish (a finished first call leaves a video, a failed one
	 * removes its folder), so it will never become one. */
	if (rc == 0 && !e.has_video)
		rc = videos_discard(&e, err, errlen);
	videos_close(&e);
	return rc;
}

int videos_tidy(const struct hb_paths *p, char *err, size_t errlen)
{
	char root[HB_PATH_MAX], session_dir[HB_PATH_MAX], why[512];
	struct dirent *s, *v;
	DIR *sessions, *videos;
	int rc = 0;

	if (hb_dir_check_private(p, HB_DIR_DATA, err, errlen) < 0)
		return errno == ENOENT ? 0 : -1;
	if (explainers_root(p, root, sizeof root, err, errlen) < 0)
		return -1;
	if (!(sessions = opendir(root))) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot list %s: %s", root, strerror(errno));
		return -1;
	}
	while ((s = readdir(sessions))) {
		if (!video_session_valid(s->d_name) || hb_path_join(session_dir, sizeof session_dir, root, s->d_name) < 0 ||
		    !(videos = opendir(session_dir)))
			continue;
		while ((v = readdir(videos)))
			if (video_id_valid(v->d_name) && tidy_entry(session_dir, s->d_name, v->d_name, why, sizeof why) < 0 &&
			    rc++ == 0)
				snprintf(err, errlen, "%s", why);
		closedir(videos);
	}
	closedir(sessions);
	return rc ? -1 : 0;
}

void videos_close(struct video_entry *e)
{
	if (e->lock_fd >= 0)
		close(e->lock_fd);
	e->lock_fd = -1;
	video_record_free(&e->record);
}

char *videos_answer_text(const struct video_entry *e, json_t *extra)
{
	json_t *o = json_pack("{s:s, s:f, s:I, s:I, s:s?, s:i, s:i, s:i}", "videoPath", e->video, "durationSeconds",
			      round(e->record.duration * 10) / 10, "scenes", (json_int_t)e->record.scenes, "revision",
			      (json_int_t)e->record.revision, "format",
			      canvas_format_name(e->record.width, e->record.height), "width", e->record.width, "height",
			      e->record.height, "fps", e->record.fps);
	const char *const files[][2] = { { "captionsPath", e->vtt }, { "captionsSrtPath", e->srt },
					 { "posterPath", e->poster } };
	char *text = NULL;
	struct stat st;

	/* A video saved before captions and posters were made has none. */
	for (size_t i = 0; o && i < sizeof files / sizeof files[0]; i++)
		if (lstat(files[i][1], &st) == 0 && S_ISREG(st.st_mode) &&
		    json_object_set_new(o, files[i][0], json_string(files[i][1])) < 0) {
			json_decref(o);
			o = NULL;
		}
	/* Six significant digits print a duration under 100000 s with its
	 * decimal and without binary noise (74.3, not 74.299999999999997). */
	if (o && (!extra || json_object_update(o, extra) == 0))
		text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	json_decref(o);
	return text;
}

void videos_summary(const struct video_entry *e, char *out, size_t outlen)
{
	snprintf(out, outlen, "Saved the explainer video at %s (%.1f s, %ld scene%s, revision %ld, %s %dx%d at %d "
		 "fps).", e->video, e->record.duration, e->record.scenes, e->record.scenes == 1 ? "" : "s",
		 e->record.revision, canvas_format_name(e->record.width, e->record.height), e->record.width,
		 e->record.height, e->record.fps);
}
