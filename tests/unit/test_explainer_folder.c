/*
 * test_explainer_folder - the explainer folder's manifest and narration
 * WAVs: a good folder gives its scenes and frame counts; every kind of bad
 * folder (no scenes, a missing or escaping file, a bad duration, an unknown
 * key, a JSON syntax error, narration too long, a corrupt or wrong-rate
 * WAV, more scenes or seconds than the render's limits) gives its own
 * problem, and several problems are all reported.
 * Each test writes its fixtures into its own mkdtemp folder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../renderer/folder.h"
#include "../../renderer/scene_limits.h"
#include "../../renderer/narration.h"
#include "../../svc-speech/wav.h"
#include "../harness/explainer_env.h"
#include "../harness/fx_folder.h"

struct fixture {
	char dir[64];
	char outside[64]; /* a second folder, for links that leave the first */
	struct problems p;
	struct explainer e;
};

static int make_dirs(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/hbexplainer.XXXXXX");
	snprintf(f->outside, sizeof f->outside, "/tmp/hbexplainer-out.XXXXXX");
	if (!mkdtemp(f->dir) || !mkdtemp(f->outside))
		return -1;
	*state = f;
	return 0;
}

static int remove_dirs(void **state)
{
	struct fixture *f = *state;
	int r = fx_remove_tree(f->dir) | fx_remove_tree(f->outside);

	explainer_free(&f->e);
	problems_free(&f->p);
	free(f);
	return r == 0 ? 0 : -1;
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	write_file(dir, name, text, strlen(text));
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

/* A WAV of n samples (value i*7-1000 for sample i) with the given format;
 * a LIST chunk of odd size (so padded) before the data when list is set. */
static void write_wav(const char *dir, const char *name, unsigned rate, unsigned channels, unsigned bits,
		      size_t n, int list)
{
	size_t list_bytes = list ? 8 + 5 + 1 : 0, data = n * 2, len = 44 + list_bytes + data;
	unsigned char *b = calloc(1, len), *d;

	assert_non_null(b);
	memcpy(b, "RIFF", 4);
	put32(b + 4, (uint32_t)(len - 8));
	memcpy(b + 8, "WAVEfmt ", 8);
	put32(b + 16, 16);
	put16(b + 20, 1);
	put16(b + 22, channels);
	put32(b + 24, rate);
	put32(b + 28, rate * channels * bits / 8);
	put16(b + 32, channels * bits / 8);
	put16(b + 34, bits);
	d = b + 36;
	if (list) {
		memcpy(d, "LIST", 4);
		put32(d + 4, 5);
		memcpy(d + 8, "INFOx", 5); /* then one pad byte, left 0 */
		d += list_bytes;
	}
	memcpy(d, "data", 4);
	put32(d + 4, (uint32_t)data);
	for (size_t i = 0; i < n; i++)
		put16(d + 8 + 2 * i, (uint16_t)(int16_t)((int)i * 7 - 1000));
	write_file(dir, name, b, len);
	free(b);
}

/* Whether a problem on FILE at LINE (-1: any line) contains TEXT; on no,
 * the list is printed so a failing test shows what was reported. */
static int has(const struct problems *p, const char *file, int line, const char *text)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].file, file) == 0 && (line < 0 || p->v[i].line == line) &&
		    strstr(p->v[i].text, text))
			return 1;
	fprintf(stderr, "no problem %s:%d containing \"%s\" among:\n", file, line, text);
	problems_print(p, stderr);
	return 0;
}

/* Opens the fixture's folder, expecting failure with exactly n problems. */
static void open_bad(struct fixture *f, size_t n)
{
	assert_int_equal(explainer_open(f->dir, &f->e, &f->p), -1);
	assert_int_equal(f->e.n, 0);
	assert_null(f->e.scenes);
	if (f->p.n != n)
		problems_print(&f->p, stderr);
	assert_int_equal(f->p.n, n);
}

