/*
 * test_explainer_transition - transitions between scenes: the blend
 * functions on small yuv420p pictures with padded rows (a crossfade mixes
 * every sample by its weight, a slide shows the far part of one picture
 * beside the near part of the other, evenly in chroma); the "transition"
 * value read and refused with its sentence, and written back; the
 * manifest's key, its frames, and its refusals (the first scene, longer
 * than half a scene, a bad type); and the player the pipeline feeds every
 * frame to: only a transition's frames are mixed, each anew although its
 * picture is reused, against the leaving scene's last picture.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../renderer/blend.h"
#include "../../renderer/folder.h"
#include "../../renderer/transition.h"
#include "../../renderer/transition_play.h"
#include "../harness/fx_folder.h"

#define W 8
#define H 4
#define PAD 5 /* extra bytes at the end of every row */

/* A W x H picture with padded rows: every sample of plane p is fill[p],
 * the padding 0xEE (which must never be read into or written). */
struct picture {
	uint8_t y[H][W + PAD], u[H / 2][W / 2 + PAD], v[H / 2][W / 2 + PAD];
	struct yuv_view view;
};

static void picture_fill(struct picture *pic, uint8_t y, uint8_t u, uint8_t v)
{
	memset(pic, 0xEE, sizeof *pic);
	for (int r = 0; r < H; r++)
		memset(pic->y[r], y, W);
	for (int r = 0; r < H / 2; r++) {
		memset(pic->u[r], u, W / 2);
		memset(pic->v[r], v, W / 2);
	}
	pic->view = (struct yuv_view){ { &pic->y[0][0], &pic->u[0][0], &pic->v[0][0] },
				       { W + PAD, W / 2 + PAD, W / 2 + PAD }, W, H };
}

/* A picture whose luma is its column (x * 10), chroma its column too. */
static void picture_columns(struct picture *pic)
{
	picture_fill(pic, 0, 0, 0);
	for (int r = 0; r < H; r++)
		for (int x = 0; x < W; x++)
			pic->y[r][x] = (uint8_t)(x * 10);
	for (int r = 0; r < H / 2; r++)
		for (int x = 0; x < W / 2; x++)
			pic->u[r][x] = pic->v[r][x] = (uint8_t)(x * 20);
}

static void assert_padding_kept(const struct picture *pic)
{
	for (int r = 0; r < H; r++)
		for (int x = W; x < W + PAD; x++)
			assert_int_equal(pic->y[r][x], 0xEE);
	for (int r = 0; r < H / 2; r++)
		for (int x = W / 2; x < W / 2 + PAD; x++) {
			assert_int_equal(pic->u[r][x], 0xEE);
			assert_int_equal(pic->v[r][x], 0xEE);
		}
}

static void test_crossfade(void **state)
{
	struct picture from, to, dst;

	(void)state;
	picture_fill(&from, 16, 100, 200);
	picture_fill(&to, 235, 200, 100);
	picture_fill(&dst, 0, 0, 0);
	blend_crossfade(&dst.view, &from.view, &to.view, 0.5);
	for (int r = 0; r < H; r++)
		for (int x = 0; x < W; x++)
			assert_int_equal(dst.y[r][x], 126); /* (16 + 235) / 2, rounded */
	assert_int_equal(dst.u[1][3], 150);
	assert_int_equal(dst.v[0][0], 150);
	assert_padding_kept(&dst);
	blend_crossfade(&dst.view, &from.view, &to.view, 0.25);
	assert_int_equal(dst.y[2][5], 71); /* 16 + 219 / 4 */
	blend_crossfade(&dst.view, &from.view, &to.view, 0);
	assert_int_equal(dst.y[0][0], 16);
	assert_int_equal(dst.v[1][1], 200);
	blend_crossfade(&dst.view, &from.view, &to.view, 1);
	assert_int_equal(dst.y[3][7], 235);
	assert_int_equal(dst.u[0][2], 200);
	assert_padding_kept(&dst);
}

