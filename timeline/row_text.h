/*
 * row_text - a timeline row as a person reads it in a terminal: one header
 * line and a few lines of detail, indented by subagent depth, with ANSI
 * colour or plain (hbctl watch --timeline).
 */
#ifndef HB_TIMELINE_ROW_TEXT_H
#define HB_TIMELINE_ROW_TEXT_H

#include <jansson.h>

#define TL_RENDER_LINES 20	/* detail lines of one row; the rest is counted */

/* The row's text, ending in a newline; "" for a hidden row; NULL when out
 * of memory.  Malloc'd. */
char *tl_render(const json_t *row, int colour);
/* The same; update: the row replaces one printed before (a tool call
 * completed, a live row by its saved row), and its header says so with
 * TL_RENDER_UPDATE, since a terminal cannot change what it printed. */
#define TL_RENDER_UPDATE "(update) "
char *tl_render_as(const json_t *row, int colour, int update);

#endif
