/*
 * scene_check - the checks scene_load runs on a parsed scene (scene.h has
 * the list): the document walk (scene_check.c) and the CSS reader
 * (scene_css.c), which share scene_refs.h, and the font coverage of the
 * text (scene_glyphs.c).  Every check appends its problems with the
 * file's name and a line, and never stops the others.
 */
#ifndef EXPLAINER_SCENE_CHECK_H
#define EXPLAINER_SCENE_CHECK_H

#include <libxml/tree.h>
#include <stddef.h>

#include "problems.h"

/* Everything but the parser's own refusals and the animation subset; the
 * root's viewBox must be the canvas, "0 0 width height". */
void scene_check_document(xmlDocPtr doc, const char *file, int width, int height, struct problems *p);

/* Every character of the drawn text that no installed font has, once per
 * character with the line it first appears on (scene_glyphs.c; at most 16
 * named).  fonts_setup must have run. */
void scene_check_glyphs(xmlDocPtr doc, const char *file, struct problems *p);

/* The declarations of a style="..." attribute, all reported at LINE. */
void scene_css_declarations(const char *css, const char *file, int line, struct problems *p);
/* A <style> sheet whose first character is on LINE. */
void scene_css_sheet(const char *css, const char *file, int line, struct problems *p);
/* Every url(...) of a presentation attribute's value (fill, mask, ...). */
void scene_css_urls(const char *value, const char *file, int line, struct problems *p);

#endif
