/*
 * videos_rig - see videos_rig.h.
 */
#include "videos_rig.h"

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

/* snprintf that fails the test instead of cutting a path short. */
void pathf(char *out, size_t outlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, outlen, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < outlen);
}

int set_up(void **state)
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

int tear_down(void **state)
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

void write_file(const char *dir, const char *name, const char *text)
{
	char path[HB_PATH_MAX];
	FILE *fp;

	pathf(path, sizeof path, "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

int exists_in(const char *dir, const char *name)
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
void hash_folder(const char *dir, char out[HB_SHA256_HEX_LEN + 1])
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

void hash_one(const char *path, char out[HB_SHA256_HEX_LEN + 1])
{
	unsigned char digest[HB_SHA256_LEN];
	struct hb_sha256 h;

	hb_sha256_init(&h);
	hash_file(&h, path);
	hb_sha256_final(&h, digest);
	for (int i = 0; i < HB_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

void take_snapshot(const struct video_entry *e, struct snapshot *s)
{
	char record[HB_PATH_MAX];

	pathf(record, sizeof record, "%s/%s", e->dir, VIDEO_RECORD_FILE);
	hash_one(e->video, s->video);
	hash_one(e->vtt, s->vtt);
	hash_one(e->srt, s->srt);
	hash_one(e->poster, s->poster);
	hash_one(record, s->record);
	hash_folder(e->source, s->source);
}

void assert_same_snapshot(const struct snapshot *a, const struct snapshot *b)
{
	assert_string_equal(a->video, b->video);
	assert_string_equal(a->vtt, b->vtt);
	assert_string_equal(a->srt, b->srt);
	assert_string_equal(a->poster, b->poster);
	assert_string_equal(a->record, b->record);
	assert_string_equal(a->source, b->source);
}

/* Nothing but the entry's own files in its folder. */
void assert_no_leftovers(const struct video_entry *e)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, "video.mp4") != 0 && strcmp(de->d_name, "video.json") != 0 &&
		    strcmp(de->d_name, "source") != 0 && strcmp(de->d_name, "video.vtt") != 0 &&
		    strcmp(de->d_name, "video.srt") != 0 && strcmp(de->d_name, "poster.png") != 0)
			fail_msg("leftover %s in %s", de->d_name, e->dir);
	}
	closedir(d);
}

/* bytes (and suffix) to target through output.h. */
static void output_to(const char *target, const char *bytes, const char *suffix)
{
	struct output o;
	char err[ERR_LEN];
	FILE *fp;

	if (output_begin(&o, target, err, sizeof err) < 0)
		fail_msg("%s", err);
	fp = fopen(o.tmp, "w");
	assert_non_null(fp);
	assert_true(fputs(bytes, fp) >= 0);
	assert_true(fputs(suffix, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	if (output_commit(&o, err, sizeof err) < 0)
		fail_msg("%s", err);
}

void render_without(const struct video_entry *e, const char *bytes, const char *missing)
{
	output_to(e->next_video, bytes, "");
	if (!missing || strcmp(missing, e->next_vtt) != 0)
		output_to(e->next_vtt, bytes, " (vtt)");
	if (!missing || strcmp(missing, e->next_srt) != 0)
		output_to(e->next_srt, bytes, " (srt)");
	if (!missing || strcmp(missing, e->next_poster) != 0)
		output_to(e->next_poster, bytes, " (poster)");
}

void render(const struct video_entry *e, const char *bytes)
{
	render_without(e, bytes, NULL);
}

void must_find(const struct fixture *f, const char *session, const char *path, struct video_entry *e)
{
	char err[ERR_LEN];

	if (videos_find(&f->paths, session, path, e, err, sizeof err) < 0)
		fail_msg("videos_find %s: %s", path, err);
}

/* videos_find refuses path with a sentence holding want. */
void assert_refused(const struct fixture *f, const char *session, const char *path, const char *want)
{
	struct video_entry e;
	char err[ERR_LEN] = "";

	assert_int_equal(videos_find(&f->paths, session, path, &e, err, sizeof err), -1);
	if (!strstr(err, want))
		fail_msg("refusing %s: \"%s\" does not say \"%s\"", path, err, want);
	assert_int_equal(e.lock_fd, -1);
}

/* A new entry with its first video (revision 0): scenes a and b. */
void make_video(const struct fixture *f, const char *session, char video[HB_PATH_MAX])
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
void make_revised_source(const struct video_entry *e, const char *work)
{
	char err[ERR_LEN];

	if (videos_copy_source(e, work, err, sizeof err) < 0)
		fail_msg("videos_copy_source: %s", err);
	write_file(work, "b.svg", "<svg>second, revised</svg>\n");
	write_file(work, "c.svg", "<svg>third</svg>\n");
}
