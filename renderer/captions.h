/*
 * captions - the video's captions from its scenes' spoken text ("caption"
 * in explainer.json, folder.h) and the narration's real timing: WebVTT
 * and SRT files beside the video, and the same cues drawn into the
 * picture on request (captions_burn).
 *
 * The rule (docs/explainer.md, "Captions"):
 *   - a scene's narration starts on its first frame and lasts its WAV's
 *     measured length (a scene with a caption and no WAV: the scene's
 *     length); its cues cover exactly that span, back to back;
 *   - the text is cut into cues at sentence ends (. ! ? and their CJK
 *     forms); a sentence too long for one cue is cut at its last clause
 *     boundary (, ; : and dashes) that fits, else at its last word that
 *     fits; a word longer than a line is cut into line-sized pieces;
 *   - a cue has at most CAPTION_LINES lines of at most CAPTION_LINE_CHARS
 *     characters (code points), its two lines balanced;
 *   - each cue's share of the span is proportional to its characters;
 *     a cue that would last less than CAPTION_MIN_S is merged into a
 *     neighbour when the two still fit one cue, and the shares are then
 *     evened so that none is under CAPTION_MIN_S, unless the narration is
 *     too short to give every cue that much (then all get equal shares).
 */
#ifndef EXPLAINER_CAPTIONS_H
#define EXPLAINER_CAPTIONS_H

#include <stddef.h>

#include "folder.h"

#define CAPTION_LINE_CHARS 42
#define CAPTION_LINES 2
#define CAPTION_MIN_S 1.0

struct caption_cue {
	double start, end; /* seconds from the video's start */
	char *text;        /* its lines, "\n" between them */
};

struct captions {
	struct caption_cue *v;
	size_t n;
};

/* The cues of every scene of e that has a caption, in order (none when
 * no scene has one).  0, or -1 with err (a WAV that cannot be read, out
 * of memory). */
int captions_build(const struct explainer *e, struct captions *c, char *err, size_t errlen);
/* The cues of one text spoken from start for seconds, appended to c.
 * 0, or -1 when out of memory. */
int captions_add_text(struct captions *c, const char *text, double start, double seconds);
/* The index of the cue shown at video time t, or -1. */
long captions_index_at(const struct captions *c, double t);
/* The cues as a WebVTT or SRT file, written through a temporary file
 * (output.h).  0, or -1 with err. */
int captions_write_vtt(const struct captions *c, const char *target, char *err, size_t errlen);
int captions_write_srt(const struct captions *c, const char *target, char *err, size_t errlen);
/* Both files for e beside a video: video_path with its extension replaced
 * by ".vtt" and ".srt" (into vtt and srt, each HB-sized by the caller),
 * written only when e has captions (*written set to 1).  0, or -1 with
 * err. */
int captions_write_beside(const struct explainer *e, const char *video_path, char *vtt, char *srt, size_t len,
			  int *written, char *err, size_t errlen);
void captions_free(struct captions *c);

/* Burn-in: cue i as an SVG document of width x height to draw over the
 * frame: its lines in white DejaVu Sans on a translucent dark box, inside
 * the bottom title-safe area, wrapped again at the measured width so they
 * fit a narrow canvas.  Caller frees; NULL with err.  fonts_setup must
 * have run; not thread-safe (measures with one cairo context). */
char *captions_overlay_svg(const struct caption_cue *cue, int width, int height, size_t *len, char *err,
			   size_t errlen);

#endif
