/*
 * videos_revise - a revision of an explainer video swapped in whole or not
 * at all (videos.h).
 *
 * These change together: video.mp4 with its captions and poster (its
 * companions: video.vtt, video.srt, poster.png), source/ and video.json.
 * A rename replaces one name atomically, so the commit is a sequence of
 * renames around one decisive step, and a crash after any step leaves a
 * state that says which way to go:
 *
 *	1. source.next/, video.next.mp4, its companions (*.next.*) and
 *	   video.json.next are written and flushed to disk
 *	                                       crash: undone (all removed)
 *	2. source/ -> source.old/              crash: undone (source.old/ -> source/)
 *	3. source.next/ -> source/  DECIDED    crash: finished (steps 4-6)
 *	4. each companion's .next -> its name, then video.next.mp4 -> video.mp4
 *	5. video.json.next -> video.json
 *	6. source.old/ removed
 *
 * A revision must have all its companions (step 1 refuses one without),
 * so after the decision a companion's .next that is gone was moved.
 *
 * videos_settle reads the state from two names: source/ missing means
 * before the decision, source/ beside source.old/ means after it, and
 * otherwise only a revision's leftovers can be there.  The commit itself
 * ends by settling, so the code that finishes after a crash is the code
 * that finishes every commit.  Renames stay inside the entry's folder, so
 * they never cross a file system.
 */
#include "videos.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "failpoint.h"
#include "flatdir.h"

/* output.h's temporary files for next_video and its companions:
 * ".video.next.mp4.hb-PID-XXXXXX.part" and the like. */
static const char *const render_part_prefixes[] = {
	"." VIDEO_NEXT_FILE ".hb-", "." VIDEO_NEXT_VTT_FILE ".hb-", "." VIDEO_NEXT_SRT_FILE ".hb-",
	"." VIDEO_NEXT_POSTER_FILE ".hb-",
};

#define NCOMPANIONS 3

/* The companions of the video: where a revision writes each, and its name. */
static void companions(const struct video_entry *e, const char *next[NCOMPANIONS], const char *final[NCOMPANIONS])
{
	next[0] = e->next_vtt, final[0] = e->vtt;
	next[1] = e->next_srt, final[1] = e->srt;
	next[2] = e->next_poster, final[2] = e->poster;
}
#define RECORD_NEXT VIDEO_RECORD_FILE ".next"
#define SOURCE_OLD VIDEO_SOURCE_DIR ".old"

static int entry_file(const struct video_entry *e, const char *name, char out[HB_PATH_MAX])
{
	return hb_path_join(out, HB_PATH_MAX, e->dir, name);
}

/* 1 when path is there (as anything, links not followed), 0 when not, -1 with err. */
static int exists(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	snprintf(err, errlen, "cannot look at %s: %s", path, strerror(errno));
	return -1;
}

static int move(const char *from, const char *to, char *err, size_t errlen)
{
	if (rename(from, to) == 0)
		return 0;
	snprintf(err, errlen, "cannot rename %s to %s: %s", from, to, strerror(errno));
	return -1;
}

/* Flushes the entry's folder, so the renames in it are on disk in order. */
static int sync_entry(const struct video_entry *e, char *err, size_t errlen)
{
	int fd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL)) {
		snprintf(err, errlen, "cannot flush the folder %s to disk: %s", e->dir, strerror(errno));
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

static int remove_file(const char *path, char *err, size_t errlen)
{
	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
	return -1;
}

/* The temporary files of renders to next_video that were killed.  The
 * entry is locked and its own call is not rendering when this runs, so
 * every such file is a leftover, whatever its pid says. */
static int remove_render_parts(const struct video_entry *e, char *err, size_t errlen)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "cannot list the folder %s: %s", e->dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		for (size_t i = 0; i < sizeof render_part_prefixes / sizeof render_part_prefixes[0]; i++)
			if (strncmp(de->d_name, render_part_prefixes[i], strlen(render_part_prefixes[i])) == 0 &&
			    unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT && rc++ == 0)
				snprintf(err, errlen, "cannot remove %s/%s: %s", e->dir, de->d_name, strerror(errno));
	closedir(d);
	return rc ? -1 : 0;
}

