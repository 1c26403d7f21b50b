/*
 * scene_limits - what the renderer refuses because of its size, decided before
 * any work: the manifest's scenes and length, and the elements a scene
 * makes librsvg draw in every frame once each <use> is drawn out.
 *
 * The render would otherwise find them late (librsvg gives up after
 * 500,000 referenced elements, seconds into a frame; a long video runs
 * out of memory for its sound track), and `hb-explainer check` not at
 * all.  explainer_open and scene_load call these, so check, preview,
 * sheet, render and the worker's tools refuse the same folder with the
 * same sentence.
 */
#ifndef RENDERER_SCENE_LIMITS_H
#define RENDERER_SCENE_LIMITS_H

#include <libxml/tree.h>

#include "folder.h"
#include "problems.h"

/* The worker's script allows 30 scenes; a person's folder gets more room. */
#define EXPLAINER_MAX_SCENES 100
/* The whole video: 10 minutes (its 48 kHz sound track is built in memory). */
#define EXPLAINER_MAX_SECONDS 600
/* Elements of one scene, every <use> counted with all it draws again. */
#define SCENE_MAX_ELEMENTS 50000
/* <use> inside what another <use> draws, this many levels at most. */
#define SCENE_MAX_USE_DEPTH 64

/* The manifest's scenes of e (read, with their frames summed) against the
 * limits; each problem appended to p on the manifest. */
void explainer_check_limits(const struct explainer *e, struct problems *p);

/* The parsed scene doc of file NAME against the limits; a problem appended
 * to p at the root's line. */
void scene_check_limits(xmlDocPtr doc, const char *name, struct problems *p);

#endif
