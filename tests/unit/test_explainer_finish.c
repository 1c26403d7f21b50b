/*
 * test_explainer_finish - the worker's finish through the real renderer:
 * every scene narrated by a stand-in synthesizer (a WAV whose length
 * follows its text, as real speech does), each scene fitted to it, the
 * 30-120 s gate refusing a short video with the measured lengths and
 * nothing saved, a video that passes rendered and saved as revision 0
 * (ffprobe: its length is the fitted total), a revision that changes one
 * scene's words synthesizing only that scene, each save with its captions
 * (cues ending where each scene's narration does) and poster, and a
 * failed synthesis, a cancel and a poster naming no scene leaving the
 * saved video, captions and poster byte for byte as they were.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "paths.h"
#include "sha256.h"
#include "../../svc-explainer/finish.h"
#include "../../renderer/fonts.h"
#include "../harness/group.h"

#define SESSION "s-0123456789abcdef"
/* The stand-in speaks 14 characters a second. */
#define SECONDS_PER_CHAR (1.0 / 14)

static const char scene_svg[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">\n"
	"  <rect width=\"1920\" height=\"1080\" fill=\"#0f2740\"/>\n"
	"  <circle cx=\"300\" cy=\"600\" r=\"120\" fill=\"#ef476f\">\n"
	"    <animate attributeName=\"cx\" from=\"300\" to=\"1600\" begin=\"1s\" dur=\"1s\" fill=\"freeze\"/>\n"
	"  </circle>\n"
	"</svg>\n";

struct fixture {
	char base[64], data[128], work[128];
	struct hb_paths paths;
	struct video_entry entry;
	int spoken;      /* narrations the stand-in made */
	int fail_speech; /* the stand-in refuses */
};

/* The stand-in synthesizer: a 24 kHz mono 16-bit WAV of a tone as long as
 * the text would take to say. */
static int speak(void *arg, const char *text, const char *wav_path, char *err, size_t errlen)
{
	struct fixture *f = arg;
	uint32_t n = (uint32_t)(strlen(text) * SECONDS_PER_CHAR * 24000), bytes = n * 2;
	unsigned char h[44] = "RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\xc0\x5d\0\0\x80\xbb\0\0\x02\0\x10\0data";
	FILE *fp;

	if (f->fail_speech) {
		snprintf(err, errlen, "Gemini said no (a stand-in failure)");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		h[4 + i] = (unsigned char)((bytes + 36) >> (8 * i));
		h[40 + i] = (unsigned char)(bytes >> (8 * i));
	}
	if (!(fp = fopen(wav_path, "wb")))
		return -1;
	fwrite(h, 1, sizeof h, fp);
	for (uint32_t i = 0; i < n; i++) {
		int16_t s = (int16_t)(8000 * sin(i * 0.05));
		fwrite(&s, 2, 1, fp);
	}
	f->spoken++;
	return fclose(fp) == 0 ? 0 : -1;
}

static int set_up(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char err[512];

	if (!f)
		return -1;
	snprintf(f->base, sizeof f->base, "/tmp/hb-finish-test.XXXXXX");
	if (!mkdtemp(f->base))
		return -1;
	snprintf(f->data, sizeof f->data, "%s/data", f->base);
	snprintf(f->work, sizeof f->work, "%s/work", f->base);
	unsetenv("HB_HOME");
	setenv("HB_DATA_DIR", f->data, 1);
	if (mkdir(f->work, 0700) < 0 || hb_paths_resolve(&f->paths, err, sizeof err) < 0 ||
	    videos_create(&f->paths, SESSION, "What is slow start?", &f->entry, err, sizeof err) < 0)
		return -1;
	*state = f;
	return 0;
}

static int tear_down(void **state)
{
	struct fixture *f = *state;
	char cmd[256];
	int rc;

	videos_close(&f->entry);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->base);
	rc = system(cmd);
	unsetenv("HB_DATA_DIR");
	free(f);
	return rc == 0 ? 0 : -1;
}

/* A scene's words: n characters of a sentence said again and again, the
 * first one the scene's own (so two scenes never say the same). */
static char *words(size_t n, char first)
{
	static const char s[] = "Slow start doubles the window every round trip. ";
	char *w = malloc(n + 1);

	assert_non_null(w);
	for (size_t i = 0; i < n; i++)
		w[i] = s[i % (sizeof s - 1)];
	w[n] = '\0';
	w[0] = first;
	while (n > 0 && w[n - 1] == ' ')
		w[--n] = '\0';
	return w;
}

static void write_scene(struct fixture *f, const char *name, size_t chars)
{
	char *say = words(chars, name[1]);
	struct workdir_answer a = workdir_write_scene(f->work, name, scene_svg, say, 4, 0);

	if (!a.ok)
		fail_msg("%s", a.text);
	workdir_answer_free(&a);
	free(say);
}