/* A revision's render and its companions removed. */
static int remove_render(const struct video_entry *e, char *err, size_t errlen)
{
	const char *next[NCOMPANIONS], *final[NCOMPANIONS];

	companions(e, next, final);
	for (size_t i = 0; i < NCOMPANIONS; i++)
		if (remove_file(next[i], err, errlen) < 0)
			return -1;
	return remove_file(e->next_video, err, errlen) < 0 ? -1 : remove_render_parts(e, err, errlen);
}

/* Before the decision: the old revision back in place, the new one's files gone. */
static int undo(const struct video_entry *e, int has_source, char *err, size_t errlen)
{
	char old[HB_PATH_MAX], record_next[HB_PATH_MAX];

	if (entry_file(e, SOURCE_OLD, old) < 0 || entry_file(e, RECORD_NEXT, record_next) < 0) {
		snprintf(err, errlen, "the folder path %s is too long", e->dir);
		return -1;
	}
	if (!has_source && (move(old, e->source, err, errlen) < 0 || sync_entry(e, err, errlen) < 0))
		return -1;
	if (flatdir_remove(e->next_source, err, errlen) < 0 || remove_render(e, err, errlen) < 0 ||
	    remove_file(record_next, err, errlen) < 0)
		return -1;
	return sync_entry(e, err, errlen);
}

/* After the decision: steps 4 to 6 of the commit, whichever are still to do. */
static int finish(const struct video_entry *e, char *err, size_t errlen)
{
	char old[HB_PATH_MAX], record[HB_PATH_MAX], record_next[HB_PATH_MAX];
	const char *next[NCOMPANIONS], *final[NCOMPANIONS];
	int there;

	if (entry_file(e, SOURCE_OLD, old) < 0 || entry_file(e, VIDEO_RECORD_FILE, record) < 0 ||
	    entry_file(e, RECORD_NEXT, record_next) < 0) {
		snprintf(err, errlen, "the folder path %s is too long", e->dir);
		return -1;
	}
	companions(e, next, final);
	for (size_t i = 0; i < NCOMPANIONS; i++) {
		if ((there = exists(next[i], err, errlen)) < 0 || (there && move(next[i], final[i], err, errlen) < 0))
			return -1;
		if (i == 0)
			hb_failpoint("explainer.commit-captions-moved");
	}
	if ((there = exists(e->next_video, err, errlen)) < 0 || (there && move(e->next_video, e->video, err, errlen) < 0))
		return -1;
	hb_failpoint("explainer.commit-video-moved");
	if ((there = exists(record_next, err, errlen)) < 0 || (there && move(record_next, record, err, errlen) < 0))
		return -1;
	if (sync_entry(e, err, errlen) < 0)
		return -1;
	return flatdir_remove(old, err, errlen);
}

/* e's record and has_video from the disk, after the entry changed. */
static int reload(struct video_entry *e, char *err, size_t errlen)
{
	char record[HB_PATH_MAX], why[512];
	struct video_record r;
	struct stat st;

	if (entry_file(e, VIDEO_RECORD_FILE, record) < 0 || video_record_read(record, &r, why, sizeof why) < 0) {
		snprintf(err, errlen, "the record of the video %s cannot be read: %s", e->video, why);
		return -1;
	}
	video_record_free(&e->record);
	e->record = r;
	e->has_video = lstat(e->video, &st) == 0 && S_ISREG(st.st_mode);
	return 0;
}

