/*
 * transition_play - the transitions played over the video's frames as
 * they go to the encoder (transition_play.h).
 *
 * Two pictures at most are kept: the last picture of the scene a
 * transition leaves, copied as it passes, and the mixed picture handed
 * back.  The frames come strictly in order, so the scene a frame belongs
 * to is found by walking forward.
 */
#include "transition_play.h"

#include <stdlib.h>
#include <string.h>

#include "blend.h"

struct transition_play {
	const struct explainer *e;
	int width, height;
	size_t scene;     /* the scene of the last frame asked for */
	uint8_t *held;    /* the leaving scene's last picture */
	uint8_t *mixed;   /* the picture handed back */
};

static int has_transitions(const struct explainer *e)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->scenes[i].transition_frames > 0)
			return 1;
	return 0;
}

struct transition_play *transition_play_new(const struct explainer *e, int width, int height)
{
	struct transition_play *tp = calloc(1, sizeof *tp);
	size_t size = yuv_packed_size(width, height);

	if (!tp)
		return NULL;
	tp->e = e;
	tp->width = width;
	tp->height = height;
	if (has_transitions(e) && (!(tp->held = malloc(size)) || !(tp->mixed = malloc(size)))) {
		transition_play_free(tp);
		return NULL;
	}
	return tp;
}

double transition_progress(long k, long n)
{
	return (double)(k + 1) / (double)(n + 1);
}

const uint8_t *transition_play_frame(struct transition_play *tp, long frame, const uint8_t *yuv)
{
	const struct explainer *e = tp->e;
	const struct explainer_scene *s;

	if (!tp->held)
		return yuv;
	while (tp->scene + 1 < e->n && frame >= e->scenes[tp->scene + 1].first_frame)
		tp->scene++;
	s = &e->scenes[tp->scene];
	/* The last frame of a scene the next one enters with a transition. */
	if (tp->scene + 1 < e->n && frame == s->first_frame + s->frames - 1 &&
	    e->scenes[tp->scene + 1].transition_frames > 0)
		memcpy(tp->held, yuv, yuv_packed_size(tp->width, tp->height));
	long k = frame - s->first_frame;
	if (tp->scene == 0 || k >= s->transition_frames)
		return yuv;
	struct yuv_view dst = yuv_packed_view(tp->mixed, tp->width, tp->height);
	struct yuv_view from = yuv_packed_view(tp->held, tp->width, tp->height);
	struct yuv_view to = yuv_packed_view((uint8_t *)yuv, tp->width, tp->height);
	blend_transition(s->transition.type, &dst, &from, &to, transition_progress(k, s->transition_frames));
	return tp->mixed;
}

void transition_play_free(struct transition_play *tp)
{
	if (!tp)
		return;
	free(tp->held);
	free(tp->mixed);
	free(tp);
}