static void test_slide_left(void **state)
{
	struct picture from, to, dst;

	(void)state;
	picture_columns(&from);
	picture_fill(&to, 235, 1, 2);
	picture_fill(&dst, 0, 0, 0);
	/* Half way: from's right half on the left, to's left half on the right. */
	blend_slide(&dst.view, &from.view, &to.view, 0.5, 0);
	for (int r = 0; r < H; r++)
		for (int x = 0; x < W; x++)
			assert_int_equal(dst.y[r][x], x < W / 2 ? (x + W / 2) * 10 : 235);
	for (int r = 0; r < H / 2; r++)
		for (int x = 0; x < W / 2; x++) {
			assert_int_equal(dst.u[r][x], x < W / 4 ? (x + W / 4) * 20 : 1);
			assert_int_equal(dst.v[r][x], x < W / 4 ? (x + W / 4) * 20 : 2);
		}
	assert_padding_kept(&dst);
	/* 0.3 of 8 is 2.4: moved by an even 2 samples, chroma by 1. */
	blend_slide(&dst.view, &from.view, &to.view, 0.3, 0);
	assert_int_equal(dst.y[0][0], 20);
	assert_int_equal(dst.y[0][5], 70);
	assert_int_equal(dst.y[0][6], 235);
	assert_int_equal(dst.u[0][0], 20);
	assert_int_equal(dst.u[0][3], 1);
	blend_slide(&dst.view, &from.view, &to.view, 1, 0);
	assert_int_equal(dst.y[1][0], 235);
	assert_padding_kept(&dst);
}

static void test_slide_up(void **state)
{
	struct picture from, to, dst;

	(void)state;
	picture_fill(&from, 16, 100, 200);
	picture_fill(&to, 235, 1, 2);
	for (int r = 0; r < H; r++)
		memset(from.y[r], 16 + r, W);
	picture_fill(&dst, 0, 0, 0);
	blend_slide(&dst.view, &from.view, &to.view, 0.5, 1);
	/* The top half shows from's bottom half; the bottom half is to. */
	assert_int_equal(dst.y[0][3], 18);
	assert_int_equal(dst.y[1][3], 19);
	assert_int_equal(dst.y[2][3], 235);
	assert_int_equal(dst.y[3][0], 235);
	assert_int_equal(dst.u[0][1], 100);
	assert_int_equal(dst.u[1][1], 1);
	assert_int_equal(dst.v[1][0], 2);
	assert_padding_kept(&dst);
}

static void test_packed_view_and_dispatch(void **state)
{
	uint8_t a[W * H * 3 / 2], b[W * H * 3 / 2], d[W * H * 3 / 2];
	struct yuv_view va = yuv_packed_view(a, W, H), vb = yuv_packed_view(b, W, H), vd = yuv_packed_view(d, W, H);

	(void)state;
	assert_int_equal(yuv_packed_size(W, H), sizeof a);
	assert_ptr_equal(va.plane[1], a + W * H);
	assert_ptr_equal(va.plane[2], a + W * H + W * H / 4);
	assert_int_equal(va.stride[0], W);
	assert_int_equal(va.stride[2], W / 2);
	memset(a, 10, sizeof a);
	memset(b, 30, sizeof b);
	blend_transition(TRANSITION_CROSSFADE, &vd, &va, &vb, 0.5);
	for (size_t i = 0; i < sizeof d; i++)
		assert_int_equal(d[i], 20);
	blend_transition(TRANSITION_CUT, &vd, &va, &vb, 0.5);
	assert_memory_equal(d, b, sizeof d);
	blend_transition(TRANSITION_SLIDE_LEFT, &vd, &va, &vb, 0.5);
	assert_int_equal(d[0], 10);
	assert_int_equal(d[W - 1], 30);
	blend_transition(TRANSITION_SLIDE_UP, &vd, &va, &vb, 0.5);
	assert_int_equal(d[W - 1], 10);
	assert_int_equal(d[W * (H - 1)], 30);
}

