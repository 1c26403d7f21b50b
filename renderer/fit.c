/*
 * fit - scenes fitted to their narration, and the 30-120 s gate (fit.h).
 */
#include "fit.h"

#include <math.h>
#include <stdio.h>

#include "folder.h"

/* Up to whole frames: the length the video will really have. */
static double whole_frames(double s, int fps)
{
	return ceil(s * fps - 1e-9) / fps;
}

double fit_scenes(struct fit_scene *v, size_t n, int fps)
{
	double total = 0;

	for (size_t i = 0; i < n; i++) {
		v[i].duration = whole_frames(v[i].narration > 0 ? v[i].narration + FIT_PAUSE_S : v[i].written, fps);
		total += v[i].duration;
	}
	return total;
}

int fit_gate(const struct fit_scene *v, size_t n, char *why, size_t whylen)
{
	double total = 0;
	size_t used = 0;
	int k;

	for (size_t i = 0; i < n; i++)
		total += v[i].duration;
	/* Judged on the length the viewer gets, to the frame. */
	if (total >= FIT_TOTAL_MIN_S && total <= FIT_TOTAL_MAX_S)
		return 0;
	k = snprintf(why, whylen, "The narrated video lasts %.1f s; it must last %.0f to %.0f s. By scene:", total,
		     FIT_TOTAL_MIN_S, FIT_TOTAL_MAX_S);
	for (size_t i = 0; i < n && k >= 0 && (used += (size_t)k) < whylen; i++) {
		if (v[i].narration > 0)
			k = snprintf(why + used, whylen - used, " %zu %s %.1f s (narration %.1f s);", i + 1, v[i].name,
				     v[i].duration, v[i].narration);
		else
			k = snprintf(why + used, whylen - used, " %zu %s %.1f s (silent);", i + 1, v[i].name,
				     v[i].duration);
	}
	if (k >= 0 && (used += (size_t)k) < whylen)
		snprintf(why + used, whylen - used, " %s the narration and finish again.",
			 total < FIT_TOTAL_MIN_S ? "Lengthen" : "Shorten");
	return -1;
}
