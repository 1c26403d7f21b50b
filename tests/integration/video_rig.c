/*
 * video_rig - see video_rig.h.
 */
#include "video_rig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/fake_gemini.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "netaddr.h"
#include "sha256.h"

struct fixture F;

struct fake_gemini G;

char gdir[64];

char clip[128], clip_sha[HB_SHA256_HEX_LEN + 1];

/* ---- helpers --------------------------------------------------------------- */

void control(const char *json)
{
	assert_int_equal(fg_reset(&G, json), 0);
}

/* extract_video_context with args; returns ok, *text the answer. */
int watch(const char *args, char **text)
{
	int ok = 0;

	assert_int_equal(fx_call(&F, "extract_video_context", args, &ok, text), 0);
	return ok;
}

/* A call that must succeed; returns its Markdown. */
char *watch_ok(const char *args)
{
	char *text = fx_call_expect(&F, "extract_video_context", args, 1, NULL);

	assert_non_null(text);
	return text;
}

/* A call that must fail with want in its text. */
void watch_fails(const char *args, const char *want)
{
	char *text = fx_call_expect(&F, "extract_video_context", args, 0, want);

	assert_non_null(text);
	free(text);
}

size_t count_of(const char *kind)
{
	json_t *r = fg_records_of(&G, kind);
	size_t n = json_array_size(r);

	json_decref(r);
	return n;
}

/* {"video_url":URL,...} for the fake's /video/NAME. */
char *url_args(const char *name, const char *intent)
{
	char *out = malloc(400);

	assert_non_null(out);
	snprintf(out, 400, "{\"video_url\":\"%s/video/%s\",\"intent\":\"%s\",\"goal\":\"the setup steps\"}",
		 G.base_url, name, intent);
	return out;
}

char *file_args(const char *path)
{
	char *out = malloc(400);

	assert_non_null(out);
	snprintf(out, 400, "{\"local_file\":\"%s\",\"localFileConsent\":true,\"intent\":\"tutorial\","
		 "\"goal\":\"the commands\"}", path);
	return out;
}

/* ---- fixture --------------------------------------------------------------- */

/* CLIP_BYTES of a pattern no two chunks share after an MP4 file's first
 * box (ftyp, brand isom, as ffmpeg writes it), and its SHA-256. */
static int make_clip(void)
{
	unsigned char *b = malloc(CLIP_BYTES);
	FILE *f;
	int rc;

	if (!b)
		return -1;
	for (size_t i = 0; i < CLIP_BYTES; i++)
		b[i] = (unsigned char)((i * 2654435761u) >> 13);
	memcpy(b, MP4_HEAD, sizeof MP4_HEAD - 1);
	snprintf(clip, sizeof clip, "%s/clip.mp4", gdir);
	hb_sha256_hex(b, CLIP_BYTES, clip_sha);
	rc = (f = fopen(clip, "wb")) && fwrite(b, 1, CLIP_BYTES, f) == CLIP_BYTES ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(b);
	return rc;
}

/* The broker with svc-video as deployed, with `workers` threads when
 * not 0, and the fake.  With fake_web, video URLs may lead to the fake's
 * port (HB_VIDEO_ALLOW_LOOPBACK_PORT, for its test web server), and a
 * proxy is named (the fake) for every host but 127.0.0.1 and localhost,
 * which the look at a video URL must not use. */
int start(int workers, int fake_web)
{
	const char *env[] = { "HB_VIDEO_BACKOFF_MS=50", "HB_GEMINI_TIMEOUT_MS=20000", "HB_VIDEO_CHUNK_BYTES=262144",
			      "HB_VIDEO_POLL_MS=20", "HB_VIDEO_POLL_MAX_MS=100", "HB_VIDEO_PROCESSING_MS=2000",
			      "https_proxy=http://127.0.0.1:@PORT@", "http_proxy=http://127.0.0.1:@PORT@",
			      "no_proxy=127.0.0.1,localhost", fake_web ? "HB_VIDEO_ALLOW_LOOPBACK_PORT=@PORT@" : NULL,
			      NULL };
	/* svc-sessions too: a run opens only on a session it knows. */
	char *video = fx_deployed_service("svc-video"), *sessions = fx_deployed_service("svc-sessions");
	char *conf = video && sessions ? malloc(strlen(video) + strlen(sessions) + 2) : NULL, *c;
	int rc;

	if (video && workers) {
		/* "concurrency = N" becomes "concurrency = workers" (one digit). */
		if (!(c = strstr(video, "concurrency = ")) || c[14] < '1' || c[14] > '9' || c[15] != '\n' ||
		    workers > 9) {
			fprintf(stderr, "svc-video's concurrency line is not one digit: the test cannot set it\n");
			free(video);
			free(sessions);
			free(conf);
			return -1;
		}
		c[14] = (char)('0' + workers);
	}
	if (conf)
		sprintf(conf, "%s\n%s", video, sessions);
	snprintf(gdir, sizeof gdir, "/tmp/hbvideo.XXXXXX");
	rc = conf ? fg_fixture_start(&G, &F, gdir, conf, env, KEY) : -1;
	free(conf);
	free(video);
	free(sessions);
	return rc == 0 ? make_clip() : rc;
}

int video_setup(void **state)
{
	(void)state;
	return start(0, 1);
}

/* One worker thread, so every call of the group runs on the same thread,
 * and the loopback port left out, as everywhere but in tests. */
int video_setup_strict(void **state)
{
	(void)state;
	return start(1, 0);
}

int video_teardown(void **state)
{
	(void)state;
	return fg_fixture_stop(&G, &F, gdir);
}
