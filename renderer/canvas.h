/*
 * canvas - the video's picture size and frame rate, chosen per video:
 *
 *	format  "16:9"  1920x1080, landscape (the default)
 *	        "9:16"  1080x1920, vertical, for phones
 *	        "1:1"   1080x1080, square
 *	fps     30 (the default) or 60
 *
 * explainer.json and the worker's script.json name them with the
 * optional top-level keys "format" and "fps"; create_explainer_video takes
 * the same values as arguments.  The checks live here once, so the
 * manifest, the script and the tool refuse the same values with the same
 * sentence, which lists what is allowed.
 */
#ifndef EXPLAINER_CANVAS_H
#define EXPLAINER_CANVAS_H

#include <jansson.h>
#include <stddef.h>

#include "problems.h"

#define CANVAS_DEFAULT_FORMAT "16:9"
#define CANVAS_DEFAULT_WIDTH 1920
#define CANVAS_DEFAULT_HEIGHT 1080
#define CANVAS_DEFAULT_FPS 30
#define CANVAS_FORMAT_CHOICES "\"16:9\" (1920x1080, landscape, the default), \"9:16\" (1080x1920, vertical) " \
			      "or \"1:1\" (1080x1080, square)"
#define CANVAS_FPS_CHOICES "30 (the default) or 60"

struct canvas {
	int width, height, fps;
};

/* 1920x1080 at 30 fps. */
struct canvas canvas_default(void);
/* The format's name ("16:9") for a size, or NULL when the size is none
 * of the formats. */
const char *canvas_format_name(int width, int height);
/* "landscape", "vertical" or "square". */
const char *canvas_orientation(int width, int height);
/* v (a JSON value given for "format") as a size into c; 0, or -1 with a
 * sentence naming the value and the choices. */
int canvas_take_format(const json_t *v, struct canvas *c, char *err, size_t errlen);
/* v (given for "fps") into c; 0, or -1 with a sentence as above. */
int canvas_take_fps(const json_t *v, struct canvas *c, char *err, size_t errlen);
/* The optional "format" and "fps" of the object obj into c, which keeps
 * what obj does not give.  0, or -1 with the first sentence in err. */
int canvas_read(const json_t *obj, struct canvas *c, char *err, size_t errlen);
/* The same for a file of the folder (explainer.json, script.json): the
 * canvas into *width, *height and *fps (the defaults where obj gives
 * nothing); 0, or -1 with the sentence appended to p as FILE's problem. */
int canvas_read_file(const json_t *obj, const char *file, int *width, int *height, int *fps, struct problems *p);
/* Sets "format" and "fps" of obj from c; 0, or -1 when out of memory. */
int canvas_write(json_t *obj, const struct canvas *c);

#endif
