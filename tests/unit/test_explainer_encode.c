/*
 * test_explainer_encode - the explainer's MP4 encoder: a real MP4 of a
 * moving gradient and a two-scene sound track (from audio_track), read
 * back by ffprobe/ffmpeg (codecs, tags, frame counts, equal durations,
 * the picture and the sound where they belong) and by our own reading of
 * its top-level boxes (the index before the data); every way to stop
 * early frees everything (ASan); a write failure and a real SIGKILL
 * mid-encode leave the target as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../renderer/soundtrack.h"
#include "../../renderer/encode.h"
#include "../../renderer/frame.h"
#include "../../renderer/output.h"
#include "../harness/fx_folder.h"

#define FPS 30
#define NARRATION_RATE 24000

static const struct encoder_settings SETTINGS = { "veryfast", 23, 0, 1920, 1080, 30 };

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* ---- synthetic input ---------------------------------------------------- */

/* 24 kHz narration: a 440 Hz sine at half scale. */
static int16_t *sine(size_t n)
{
	int16_t *s = malloc(n * sizeof *s);

	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (int16_t)lrint(16384.0 * sin(2 * M_PI * 440.0 * (double)i / NARRATION_RATE));
	return s;
}

/* The expected luma of frame k at (x, y): a diagonal gradient moving right. */
static uint8_t luma(long k, int x, int y)
{
	return (uint8_t)(16 + ((x + y / 2 + 12 * (int)k) % 1080) * 219 / 1080);
}

/* Frame k of the moving gradient; noise > 0 adds that much pseudo-random
 * grain, so that the frames cannot be compressed much. */
static void gradient(uint8_t *yuv, long k, int noise)
{
	uint8_t *u = yuv + 1920 * 1080, *v = u + 960 * 540;
	uint32_t seed = (uint32_t)k * 2654435761u + 1;

	for (int y = 0; y < 1080; y++) {
		for (int x = 0; x < 1920; x++) {
			int l = luma(k, x, y);
			if (noise) {
				seed = seed * 1664525u + 1013904223u;
				l += (int)(seed >> 24) % noise;
			}
			yuv[(size_t)y * 1920 + (size_t)x] = (uint8_t)(l > 235 ? 235 : l);
		}
	}
	for (int y = 0; y < 540; y++) {
		for (int x = 0; x < 960; x++) {
			u[(size_t)y * 960 + (size_t)x] = (uint8_t)(64 + (y * 128 / 540));
			v[(size_t)y * 960 + (size_t)x] = (uint8_t)(192 - (x * 128 / 960));
		}
	}
}

/* A track of two scenes: narration0_s of sine in scene 0 (frames0 long),
 * then a silent scene of frames1. */
static float *two_scene_track(long frames0, double narration0_s, long frames1, size_t *n)
{
	size_t nn = (size_t)(narration0_s * NARRATION_RATE);
	int16_t *pcm = sine(nn);
	struct audio_part parts[2] = { { pcm, nn, frames0 }, { NULL, 0, frames1 } };
	float *track;
	char err[256];

	if (audio_track(parts, 2, 30, &track, n, err, sizeof err) < 0)
		fail_msg("audio_track: %s", err);
	free(pcm);
	return track;
}

/* ---- running ffprobe/ffmpeg --------------------------------------------- */

/* Runs argv and returns what it wrote on the descriptor fd (1 or 2), with
 * *len; fails the test unless it exits 0. */
static char *run_capture(char *const argv[], int fd, size_t *len)
{
	int p[2], status;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	pid_t pid;

	assert_non_null(buf);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], fd);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], buf + n, cap - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		assert_true(r > 0);
		n += (size_t)r;
		if (n == cap) {
			buf = realloc(buf, cap *= 2);
			assert_non_null(buf);
		}
	}
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s failed (status %d)", argv[0], status);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static json_t *probe(const char *path)
{
	char *argv[] = { "ffprobe", "-v", "error", "-count_frames", "-show_entries",
			 "format=duration:stream=codec_type,codec_name,profile,width,height,pix_fmt,r_frame_rate,"
			 "nb_frames,nb_read_frames,duration,sample_rate,channels,color_space,color_transfer,"
			 "color_primaries,color_range",
			 "-of", "json", (char *)path, NULL };
	json_error_t je;
	size_t len;
	char *out = run_capture(argv, 1, &len);
	json_t *j = json_loadb(out, len, 0, &je);

	if (!j)
		fail_msg("ffprobe's answer is not JSON (%s): %s", je.text, out);
	free(out);
	return j;
}

