/*
 * fonts - the fixed set of font families a scene may use, registered
 * through a private fontconfig configuration, and which characters no
 * font of it has.
 *
 * A family outside the set would make fontconfig fall back silently to
 * some other face, so text would look different on another machine; the
 * set is the DejaVu and Noto families `make deps` installs
 * (fonts-dejavu-core and -extra, fonts-noto-core, -cjk and -color-emoji),
 * plus the generic sans-serif, serif and monospace, which the private
 * configuration aliases to DejaVu.  Characters DejaVu lacks fall back to
 * the Noto faces by the text's language and by coverage
 * (docs/explainer-folder.md, "Fonts").
 */
#ifndef EXPLAINER_FONTS_H
#define EXPLAINER_FONTS_H

#include <fontconfig/fontconfig.h>
#include <stddef.h>

/* Makes the private configuration fontconfig's current one (only the
 * DejaVu and Noto directories, read from fontconfig's caches, with the
 * aliases and the fallback chain).  Call once before the first render
 * and before any thread starts.  0, or -1 with err (fonts missing). */
int fonts_setup(char *err, size_t errlen);
/* The characters of want that no font of the current configuration has
 * (they would be drawn as empty boxes): a new set the caller destroys, or
 * NULL when out of memory.  Safe from several threads at once. */
FcCharSet *fonts_missing(const FcCharSet *want);
/* Whether every family in a CSS font-family list ("'DejaVu Sans', sans-serif")
 * is in the set; on 0, bad names the first family that is not. */
int fonts_family_ok(const char *list, char *bad, size_t badlen);
/* The families, for error messages and the docs: "DejaVu Sans, ...". */
const char *fonts_family_list(void);

#endif