static int finish_with_poster(struct fixture *f, const atomic_int *cancel, const struct workdir_poster *poster,
			      struct finish_outcome *out, char *err, size_t len)
{
	struct render_options ro = { .cancel = cancel };
	struct finish_request r = { .workdir = f->work, .entry = &f->entry, .speak = speak, .speak_arg = f,
				    .render = &ro, .poster = poster };

	return explainer_finish(&r, out, err, len);
}

static int finish(struct fixture *f, const atomic_int *cancel, struct finish_outcome *out, char *err, size_t len)
{
	return finish_with_poster(f, cancel, NULL, out, err, len);
}

/* The first cue's start and the last cue's end of a WebVTT file. */
static void vtt_span(const char *path, double *first, double *last)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	int h, m, sec, ms, h2, m2, s2, ms2, cues = 0;

	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof line, fp));
	assert_string_equal(line, "WEBVTT\n");
	while (fgets(line, sizeof line, fp))
		if (sscanf(line, "%d:%d:%d.%d --> %d:%d:%d.%d", &h, &m, &sec, &ms, &h2, &m2, &s2, &ms2) == 8) {
			if (cues++ == 0)
				*first = h * 3600 + m * 60 + sec + ms / 1000.0;
			*last = h2 * 3600 + m2 * 60 + s2 + ms2 / 1000.0;
		}
	fclose(fp);
	assert_true(cues >= 2);
}

/* The saved video's captions: scene 2's narration (16 s from its start
 * at 16.5 s) ends the last cue; and its poster is a PNG. */
static void assert_companions(const struct video_entry *e, double last_end)
{
	static const unsigned char png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char magic[8];
	double first = -1, last = -1;
	FILE *fp;

	vtt_span(e->vtt, &first, &last);
	assert_true(fabs(first) < 1.0 / 30);
	assert_true(fabs(last - last_end) < 1.0 / 30);
	assert_int_equal(access(e->srt, F_OK), 0);
	assert_non_null(fp = fopen(e->poster, "rb"));
	assert_int_equal(fread(magic, 1, sizeof magic, fp), sizeof magic);
	fclose(fp);
	assert_memory_equal(magic, png_magic, sizeof magic);
}

static double probe_seconds(const char *path)
{
	char cmd[600], out[64] = "";
	FILE *p;

	snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof out, p));
	pclose(p);
	return atof(out);
}

static void file_sha(const char *path, char hex[HB_SHA256_HEX_LEN + 1])
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long len;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	hb_sha256_hex(buf, (size_t)len, hex);
	free(buf);
}

/* A failed synthesis, a cancel and a poster naming no scene leave the
 * saved video (revision `revision`), its captions and poster as they were,
 * and nothing half-written beside them. */
static void assert_failures_keep_the_saved_video(struct fixture *f, int revision)
{
	struct finish_outcome out;
	atomic_int cancel = 1;
	char err[2048], before[HB_SHA256_HEX_LEN + 1], after[HB_SHA256_HEX_LEN + 1];
	char vtt_before[HB_SHA256_HEX_LEN + 1], vtt_after[HB_SHA256_HEX_LEN + 1];
	char poster_before[HB_SHA256_HEX_LEN + 1], poster_after[HB_SHA256_HEX_LEN + 1];
	const struct workdir_poster nowhere = { "zz.svg", "end" };

	file_sha(f->entry.video, before);
	file_sha(f->entry.vtt, vtt_before);
	file_sha(f->entry.poster, poster_before);

	write_scene(f, "02-more.svg", 250);
	f->fail_speech = 1;
	assert_int_equal(finish(f, NULL, &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "Gemini said no"));
	finish_outcome_free(&out);
	f->fail_speech = 0;
	assert_int_equal(finish(f, &cancel, &out, err, sizeof err), -1);
	assert_string_equal(err, "cancelled");
	finish_outcome_free(&out);
	assert_int_equal(finish_with_poster(f, NULL, &nowhere, &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "there is no scene zz.svg"));
	finish_outcome_free(&out);

	file_sha(f->entry.video, after);
	assert_string_equal(before, after);
	file_sha(f->entry.vtt, vtt_after);
	assert_string_equal(vtt_before, vtt_after);
	file_sha(f->entry.poster, poster_after);
	assert_string_equal(poster_before, poster_after);
	assert_int_equal(access(f->entry.next_vtt, F_OK), -1);
	assert_int_equal(access(f->entry.next_poster, F_OK), -1);
	assert_int_equal(f->entry.record.revision, revision);
	assert_int_equal(access(f->entry.next_video, F_OK), -1);
}

