/*
 * brief - the worker's first turn (see brief.h).  The rules are the
 * renderer's own (docs/explainer-folder.md, smil.h, fonts.c): a worker
 * that knows them writes scenes that pass the checks the first time,
 * which saves a model turn per scene.  The narration rules are the
 * Narration section of the user's reply style (common/reply_style.h).
 */
#include "brief.h"

#include <stdio.h>
#include <stdlib.h>

#include "canvas.h"
#include "fit.h"
#include "fonts.h"
#include "script.h"

/* What the brief suggests; the script allows up to SCRIPT_MAX_SCENES. */
#define BRIEF_FEWEST_SCENES 3
#define BRIEF_MOST_SCENES 12

static const char format_rules[] =
	"## How a scene is written\n"
	"- Every scene is one SVG file whose root is the <svg> element of the canvas above, with its "
	"viewBox. Draw a background "
	"(the frame is black otherwise) and keep text large (at least 40 units) and inside the frame.\n"
	"- Animate only with SMIL: <animate> (from/to/by/values, keyTimes, calcMode discrete, linear "
	"or spline), <set> and <animateTransform> (translate, scale, rotate, skewX, skewY). begin as "
	"clock values (\"2s\", \"300ms\") or syncbases (\"intro.end+0.5s\"), dur, end, a numeric "
	"repeatCount, fill=\"freeze\". Animate numbers, lengths, colours, opacity, "
	"stroke-dashoffset, points, path d (same command structure), visibility and display. Not "
	"allowed: CSS animation or transitions, repeatCount=\"indefinite\", event begins such as "
	"click, additive or accumulate, animateMotion, <script>, <foreignObject>, external "
	"references (only #id and data: images), @import, @font-face, and a style attribute that "
	"sets a property an animation changes (write it as an attribute).\n"
	"- Fonts: only %s. Any other family is refused, even with a fallback after it; do not use the "
	"font shorthand. Text in any major script draws without naming a family (Chinese, Japanese, "
	"Korean, Arabic, Hebrew, Devanagari, Thai fall back to Noto faces); put xml:lang=\"ja\", \"ko\" or "
	"\"zh-TW\" on Japanese, Korean or Traditional Chinese text so its Han characters take that "
	"region's forms. Emoji in text draw in the text's fill colour, not in colour; for colour emoji "
	"use make_block kind emoji (a picture of them to place). A character no font has "
	"is refused by the checks, which name it (U+XXXX).\n"
	"- Each scene has its narration text (say) and the length in seconds its animations are "
	"written for (duration). When the narration is spoken, the scene is stretched or shrunk to "
	"last the narration plus half a second, and every animation time moves with it, so time "
	"the animations to the words in proportion.\n"
	"- Scenes follow each other with a cut. write_scene's transition (crossfade, slide-left, "
	"slide-up; transition_seconds 0.2 to 2, default 0.5) makes a scene enter over the last frame of "
	"the one before it instead, during its own first moments: start its animations after that.\n\n";

static const char block_rules[] =
	"## Building blocks\n"
	"make_block makes a ready <g> of SVG for a syntax-highlighted code listing, a bar or line "
	"chart from a small table, an arrow, a callout (a box of text pointing at something) or emoji "
	"in colour. "
	"Use it rather than drawing these by hand: paste the <g> into the scene's SVG when you call "
	"write_scene; you may move, edit or animate it like your own elements.\n\n";

static const char work_rules[] =
	"## How you work\n"
	"Use only your own tools: write_scene writes or replaces a scene "
	"with its narration and duration and tells you what its checks find; remove_scene; "
	"read_folder lists the script or shows one scene's SVG; check_scenes checks everything; "
	"preview_scene shows you the rendered start or end frame of a scene as an image; "
	"contact_sheet shows every scene's start and end frame; finish narrates, fits and renders "
	"the video, with your narration as its captions. Its optional poster argument ({\"scene\", "
	"\"at\": start, end or seconds}) picks the frame that stands for the video; without it, the "
	"first scene's end frame.\n"
	"1. Plan %d to %d scenes that answer the question from the facts, one idea each.\n"
	"2. Write them with write_scene, fixing every problem it reports.\n"
	"3. Review: look at the rendered start AND end frame of EVERY scene with preview_scene (or the "
	"contact sheet) and fix what is cut off, overlapping, unreadable or empty. Do not finish "
	"before you have seen every scene's frames.\n"
	"4. Call finish. The spoken video must last %.0f to %.0f seconds. If it does not, finish "
	"fails with the measured length per scene and in total: revise the narration (shorter or "
	"longer sentences, fewer or more scenes) and call finish again. You have %d finish "
	"attempts and %g minutes in all. When finish succeeds, answer with one short sentence.\n";

/* The canvas: its size, orientation, rate, root element and safe area (5%
 * of each side), and how a tall or square frame is laid out. */
static void write_canvas(FILE *f, const struct brief_input *in)
{
	const char *format = canvas_format_name(in->width, in->height);
	const char *orientation = canvas_orientation(in->width, in->height);
	int mx = in->width / 20, my = in->height / 20;

	fprintf(f, "## The canvas\nThe canvas is %dx%d (%s, %s%s) at %d fps. Every scene's root is "
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\">: draw in those units; any "
		   "other viewBox is refused. Keep text and everything that matters inside the safe area, at "
		   "least %d units from the left and right edges and %d from the top and bottom (x %d to %d, "
		   "y %d to %d).",
		in->width, in->height, format ? format : "custom", orientation,
		in->width < in->height ? ", for phones" : "", in->fps, in->width, in->height, mx, my, mx,
		in->width - mx, my, in->height - my);
	if (in->width < in->height)
		fprintf(f, " The frame is tall and narrow: stack things vertically, one idea per screen, keep "
			   "lines short (a line of 60-unit text holds about 25 characters) and keep the bottom "
			   "sixth free of essential text, where phone apps lay their buttons and captions.");
	else if (in->width == in->height)
		fprintf(f, " The frame is square: centre the content and keep lines short (a line of 60-unit "
			   "text holds about 25 characters).");
	if (in->canvas_changed)
		fprintf(f, " The saved video had another size: redraw every scene for this canvas (its "
			   "viewBox and layout), since scenes of the old size are refused.");
	fprintf(f, "\n\n");
}

char *brief_write(const struct brief_input *in)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "You are the private worker of HB Code's create_explainer_video tool. You make one "
		   "short narrated explainer video out of animated SVG scenes, in your current folder, "
		   "with your tools. Nobody reads your messages: only the finished video counts.\n\n");
	if (in->revision)
		fprintf(f, "This is a REVISION: your folder already holds the scenes and narration of "
			   "the saved video (read_folder shows them). Change what the question asks for, "
			   "keep what still serves it, review the frames you changed, and finish.\n\n");
	fprintf(f, "## The question\n%s\n\n## The facts\n%s\n\n", in->question, in->facts);
	if (in->nsources) {
		fprintf(f, "## The sources\n");
		for (size_t i = 0; i < in->nsources; i++)
			fprintf(f, "- %s\n", in->sources[i]);
		fprintf(f, "\nUse only these facts; do not add claims the sources do not support.\n\n");
	}
	write_canvas(f, in);
	fprintf(f, format_rules, fonts_family_list());
	fputs(block_rules, f);
	fputs(in->narration, f);
	fprintf(f, work_rules, BRIEF_FEWEST_SCENES, BRIEF_MOST_SCENES, FIT_TOTAL_MIN_S,
		FIT_TOTAL_MAX_S, in->finish_attempts, in->minutes);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
