/*
 * test_explainer_revisions - how a revision replaces an explainer video
 * (svc-explainer/videos.h): a committed revision (new video, source and
 * record); an aborted or failed one (the old video, source and record byte
 * for byte, by SHA-256); a crash at each step of the commit (a forked
 * child killed by a failpoint), after which the next call finds the old
 * revision or the new one, whole, and nothing left over.
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

static void test_revision_committed(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], work[HB_PATH_MAX], err[ERR_LEN], created[VIDEO_TIME_MAX + 1];
	struct video_entry e;
	struct snapshot before, after;
	FILE *fp;
	char buf[64] = "";

	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &before);
	pathf(created, sizeof created, "%s", e.record.created);
	/* The worker works outside the entry; the commit copies its folder in. */
	pathf(work, sizeof work, "%s/work", f->base);
	make_revised_source(&e, work);
	render(&e, "the revised video");
	if (videos_commit_revision(&e, work, e.next_video, 75.25, 3, err, sizeof err) < 0)
		fail_msg("commit: %s", err);
	assert_int_equal(e.record.revision, 1);
	assert_int_equal(e.record.scenes, 3);
	assert_true(e.record.duration == 75.25);
	assert_string_equal(e.record.created, created);
	assert_true(strcmp(e.record.updated, created) >= 0);
	assert_no_leftovers(&e);
	take_snapshot(&e, &after);
	assert_string_not_equal(after.video, before.video);
	assert_string_not_equal(after.source, before.source);
	assert_string_not_equal(after.record, before.record);
	fp = fopen(video, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof buf, fp));
	fclose(fp);
	assert_string_equal(buf, "the revised video");
	/* Its captions and poster came with it. */
	assert_string_not_equal(after.vtt, before.vtt);
	assert_string_not_equal(after.srt, before.srt);
	assert_string_not_equal(after.poster, before.poster);
	fp = fopen(e.vtt, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof buf, fp));
	fclose(fp);
	assert_string_equal(buf, "the revised video (vtt)");
	assert_true(exists_in(e.source, "c.svg"));
	/* The worker's folder is still the caller's. */
	assert_true(exists_in(work, "c.svg"));
	videos_close(&e);
	/* A second revision, worked in source.next itself: moved, not copied. */
	must_find(f, SESSION, video, &e);
	assert_int_equal(e.record.revision, 1);
	make_revised_source(&e, e.next_source);
	write_file(e.next_source, "d.svg", "<svg>fourth</svg>\n");
	render(&e, "revision two");
	if (videos_commit_revision(&e, e.next_source, e.next_video, 90, 4, err, sizeof err) < 0)
		fail_msg("commit: %s", err);
	assert_int_equal(e.record.revision, 2);
	assert_true(exists_in(e.source, "d.svg"));
	assert_no_leftovers(&e);
	videos_close(&e);
	/* Read back from disk by a new find. */
	must_find(f, SESSION, video, &e);
	assert_int_equal(e.record.revision, 2);
	assert_int_equal(e.record.scenes, 4);
	videos_close(&e);
}

static void test_revision_aborted(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], err[ERR_LEN];
	struct video_entry e;
	struct snapshot before, after;

	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &before);
	make_revised_source(&e, e.next_source);
	render(&e, "a revision nobody wants");
	write_file(e.dir, ".video.next.mp4.hb-999999-abcdef.part", "a killed render");
	assert_int_equal(videos_abort_revision(&e, err, sizeof err), 0);
	take_snapshot(&e, &after);
	assert_same_snapshot(&before, &after);
	assert_no_leftovers(&e);
	assert_int_equal(e.record.revision, 0);
	videos_close(&e);
	/* Still revisable, from the old source. */
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &after);
	assert_same_snapshot(&before, &after);
	videos_close(&e);
}

