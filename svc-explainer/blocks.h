/*
 * blocks - the explainer worker's building blocks: a syntax-highlighted
 * code block, a bar chart, a line chart, an arrow, a callout and colour
 * emoji, each made from a few arguments as one SVG fragment, a <g> the
 * worker pastes into a scene it writes with write_scene (worker_tools.c:
 * make_block).
 *
 * A block is plain SVG in the scene: only elements, attributes and fonts
 * the scene checks accept (scene.h: DejaVu Sans and DejaVu Sans Mono, no
 * reference but a data: PNG, no id that two blocks could both use), so it is
 * checked with the scene and renders the same in a preview and in the
 * video, and the worker may edit or animate it like anything it wrote.
 * Coordinates are the scene's user units; nothing here assumes a canvas
 * size.  The code block's colours come from pygments (Debian's
 * python3-pygments) run once per block (blocks_code.c); the rest is drawn
 * here, except the emoji block: an <image> of a PNG pango-cairo draws
 * (blocks_emoji.c), since librsvg draws emoji text in one colour.  There
 * is no formula block: docs/explainer.md says why.
 */
#ifndef EXPLAINER_BLOCKS_H
#define EXPLAINER_BLOCKS_H

#include <jansson.h>
#include <stddef.h>

#define BLOCKS_TOOL_DESCRIPTION                                                                              \
	"Make a building block as an SVG fragment (one <g>) to paste into a scene's SVG with write_scene: "   \
	"kind code (syntax-highlighted source: code, language such as python, c, javascript, rust, bash, "    \
	"json, sql; theme dark or light; font_size), bar_chart or line_chart (data: [{label, value}], "      \
	"title, colour), arrow (from [x,y], to [x,y], colour), callout (text in a box, with a pointer to "  \
	"point [x,y] when given, colour) or emoji (text: one to 8 emoji such as \"🚀\" or \"👩‍💻\", drawn in "  \
	"colour as a picture size tall; x, y its top left corner). x, y, width, height place the block in "  \
	"scene units (height "                                                                                \
	"optional for code and callout: it then fits the content). Answers the fragment or what is wrong."

#define BLOCKS_NUM_SCHEMA(what) "{\"type\":\"number\",\"description\":\"" what "\"}"
#define BLOCKS_POINT_SCHEMA(what)                                                                            \
	"{\"type\":\"array\",\"items\":{\"type\":\"number\"},\"minItems\":2,\"maxItems\":2,\"description\":\"" \
	what "\"}"

#define BLOCKS_TOOL_SCHEMA                                                                                   \
	"{\"type\":\"object\",\"properties\":{"                                                                \
	"\"kind\":{\"type\":\"string\",\"enum\":[\"code\",\"bar_chart\",\"line_chart\",\"arrow\",\"callout\","  \
	"\"emoji\"]}," \
	"\"x\":" BLOCKS_NUM_SCHEMA("Left edge of the block.") ","                                              \
	"\"y\":" BLOCKS_NUM_SCHEMA("Top edge of the block.") ","                                               \
	"\"width\":" BLOCKS_NUM_SCHEMA("Width of the block.") ","                                              \
	"\"height\":" BLOCKS_NUM_SCHEMA("Height of the block (charts: required).") ","  \
	"\"size\":" BLOCKS_NUM_SCHEMA("emoji: their height, 16 to 1080.") ","                         \
	"\"code\":{\"type\":\"string\",\"description\":\"code: the source text.\"},"                           \
	"\"language\":{\"type\":\"string\",\"description\":\"code: the language's pygments name.\"},"            \
	"\"theme\":{\"type\":\"string\",\"enum\":[\"dark\",\"light\"]},"                                       \
	"\"font_size\":" BLOCKS_NUM_SCHEMA("code, callout: the largest text size (it shrinks to fit).") ","    \
	"\"data\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"label\":{\"type\":"      \
	"\"string\"},\"value\":{\"type\":\"number\"}},\"required\":[\"label\",\"value\"]},"                     \
	"\"description\":\"Charts: the rows, in order.\"},"                                                    \
	"\"title\":{\"type\":\"string\",\"description\":\"Charts: a title above the plot.\"},"                  \
	"\"colour\":{\"type\":\"string\",\"description\":\"#rrggbb: bars, line, arrow or callout box.\"},"      \
	"\"from\":" BLOCKS_POINT_SCHEMA("arrow: its tail [x, y].") ","                                         \
	"\"to\":" BLOCKS_POINT_SCHEMA("arrow: its head [x, y].") ","                                           \
	"\"text\":{\"type\":\"string\",\"description\":\"callout: its text; emoji: 1 to 8 emoji.\"},"                                \
	"\"point\":" BLOCKS_POINT_SCHEMA("callout: the [x, y] its pointer points at.") "},"                    \
	"\"required\":[\"kind\"],\"additionalProperties\":false}"

/* The block args describes (an object of the schema's fields): 0 with
 * *svg, a <g> element's text (caller frees), or -1 with a sentence in err
 * naming the argument that is wrong (an argument the kind does not take is
 * wrong too), nothing made. */
int blocks_make(const json_t *args, char **svg, char *err, size_t errlen);

#endif
