/*
 * scene - one scene's SVG: parsed once, checked, and written out at any
 * scene time t with its animations evaluated.
 *
 * librsvg draws one static frame (it renders every animation element's
 * base value), so the scene keeps its libxml2 document and its animation
 * model (smil.h); scene_svg_at writes the values at t into the document
 * and serializes it, animation elements removed, for librsvg.  Checks, all
 * appended to the problem list with the file's name and line (scene_check.h):
 *   - root <svg> in the SVG namespace with viewBox "0 0 W H", the video's
 *     canvas (canvas.h: "0 0 1920 1080" for 16:9);
 *   - no <script>, no <foreignObject>, no XInclude, no on* event attributes;
 *   - every href / xlink:href and url(...) (in any attribute, style
 *     attribute or <style> sheet) is a local "#id" or a data: URI of a PNG,
 *     JPEG, GIF or WebP image (no http:, file:, relative or absolute paths,
 *     no embedded SVG, whose content would escape the checks); no CSS
 *     @import, @font-face or <?xml-stylesheet?>: nothing is ever fetched;
 *   - every font-family (attribute, style attribute, <style> sheet) names
 *     only the families of fonts.h, and the font shorthand is refused;
 *     text without a font-family is drawn in DejaVu Sans (fonts.c);
 *   - every character of the drawn text is in an installed font (fonts.h:
 *     fontconfig would draw an empty box), reported once per character;
 *     fonts_setup must have run;
 *   - no CSS animation (@keyframes, animation*, transition*);
 *   - the animation subset of smil.h (smil_build runs after these checks,
 *     also when they found problems, so all are listed at once).
 * The parser never loads a DTD or an external entity and never expands
 * entities (XML_PARSE_NONET, no XML_PARSE_NOENT/DTDLOAD); a DOCTYPE that
 * declares anything (entity, attribute, element, notation) is refused at
 * that declaration, and a bare DOCTYPE is dropped.  A file over 16 MiB is
 * refused before it is read.
 *
 * The program calls xmlInitParser() once, before any thread starts and
 * before the first scene_load.  Different scenes may be used by different
 * threads at once; one scene by one thread at a time (scene_svg_at writes
 * into its document).
 */
#ifndef EXPLAINER_SCENE_H
#define EXPLAINER_SCENE_H

#include <stddef.h>

#include "problems.h"

#define SCENE_MAX_BYTES (16u << 20)

struct scene;

/* Loads PATH, named NAME in problems, a scene of a video of width x height
 * pixels (its viewBox must be "0 0 width height").  NULL with every
 * problem appended. */
struct scene *scene_load(const char *path, const char *name, int width, int height, struct problems *p);
/* The same, with the characters no installed font has (scene_check.h)
 * appended to missing instead: they do not stop the load when missing is
 * not p, so a preview draws the frame, boxes and all, and says which.
 * scene_load(path, name, w, h, p) is scene_load_apart(path, name, w, h, p, p). */
struct scene *scene_load_apart(const char *path, const char *name, int width, int height, struct problems *p,
			       struct problems *missing);
/* The document at scene time t (seconds from the scene's start) as SVG
 * text.  *svg belongs to the scene and stays valid until the next call or
 * scene_free.  0, or -1 with err (t negative or not a number, out of
 * memory). */
int scene_svg_at(struct scene *s, double t, const char **svg, size_t *len, char *err, size_t errlen);
/* The same document in two layers, for drawing fast: *still (NULL when
 * the scene has no still background) is the leading part of the scene
 * that nothing animates, the same text at every t, and *moving the rest
 * at t; drawing moving over still gives the pixels of scene_svg_at's
 * text.  Both belong to the scene, valid until the next call. */
int scene_layers_at(struct scene *s, double t, const char **still, size_t *still_len, const char **moving,
		    size_t *moving_len, char *err, size_t errlen);
void scene_free(struct scene *s);

#endif
