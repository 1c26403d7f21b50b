/*
 * live_text - terminal columns of UTF-8 text for the live view (hbctl
 * watch --timeline on a terminal): how many columns a text takes, and a
 * copy cut to a number of columns at a whole character, so a row stays
 * on one screen line and the view can redraw it in place (live_screen.c).
 */
#ifndef HBCTL_LIVE_TEXT_H
#define HBCTL_LIVE_TEXT_H

#include <stddef.h>

#define LIVE_ELLIPSIS "…"	/* ends a text cut to its columns */

/* The columns of s: one per character, two for a wide one (CJK, most
 * emoji), a control character (a newline, a tab) one, as a space. */
size_t live_cols(const char *s);
/* Into out (outlen bytes, NUL-terminated): s on one line, each control
 * character a space, cut to at most cols columns at a whole character
 * and then ending in LIVE_ELLIPSIS (counted in the cols); cols 0: not
 * cut.  Returns the columns written. */
size_t live_fit(char *out, size_t outlen, const char *s, size_t cols);

#endif
