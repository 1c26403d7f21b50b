/*
 * video_rig - what the integration tests of extract_video_context
 * (itest_video.c, itest_video_files.c) share: the real hb-broker with
 * svc-video and svc-sessions as deployed, against the fake Gemini server
 * on 127.0.0.1 (tests/fake-gemini), which also plays the public web server
 * of the test video URLs; a test clip of three upload chunks and its
 * SHA-256; the calls of the tool and the fake's counts and controls.
 */
#ifndef TEST_VIDEO_RIG_H
#define TEST_VIDEO_RIG_H

#include <stddef.h>

#include "../harness/fake_gemini.h"
#include "../harness/harness.h"
#include "sha256.h"

#define KEY "AIzaVideoTestKeyForTheFake0123456789"
#define CHUNK 262144
#define CLIP_BYTES 700000 /* three chunks: 262144 + 262144 + 175712 */
/* The first bytes of real files: an MP4 (ffmpeg's ftyp box), a WebM and
 * a Matroska file (EBML headers with their DocType). */
#define MP4_HEAD "\x00\x00\x00\x20" "ftypisom\x00\x00\x02\x00" "isomiso2avc1mp41"
#define WEBM_HEAD "\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08" \
		  "\x42\x82\x84" "webm" "\x42\x87\x81\x04\x42\x85\x81\x02"
#define MKV_HEAD "\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08" \
		 "\x42\x82\x88" "matroska" "\x42\x87\x81\x04\x42\x85\x81\x02"
/* svc-video's one answer for an address of this computer or a private
 * network, whatever the spelling and the port. */
#define LOCAL_ANSWER                                                                                               \
	"Video context failed: video_url must be a public https address: it leads to this computer or a private "  \
	"network, which Gemini cannot reach (for a file on this computer, use local_file)"

extern struct fixture F;
extern struct fake_gemini G;
extern char gdir[64];
extern char clip[128], clip_sha[HB_SHA256_HEX_LEN + 1];
/* Answers of the right shape for each intent. */
#define TUTORIAL_JSON                                                                                              \
	"{\"summary\":\"Sets up a virtual environment.\",\"gaps\":[{\"topic\":\"Windows\",\"detail\":\"not shown\"}],"  \
	"\"concepts\":[],\"procedures\":[],\"commands\":[{\"timestamp\":\"01:15\",\"command\":\"python3 -m venv "       \
	".venv\",\"purpose\":\"creates it\"}],\"code\":[],\"onScreenText\":[],\"caveats\":[]}"
#define MEETING_JSON                                                                                               \
	"{\"summary\":\"Ship behind a flag.\",\"gaps\":[],\"decisions\":[{\"timestamp\":\"12:30\",\"decision\":\"Ship " \
	"behind a flag\",\"rationale\":\"\"}],\"requirements\":[],\"blockers\":[],\"actionItems\":[],"                 \
	"\"openQuestions\":[]}"

/* ---- helpers --------------------------------------------------------------- */

void control(const char *json);
/* extract_video_context with args; returns ok, *text the answer. */
int watch(const char *args, char **text);
/* A call that must succeed; returns its Markdown. */
char *watch_ok(const char *args);
/* A call that must fail with want in its text. */
void watch_fails(const char *args, const char *want);
size_t count_of(const char *kind);
/* {"video_url":URL,...} for the fake's /video/NAME. */
char *url_args(const char *name, const char *intent);
char *file_args(const char *path);
/* The broker with svc-video as deployed, with `workers` threads when
 * not 0, and the fake.  With fake_web, video URLs may lead to the fake's
 * port (HB_VIDEO_ALLOW_LOOPBACK_PORT, for its test web server), and a
 * proxy is named (the fake) for every host but 127.0.0.1 and localhost,
 * which the look at a video URL must not use. */
int start(int workers, int fake_web);
int video_setup(void **state);
/* One worker thread, so every call of the group runs on the same thread,
 * and the loopback port left out, as everywhere but in tests. */
int video_setup_strict(void **state);
int video_teardown(void **state);

#endif
