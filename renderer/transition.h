/*
 * transition - how a scene enters from the one before it, as the scene
 * folder's manifest (folder.h) and the worker's script (script.h) write it:
 *
 *	"transition": "crossfade"
 *	"transition": { "type": "slide-left", "duration": 0.8 }
 *
 * The types are "cut" (the default: no transition), "crossfade" (the new
 * scene fades in over the previous one), "slide-left" (the new scene
 * pushes the previous one out to the left) and "slide-up" (out at the
 * top).  The duration is 0.2 to 2 seconds (0.5 when not given) and at most
 * half of either scene; the first scene has none.  The transition plays
 * over the entering scene's first frames, against the previous scene's
 * last picture held (blend.h), so the scenes' timing and narration are the
 * same as with a cut.
 */
#ifndef EXPLAINER_TRANSITION_H
#define EXPLAINER_TRANSITION_H

#include <jansson.h>
#include <stddef.h>

#define TRANSITION_MIN_S 0.2
#define TRANSITION_MAX_S 2.0
#define TRANSITION_DEFAULT_S 0.5
#define TRANSITION_KEY "transition"

enum transition_type { TRANSITION_CUT, TRANSITION_CROSSFADE, TRANSITION_SLIDE_LEFT, TRANSITION_SLIDE_UP };

struct transition {
	enum transition_type type;
	double duration; /* seconds; 0 for a cut */
};

/* The type's name as written ("slide-left"). */
const char *transition_name(enum transition_type type);
/* The transition the JSON value V says (a type's name, or an object with
 * "type" and optionally "duration") into t; NULL, or why not (a sentence,
 * in buf). */
const char *transition_read(const json_t *v, struct transition *t, char *buf, size_t buflen);
/* Why t cannot join a scene of PREV seconds (first: there is none) to one
 * of CUR seconds, or NULL: a transition lasts at most half of either. */
const char *transition_fit_problem(const struct transition *t, int first, double prev, double cur, char *buf,
				   size_t buflen);
/* t as JSON for a manifest or a script: its name alone with the default
 * duration, an object otherwise; NULL for a cut (the key is left out). */
json_t *transition_json(const struct transition *t);

#endif
