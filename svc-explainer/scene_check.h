/*
 * scene_check - the checks scene_load runs on a parsed scene (scene.h has
 * the list), shared by the document walk (scene_check.c) and the CSS
 * reader (scene_css.c).  Every check appends its problems with the
 * file's name and a line, and never stops the others.
 */
#ifndef EXPLAINER_SCENE_CHECK_H
#define EXPLAINER_SCENE_CHECK_H

#include <libxml/tree.h>
#include <stddef.h>

#include "problems.h"

/* Everything but the parser's own refusals and the animation subset. */
void scene_check_document(xmlDocPtr doc, const char *file, struct problems *p);

/* A reference of LEN bytes, the value of attribute ATTR ("xlink:href"), or
 * with ATTR NULL the target of a CSS url(): nothing when it names an
 * element ("#id") or embeds a raster image as a data: URI, a problem
 * saying where it points otherwise. */
void scene_check_reference(const char *attr, const char *ref, size_t len, const char *file, int line,
			   struct problems *p);
/* A CSS font-family list (attribute or CSS value). */
void scene_check_family(const char *list, const char *file, int line, struct problems *p);

/* The declarations of a style="..." attribute, all reported at LINE. */
void scene_css_declarations(const char *css, const char *file, int line, struct problems *p);
/* A <style> sheet whose first character is on LINE. */
void scene_css_sheet(const char *css, const char *file, int line, struct problems *p);
/* Every url(...) of a presentation attribute's value (fill, mask, ...). */
void scene_css_urls(const char *value, const char *file, int line, struct problems *p);

#endif