static void test_good_folder(void **state)
{
	struct fixture *f = *state;
	char link[128];

	write_text(f->dir, "01-intro.svg", "<svg/>");
	write_text(f->dir, "real.svg", "<svg/>");
	snprintf(link, sizeof link, "%s/02-how.svg", f->dir);
	assert_int_equal(symlink("real.svg", link), 0); /* a link inside the folder is fine */
	fx_speech_wav(f->dir, "01-intro.wav", 24000 * 8); /* 8 s: fits 8.1 s */
	write_text(f->dir, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [\n"
		   "  { \"svg\": \"01-intro.svg\", \"narration\": \"01-intro.wav\", \"duration\": 8.1 },\n"
		   "  { \"svg\": \"02-how.svg\", \"duration\": 12, \"timeline\": 6 },\n"
		   "  { \"svg\": \"01-intro.svg\", \"duration\": 0.5 } ] }\n");
	assert_int_equal(explainer_open(f->dir, &f->e, &f->p), 0);
	assert_int_equal(f->p.n, 0);
	assert_int_equal(f->e.n, 3);
	assert_string_equal(f->e.scenes[0].svg, "01-intro.svg");
	assert_string_equal(f->e.scenes[0].wav, "01-intro.wav");
	assert_non_null(strstr(f->e.scenes[0].wav_path, "/01-intro.wav"));
	assert_int_equal(access(f->e.scenes[1].svg_path, R_OK), 0);
	assert_null(f->e.scenes[1].wav);
	assert_null(f->e.scenes[1].wav_path);
	assert_int_equal(f->e.scenes[0].frames, 243); /* 8.1 * 30, not 244 */
	assert_int_equal(f->e.scenes[1].frames, 360);
	assert_int_equal(f->e.scenes[2].frames, 15);
	assert_int_equal(f->e.scenes[0].first_frame, 0);
	assert_int_equal(f->e.scenes[1].first_frame, 243);
	assert_int_equal(f->e.scenes[2].first_frame, 603);
	assert_int_equal(f->e.total_frames, 618);
	assert_true(f->e.scenes[0].duration == 8.1);
	assert_true(f->e.scenes[0].timeline == 8.1); /* no timeline: the duration */
	assert_true(f->e.scenes[1].timeline == 6);
	assert_true(explainer_scene_time(&f->e.scenes[1], 6) == 3);

	assert_ptr_equal(explainer_find_scene(&f->e, "2"), &f->e.scenes[1]);
	assert_ptr_equal(explainer_find_scene(&f->e, "02-how"), &f->e.scenes[1]);
	assert_ptr_equal(explainer_find_scene(&f->e, "02-how.svg"), &f->e.scenes[1]);
	assert_ptr_equal(explainer_find_scene(&f->e, "01-intro"), &f->e.scenes[0]); /* the first */
	assert_null(explainer_find_scene(&f->e, "0"));
	assert_null(explainer_find_scene(&f->e, "4"));
	assert_null(explainer_find_scene(&f->e, "02-how.sv"));
	assert_null(explainer_find_scene(&f->e, ""));
}

static void test_zero_scenes(void **state)
{
	struct fixture *f = *state;

	write_text(f->dir, EXPLAINER_MANIFEST, "{ \"scenes\": [] }");
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "\"scenes\" is empty"));
}

static void test_no_manifest(void **state)
{
	struct fixture *f = *state;
	char missing[128];

	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "the folder has no explainer.json"));
	problems_free(&f->p);
	snprintf(missing, sizeof missing, "%s/nope", f->dir);
	assert_int_equal(explainer_open(missing, &f->e, &f->p), -1);
	assert_true(has(&f->p, "", 0, "cannot open the explainer folder"));
}

static void test_syntax_error_line(void **state)
{
	struct fixture *f = *state;

	write_text(f->dir, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8 },\n"
		   "  { \"svg\": \"b.svg\",, \"duration\": 8 }\n"
		   "] }\n");
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 3, "is not valid JSON"));
	problems_free(&f->p);
	write_text(f->dir, EXPLAINER_MANIFEST, "{ \"scenes\": [],\n \"scenes\": [] }");
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 2, "duplicate"));
	problems_free(&f->p);
	write_text(f->dir, EXPLAINER_MANIFEST, "[ ]");
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "must be an object"));
}

static void test_missing_and_escaping_files(void **state)
{
	struct fixture *f = *state;
	char link[128], target[128];

	write_text(f->dir, "a.svg", "<svg/>");
	write_text(f->outside, "secret.svg", "<svg/>");
	snprintf(link, sizeof link, "%s/out.svg", f->dir);
	snprintf(target, sizeof target, "%s/secret.svg", f->outside);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof link, "%s/sub", f->dir);
	assert_int_equal(mkdir(link, 0700), 0);
	write_text(f->dir, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [\n"
		   "  { \"svg\": \"missing.svg\", \"duration\": 8 },\n"
		   "  { \"svg\": \"../x.svg\", \"duration\": 8 },\n"
		   "  { \"svg\": \"..\", \"duration\": 8 },\n"
		   "  { \"svg\": \"/etc/passwd\", \"duration\": 8 },\n"
		   "  { \"svg\": \"out.svg\", \"duration\": 8 },\n"
		   "  { \"svg\": \"sub\", \"duration\": 8 },\n"
		   "  { \"svg\": \"a.svg\", \"narration\": \"gone.wav\", \"duration\": 8 },\n"
		   "  { \"duration\": 8 },\n"
		   "  { \"svg\": 3, \"duration\": 8 },\n"
		   "  { \"svg\": \"\", \"duration\": 8 } ] }\n");
	open_bad(f, 10);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 1: \"svg\" names missing.svg, which is not in "
			"the folder"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 2: \"svg\": \"../x.svg\" contains \"/\""));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 3: \"svg\": \"..\" is not a file name"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 4: \"svg\": \"/etc/passwd\" contains \"/\""));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 5: \"svg\": out.svg is a link to"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "outside the folder"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 6: \"svg\": sub is not a regular file"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 7: \"narration\" names gone.wav"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 8: \"svg\" is missing"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 9: \"svg\" must be a file name"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 10: \"svg\": \"\" is empty"));
}

