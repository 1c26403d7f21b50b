/*
 * videos - where create_explainer_video keeps its videos, and how a later
 * call with videoPath finds one and replaces it by a revision.
 *
 *	<data>/explainers/<session id>/<video id>/
 *	    video.mp4        the video: the videoPath the tool answers
 *	    video.vtt        its captions, WebVTT (captions.h)
 *	    video.srt        the same captions, SRT
 *	    poster.png       its poster frame (preview.h)
 *	    video.json       the record (videos_record.h)
 *	    source/          the explainer folder the video was rendered from
 *	    source.next/     a revision's copy of source/, while it is made
 *	    video.next.mp4   a revision's render, while it is made
 *	    video.next.vtt, video.next.srt, poster.next.png
 *	                     its captions and poster, likewise
 *
 * An entry is open (struct video_entry) from videos_create or videos_find
 * until videos_close, and holds the entry's lock for that time, so two
 * calls never revise one video at once.  Opening an entry first finishes
 * or undoes whatever a crash interrupted in it (videos_settle).
 *
 * A revision: the worker works in source.next, a copy of source/
 * (videos_copy_source), which opening an entry removes as a leftover of
 * a killed call; the render writes
 * next_video and its companions next_vtt, next_srt and next_poster
 * (through output.h); videos_commit_revision swaps them all in at once, or videos_abort_revision throws them away.  Until the commit,
 * video.mp4, its captions and poster, source/ and video.json stay byte for byte as they were; a
 * crash at any moment leaves the old revision or the new one, whole.
 */
#ifndef EXPLAINER_VIDEOS_H
#define EXPLAINER_VIDEOS_H

#include <jansson.h>
#include <stddef.h>

#include "paths.h"
#include "videos_record.h"

#define VIDEOS_DIR "explainers"
#define VIDEO_FILE "video.mp4"
#define VIDEO_NEXT_FILE "video.next.mp4"
#define VIDEO_SOURCE_DIR "source"
#define VIDEO_NEXT_SOURCE_DIR "source.next"
#define VIDEO_VTT_FILE "video.vtt"
#define VIDEO_NEXT_VTT_FILE "video.next.vtt"
#define VIDEO_SRT_FILE "video.srt"
#define VIDEO_NEXT_SRT_FILE "video.next.srt"
#define VIDEO_POSTER_FILE "poster.png"
#define VIDEO_NEXT_POSTER_FILE "poster.next.png"

struct video_entry {
	char dir[HB_PATH_MAX];          /* the entry's folder, a real path (no links) */
	char video[HB_PATH_MAX];        /* dir/video.mp4: the videoPath */
	char source[HB_PATH_MAX];       /* dir/source */
	char next_source[HB_PATH_MAX];  /* dir/source.next */
	char next_video[HB_PATH_MAX];   /* dir/video.next.mp4: where a revision renders to */
	char vtt[HB_PATH_MAX];          /* dir/video.vtt */
	char srt[HB_PATH_MAX];          /* dir/video.srt */
	char poster[HB_PATH_MAX];       /* dir/poster.png */
	char next_vtt[HB_PATH_MAX];     /* dir/video.next.vtt: a revision's captions */
	char next_srt[HB_PATH_MAX];     /* dir/video.next.srt */
	char next_poster[HB_PATH_MAX];  /* dir/poster.next.png: a revision's poster */
	struct video_record record;
	int has_video;                  /* video.mp4 is there (0 until the first commit) */
	int lock_fd;                    /* -1 when closed */
};

/* A new entry for session: its folder with an empty source/ and a record
 * of revision 0, no video yet.  Makes the data folder private (paths.h)
 * first.  0 with *out open, or -1 with a sentence in err. */
int videos_create(const struct hb_paths *p, const char *session, const char *question, struct video_entry *out,
		  char *err, size_t errlen);