static json_t *stream_of(json_t *probed, const char *type)
{
	json_t *streams = json_object_get(probed, "streams"), *s;
	size_t i;

	json_array_foreach(streams, i, s) {
		if (strcmp(json_string_value(json_object_get(s, "codec_type")), type) == 0)
			return s;
	}
	fail_msg("no %s stream", type);
	return NULL;
}

static const char *field(json_t *o, const char *name)
{
	const char *v = json_string_value(json_object_get(o, name));

	if (!v)
		fail_msg("ffprobe gave no %s", name);
	return v;
}

/* The four-letter types of the file's top-level boxes, in order. */
static void top_boxes(const char *path, char types[][5], int max, int *count)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[16];
	uint64_t at = 0, size;
	long end;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	end = ftell(f);
	*count = 0;
	while (at < (uint64_t)end) {
		assert_true(*count < max);
		assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
		assert_int_equal(fread(h, 1, 8, f), 8);
		size = (uint64_t)h[0] << 24 | (uint64_t)h[1] << 16 | (uint64_t)h[2] << 8 | h[3];
		memcpy(types[*count], h + 4, 4);
		types[(*count)++][4] = '\0';
		if (size == 1) { /* a 64-bit size follows */
			assert_int_equal(fread(h + 8, 1, 8, f), 8);
			size = 0;
			for (int i = 8; i < 16; i++)
				size = size << 8 | h[i];
		} else if (size == 0) { /* to the end of the file */
			size = (uint64_t)end - at;
		}
		assert_true(size >= 8);
		at += size;
	}
	assert_true(at == (uint64_t)end);
	fclose(f);
}

/* ---- the encoder -------------------------------------------------------- */

/* frames of the gradient and the track into target, through output. */
static void encode_to(const char *target, long frames, const float *track, size_t n, int noise)
{
	uint8_t *yuv = malloc(FRAME_YUV_SIZE(1920, 1080));
	struct output o;
	struct encoder *enc;
	char err[512];

	assert_non_null(yuv);
	if (output_begin(&o, target, err, sizeof err) < 0 || !(enc = encoder_open(o.tmp, &SETTINGS, err, sizeof err)))
		fail_msg("%s", err);
	if (encoder_audio(enc, track, n, err, sizeof err) < 0)
		fail_msg("%s", err);
	for (long k = 0; k < frames; k++) {
		gradient(yuv, k, noise);
		if (encoder_video(enc, yuv, err, sizeof err) < 0)
			fail_msg("frame %ld: %s", k, err);
	}
	if (encoder_finish(enc, err, sizeof err) < 0 || output_commit(&o, err, sizeof err) < 0)
		fail_msg("%s", err);
	free(yuv);
}

static void check_stream_tags(json_t *j, long frames)
{
	json_t *v = stream_of(j, "video"), *a = stream_of(j, "audio");
	double vd = atof(field(v, "duration")), ad = atof(field(a, "duration")), want = (double)frames / FPS;
	char count[32];

	snprintf(count, sizeof count, "%ld", frames);
	assert_string_equal(field(v, "codec_name"), "h264");
	assert_string_equal(field(v, "profile"), "High");
	assert_int_equal(json_integer_value(json_object_get(v, "width")), 1920);
	assert_int_equal(json_integer_value(json_object_get(v, "height")), 1080);
	assert_string_equal(field(v, "pix_fmt"), "yuv420p");
	assert_string_equal(field(v, "r_frame_rate"), "30/1");
	assert_string_equal(field(v, "nb_frames"), count);
	assert_string_equal(field(v, "nb_read_frames"), count);
	assert_string_equal(field(v, "color_space"), "bt709");
	assert_string_equal(field(v, "color_transfer"), "bt709");
	assert_string_equal(field(v, "color_primaries"), "bt709");
	assert_string_equal(field(v, "color_range"), "tv");
	assert_string_equal(field(a, "codec_name"), "aac");
	assert_string_equal(field(a, "profile"), "LC");
	assert_string_equal(field(a, "sample_rate"), "48000");
	assert_int_equal(json_integer_value(json_object_get(a, "channels")), 1);
	/* The video lasts its frames exactly (its last frame too); the audio
	 * within a frame of it. */
	if (fabs(vd - want) > 1e-3 || fabs(ad - want) > 1.0 / FPS || fabs(vd - ad) > 1.0 / FPS)
		fail_msg("durations: video %.6f s, audio %.6f s, frames %.6f s", vd, ad, want);
}

/* The decoded picture of frame 0 is the gradient, all three planes in
 * place, and the whole file decodes without a complaint. */