/* ---- the value ------------------------------------------------------- */

/* The sentence transition_read gives for TEXT (JSON), or "" when none. */
static const char *read_text(const char *text, struct transition *t, char *buf, size_t len)
{
	json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
	const char *why;

	assert_non_null(v);
	why = transition_read(v, t, buf, len);
	json_decref(v);
	return why ? why : "";
}

static void assert_refused(const char *text, const char *sentence)
{
	struct transition t;
	char buf[256];
	const char *why = read_text(text, &t, buf, sizeof buf);

	if (!strstr(why, sentence))
		fprintf(stderr, "%s: \"%s\" does not contain \"%s\"\n", text, why, sentence);
	assert_non_null(strstr(why, sentence));
	assert_int_equal(t.type, TRANSITION_CUT);
}

static void test_read_and_write(void **state)
{
	struct transition t;
	char buf[256];
	json_t *j;

	(void)state;
	assert_string_equal(read_text("\"crossfade\"", &t, buf, sizeof buf), "");
	assert_int_equal(t.type, TRANSITION_CROSSFADE);
	assert_true(t.duration == TRANSITION_DEFAULT_S);
	assert_string_equal(read_text("{\"type\": \"slide-up\", \"duration\": 1.25}", &t, buf, sizeof buf), "");
	assert_int_equal(t.type, TRANSITION_SLIDE_UP);
	assert_true(t.duration == 1.25);
	assert_non_null(j = transition_json(&t));
	assert_string_equal(json_string_value(json_object_get(j, "type")), "slide-up");
	assert_true(json_number_value(json_object_get(j, "duration")) == 1.25);
	json_decref(j);
	assert_string_equal(read_text("{\"type\": \"slide-left\"}", &t, buf, sizeof buf), "");
	assert_int_equal(t.type, TRANSITION_SLIDE_LEFT);
	assert_non_null(j = transition_json(&t));
	assert_string_equal(json_string_value(j), "slide-left");
	json_decref(j);
	assert_string_equal(read_text("\"cut\"", &t, buf, sizeof buf), "");
	assert_int_equal(t.type, TRANSITION_CUT);
	assert_true(t.duration == 0);
	assert_null(transition_json(&t));

	assert_refused("\"wipe\"", "\"wipe\" is not a transition; use \"cut\", \"crossfade\", \"slide-left\" "
		       "or \"slide-up\"");
	assert_refused("3", "\"transition\" must be a type");
	assert_refused("{\"type\": \"crossfade\", \"duration\": 0.1}", "the transition's duration is 0.1 s; it "
		       "must be from 0.2 to 2 s");
	assert_refused("{\"type\": \"crossfade\", \"duration\": 2.5}", "is 2.5 s");
	assert_refused("{\"type\": \"crossfade\", \"duration\": \"1\"}", "\"duration\" must be a number");
	assert_refused("{\"type\": \"cut\", \"duration\": 1}", "a cut has no duration");
	assert_refused("{\"duration\": 1}", "the transition has no \"type\"");
	assert_refused("{\"type\": \"crossfade\", \"length\": 1}", "unknown key \"length\"");
	assert_refused("{\"type\": 2}", "the transition's type must be a name");
}

static void test_fit(void **state)
{
	struct transition t = { TRANSITION_CROSSFADE, 1 };
	char buf[256];

	(void)state;
	assert_null(transition_fit_problem(&t, 0, 2, 2, buf, sizeof buf));
	assert_non_null(transition_fit_problem(&t, 1, 0, 8, buf, sizeof buf));
	assert_non_null(strstr(buf, "the first scene has no scene before it"));
	assert_non_null(transition_fit_problem(&t, 0, 1.5, 8, buf, sizeof buf));
	assert_non_null(strstr(buf, "the crossfade lasts 1 s, more than half of the scene before it (1.5 s) or "
			       "of this one (8 s); make it at most 0.75 s"));
	assert_non_null(transition_fit_problem(&t, 0, 8, 1.9, buf, sizeof buf));
	t.type = TRANSITION_CUT;
	t.duration = 0;
	assert_null(transition_fit_problem(&t, 1, 0, 0.5, buf, sizeof buf));
}

