/*
 * transition_play - the pictures the encoder gets, frame by frame, once
 * the scenes' transitions (transition.h) are played over them.
 *
 * The pipeline hands every frame of the video in order, as the scenes
 * make it; a frame in a scene's first transition_frames comes back mixed
 * with the previous scene's last picture (held when it passes), any other
 * frame comes back as it was.  Mixing happens per frame of the video, not
 * per drawn picture, so a picture reused for several frames of a
 * transition is mixed anew for each.
 */
#ifndef EXPLAINER_TRANSITION_PLAY_H
#define EXPLAINER_TRANSITION_PLAY_H

#include <stdint.h>

#include "folder.h"

struct transition_play;

/* For the video e at width x height (yuv420p pictures, tightly packed);
 * NULL when out of memory.  Without transitions it holds no picture. */
struct transition_play *transition_play_new(const struct explainer *e, int width, int height);
/* The picture to encode as frame FRAME of the video (frames come in
 * order, from 0), given the scenes' picture for it: yuv itself, or a
 * picture of the player's, valid until the next call. */
const uint8_t *transition_play_frame(struct transition_play *tp, long frame, const uint8_t *yuv);
/* Where transition p of the way (0 < p < 1) plays at frame k of its n. */
double transition_progress(long k, long n);
void transition_play_free(struct transition_play *tp);

#endif