static void test_revision_failed(void **state)
{
	struct fixture *f = *state;
	char video[HB_PATH_MAX], work[HB_PATH_MAX], err[ERR_LEN], stray[HB_PATH_MAX];
	struct video_entry e;
	struct snapshot before, after;

	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &before);
	/* A source with a link in it is refused. */
	pathf(work, sizeof work, "%s/work", f->base);
	make_revised_source(&e, work);
	pathf(stray, sizeof stray, "%s/x.svg", work);
	assert_int_equal(symlink("/etc/passwd", stray), 0);
	render(&e, "a revision with a bad source");
	assert_int_equal(videos_commit_revision(&e, work, e.next_video, 60, 3, err, sizeof err), -1);
	assert_non_null(strstr(err, "x.svg is a symbolic link"));
	take_snapshot(&e, &after);
	assert_same_snapshot(&before, &after);
	assert_no_leftovers(&e);
	/* So is a subfolder: an explainer folder is flat. */
	assert_int_equal(unlink(stray), 0);
	pathf(stray, sizeof stray, "%s/previews", work);
	assert_int_equal(mkdir(stray, 0700), 0);
	render(&e, "a revision with a bad source");
	assert_int_equal(videos_commit_revision(&e, work, e.next_video, 60, 3, err, sizeof err), -1);
	assert_non_null(strstr(err, "previews is a folder"));
	assert_no_leftovers(&e);
	/* The worker's copy goes only into a new or an empty folder. */
	assert_int_equal(videos_copy_source(&e, work, err, sizeof err), -1);
	assert_non_null(strstr(err, "already there and not empty"));
	assert_true(exists_in(work, "c.svg"));
	/* A render outside the entry's folder is refused. */
	render(&e, "again");
	assert_int_equal(videos_commit_revision(&e, work, "/tmp/elsewhere.mp4", 60, 3, err, sizeof err), -1);
	assert_non_null(strstr(err, "must be a new file in the video's folder"));
	/* The video itself is not a render. */
	render(&e, "again");
	assert_int_equal(videos_commit_revision(&e, work, e.video, 60, 3, err, sizeof err), -1);
	assert_non_null(strstr(err, "must be a new file in the video's folder"));
	/* A render without its captions or its poster is no revision. */
	{
		const char *missing[] = { e.next_vtt, e.next_srt, e.next_poster };
		for (size_t i = 0; i < 3; i++) {
			render_without(&e, "a render missing a companion", missing[i]);
			assert_int_equal(videos_commit_revision(&e, work, e.next_video, 60, 3, err, sizeof err), -1);
			if (!strstr(err, "the revision has no"))
				fail_msg("missing %s: %s", missing[i], err);
			take_snapshot(&e, &after);
			assert_same_snapshot(&before, &after);
			assert_no_leftovers(&e);
		}
	}
	/* A length that is no length. */
	render(&e, "again");
	assert_int_equal(videos_commit_revision(&e, work, e.next_video, 0, 3, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot be saved"));
	take_snapshot(&e, &after);
	assert_same_snapshot(&before, &after);
	assert_no_leftovers(&e);
	assert_int_equal(e.record.revision, 0);
	videos_close(&e);
}

/* What a crash at failpoint leaves, and what the next call makes of it. */
struct crash_case {
	const char *failpoint;
	int decided;              /* the new revision wins */
	const char *left_behind;  /* a name the crash leaves in the entry's folder */
};

static void crash_at(const struct fixture *f, const struct crash_case *c)
{
	char video[HB_PATH_MAX], work[HB_PATH_MAX], marker[HB_PATH_MAX], err[ERR_LEN];
	struct snapshot before, after;
	struct video_entry e;
	int status;
	pid_t pid;

	make_video(f, SESSION, video);
	must_find(f, SESSION, video, &e);
	take_snapshot(&e, &before);
	videos_close(&e);
	pathf(marker, sizeof marker, "%s/%s", f->failpoints, c->failpoint);
	write_file(f->failpoints, c->failpoint, "");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The child revises until the failpoint kills it. */
		if (videos_find(&f->paths, SESSION, video, &e, err, sizeof err) < 0)
			_exit(2);
		pathf(work, sizeof work, "%s/work", f->base);
		make_revised_source(&e, work);
		render(&e, "the revised video");
		(void)videos_commit_revision(&e, work, e.next_video, 75, 3, err, sizeof err);
		_exit(3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(access(marker, F_OK), -1);
	{
		char dir[HB_PATH_MAX];
		pathf(dir, sizeof dir, "%.*s", (int)(strrchr(video, '/') - video), video);
		if (!exists_in(dir, c->left_behind))
			fail_msg("after a crash at %s, %s is not in %s", c->failpoint, c->left_behind, dir);
	}
	/* The next call settles the entry. */
	must_find(f, SESSION, video, &e);
	assert_no_leftovers(&e);
	take_snapshot(&e, &after);
	if (c->decided) {
		assert_string_not_equal(after.video, before.video);
		assert_string_not_equal(after.vtt, before.vtt);
		assert_string_not_equal(after.srt, before.srt);
		assert_string_not_equal(after.poster, before.poster);
		assert_string_not_equal(after.source, before.source);
		assert_int_equal(e.record.revision, 1);
		assert_int_equal(e.record.scenes, 3);
		assert_true(exists_in(e.source, "c.svg"));
	} else {
		assert_same_snapshot(&before, &after);
		assert_int_equal(e.record.revision, 0);
	}
	videos_close(&e);
}

static void test_crash_before_set_aside(void **state)
{
	static const struct crash_case c = { "explainer.commit-prepared", 0, "source.next" };
	crash_at(*state, &c);
}

static void test_crash_with_source_set_aside(void **state)
{
	static const struct crash_case c = { "explainer.commit-source-set-aside", 0, "source.old" };
	crash_at(*state, &c);
}

static void test_crash_after_decision(void **state)
{
	static const struct crash_case c = { "explainer.commit-decided", 1, "source.old" };
	crash_at(*state, &c);
}

static void test_crash_after_captions_moved(void **state)
{
	static const struct crash_case c = { "explainer.commit-captions-moved", 1, "video.next.srt" };
	crash_at(*state, &c);
}

static void test_crash_after_video_moved(void **state)
{
	static const struct crash_case c = { "explainer.commit-video-moved", 1, "video.json.next" };
	crash_at(*state, &c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_revision_committed, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_revision_aborted, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_revision_failed, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_before_set_aside, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_with_source_set_aside, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_after_decision, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_after_captions_moved, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_after_video_moved, set_up, tear_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