int videos_settle(struct video_entry *e, char *err, size_t errlen)
{
	char old[HB_PATH_MAX];
	int has_source, has_old, rc;

	if (entry_file(e, SOURCE_OLD, old) < 0) {
		snprintf(err, errlen, "the folder path %s is too long", e->dir);
		return -1;
	}
	if ((has_source = exists(e->source, err, errlen)) < 0 || (has_old = exists(old, err, errlen)) < 0)
		return -1;
	if (!has_source && !has_old) {
		snprintf(err, errlen, "The explainer's source kept beside %s is missing, so the video cannot be "
			 "revised. Call create_explainer_video without videoPath to make a new one.", e->video);
		return -1;
	}
	rc = has_source && has_old ? finish(e, err, errlen) : undo(e, has_source, err, errlen);
	return rc < 0 ? -1 : reload(e, err, errlen);
}

int videos_copy_source(const struct video_entry *e, const char *dest_dir, char *err, size_t errlen)
{
	return flatdir_copy(e->source, dest_dir, err, errlen);
}

/* The name in e->dir of the rendered file, when it is a regular file there
 * other than the entry's own files; -1 with err otherwise. */
static int render_name(const struct video_entry *e, const char *rendered, char name[NAME_MAX + 1], char *err,
		       size_t errlen)
{
	const char *slash = strrchr(rendered, '/');
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (!slash || (size_t)(slash - rendered) >= sizeof dir || strlen(slash + 1) > NAME_MAX) {
		snprintf(err, errlen, "the rendered video must be a file in the video's folder %s, not %s", e->dir,
			 rendered);
		return -1;
	}
	memcpy(dir, rendered, (size_t)(slash - rendered));
	dir[slash - rendered] = '\0';
	strcpy(name, slash + 1);
	if (!realpath(dir[0] ? dir : "/", real) || strcmp(real, e->dir) != 0 || strcmp(name, VIDEO_FILE) == 0 ||
	    strcmp(name, VIDEO_RECORD_FILE) == 0 || strcmp(name, RECORD_NEXT) == 0) {
		snprintf(err, errlen, "the rendered video must be a new file in the video's folder %s (render to %s), "
			 "not %s", e->dir, e->next_video, rendered);
		return -1;
	}
	if (lstat(rendered, &st) < 0) {
		snprintf(err, errlen, "cannot find the rendered video %s: %s", rendered, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "the rendered video %s is not a regular file", rendered);
		return -1;
	}
	return 0;
}

