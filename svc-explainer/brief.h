/*
 * brief - the text the explainer's private worker gets as its first turn:
 * the call's question, facts and sources, then what it must make and how
 * (the canvas: its size, orientation and safe margins; the scene format,
 * the SMIL subset and the fonts the renderer accepts, the rule that it
 * reviews the rendered start and end frame of every scene, the Narration
 * section of the user's reply style) and how its work ends (the finish tool, the
 * 30-120 s gate).  A revision's worker is also told that its folder holds
 * the video's scenes as they are, to change rather than begin anew.
 */
#ifndef EXPLAINER_BRIEF_H
#define EXPLAINER_BRIEF_H

#include <stddef.h>

struct brief_input {
	const char *question;
	const char *facts;
	const char *const *sources; /* nsources strings */
	size_t nsources;
	int revision;               /* the folder holds an earlier revision's scenes */
	double minutes;             /* the worker's time limit */
	int finish_attempts;        /* how often it may call finish */
	const char *narration;      /* the reply style's Narration section (reply_style_narration) */
	int width, height, fps;     /* the video's canvas (canvas.h) */
	int canvas_changed;         /* a revision's call chose another size than the saved video's */
};

/* The brief (caller frees), or NULL when out of memory. */
char *brief_write(const struct brief_input *in);

#endif