static void test_manifest_link_refused(void **state)
{
	struct fixture *f = *state;
	char link[128], target[128];

	write_text(f->outside, EXPLAINER_MANIFEST, "{ \"scenes\": [] }");
	snprintf(link, sizeof link, "%s/%s", f->dir, EXPLAINER_MANIFEST);
	snprintf(target, sizeof target, "%s/%s", f->outside, EXPLAINER_MANIFEST);
	assert_int_equal(symlink(target, link), 0);
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "is a symbolic link"));
}

static void test_manifest_too_big(void **state)
{
	struct fixture *f = *state;
	size_t n = (1u << 20) + 1;
	char *big = malloc(n);

	assert_non_null(big);
	memset(big, ' ', n);
	write_file(f->dir, EXPLAINER_MANIFEST, big, n);
	free(big);
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "has 1048577 bytes, more than the 1048576 it may "
			"have"));
}

static void test_bad_durations_and_keys(void **state)
{
	struct fixture *f = *state;

	write_text(f->dir, "a.svg", "<svg/>");
	write_text(f->dir, EXPLAINER_MANIFEST,
		   "{ \"title\": \"x\", \"scenes\": [\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 0.2 },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 601 },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": \"8\" },\n"
		   "  { \"svg\": \"a.svg\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"naration\": \"a.wav\" },\n"
		   "  \"a.svg\",\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"timeline\": 0 },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"timeline\": \"4\" } ] }\n");
	open_bad(f, 9);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "unknown key \"title\""));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 1: \"duration\" is 0.2; it must be from 0.5 "
			"to 600 seconds"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 2: \"duration\" is 601"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 3: \"duration\" must be a number"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 4: \"duration\" is missing"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 5: unknown key \"naration\""));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 6 must be an object"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 7: \"timeline\" is 0; it must be from 0.5"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 8: \"timeline\" must be a number"));
}

static void test_narration_too_long(void **state)
{
	struct fixture *f = *state;

	write_text(f->dir, "a.svg", "<svg/>");
	fx_speech_wav(f->dir, "02.wav", 24000 * 94 / 10);       /* 9.4 s */
	fx_speech_wav(f->dir, "fits.wav", 24000 * 8 + 800);     /* 8 s and one frame */
	write_text(f->dir, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8.01, \"narration\": \"fits.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"02.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"fits.wav\" } ] }\n");
	open_bad(f, 2);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 2: narration 02.wav lasts 9.4 s but scene 2 "
			"lasts 8 s; make its \"duration\" at least 9.4"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "scene 3: narration fits.wav lasts 8.03 s but scene 3 "
			"lasts 8 s; make its \"duration\" at least 8.04"));
}

static void test_bad_wavs(void **state)
{
	struct fixture *f = *state;
	unsigned char trunc[44 + 100];
	FILE *fp;
	char path[128];

	write_text(f->dir, "a.svg", "<svg/>");
	write_text(f->dir, "text.wav", "hello, this is not a wav file");
	write_text(f->dir, "empty.wav", "");
	write_text(f->dir, "song.wav", "ID3\x04\0\0\0\0\0\0\0\0\0\0");
	write_wav(f->dir, "cd.wav", 44100, 2, 16, 100, 0);
	write_wav(f->dir, "8bit.wav", 24000, 1, 8, 100, 0);
	/* A header announcing 1000 data bytes in a file that has 100. */
	write_wav(f->dir, "full.wav", 24000, 1, 16, 50, 0);
	snprintf(path, sizeof path, "%s/full.wav", f->dir);
	assert_non_null(fp = fopen(path, "rb"));
	assert_int_equal(fread(trunc, 1, sizeof trunc, fp), sizeof trunc);
	fclose(fp);
	put32(trunc + 40, 1000);
	write_file(f->dir, "cut.wav", trunc, sizeof trunc);
	put32(trunc + 4, 2000);
	write_file(f->dir, "short.wav", trunc, sizeof trunc);
	write_text(f->dir, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"text.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"empty.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"song.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"cd.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"8bit.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"cut.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"short.wav\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 8, \"narration\": \"full.wav\" } ] }\n");
	open_bad(f, 7);
	assert_true(has(&f->p, "text.wav", 0, "narration text.wav is not a WAV file; expected a 24000 Hz "
			"mono 16-bit WAV"));
	assert_true(has(&f->p, "empty.wav", 0, "narration empty.wav is empty"));
	assert_true(has(&f->p, "song.wav", 0, "narration song.wav is an MP3 file"));
	assert_true(has(&f->p, "cd.wav", 0, "narration cd.wav is PCM, 2 channels, 44100 Hz, 16-bit; a "
			"narration must be 24000 Hz mono 16-bit PCM"));
	assert_true(has(&f->p, "8bit.wav", 0, "PCM, 1 channel, 24000 Hz, 8-bit"));
	assert_true(has(&f->p, "cut.wav", 0, "narration cut.wav is truncated: its \"data\" chunk "
			"announces 1000 bytes but only 100 follow"));
	assert_true(has(&f->p, "short.wav", 0, "narration short.wav is truncated: its header announces "
			"2008 bytes but the file has 144"));
}