/* ---- the manifest ---------------------------------------------------- */

struct fixture {
	struct fx_folder *folder;
	struct problems p;
	struct explainer e;
};

static int make_dir(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	*state = f;
	return fx_folder_make((void **)&f->folder);
}

static int remove_dir(void **state)
{
	struct fixture *f = *state;
	int r = f->folder ? fx_folder_remove((void **)&f->folder) : 0;

	explainer_free(&f->e);
	problems_free(&f->p);
	free(f);
	return r;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char *path = fx_path_in(dir, name);

	fx_write_file(path, text);
	free(path);
}

static int has(const struct problems *p, const char *text)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].file, EXPLAINER_MANIFEST) == 0 && strstr(p->v[i].text, text))
			return 1;
	fprintf(stderr, "no problem containing \"%s\" among:\n", text);
	problems_print(p, stderr);
	return 0;
}

static void test_manifest_key(void **state)
{
	struct fixture *f = *state;

	write_text(f->folder->path, "a.svg", "<svg/>");
	write_text(f->folder->path, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [ { \"svg\": \"a.svg\", \"duration\": 2 },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 2, \"transition\": \"crossfade\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 3, \"transition\": { \"type\": \"slide-up\", "
		   "\"duration\": 0.8 } },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 2, \"transition\": \"cut\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 2 } ] }\n");
	assert_int_equal(explainer_open(f->folder->path, &f->e, &f->p), 0);
	assert_int_equal(f->e.n, 5);
	assert_int_equal(f->e.scenes[0].transition.type, TRANSITION_CUT);
	assert_int_equal(f->e.scenes[0].transition_frames, 0);
	assert_int_equal(f->e.scenes[1].transition.type, TRANSITION_CROSSFADE);
	assert_int_equal(f->e.scenes[1].transition_frames, 15);
	assert_int_equal(f->e.scenes[2].transition.type, TRANSITION_SLIDE_UP);
	assert_int_equal(f->e.scenes[2].transition_frames, 24);
	assert_int_equal(f->e.scenes[3].transition_frames, 0);
	assert_int_equal(f->e.scenes[4].transition_frames, 0);
	/* The scenes' timing is a cut's. */
	assert_int_equal(f->e.total_frames, 11 * 30);
	assert_int_equal(f->e.scenes[2].first_frame, 120);
}

static void test_manifest_refusals(void **state)
{
	struct fixture *f = *state;

	write_text(f->folder->path, "a.svg", "<svg/>");
	write_text(f->folder->path, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [ { \"svg\": \"a.svg\", \"duration\": 2, \"transition\": \"crossfade\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 2, \"transition\": \"dissolve\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 1, \"transition\": { \"type\": \"crossfade\", "
		   "\"duration\": 0.6 } },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 4, \"transition\": { \"type\": \"slide-left\", "
		   "\"duration\": 3 } } ] }\n");
	assert_int_equal(explainer_open(f->folder->path, &f->e, &f->p), -1);
	assert_true(has(&f->p, "scene 2: \"dissolve\" is not a transition"));
	assert_true(has(&f->p, "scene 4: the transition's duration is 3 s; it must be from 0.2 to 2 s"));
	assert_int_equal(f->p.n, 2);
	problems_free(&f->p);
	memset(&f->p, 0, sizeof f->p);
	/* With the shapes right, the fit of each to its scenes. */
	write_text(f->folder->path, EXPLAINER_MANIFEST,
		   "{ \"scenes\": [ { \"svg\": \"a.svg\", \"duration\": 2, \"transition\": \"crossfade\" },\n"
		   "  { \"svg\": \"a.svg\", \"duration\": 1, \"transition\": { \"type\": \"crossfade\", "
		   "\"duration\": 0.6 } } ] }\n");
	assert_int_equal(explainer_open(f->folder->path, &f->e, &f->p), -1);
	assert_true(has(&f->p, "scene 1: the first scene has no scene before it to come from"));
	assert_true(has(&f->p, "scene 2: the crossfade lasts 0.6 s, more than half of the scene before it (2 s) "
			"or of this one (1 s); make it at most 0.5 s"));
	assert_int_equal(f->p.n, 2);
}

/* ---- the player -------------------------------------------------------- */

/* Three scenes of 4 frames: the second enters with a crossfade of 2
 * frames, the third with a cut. */
static void three_scenes(struct explainer *e, struct explainer_scene *v)
{
	memset(v, 0, 3 * sizeof *v);
	for (int i = 0; i < 3; i++) {
		v[i].frames = 4;
		v[i].first_frame = 4 * i;
	}
	v[1].transition.type = TRANSITION_CROSSFADE;
	v[1].transition.duration = 2.0 / 30;
	v[1].transition_frames = 2;
	memset(e, 0, sizeof *e);
	e->scenes = v;
	e->n = 3;
	e->total_frames = 12;
}

static void test_player(void **state)
{
	struct explainer_scene v[3];
	struct explainer e;
	struct transition_play *tp;
	uint8_t pic[3][W * H * 3 / 2], last[W * H * 3 / 2];
	const uint8_t *out;

	(void)state;
	three_scenes(&e, v);
	memset(pic[0], 20, sizeof pic[0]);
	memset(last, 80, sizeof last);
	memset(pic[1], 200, sizeof pic[1]);
	memset(pic[2], 50, sizeof pic[2]);
	assert_non_null(tp = transition_play_new(&e, W, H));
	for (long k = 0; k < 3; k++)
		assert_ptr_equal(transition_play_frame(tp, k, pic[0]), pic[0]);
	/* The scene's last picture differs from the rest: it is the one held. */
	assert_ptr_equal(transition_play_frame(tp, 3, last), last);
	/* Frame 4 is 1/3 of the way from 80 to 200, frame 5 2/3: the same
	 * (reused) picture, mixed anew for each frame. */
	out = transition_play_frame(tp, 4, pic[1]);
	assert_ptr_not_equal(out, pic[1]);
	assert_int_equal(out[0], 120);
	assert_int_equal(out[sizeof last - 1], 120);
	out = transition_play_frame(tp, 5, pic[1]);
	assert_int_equal(out[W * 2 + 3], 160);
	for (long k = 6; k < 8; k++)
		assert_ptr_equal(transition_play_frame(tp, k, pic[1]), pic[1]);
	/* A cut: no frame mixed. */
	for (long k = 8; k < 12; k++)
		assert_ptr_equal(transition_play_frame(tp, k, pic[2]), pic[2]);
	transition_play_free(tp);
	assert_true(transition_progress(7, 15) == 0.5);
}

static void test_player_without_transitions(void **state)
{
	struct explainer_scene v[3];
	struct explainer e;
	struct transition_play *tp;
	uint8_t pic[W * H * 3 / 2];

	(void)state;
	three_scenes(&e, v);
	v[1].transition.type = TRANSITION_CUT;
	v[1].transition_frames = 0;
	memset(pic, 7, sizeof pic);
	assert_non_null(tp = transition_play_new(&e, W, H));
	for (long k = 0; k < 12; k++)
		assert_ptr_equal(transition_play_frame(tp, k, pic), pic);
	transition_play_free(tp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crossfade),
		cmocka_unit_test(test_slide_left),
		cmocka_unit_test(test_slide_up),
		cmocka_unit_test(test_packed_view_and_dispatch),
		cmocka_unit_test(test_read_and_write),
		cmocka_unit_test(test_fit),
		cmocka_unit_test_setup_teardown(test_manifest_key, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_manifest_refusals, make_dir, remove_dir),
		cmocka_unit_test(test_player),
		cmocka_unit_test(test_player_without_transitions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