static void check_picture(const char *path)
{
	char *argv[] = { "ffmpeg", "-v", "error", "-i", (char *)path, "-frames:v", "1", "-f", "rawvideo",
			 "-pix_fmt", "yuv420p", "-", NULL };
	char *decode[] = { "ffmpeg", "-v", "error", "-i", (char *)path, "-f", "null", "-", NULL };
	size_t len;
	uint8_t *got = (uint8_t *)run_capture(argv, 1, &len), *want = malloc(FRAME_YUV_SIZE(1920, 1080));
	char *complaints;
	double diff = 0;

	assert_non_null(want);
	assert_int_equal(len, FRAME_YUV_SIZE(1920, 1080));
	gradient(want, 0, 0);
	for (size_t i = 0; i < FRAME_YUV_SIZE(1920, 1080); i++)
		diff += abs(got[i] - want[i]);
	assert_true(diff / (double)FRAME_YUV_SIZE(1920, 1080) < 2.0);
	free(want);
	free(got);
	complaints = run_capture(decode, 2, &len);
	assert_string_equal(complaints, "");
	free(complaints);
}

/* RMS of s[from, to), or -1 when the range is empty. */
static double rms(const float *s, size_t from, size_t to)
{
	double sum = 0;

	if (from >= to)
		return -1;
	for (size_t i = from; i < to; i++)
		sum += (double)s[i] * s[i];
	return sqrt(sum / (double)(to - from));
}

/* The decoded sound: exactly the video's length in samples, the
 * narration's level during it and silence in the silent scene (50 ms
 * from each edge, where AAC smears). */
static void check_sound(const char *path, long frames, double narration_s, long frames0)
{
	char *argv[] = { "ffmpeg", "-v", "error", "-i", (char *)path, "-map", "0:a", "-f", "f32le", "-", NULL };
	const size_t edge = 2400;
	size_t len;
	float *s = (float *)run_capture(argv, 1, &len);
	double quiet = rms(s, (size_t)frames0 * 1600 + edge, (size_t)frames * 1600 - edge);

	/* ffmpeg 5.1 trims the AAC priming at the start (edit list) but
	 * decodes the last frame whole: up to 1023 samples of padding. */
	assert_true(len / sizeof *s >= (size_t)frames * 1600 && len / sizeof *s < (size_t)frames * 1600 + 1024);
	assert_true(rms(s, edge, (size_t)(narration_s * 48000) - edge) > 0.3); /* half-scale sine: 0.354 */
	if (frames > frames0)
		assert_true(quiet >= 0 && quiet < 0.001);
	free(s);
}

static void test_encode_mp4(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "video.mp4"), types[16][5];
	size_t n;
	float *track = two_scene_track(30, 0.5, 30, &n);
	json_t *j;
	int count, moov = -1, mdat = -1;

	encode_to(target, 60, track, n, 0);
	free(track);
	assert_int_equal(fx_entries(f->path), 1);
	j = probe(target);
	check_stream_tags(j, 60);
	assert_true(fabs(atof(field(json_object_get(j, "format"), "duration")) - 2.0) <= 1.0 / FPS);
	json_decref(j);
	top_boxes(target, types, 16, &count);
	assert_string_equal(types[0], "ftyp");
	for (int i = 0; i < count; i++) {
		moov = moov < 0 && strcmp(types[i], "moov") == 0 ? i : moov;
		mdat = mdat < 0 && strcmp(types[i], "mdat") == 0 ? i : mdat;
	}
	assert_int_equal(moov, 1);
	assert_true(mdat > moov);
	check_picture(target);
	check_sound(target, 60, 0.5, 30);
	free(target);
}

/* A track whose length is not a multiple of the AAC frame (1024): the
 * short last frame still reaches the file. */
static void test_encode_odd_length(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "odd.mp4");
	size_t n;
	float *track = two_scene_track(7, 0.2, 0, &n);
	json_t *j;

	assert_int_equal(n % 1024, 960);
	encode_to(target, 7, track, n, 0);
	free(track);
	j = probe(target);
	check_stream_tags(j, 7);
	json_decref(j);
	check_sound(target, 7, 0.2, 7);
	free(target);
}