/* The entry whose video video_path names, for session, opened for a
 * revision.  The path must be absolute; it is judged by where it really
 * leads (links followed), which must be the video.mp4 of an entry of this
 * session under <data>/explainers/ with a record naming that entry.
 * 0 with *out open, or -1 with a sentence in err fit for the agent: the
 * path is relative, there is no file there, it was not made by this tool,
 * it belongs to another session, or another call is revising it. */
int videos_find(const struct hb_paths *p, const char *session, const char *video_path, struct video_entry *out,
		char *err, size_t errlen);
/* Copies e's source/ into dest_dir (made 0700, or an empty folder): the
 * folder a revising worker starts from.  0, or -1 with err. */
int videos_copy_source(const struct video_entry *e, const char *dest_dir, char *err, size_t errlen);
/* Makes the revision the entry's video: new_source_dir becomes source/ (moved
 * when it is e->next_source, else copied in; only regular files), the
 * rendered MP4 (a file in e->dir, normally e->next_video) becomes
 * video.mp4, next_vtt, next_srt and next_poster (all three must be there)
 * become video.vtt, video.srt and poster.png, and the record gets the duration, the scene count, the time
 * and the next revision number (0 for the entry's first video).  0 with
 * e->record updated; -1 with err and the entry as it was before the
 * revision, its copy and render removed. */
int videos_commit_revision(struct video_entry *e, const char *new_source_dir, const char *rendered_mp4,
			   double duration, long scenes, char *err, size_t errlen);
/* Throws a revision away: removes source.next and the render with its
 * captions and poster (and a killed render's temporary files); video.mp4, source/ and video.json are not
 * touched.  0, or -1 with err. */
int videos_abort_revision(struct video_entry *e, char *err, size_t errlen);
/* Throws a failed render away (the render, its captions and poster, and a
 * killed render's temporary files) and keeps source.next, the worker's folder, so that
 * the worker can finish again.  0, or -1 with err. */
int videos_abort_render(struct video_entry *e, char *err, size_t errlen);
/* Removes an entry that never got a video (its first call failed), folder
 * and all; an entry with a video is refused.  e stays open until
 * videos_close.  0, or -1 with err. */
int videos_discard(struct video_entry *e, char *err, size_t errlen);
/* Finishes a commit that a crash interrupted after its decisive rename,
 * or undoes one interrupted before it, and removes a revision's leftovers.
 * Create and find do it; 0, or -1 with err. */
int videos_settle(struct video_entry *e, char *err, size_t errlen);
/* A folder of ours under one of the private folders (paths.h): made
 * 0700, or accepted when it is a real folder of this user that no one
 * else can enter.  0, or -1 with err. */
int videos_private_subdir(const char *path, char *err, size_t errlen);
/* At the service's start: settles every entry under <data>/explainers/
 * that no call has open, and removes those without a video (a first call
 * killed before its finish).  0, or -1 with the first problem in err (the
 * others are still settled). */
int videos_tidy(const struct hb_paths *p, char *err, size_t errlen);
/* Releases the lock and frees e; safe on a closed or zeroed-and-closed entry. */
void videos_close(struct video_entry *e);

/* What the tool's answer says about the saved video, as compact JSON:
 * {"videoPath", "durationSeconds" (one decimal), "scenes", "revision",
 * "format" ("16:9"), "width", "height", "fps", "captionsPath" (WebVTT),
 * "captionsSrtPath" (SRT), "posterPath"} (each of the last three only when
 * the file is there), then the keys of extra (the review; NULL: none; not changed).  Caller
 * frees; NULL when out of memory. */
char *videos_answer_text(const struct video_entry *e, json_t *extra);
/* The same as one sentence, for the timeline and logs: "Saved the
 * explainer video at PATH (74.5 s, 6 scenes, revision 1, 16:9 1920x1080
 * at 30 fps)." */
void videos_summary(const struct video_entry *e, char *out, size_t outlen);

#endif
