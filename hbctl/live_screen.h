/*
 * live_screen - the live view's lines on a terminal (hbctl watch
 * --timeline): a new row is a new line; a row that changes (a running
 * tool's elapsed time, then its result; an approval answered; a message
 * sent) is redrawn in place while its line is still on the screen, by
 * moving the cursor up to it, instead of being printed again.  Without a
 * terminal (rows 0) every change is a new line.
 */
#ifndef HBCTL_LIVE_SCREEN_H
#define HBCTL_LIVE_SCREEN_H

#include <jansson.h>
#include <stdio.h>

#define LIVE_SCREEN_SLOTS 256	/* the last lines it can still redraw */
#define LIVE_KEY_MAX      232
#define LIVE_NAME_MAX     128

struct live_slot {
	char key[LIVE_KEY_MAX];
	char topic[32];
	char title[LIVE_NAME_MAX], agent[16];
	json_t *event;		/* what the line shows, for a redraw */
	long long start_ms;	/* when its key was first seen: a running tool's start */
	long long when;		/* the line's time, seconds */
	int running;
	int used;
};

struct live_screen {
	FILE *out;
	int rows, width;	/* the terminal's; rows 0: not a terminal, no redraw */
	int colour;
	size_t printed;		/* lines printed so far */
	size_t barrier;		/* lines before it were printed at another width: never redrawn */
	struct live_slot slot[LIVE_SCREEN_SLOTS];	/* line n at slot[n % LIVE_SCREEN_SLOTS] */
};

void live_screen_init(struct live_screen *s, FILE *out, int rows, int width, int colour);
void live_screen_free(struct live_screen *s);
/* Show event (topic's; caller keeps it, the screen takes a reference) of
 * the session titled title (NULL: its id) and agent (NULL: the row's),
 * at now_ms: in place of its line while that is on the screen, else as a
 * new line.  0, or -1 when out of memory. */
int live_screen_show(struct live_screen *s, const char *topic, json_t *event, const char *title, const char *agent,
		     long long now_ms);
/* The terminal's size now: after a change of width the lines printed
 * before may wrap differently, so they are no longer redrawn. */
void live_screen_resize(struct live_screen *s, int rows, int width);
/* Redraw the lines of running tools still on the screen with their time. */
void live_screen_tick(struct live_screen *s, long long now_ms);

#endif