static void test_encoder_errors(void **state)
{
	struct fx_folder *f = *state;
	char *missing = fx_path_in(f->path, "nowhere/video.mp4"), *path = fx_path_in(f->path, "e.mp4"), err[512], want[128];
	struct encoder_settings bad = SETTINGS;
	uint8_t *yuv = calloc(1, FRAME_YUV_SIZE(1920, 1080));
	float pcm[3200] = { 0 };
	struct encoder *enc;

	assert_non_null(yuv);
	assert_null(encoder_open(missing, &SETTINGS, err, sizeof err));
	assert_non_null(strstr(err, "No such file or directory"));
	bad.preset = "quick";
	assert_null(encoder_open(path, &bad, err, sizeof err));
	assert_non_null(strstr(err, "\"quick\" is not an x264 preset"));
	bad = SETTINGS;
	bad.crf = 52;
	assert_null(encoder_open(path, &bad, err, sizeof err));
	assert_non_null(strstr(err, "crf"));
	bad = SETTINGS;
	bad.threads = -1;
	assert_null(encoder_open(path, &bad, err, sizeof err));
	bad = SETTINGS;
	bad.width = 1081; /* yuv420p needs even sizes */
	assert_null(encoder_open(path, &bad, err, sizeof err));
	assert_non_null(strstr(err, "the picture is 1081x1080"));
	bad = SETTINGS;
	bad.fps = 7; /* 48000 / 7 samples a frame is not whole */
	assert_null(encoder_open(path, &bad, err, sizeof err));
	assert_non_null(strstr(err, "the frame rate is 7 fps"));

	/* Stopped at every step: abort frees whatever there is (ASan). */
	encoder_abort(NULL);
	assert_non_null(enc = encoder_open(path, &SETTINGS, err, sizeof err));
	encoder_abort(enc);
	assert_non_null(enc = encoder_open(path, &SETTINGS, err, sizeof err));
	assert_int_equal(encoder_video(enc, yuv, err, sizeof err), -1);
	assert_non_null(strstr(err, "before the first frame"));
	assert_int_equal(encoder_audio(enc, pcm, 0, err, sizeof err), -1);
	assert_int_equal(encoder_audio(enc, pcm, 3200, err, sizeof err), 0);
	for (int k = 0; k < 40; k++) /* past x264's lookahead: packets are in the muxer */
		assert_int_equal(encoder_video(enc, yuv, err, sizeof err), 0);
	assert_int_equal(encoder_audio(enc, pcm, 3200, err, sizeof err), -1);
	encoder_abort(enc);
	/* The streams must end within a frame of each other. */
	for (int frames = 1; frames <= 4; frames++) {
		assert_non_null(enc = encoder_open(path, &SETTINGS, err, sizeof err));
		assert_int_equal(encoder_audio(enc, pcm, 3200, err, sizeof err), 0);
		for (int k = 0; k < frames; k++)
			assert_int_equal(encoder_video(enc, yuv, err, sizeof err), 0);
		if (frames == 2) {
			assert_int_equal(encoder_finish(enc, err, sizeof err), 0);
			continue;
		}
		assert_int_equal(encoder_finish(enc, err, sizeof err), -1);
		snprintf(want, sizeof want, "the sound track lasts 0.067 s but the video %.3f s; they must end "
			 "together", frames / 30.0);
		assert_string_equal(err, want);
	}
	/* finish without frames is an error, and frees too. */
	assert_non_null(enc = encoder_open(path, &SETTINGS, err, sizeof err));
	assert_int_equal(encoder_audio(enc, pcm, 3200, err, sizeof err), 0);
	assert_int_equal(encoder_finish(enc, err, sizeof err), -1);
	assert_string_equal(err, "the video has no frames");
	free(yuv);
	free(missing);
	free(path);
}

/* ---- failures and kills: the target is never harmed --------------------- */

#define OLD_VIDEO "an older video that must survive\n"

static void assert_target_untouched(const char *target, int had_old)
{
	size_t len;
	char *now = read_all(target, &len);

	if (!had_old) {
		assert_null(now);
		return;
	}
	assert_non_null(now);
	assert_int_equal(len, strlen(OLD_VIDEO));
	assert_memory_equal(now, OLD_VIDEO, len);
	free(now);
}

/* The child of the write-failure test: files above 64 KiB fail with EFBIG
 * (SIGXFSZ ignored), as on a full disk.  Exits 0 when the encoder reported
 * the failure and nothing was left behind; the message goes to fd. */