/* path (a regular file, not a link) flushed to disk; what names it. */
static int flush_file(const char *path, const char *what, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		snprintf(err, errlen, "the revision has no %s: %s is missing", what, path);
		return -1;
	}
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "the %s %s is not a regular file", what, path);
		close(fd);
		return -1;
	}
	if (fd < 0 || fsync(fd) < 0) {
		snprintf(err, errlen, "cannot flush the %s %s to disk: %s", what, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The render as next_video, and its companions, flushed to disk. */
static int place_render(const struct video_entry *e, const char *name, char *err, size_t errlen)
{
	static const char *const what[NCOMPANIONS] = { "captions (WebVTT)", "captions (SRT)", "poster" };
	const char *next[NCOMPANIONS], *final[NCOMPANIONS];
	char path[HB_PATH_MAX];

	if (strcmp(name, VIDEO_NEXT_FILE) != 0 &&
	    (entry_file(e, name, path) < 0 || move(path, e->next_video, err, errlen) < 0))
		return -1;
	if (flush_file(e->next_video, "rendered video", err, errlen) < 0)
		return -1;
	companions(e, next, final);
	for (size_t i = 0; i < NCOMPANIONS; i++)
		if (flush_file(next[i], what[i], err, errlen) < 0)
			return -1;
	return 0;
}

/* 1 when a and b are the same folder. */
static int same_folder(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* Step 1: the new source, render and record beside the old ones, flushed. */
static int prepare(const struct video_entry *e, const char *new_source_dir, const char *render, double duration,
		   long scenes, char *err, size_t errlen)
{
	struct video_record next = e->record; /* shares the question: not freed here */
	char record_next[HB_PATH_MAX];

	if (place_render(e, render, err, errlen) < 0)
		return -1;
	if (same_folder(new_source_dir, e->next_source)) {
		if (flatdir_sync(e->next_source, err, errlen) < 0)
			return -1;
	} else if (flatdir_remove(e->next_source, err, errlen) < 0 ||
		   flatdir_copy(new_source_dir, e->next_source, err, errlen) < 0) {
		return -1;
	}
	next.revision = e->has_video ? e->record.revision + 1 : 0;
	video_record_now(next.updated);
	next.duration = duration;
	next.scenes = scenes;
	if (entry_file(e, RECORD_NEXT, record_next) < 0) {
		snprintf(err, errlen, "the folder path %s is too long", e->dir);
		return -1;
	}
	return video_record_write(record_next, &next, err, errlen) < 0 ? -1 : sync_entry(e, err, errlen);
}

/* Steps 2 and 3. */
static int swap_sources(const struct video_entry *e, char *err, size_t errlen)
{
	char old[HB_PATH_MAX];

	if (entry_file(e, SOURCE_OLD, old) < 0) {
		snprintf(err, errlen, "the folder path %s is too long", e->dir);
		return -1;
	}
	if (move(e->source, old, err, errlen) < 0 || sync_entry(e, err, errlen) < 0)
		return -1;
	hb_failpoint("explainer.commit-source-set-aside");
	return move(e->next_source, e->source, err, errlen);
}

int videos_commit_revision(struct video_entry *e, const char *new_source_dir, const char *rendered_mp4,
			   double duration, long scenes, char *err, size_t errlen)
{
	char name[NAME_MAX + 1] = "", path[HB_PATH_MAX], ignored[3 * HB_PATH_MAX];
	int named = 0;

	if (!isfinite(duration) || duration <= 0)
		snprintf(err, errlen, "a video of %g seconds cannot be saved", duration);
	else if (scenes < 1)
		snprintf(err, errlen, "a video of %ld scenes cannot be saved", scenes);
	else if ((named = render_name(e, rendered_mp4, name, err, errlen) == 0) &&
		 prepare(e, new_source_dir, name, duration, scenes, err, errlen) == 0) {
		hb_failpoint("explainer.commit-prepared");
		if (swap_sources(e, err, errlen) == 0) {
			hb_failpoint("explainer.commit-decided");
			if (videos_settle(e, ignored, sizeof ignored) == 0)
				return 0;
			snprintf(err, errlen, "the revision of %s is saved, but finishing it failed (the next call "
				 "finishes it): %s", e->video, ignored);
			return -1;
		}
	}
	/* Before the decision: back to the old revision, and the new one's files gone. */
	(void)videos_settle(e, ignored, sizeof ignored);
	if (named && entry_file(e, name, path) == 0)
		(void)remove_file(path, ignored, sizeof ignored);
	return -1;
}

int videos_abort_revision(struct video_entry *e, char *err, size_t errlen)
{
	return videos_settle(e, err, errlen);
}

int videos_abort_render(struct video_entry *e, char *err, size_t errlen)
{
	if (remove_render(e, err, errlen) < 0)
		return -1;
	return sync_entry(e, err, errlen);
}

int videos_discard(struct video_entry *e, char *err, size_t errlen)
{
	char session_dir[HB_PATH_MAX];
	char *slash;

	if (e->has_video) {
		snprintf(err, errlen, "the video %s is saved, so its folder is kept", e->video);
		return -1;
	}
	if (flatdir_remove(e->dir, err, errlen) < 0)
		return -1;
	/* The session's folder goes with its last video; another call may
	 * just have put one there, and then it stays (ENOTEMPTY). */
	snprintf(session_dir, sizeof session_dir, "%s", e->dir);
	if ((slash = strrchr(session_dir, '/')))
		*slash = '\0';
	(void)rmdir(session_dir);
	return 0;
}
