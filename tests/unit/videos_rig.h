/*
 * videos_rig - what the tests of the explainer's kept videos
 * (test_explainer_videos.c, test_explainer_revisions.c) share: a fresh
 * HB_DATA_DIR and failpoint folder per test, files written and hashed
 * (SHA-256 of a file, of a folder), snapshots of an entry compared byte
 * for byte, a video made and rendered, and the checks of finding one and
 * of a refused videoPath.
 */
#ifndef TEST_VIDEOS_RIG_H
#define TEST_VIDEOS_RIG_H

#include <stddef.h>

#include "paths.h"
#include "sha256.h"
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
__attribute__((format(printf, 3, 4))) void pathf(char *out, size_t outlen, const char *fmt, ...);
int set_up(void **state);
int tear_down(void **state);
void write_file(const char *dir, const char *name, const char *text);
int exists_in(const char *dir, const char *name);
/* One hash of a folder's names and contents, in name order. */
void hash_folder(const char *dir, char out[HB_SHA256_HEX_LEN + 1]);
void hash_one(const char *path, char out[HB_SHA256_HEX_LEN + 1]);
/* The things a revision changes, by SHA-256. */
struct snapshot {
	char video[HB_SHA256_HEX_LEN + 1];
	char vtt[HB_SHA256_HEX_LEN + 1];
	char srt[HB_SHA256_HEX_LEN + 1];
	char poster[HB_SHA256_HEX_LEN + 1];
	char record[HB_SHA256_HEX_LEN + 1];
	char source[HB_SHA256_HEX_LEN + 1];
};

void take_snapshot(const struct video_entry *e, struct snapshot *s);
void assert_same_snapshot(const struct snapshot *a, const struct snapshot *b);
/* Nothing but the entry's own files in its folder. */
void assert_no_leftovers(const struct video_entry *e);
/* A render through output.h to the entry's next_video, with its captions
 * and poster (bytes and a suffix each), as the tool does. */
void render(const struct video_entry *e, const char *bytes);
/* The same render without one companion (next_vtt, next_srt or next_poster). */
void render_without(const struct video_entry *e, const char *bytes, const char *missing);
void must_find(const struct fixture *f, const char *session, const char *path, struct video_entry *e);
/* videos_find refuses path with a sentence holding want. */
void assert_refused(const struct fixture *f, const char *session, const char *path, const char *want);
/* A new entry with its first video (revision 0): scenes a and b. */
void make_video(const struct fixture *f, const char *session, char video[HB_PATH_MAX]);
/* A worker's folder outside the entry, copied from its source and changed. */
void make_revised_source(const struct video_entry *e, const char *work);

#endif
