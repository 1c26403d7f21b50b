/*
 * reply_style - the desktop's reply style (page 000, "Reply style and
 * text rewrite"): one style for the desktop and both phones, read from
 * the parameter replyStyle (settings.json, or HB_REPLY_STYLE).
 * Simplified Technical English is the initial choice; Default lets each
 * agent use its own style.  Each style has a Narration section, which
 * every new explainer video worker gets in its brief (the page: "Each new
 * video worker also uses the current style").
 */
#ifndef HB_REPLY_STYLE_H
#define HB_REPLY_STYLE_H

#include <stddef.h>

enum reply_style { REPLY_STYLE_STE, REPLY_STYLE_DEFAULT };

/* The style a setting's value names: "simplified-technical-english" (or
 * its name as the desktop shows it, "Simplified Technical English") or
 * "default", without regard to case.  0, or -1 with a sentence for the
 * user that lists the choices. */
int reply_style_parse(const char *value, enum reply_style *style, char *err, size_t errlen);
/* The style's name as the desktop shows it. */
const char *reply_style_name(enum reply_style style);
/* The style's Narration section: a "## Narration" heading and its rules,
 * ending in a blank line. */
const char *reply_style_narration(enum reply_style style);

#endif
