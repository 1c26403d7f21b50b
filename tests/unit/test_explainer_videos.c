/*
 * test_explainer_videos - where create_explainer_video keeps its videos
 * (svc-explainer/videos.h): an entry's folders, modes and record; finding
 * it by its videoPath, also through a link; every refused videoPath with its
 * sentence; the start-up tidy; discarding a video that never was.
 * (Revisions: test_explainer_revisions.c.)
 *
 * HB_DATA_DIR points at a fresh folder for each test (videos_rig.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "paths.h"
#include "sha256.h"
#include "../../renderer/output.h"
#include "../../svc-explainer/videos.h"
#include "videos_rig.h"

static void test_create(void **state)
{
	struct fixture *f = *state;
	struct video_entry e;
	char err[ERR_LEN], want[HB_PATH_MAX], real_data[4096];
	struct stat st;

	assert_int_equal(videos_create(&f->paths, SESSION, QUESTION, &e, err, sizeof err), 0);
	assert_non_null(realpath(f->data, real_data));
	pathf(want, sizeof want, "%s/explainers/%s/%s", real_data, SESSION, e.record.id);
	assert_string_equal(e.dir, want);
	assert_true(video_id_valid(e.record.id));
	assert_int_equal(strlen(e.record.id), 22);
	pathf(want, sizeof want, "%s/video.mp4", e.dir);
	assert_string_equal(e.video, want);
	/* Every folder private; an empty source; no video yet. */
	pathf(want, sizeof want, "%s/explainers", real_data);
	assert_int_equal(lstat(want, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(lstat(e.dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(lstat(e.source, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_false(exists_in(e.dir, "video.mp4"));
	assert_int_equal(e.has_video, 0);
	/* The record on disk says revision 0 of this session. */
	{
		struct video_record r;
		pathf(want, sizeof want, "%s/video.json", e.dir);
		assert_int_equal(video_record_read(want, &r, err, sizeof err), 0);
		assert_string_equal(r.id, e.record.id);
		assert_string_equal(r.session, SESSION);
		assert_int_equal(r.revision, 0);
		assert_int_equal(r.scenes, 0);
		assert_string_equal(r.question, QUESTION);
		assert_string_equal(r.created, r.updated);
		assert_int_equal(strlen(r.created), 20);
		video_record_free(&r);
	}
	/* Open, it is the creating call's: the start-up tidy of another
	 * process leaves its work alone; closed (its call was killed before
	 * a finish) it never became a video, so its folder goes whole, and
	 * the session's with it. */
	assert_int_equal(mkdir(e.next_source, 0700), 0);
	assert_int_equal(videos_tidy(&f->paths, err, sizeof err), 0);
	assert_true(exists_in(e.dir, "source.next"));
	videos_close(&e);
	assert_int_equal(videos_tidy(&f->paths, err, sizeof err), 0);
	assert_int_equal(access(e.dir, F_OK), -1);
	{
		char session_dir[HB_PATH_MAX];
		pathf(session_dir, sizeof session_dir, "%s", e.dir);
		*strrchr(session_dir, '/') = '\0';
		assert_int_equal(access(session_dir, F_OK), -1);
	}
	/* Closed and still without a video: there is nothing to revise. */
	assert_refused(f, SESSION, e.video, "There is no video at");
	/* A session id that cannot name a folder. */
	assert_int_equal(videos_create(&f->paths, "../x", QUESTION, &e, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot name a folder"));
}

static void test_first_video_and_answer(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], summary[2 * HB_PATH_MAX], want[2 * HB_PATH_MAX], *text;
	struct video_entry e;
	json_t *review = json_pack("{s:[s]}", "checks", "structure");

	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	assert_string_equal(e.video, video);
	assert_int_equal(e.has_video, 1);
	assert_int_equal(e.record.revision, 0);
	assert_int_equal(e.record.scenes, 2);
	assert_true(e.record.duration == 42.34);
	assert_true(exists_in(e.source, "a.svg") && exists_in(e.source, "b.svg"));
	assert_no_leftovers(&e);
	/* Open, it is this call's: another call is refused. */
	{
		struct video_entry busy;
		char err[ERR_LEN];
		assert_int_equal(videos_find(&f->paths, SESSION, video, &busy, err, sizeof err), -1);
		assert_non_null(strstr(err, "is being made or revised by another call right now"));
	}
	text = videos_answer_text(&e, NULL);
	pathf(want, sizeof want, "{\"videoPath\":\"%s\",\"durationSeconds\":42.3,\"scenes\":2,\"revision\":0,"
		 "\"format\":\"16:9\",\"width\":1920,\"height\":1080,\"fps\":30,"
		 "\"captionsPath\":\"%s\",\"captionsSrtPath\":\"%s\",\"posterPath\":\"%s\"}", video, e.vtt, e.srt,
		 e.poster);
	assert_string_equal(text, want);
	free(text);
	text = videos_answer_text(&e, review);
	pathf(want, sizeof want,
		 "{\"videoPath\":\"%s\",\"durationSeconds\":42.3,\"scenes\":2,\"revision\":0,\"format\":\"16:9\","
		 "\"width\":1920,\"height\":1080,\"fps\":30,\"captionsPath\":\"%s\","
		 "\"captionsSrtPath\":\"%s\",\"posterPath\":\"%s\",\"checks\":[\"structure\"]}",
		 video, e.vtt, e.srt, e.poster);
	assert_string_equal(text, want);
	free(text);
	/* A video saved before captions and posters has none to name. */
	assert_int_equal(unlink(e.vtt), 0);
	assert_int_equal(unlink(e.srt), 0);
	assert_int_equal(unlink(e.poster), 0);
	text = videos_answer_text(&e, NULL);
	pathf(want, sizeof want, "{\"videoPath\":\"%s\",\"durationSeconds\":42.3,\"scenes\":2,\"revision\":0,"
		 "\"format\":\"16:9\",\"width\":1920,\"height\":1080,\"fps\":30}", video);
	assert_string_equal(text, want);
	free(text);
	videos_summary(&e, summary, sizeof summary);
	pathf(want, sizeof want, "Saved the explainer video at %s (42.3 s, 2 scenes, revision 0, 16:9 1920x1080 at 30 "
		 "fps).", video);
	assert_string_equal(summary, want);
	json_decref(review);
	videos_close(&e);
}

static void test_find_through_link(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], link[HB_PATH_MAX];
	struct video_entry e;

	make_video(f, SESSION, video);
	/* A link outside the tree that leads into it: judged by where it leads. */
	pathf(link, sizeof link, "%s/my-video.mp4", f->base);
	assert_int_equal(symlink(video, link), 0);
	must_find(f, SESSION, link, &e);
	assert_string_equal(e.video, video);
	videos_close(&e);
	/* A spelling with "." and "//" in it leads to the same file. */
	{
		char spelled[HB_PATH_MAX + 8];
		char *last = strrchr(video, '/');
		pathf(spelled, sizeof spelled, "%.*s/.//video.mp4", (int)(last - video), video);
		must_find(f, SESSION, spelled, &e);
		assert_string_equal(e.video, video);
		videos_close(&e);
	}
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], other[HB_PATH_MAX], path[HB_PATH_MAX], dir[HB_PATH_MAX], real_data[4096];
	char outside[HB_PATH_MAX];

	make_video(f, SESSION, video);
	make_video(f, OTHER_SESSION, other);
	assert_non_null(realpath(f->data, real_data));
	assert_refused(f, SESSION, "video.mp4", "must be the absolute path");
	assert_refused(f, SESSION, "explainers/x/video.mp4", "is relative");
	assert_refused(f, SESSION, "", "is relative");
	/* A file outside the tree, even one named video.mp4. */
	pathf(outside, sizeof outside, "%s/video.mp4", f->base);
	write_file(f->base, "video.mp4", "not ours");
	assert_refused(f, SESSION, outside, "was not made by create_explainer_video");
	/* The record of an entry is not its video. */
	pathf(path, sizeof path, "%.*s/video.json", (int)(strrchr(video, '/') - video), video);
	assert_refused(f, SESSION, path, "was not made by create_explainer_video");
	/* A folder made by hand in the tree: no record, then a record of another video. */
	pathf(dir, sizeof dir, "%s/explainers/%s/20261201-153012-a1b2c3", real_data, SESSION);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_file(dir, "video.mp4", "hand made");
	pathf(path, sizeof path, "%s/video.mp4", dir);
	assert_refused(f, SESSION, path, "video.json does not exist");
	write_file(dir, "video.json", "{\"id\":\"20261201-153012-ffffff\",\"session\":\"" SESSION "\",\"revision\":0,"
		   "\"created\":\"x\",\"updated\":\"x\",\"durationSeconds\":1,\"scenes\":1,\"question\":\"q\"}");
	assert_refused(f, SESSION, path, "names another video");
	write_file(dir, "video.json", "{\"id\":\"20261201-153012-a1b2c3\"}");
	assert_refused(f, SESSION, path, "video.json is broken");
	/* A video.mp4 one level too shallow. */
	pathf(path, sizeof path, "%s/explainers/%s/video.mp4", real_data, SESSION);
	write_file(dir, "../video.mp4", "too shallow");
	assert_refused(f, SESSION, path, "was not made by create_explainer_video");
	/* Another session's video. */
	assert_refused(f, SESSION, other, "belongs to another HB Code session");
	/* Missing: a path that is not there, and a video that was deleted. */
	pathf(path, sizeof path, "%s/explainers/%s/20261201-153012-000000/video.mp4", real_data, SESSION);
	assert_refused(f, SESSION, path, "There is no video at");
	assert_int_equal(unlink(video), 0);
	assert_refused(f, SESSION, video, "There is no video at");
	/* A link in the tree that leads out of it. */
	assert_int_equal(symlink(outside, video), 0);
	assert_refused(f, SESSION, video, "was not made by create_explainer_video");
	/* Control characters in a path are shown escaped. */
	assert_refused(f, SESSION, "rel\n", "rel\\x0a");
}

/* Leftovers put there by hand, as a crash of another version might leave
 * them, and settled at start-up by videos_tidy (no call needed). */
static void test_tidy_settles_leftovers(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], old[HB_PATH_MAX], err[ERR_LEN];
	struct video_entry e;
	struct snapshot before, after;

	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &before);
	/* Half a swap: source set aside, a partial copy beside it. */
	make_revised_source(&e, e.next_source);
	pathf(old, sizeof old, "%s/source.old", e.dir);
	assert_int_equal(rename(e.source, old), 0);
	write_file(e.dir, "video.json.next", "{\"half\":");
	videos_close(&e);
	assert_int_equal(videos_tidy(&f->paths, err, sizeof err), 0);
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &after);
	assert_same_snapshot(&before, &after);
	assert_no_leftovers(&e);
	/* An entry open in a call is left alone by the tidy. */
	make_revised_source(&e, e.next_source);
	assert_int_equal(videos_tidy(&f->paths, err, sizeof err), 0);
	assert_true(exists_in(e.dir, "source.next"));
	assert_int_equal(videos_abort_revision(&e, err, sizeof err), 0);
	videos_close(&e);
	/* A folder made by hand is not ours to touch. */
	{
		char real_data[4096], dir[HB_PATH_MAX];
		assert_non_null(realpath(f->data, real_data));
		pathf(dir, sizeof dir, "%s/explainers/%s/20261201-153012-a1b2c3", real_data, SESSION);
		assert_int_equal(mkdir(dir, 0700), 0);
		assert_int_equal(mkdir(strcat(dir, "/source.next"), 0700), 0);
		assert_int_equal(videos_tidy(&f->paths, err, sizeof err), 0);
		assert_int_equal(access(dir, F_OK), 0);
	}
	/* No data folder at all: nothing to do. */
	setenv("HB_DATA_DIR", "/nonexistent/hb-videos-test", 1);
	{
		struct hb_paths none;
		assert_int_equal(hb_paths_resolve(&none, err, sizeof err), 0);
		assert_int_equal(videos_tidy(&none, err, sizeof err), 0);
	}
}

static void test_discard(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], dir[HB_PATH_MAX], err[ERR_LEN];
	struct video_entry e;

	assert_int_equal(videos_create(&f->paths, SESSION, QUESTION, &e, err, sizeof err), 0);
	pathf(dir, sizeof dir, "%s", e.dir);
	make_revised_source(&e, e.next_source);
	assert_int_equal(videos_discard(&e, err, sizeof err), 0);
	videos_close(&e);
	assert_int_equal(access(dir, F_OK), -1);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(access(dir, F_OK), -1); /* the session's folder went with its only video */
	/* A saved video is not discarded. */
	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	assert_int_equal(videos_discard(&e, err, sizeof err), -1);
	assert_non_null(strstr(err, "is saved"));
	videos_close(&e);
	assert_int_equal(access(video, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_first_video_and_answer, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_find_through_link, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_refusals, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_tidy_settles_leftovers, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_discard, set_up, tear_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
