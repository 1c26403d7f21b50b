/*
 * test_explainer_videos - where create_explainer_video keeps its videos
 * and how a revision replaces one (svc-explainer/videos.h): an entry's
 * folders, modes and record; finding it by its videoPath, also through a
 * link; every refused videoPath with its sentence; a committed revision
 * (new video, source and record); an aborted or failed one (the old
 * video, source and record byte for byte, by SHA-256); a crash at each
 * step of the commit (a forked child killed by a failpoint), after which
 * the next call finds the old revision or the new one, whole, and nothing
 * left over; the start-up tidy; discarding a video that never was.
 *
 * HB_DATA_DIR points at a fresh folder for each test.
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
#include "../../svc-explainer/output.h"
#include "../../svc-explainer/videos.h"

#define SESSION "s-0123456789abcdef"
#define OTHER_SESSION "s-fedcba9876543210"
#define QUESTION "How does TCP's slow start work?"
#define ERR_LEN 4096

struct fixture {
	char base[64];
	char data[128];
	char failpoints[128];
	struct hb_paths paths;
};

/* snprintf that fails the test instead of cutting a path short. */
__attribute__((format(printf, 3, 4))) static void pathf(char *out, size_t outlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, outlen, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < outlen);
}

static int set_up(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char err[256];

	if (!f)
		return -1;
	pathf(f->base, sizeof f->base, "/tmp/hb-videos-test.XXXXXX");
	if (!mkdtemp(f->base))
		return -1;
	pathf(f->data, sizeof f->data, "%s/data", f->base);
	pathf(f->failpoints, sizeof f->failpoints, "%s/failpoints", f->base);
	if (mkdir(f->failpoints, 0700) < 0)
		return -1;
	unsetenv("HB_HOME");
	setenv("HB_DATA_DIR", f->data, 1);
	setenv("HB_FAILPOINTS", f->failpoints, 1);
	if (hb_paths_resolve(&f->paths, err, sizeof err) < 0)
		return -1;
	*state = f;
	return 0;
}

