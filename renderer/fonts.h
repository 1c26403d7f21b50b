/*
 * fonts - the fixed set of font families a scene may use, registered
 * through a private fontconfig configuration.
 *
 * A family outside the set would make fontconfig fall back silently to
 * some other face, so text would look different on another machine; the
 * set is the DejaVu families `make deps` installs (fonts-dejavu-core and
 * -extra): "DejaVu Sans", "DejaVu Sans Mono", "DejaVu Serif", "DejaVu Sans
 * Condensed", "DejaVu Serif Condensed", plus the generic sans-serif,
 * serif and monospace, which the private configuration aliases to them.
 */
#ifndef EXPLAINER_FONTS_H
#define EXPLAINER_FONTS_H

#include <stddef.h>

/* Makes the private configuration fontconfig's current one (only the
 * DejaVu directory, with the aliases).  Call once before the first render
 * and before any thread starts.  0, or -1 with err (fonts missing). */
int fonts_setup(char *err, size_t errlen);
/* Whether every family in a CSS font-family list ("'DejaVu Sans', sans-serif")
 * is in the set; on 0, bad names the first family that is not. */
int fonts_family_ok(const char *list, char *bad, size_t badlen);
/* The families, for error messages and the docs: "DejaVu Sans, ...". */
const char *fonts_family_list(void);

#endif