static void test_gate_then_save_then_revise_then_fail(void **state)
{
	struct fixture *f = *state;
	struct finish_outcome out;
	char err[2048], before[HB_SHA256_HEX_LEN + 1], after[HB_SHA256_HEX_LEN + 1];

	/* Two short scenes: 2 x (70 chars = 5 s + 0.5 s) = 11 s. */
	write_scene(f, "01-intro.svg", 70);
	write_scene(f, "02-more.svg", 70);
	assert_int_equal(finish(f, NULL, &out, err, sizeof err), -1);
	assert_true(out.gate_failed);
	assert_non_null(strstr(err, "The narrated video lasts 11.0 s; it must last 30 to 120 s."));
	assert_non_null(strstr(err, "1 01-intro.svg 5.5 s (narration 5.0 s)"));
	assert_non_null(strstr(err, "Lengthen the narration"));
	assert_int_equal(out.synthesized, 2);
	assert_false(f->entry.has_video);
	assert_int_equal(access(f->entry.video, F_OK), -1);
	finish_outcome_free(&out);

	/* Longer words: 2 x (224 chars = 16 s + 0.5 s) = 33 s: saved. */
	write_scene(f, "01-intro.svg", 224);
	write_scene(f, "02-more.svg", 224);
	f->spoken = 0;
	if (finish(f, NULL, &out, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_int_equal(f->spoken, 2);
	assert_true(fabs(out.fit.total - 33.0) < 1e-6);
	assert_true(f->entry.has_video);
	assert_int_equal(f->entry.record.revision, 0);
	assert_true(fabs(probe_seconds(f->entry.video) - 33.0) < 0.05);
	assert_int_equal(out.stats.frames, 990);
	finish_outcome_free(&out);
	assert_companions(&f->entry, 16.5 + 16.0);
	file_sha(f->entry.video, before);

	/* A revision that changes one scene's words narrates only that one. */
	write_scene(f, "02-more.svg", 238);
	f->spoken = 0;
	if (finish(f, NULL, &out, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_int_equal(f->spoken, 1);
	assert_int_equal(out.synthesized, 1);
	assert_int_equal(f->entry.record.revision, 1);
	assert_true(fabs(probe_seconds(f->entry.video) - 34.0) < 0.05);
	finish_outcome_free(&out);
	/* 238 characters are 17 s of narration, from 16.5 s. */
	assert_companions(&f->entry, 16.5 + 17.0);
	file_sha(f->entry.video, after);
	assert_string_not_equal(before, after);

	/* Then the failures, on the revised video: a test of their own would
	 * render one more video (17 CPU-s) only to have one saved. */
	assert_failures_keep_the_saved_video(f, 1);
}

/* A render whose scene is slow: its first reported frame lasts until
 * the deadline, as a frame of a heavy scene would. */
static void slow_frame(void *arg, const char *phase, long done, long total)
{
	const long long *deadline = arg;

	(void)total;
	if (strcmp(phase, "rendering") != 0 || done == 0)
		return;
	while (hb_monotonic_ms() < *deadline) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* The caller's time limit covers the render: past its deadline a render
 * stops within a frame with a sentence naming the limit, and nothing is
 * saved. */
static void test_time_limit_stops_the_render(void **state)
{
	struct fixture *f = *state;
	struct finish_outcome out;
	struct render_options ro = { .progress = slow_frame };
	struct finish_request r = { .workdir = f->work, .entry = &f->entry, .speak = speak, .speak_arg = f,
				    .render = &ro };
	char err[2048];

	write_scene(f, "01-intro.svg", 224);
	write_scene(f, "02-more.svg", 224);
	ro.deadline_ms = hb_monotonic_ms() + 5000;
	ro.progress_arg = &ro.deadline_ms;
	assert_int_equal(explainer_finish(&r, &out, err, sizeof err), -1);
	if (strncmp(err, RENDER_DEADLINE_ERR ", after frame ", strlen(RENDER_DEADLINE_ERR ", after frame ")) != 0)
		fail_msg("not stopped by the time limit: %s", err);
	assert_non_null(strstr(err, " of 990"));
	finish_outcome_free(&out);
	assert_false(f->entry.has_video);
	assert_int_equal(access(f->entry.video, F_OK), -1);
	assert_int_equal(access(f->entry.next_video, F_OK), -1);

	/* A deadline already past stops it before a narration is made. */
	write_scene(f, "02-more.svg", 250);
	f->spoken = 0;
	ro.deadline_ms = hb_monotonic_ms();
	assert_int_equal(explainer_finish(&r, &out, err, sizeof err), -1);
	assert_string_equal(err, "the time limit was reached before the narration of scene 1 of 2");
	assert_int_equal(f->spoken, 0);
	finish_outcome_free(&out);
}

static int group_setup(void **state)
{
	char err[512];

	(void)state;
	xmlInitParser();
	return fonts_setup(err, sizeof err);
}

static int group_teardown(void **state)
{
	(void)state;
	xmlCleanupParser();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gate_then_save_then_revise_then_fail, set_up, tear_down),
		cmocka_unit_test_setup_teardown(test_time_limit_stops_the_render, set_up, tear_down),
	};
	return ck_run_group_tests(tests, group_setup, group_teardown);
}