static int tear_down(void **state)
{
	struct fixture *f = *state;
	char cmd[256];
	int rc;

	pathf(cmd, sizeof cmd, "chmod -R u+rwx '%s' && rm -rf '%s'", f->base, f->base);
	rc = system(cmd);
	unsetenv("HB_DATA_DIR");
	unsetenv("HB_FAILPOINTS");
	free(f);
	return rc == 0 ? 0 : -1;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[HB_PATH_MAX];
	FILE *fp;

	pathf(path, sizeof path, "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

static int exists_in(const char *dir, const char *name)
{
	char path[HB_PATH_MAX];
	struct stat st;

	pathf(path, sizeof path, "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

static void hash_file(struct hb_sha256 *h, const char *path)
{
	unsigned char buf[4096];
	FILE *fp = fopen(path, "rb");
	size_t n;

	assert_non_null(fp);
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		hb_sha256_update(h, buf, n);
	fclose(fp);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* One hash of a folder's names and contents, in name order. */
static void hash_folder(const char *dir, char out[HB_SHA256_HEX_LEN + 1])
{
	struct dirent **names;
	unsigned char digest[HB_SHA256_LEN];
	struct hb_sha256 h;
	char path[HB_PATH_MAX];
	int n = scandir(dir, &names, NULL, by_name);

	assert_true(n >= 2);
	hb_sha256_init(&h);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			hb_sha256_update(&h, names[i]->d_name, strlen(names[i]->d_name) + 1);
			pathf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
			hash_file(&h, path);
		}
		free(names[i]);
	}
	free(names);
	hb_sha256_final(&h, digest);
	for (int i = 0; i < HB_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static void hash_one(const char *path, char out[HB_SHA256_HEX_LEN + 1])
{
	unsigned char digest[HB_SHA256_LEN];
	struct hb_sha256 h;

	hb_sha256_init(&h);
	hash_file(&h, path);
	hb_sha256_final(&h, digest);
	for (int i = 0; i < HB_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

/* The three things a revision changes, by SHA-256. */
struct snapshot {
	char video[HB_SHA256_HEX_LEN + 1];
	char record[HB_SHA256_HEX_LEN + 1];
	char source[HB_SHA256_HEX_LEN + 1];
};

static void take_snapshot(const struct video_entry *e, struct snapshot *s)
{
	char record[HB_PATH_MAX];

	pathf(record, sizeof record, "%s/%s", e->dir, VIDEO_RECORD_FILE);
	hash_one(e->video, s->video);
	hash_one(record, s->record);
	hash_folder(e->source, s->source);
}

static void assert_same_snapshot(const struct snapshot *a, const struct snapshot *b)
{
	assert_string_equal(a->video, b->video);
	assert_string_equal(a->record, b->record);
	assert_string_equal(a->source, b->source);
}

/* Nothing but the entry's own files in its folder. */
static void assert_no_leftovers(const struct video_entry *e)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, "video.mp4") != 0 && strcmp(de->d_name, "video.json") != 0 &&
		    strcmp(de->d_name, "source") != 0)
			fail_msg("leftover %s in %s", de->d_name, e->dir);
	}
	closedir(d);
}

/* A render through output.h to the entry's next_video, as the tool does. */
static void render(const struct video_entry *e, const char *bytes)
{
	struct output o;
	char err[ERR_LEN];
	FILE *fp;

	if (output_begin(&o, e->next_video, err, sizeof err) < 0)
		fail_msg("%s", err);
	fp = fopen(o.tmp, "w");
	assert_non_null(fp);
	assert_true(fputs(bytes, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	if (output_commit(&o, err, sizeof err) < 0)
		fail_msg("%s", err);
}

static void must_find(const struct fixture *f, const char *session, const char *path, struct video_entry *e)
{
	char err[ERR_LEN];

	if (videos_find(&f->paths, session, path, e, err, sizeof err) < 0)
		fail_msg("videos_find %s: %s", path, err);
}

/* videos_find refuses path with a sentence holding want. */
static void assert_refused(const struct fixture *f, const char *session, const char *path, const char *want)
{
	struct video_entry e;
	char err[ERR_LEN] = "";

	assert_int_equal(videos_find(&f->paths, session, path, &e, err, sizeof err), -1);
	if (!strstr(err, want))
		fail_msg("refusing %s: \"%s\" does not say \"%s\"", path, err, want);
	assert_int_equal(e.lock_fd, -1);
}

/* A new entry with its first video (revision 0): scenes a and b. */
static void make_video(const struct fixture *f, const char *session, char video[HB_PATH_MAX])
{
	struct video_entry e;
	char err[ERR_LEN];

	if (videos_create(&f->paths, session, QUESTION, &e, err, sizeof err) < 0)
		fail_msg("videos_create: %s", err);
	if (videos_copy_source(&e, e.next_source, err, sizeof err) < 0)
		fail_msg("videos_copy_source: %s", err);
	write_file(e.next_source, "explainer.json", "{\"scenes\":[{\"svg\":\"a.svg\",\"duration\":20}]}\n");
	write_file(e.next_source, "a.svg", "<svg>first</svg>\n");
	write_file(e.next_source, "b.svg", "<svg>second</svg>\n");
	render(&e, "the first video");
	if (videos_commit_revision(&e, e.next_source, e.next_video, 42.34, 2, err, sizeof err) < 0)
		fail_msg("first commit: %s", err);
	pathf(video, HB_PATH_MAX, "%s", e.video);
	videos_close(&e);
}

/* A worker's folder outside the entry, copied from its source and changed. */
static void make_revised_source(const struct video_entry *e, const char *work)
{
	char err[ERR_LEN];

	if (videos_copy_source(e, work, err, sizeof err) < 0)
		fail_msg("videos_copy_source: %s", err);
	write_file(work, "b.svg", "<svg>second, revised</svg>\n");
	write_file(work, "c.svg", "<svg>third</svg>\n");
}

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
	pathf(want, sizeof want, "{\"videoPath\":\"%s\",\"durationSeconds\":42.3,\"scenes\":2,\"revision\":0}", video);
	assert_string_equal(text, want);
	free(text);
	text = videos_answer_text(&e, review);
	pathf(want, sizeof want,
		 "{\"videoPath\":\"%s\",\"durationSeconds\":42.3,\"scenes\":2,\"revision\":0,\"checks\":[\"structure\"]}",
		 video);
	assert_string_equal(text, want);
	free(text);
	videos_summary(&e, summary, sizeof summary);
	pathf(want, sizeof want, "Saved the explainer video at %s (42.3 s, 2 scenes, revision 0).", video);
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

static void test_crash_after_video_moved(void **state)
{
	static const struct crash_case c = { "explainer.commit-video-moved", 1, "video.json.next" };
	crash_at(*state, &c);
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
		cmocka_unit_test_setup_teardown(test_revision_committed, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_revision_aborted, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_revision_failed, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_before_set_aside, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_with_source_set_aside, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_after_decision, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_crash_after_video_moved, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_tidy_settles_leftovers, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_discard, set_up, tear_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