static void child_write_failure(const char *target, int fd)
{
	struct rlimit lim = { 64 * 1024, 64 * 1024 };
	uint8_t *yuv = malloc(FRAME_YUV_SIZE(1920, 1080));
	size_t n;
	float *track = NULL;
	struct output o;
	struct encoder *enc;
	char err[512] = "";
	int rc = -1;
	long k;

	if (!yuv || signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &lim) < 0)
		exit(2);
	track = calloc(90 * 1600, sizeof *track);
	if (!track || output_begin(&o, target, err, sizeof err) < 0)
		exit(2);
	if (!(enc = encoder_open(o.tmp, &SETTINGS, err, sizeof err)) ||
	    encoder_audio(enc, track, 90 * 1600, err, sizeof err) < 0)
		exit(2);
	for (k = 0, rc = 0; k < 90 && rc == 0; k++) {
		gradient(yuv, k, 40);
		rc = encoder_video(enc, yuv, err, sizeof err);
	}
	if (rc < 0)
		encoder_abort(enc);
	else
		rc = encoder_finish(enc, err, sizeof err);
	output_abort(&o);
	n = strlen(err);
	if (write(fd, err, n) != (ssize_t)n)
		exit(2);
	free(yuv);
	free(track);
	exit(rc < 0 ? 0 : 1);
}

static void test_write_failure(void **state)
{
	struct fx_folder *f = *state;
	char target[128], msg[512];
	int p[2], status;
	ssize_t len;
	pid_t pid;

	/* On the stack: the child checks its own leaks at exit. */
	snprintf(target, sizeof target, "%s/full.mp4", f->path);
	fx_write_file(target, OLD_VIDEO);
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		close(p[0]);
		child_write_failure(target, p[1]);
	}
	close(p[1]);
	len = read(p[0], msg, sizeof msg - 1);
	close(p[0]);
	assert_true(len > 0);
	msg[len] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the child ended with status %d: %s", status, msg);
	assert_non_null(strstr(msg, "File too large"));
	assert_target_untouched(target, 1);
	assert_int_equal(fx_entries(f->path), 1);
}

/* The child of the kill test: encodes endlessly noisy frames into target
 * and, once its temporary file holds 256 KiB, writes that file's name to
 * fd, and goes on encoding until it is killed. */
static _Noreturn void child_encode_forever(const char *target, int fd)
{
	uint8_t *yuv = malloc(FRAME_YUV_SIZE(1920, 1080));
	float *track = calloc((size_t)900 * 1600, sizeof *track);
	struct output o;
	struct encoder *enc;
	struct stat st;
	char err[512];
	int told = 0;

	if (!yuv || !track || output_begin(&o, target, err, sizeof err) < 0 ||
	    !(enc = encoder_open(o.tmp, &SETTINGS, err, sizeof err)) ||
	    encoder_audio(enc, track, (size_t)900 * 1600, err, sizeof err) < 0)
		_exit(2);
	for (long k = 0; k < 900; k++) {
		gradient(yuv, k, 40);
		if (encoder_video(enc, yuv, err, sizeof err) < 0)
			_exit(2);
		if (!told && stat(o.tmp, &st) == 0 && st.st_size >= 256 * 1024) {
			size_t n = strlen(o.tmp) + 1;
			if (write(fd, o.tmp, n) != (ssize_t)n)
				_exit(2);
			told = 1;
		}
	}
	_exit(3); /* never killed: the test fails */
}

static void kill_mid_encode(const struct fx_folder *f, int had_old)
{
	char *target = fx_path_in(f->path, "killed.mp4"), tmp[512];
	struct output o;
	struct stat st;
	int p[2], status;
	ssize_t len;
	pid_t pid;
	char err[256];

	if (had_old)
		fx_write_file(target, OLD_VIDEO);
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		close(p[0]);
		child_encode_forever(target, p[1]);
	}
	close(p[1]);
	len = read(p[0], tmp, sizeof tmp);
	assert_true(len > 1 && tmp[len - 1] == '\0');
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(p[0]);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* Killed mid-encode: its half-written file is there, beside the target. */
	assert_int_equal(stat(tmp, &st), 0);
	assert_true(st.st_size >= 256 * 1024);
	assert_target_untouched(target, had_old);
	/* The next render of this target clears the dead process's leftover. */
	assert_int_equal(output_begin(&o, target, err, sizeof err), 0);
	assert_int_equal(stat(tmp, &st), -1);
	output_abort(&o);
	assert_target_untouched(target, had_old);
	assert_int_equal(fx_entries(f->path), had_old ? 1 : 0);
	free(target);
}

static void test_sigkill_without_old_file(void **state)
{
	kill_mid_encode(*state, 0);
}

static void test_sigkill_keeps_old_file(void **state)
{
	kill_mid_encode(*state, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_encode_mp4, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_encode_odd_length, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_encoder_errors, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_write_failure, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_sigkill_without_old_file, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_sigkill_keeps_old_file, fx_folder_make, fx_folder_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
