/*
 * scene - one scene's SVG: parsed once, checked, and written out at any
 * scene time t with its animations evaluated.
 *
 * librsvg draws one static frame (it renders every animation element's
 * base value), so the scene keeps its libxml2 document and its animation
 * model (smil.h); scene_svg_at writes the values at t into the document
 * and serializes it, animation elements removed, for librsvg.  Checks, all
 * appended to the problem list with the file's name and line:
 *   - root <svg> with viewBox "0 0 1920 1080";
 *   - no <script>, no <foreignObject>, no on* event attributes;
 *   - every href / xlink:href, url(...) and CSS @import is a local "#id"
 *     or a data: URI (no http:, file:, relative or absolute paths): nothing
 *     is ever fetched;
 *   - every font-family (attribute, style attribute, <style> sheet) names
 *     only the families of fonts.h;
 *   - no CSS animation (@keyframes, animation*, transition*);
 *   - the animation subset of smil.h.
 * The parser never loads a DTD or an external entity and never expands
 * entities (XML_PARSE_NONET, no XML_PARSE_NOENT/DTDLOAD), and refuses a
 * file over 16 MiB.
 */
#ifndef EXPLAINER_SCENE_H
#define EXPLAINER_SCENE_H

#include <stddef.h>

#include "problems.h"

#define SCENE_MAX_BYTES (16u << 20)

struct scene;

/* Loads PATH, named NAME in problems.  NULL with every problem appended. */
struct scene *scene_load(const char *path, const char *name, struct problems *p);
/* The document at scene time t (seconds from the scene's start) as SVG
 * text.  *svg belongs to the scene and stays valid until the next call or
 * scene_free.  0, or -1 with err (out of memory). */
int scene_svg_at(struct scene *s, double t, const char **svg, size_t *len, char *err, size_t errlen);
void scene_free(struct scene *s);

#endif
