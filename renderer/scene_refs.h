/*
 * scene_refs - the checks of a reference and of a font-family list, made
 * by both the document walk and the CSS reader of a scene.  Each appends
 * its problem with the file's name and a line.
 */
#ifndef EXPLAINER_SCENE_REFS_H
#define EXPLAINER_SCENE_REFS_H

#include <stddef.h>

#include "problems.h"

/* A reference of LEN bytes, the value of attribute ATTR ("xlink:href"), or
 * with ATTR NULL the target of a CSS url(): nothing when it names an
 * element ("#id") or embeds a raster image as a data: URI, a problem
 * saying where it points otherwise. */
void scene_check_reference(const char *attr, const char *ref, size_t len, const char *file, int line,
			   struct problems *p);
/* A CSS font-family list (attribute or CSS value). */
void scene_check_family(const char *list, const char *file, int line, struct problems *p);

#endif