static void test_narration_read(void **state)
{
	struct fixture *f = *state;
	char path[128], err[256];
	int16_t *pcm;
	size_t n, probed;

	write_wav(f->dir, "list.wav", 24000, 1, 16, 300, 1); /* an odd LIST chunk, padded */
	snprintf(path, sizeof path, "%s/list.wav", f->dir);
	assert_int_equal(narration_probe(path, &probed, err, sizeof err), 0);
	assert_int_equal(probed, 300);
	assert_int_equal(narration_read(path, &pcm, &n, err, sizeof err), 0);
	assert_int_equal(n, 300);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pcm[i], (int)i * 7 - 1000); /* negative and positive */
	free(pcm);

	fx_speech_wav(f->dir, "speech.wav", 0); /* no samples at all */
	snprintf(path, sizeof path, "%s/speech.wav", f->dir);
	assert_int_equal(narration_read(path, &pcm, &n, err, sizeof err), 0);
	assert_int_equal(n, 0);
	free(pcm);

	snprintf(path, sizeof path, "%s/none.wav", f->dir);
	assert_int_equal(narration_read(path, &pcm, &n, err, sizeof err), -1);
	assert_null(pcm);
	assert_non_null(strstr(err, "cannot open narration none.wav"));
}

/* A manifest of N scenes of s.svg lasting SECONDS each. */
static void write_scenes(struct fixture *f, int n, const char *seconds)
{
	size_t cap = 64 + (size_t)n * 64, len = 0;
	char *m = malloc(cap);

	assert_non_null(m);
	len += (size_t)snprintf(m + len, cap - len, "{ \"scenes\": [");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(m + len, cap - len, "%s{ \"svg\": \"s.svg\", \"duration\": %s }",
					i ? ", " : "", seconds);
	snprintf(m + len, cap - len, "] }\n");
	write_text(f->dir, EXPLAINER_MANIFEST, m);
	free(m);
}

/* The render's limits on the manifest, at their edges: 100 scenes and 600 s
 * open; one scene more, a frame more, and 3,000 scenes of 600 s (54 million
 * frames, whose sound track alone would not fit in memory) are refused. */
static void test_length_and_scene_limits(void **state)
{
	struct fixture *f = *state;

	write_text(f->dir, "s.svg", "<svg/>");
	write_scenes(f, EXPLAINER_MAX_SCENES, "6");
	assert_int_equal(explainer_open(f->dir, &f->e, &f->p), 0);
	assert_int_equal(f->e.total_frames, EXPLAINER_MAX_SECONDS * 30);
	explainer_free(&f->e);
	write_scenes(f, EXPLAINER_MAX_SCENES + 1, "1");
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "has 101 scenes; an explainer has at most 100"));
	problems_free(&f->p);
	write_scenes(f, 2, "300.01");
	open_bad(f, 1);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0,
			"the scenes last 600.1 s together; an explainer lasts at most 600 s (10 minutes)"));
	problems_free(&f->p);
	write_scenes(f, 3000, "600");
	open_bad(f, 2);
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "has 3000 scenes"));
	assert_true(has(&f->p, EXPLAINER_MANIFEST, 0, "the scenes last 1800000.0 s together"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_folder, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_zero_scenes, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_no_manifest, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_syntax_error_line, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_missing_and_escaping_files, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_manifest_link_refused, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_manifest_too_big, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_bad_durations_and_keys, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_narration_too_long, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_bad_wavs, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_narration_read, make_dirs, remove_dirs),
		cmocka_unit_test_setup_teardown(test_length_and_scene_limits, make_dirs, remove_dirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
