/*
 * preview - single frames as PNG for the explainer worker to look at while
 * it writes: one frame of one scene, or a contact sheet with the start and
 * end frame of every scene.  Each is written beside its target and renamed
 * when complete (output.h), or returned as PNG bytes for a tool answer.
 * fonts_setup must have run.
 */
#ifndef EXPLAINER_PREVIEW_H
#define EXPLAINER_PREVIEW_H

#include <stddef.h>

#include "folder.h"
#include "problems.h"

/* The scene time "start" (0), "end" (the scene's last frame at fps frames
 * a second) or SECONDS (0 .. the scene's duration) means.  0, or -1 with
 * err. */
int preview_time(const struct explainer_scene *s, int fps, const char *at, double *t, char *err, size_t errlen);
/* One frame of SCENE (its number or svg name) at AT as a PNG of the
 * video's size (e->width x e->height).
 * The characters no installed font has do not stop a preview: they are
 * appended to missing (FILE:LINE: U+XXXX ...) and drawn as the boxes the
 * video would show, so the author sees both the picture and the cause. */
int preview_write(const struct explainer *e, const char *scene, const char *at, const char *target,
		  struct problems *missing, char *err, size_t errlen);
/* The video's poster: the frame the manifest's "poster" names, or the
 * first scene's end frame (its settled picture), as a PNG of the full
 * canvas (e->width x e->height). */
int poster_write(const struct explainer *e, const char *target, char *err, size_t errlen);
/* The start and end frames of every scene at a quarter size, one row per
 * scene with its number, file and times (two scenes a row beyond eight,
 * so a long explainer stays a picture a model can take in). */
int sheet_write(const struct explainer *e, const char *target, char *err, size_t errlen);
/* The same pictures as PNG bytes in memory: *png (caller frees) of *len
 * bytes. */
int preview_png(const struct explainer *e, const char *scene, const char *at, unsigned char **png, size_t *len,
		struct problems *missing, char *err, size_t errlen);
int sheet_png(const struct explainer *e, unsigned char **png, size_t *len, char *err, size_t errlen);

#endif
