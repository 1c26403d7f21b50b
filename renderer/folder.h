/*
 * folder - the explainer folder and its manifest, explainer.json.
 *
 *	{ "format": "16:9", "fps": 30,
 *	  "scenes": [
 *	    { "svg": "01-intro.svg", "narration": "01-intro.wav", "duration": 8.5 },
 *	    { "svg": "02-how.svg", "duration": 12 } ] }
 *
 * "format" and "fps" (optional) are the video's canvas (canvas.h): "16:9"
 * (1920x1080, the default), "9:16" (1080x1920) or "1:1" (1080x1080), at
 * 30 (the default) or 60 frames a second.
 *
 * Scenes play in order.  "svg" is a file in the folder (a plain name: no
 * "/", no ".."), "narration" an optional 24 kHz mono 16-bit PCM WAV in the
 * folder (a scene without one is silent), "duration" the scene's length in
 * seconds (0.5 .. 600).  A scene lasts its duration rounded up to whole
 * frames at the video's rate; narration longer than the scene is an error (part 2
 * fits scenes to their narration before rendering).  "timeline"
 * (optional, seconds, 0.5 .. 600) is the length the scene's animations
 * were written for when it differs from "duration": the animations are
 * stretched or squeezed uniformly onto the duration, so a step written at
 * 40% of the timeline happens at 40% of the scene (how fitting a scene to
 * its narration keeps its steps in place).  "caption" (optional) is the
 * scene's spoken text, for the video's captions (captions.h).
 * "transition" (optional) is how the scene enters from the one before it
 * (transition.h); a cut when absent.  Unknown keys are errors too, so a
 * typo never silently changes a video.
 *
 * Beside "scenes" the manifest may name the video's poster frame:
 * "poster": { "scene": "02-how.svg", "at": "end" } ("scene" as
 * explainer_find_scene takes it, "at" "start", "end" or seconds as a
 * number or text); without it the poster is the first scene's end frame.
 */
#ifndef EXPLAINER_FOLDER_H
#define EXPLAINER_FOLDER_H

#include <stddef.h>

#include "problems.h"
#include "transition.h"

#define EXPLAINER_MANIFEST "explainer.json"
#define EXPLAINER_NARRATION_RATE 24000

struct explainer_scene {
	char *svg;        /* name in the folder, as written in the manifest */
	char *svg_path;   /* folder + "/" + svg */
	char *wav;        /* NULL: silent */
	char *wav_path;   /* NULL: silent */
	double duration;  /* seconds, as written */
	double timeline;  /* seconds the animations were written for (= duration when not given) */
	long frames;      /* ceil(duration * fps) */
	long first_frame; /* index of the scene's first frame in the video */
	char *caption;    /* the spoken text for the captions; NULL: none */
	struct transition transition; /* how it enters from the scene before (transition.h) */
	long transition_frames;       /* its first frames that play the transition; 0 for a cut */
};

struct explainer {
	char *dir;
	struct explainer_scene *scenes;
	size_t n;
	long total_frames;
	int width, height; /* the canvas in pixels (canvas.h): 1920x1080 unless "format" says */
	int fps;           /* frames a second: 30 unless "fps" says */
	char *poster_scene; /* "poster": the scene (NULL: the first) */
	char *poster_at;    /* and the moment, as preview_time takes it (NULL: "end") */
};

/* Reads DIR/explainer.json and checks what the manifest alone can check
 * (names, durations, that each file exists and is a regular file inside
 * the folder, and each WAV's header).  Returns 0, or -1 with every problem
 * appended to p (and *e left empty). */
int explainer_open(const char *dir, struct explainer *e, struct problems *p);
void explainer_free(struct explainer *e);
/* The frames a scene of DURATION seconds lasts: rounded up to whole
 * frames at FPS frames a second. */
long explainer_frames(double duration, int fps);
/* Scene time of frame k of a scene at fps frames a second (k/fps s); the
 * last frame of a scene is frames - 1.  (Here beside explainer_frames,
 * its inverse, so that the captions and the pipeline both take it from
 * the folder.) */
double scene_frame_time(long k, int fps);
/* Seconds as people write them: at most two decimals, no trailing zeros
 * ("9.4", "8"). */
void explainer_seconds_text(double s, char *buf, size_t len);
/* The animations' time at video time t (seconds from the scene's start). */
double explainer_scene_time(const struct explainer_scene *s, double t);
/* The scene whose id is SCENE: its 1-based position ("2") or its svg name
 * with or without ".svg"; NULL when there is none. */
const struct explainer_scene *explainer_find_scene(const struct explainer *e, const char *scene);

#endif
