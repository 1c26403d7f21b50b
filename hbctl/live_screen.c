/*
 * live_screen - lines redrawn in place (see live_screen.h).  Every line is
 * cut to one screen line shorter than the width (live_line.c), so the
 * n-th line printed is always n screen lines above the cursor's line and
 * ANSI "cursor up n" reaches it; a line that scrolled off the screen
 * cannot be reached, and its row's next change is a new line.
 */
#include "live_screen.h"

#include <stdlib.h>
#include <string.h>

#include "live_line.h"

void live_screen_init(struct live_screen *s, FILE *out, int rows, int width, int colour)
{
	memset(s, 0, sizeof *s);
	s->out = out;
	s->rows = rows;
	s->width = width;
	s->colour = colour;
}

void live_screen_free(struct live_screen *s)
{
	for (size_t i = 0; i < LIVE_SCREEN_SLOTS; i++)
		json_decref(s->slot[i].event);
	memset(s->slot, 0, sizeof s->slot);
}

void live_screen_resize(struct live_screen *s, int rows, int width)
{
	if (width != s->width)
		s->barrier = s->printed;
	s->rows = rows;
	s->width = width;
}

/* The line of slot, its tool's time at now_ms; NULL when out of memory. */
static char *line_of(struct live_screen *s, struct live_slot *sl, long long now_ms)
{
	struct live_head h = { (time_t)sl->when, NULL, *sl->title ? sl->title : NULL, *sl->agent ? sl->agent : NULL,
			       now_ms - sl->start_ms, s->colour };

	h.session = json_string_value(json_object_get(sl->event, "session"));
	return live_line(sl->topic, sl->event, &h, s->width > 1 ? s->width - 1 : 0, &sl->running);
}

/* The slot of line n while it is on the screen and can be redrawn. */
static struct live_slot *on_screen(struct live_screen *s, size_t n)
{
	size_t up = s->printed - n;

	if (s->rows <= 1 || n < s->barrier || n >= s->printed || up >= (size_t)s->rows || up >= LIVE_SCREEN_SLOTS)
		return NULL;
	return &s->slot[n % LIVE_SCREEN_SLOTS];
}

static void redraw(struct live_screen *s, size_t n, const char *line)
{
	size_t up = s->printed - n;

	fprintf(s->out, "\033[%zuA\r\033[2K%s\033[%zuB\r", up, line, up);
	fflush(s->out);
}

int live_screen_show(struct live_screen *s, const char *topic, json_t *event, const char *title, const char *agent,
		     long long now_ms)
{
	char key[LIVE_KEY_MAX];
	long long start_ms = now_ms;
	struct live_slot *sl = NULL;
	size_t n = s->printed, back;
	char *line;

	live_key(topic, event, key, sizeof key);
	for (back = 1; *key && back <= LIVE_SCREEN_SLOTS && back <= s->printed; back++) {
		struct live_slot *old = &s->slot[(s->printed - back) % LIVE_SCREEN_SLOTS];

		if (old->used && strcmp(old->key, key) == 0) {
			start_ms = old->start_ms;
			if ((sl = on_screen(s, s->printed - back)))
				n = s->printed - back;
			break;
		}
	}
	if (!sl) {
		sl = &s->slot[n % LIVE_SCREEN_SLOTS];
		json_decref(sl->event);
		memset(sl, 0, sizeof *sl);
		snprintf(sl->key, sizeof sl->key, "%s", key);
		sl->start_ms = start_ms;
		sl->when = now_ms / 1000;
	}
	json_decref(sl->event);
	sl->event = json_incref(event);
	sl->used = 1;
	snprintf(sl->topic, sizeof sl->topic, "%s", topic);
	snprintf(sl->title, sizeof sl->title, "%s", title ? title : "");
	snprintf(sl->agent, sizeof sl->agent, "%s", agent ? agent : "");
	if (!(line = line_of(s, sl, now_ms)))
		return -1;
	if (!*line) {
		sl->used = n < s->printed;	/* a hidden row takes no line */
	} else if (n < s->printed) {
		redraw(s, n, line);
	} else {
		fprintf(s->out, "%s\n", line);
		fflush(s->out);
		s->printed++;
	}
	free(line);
	return 0;
}

void live_screen_tick(struct live_screen *s, long long now_ms)
{
	for (size_t back = 1; back <= s->printed && back <= LIVE_SCREEN_SLOTS; back++) {
		size_t n = s->printed - back;
		struct live_slot *sl = on_screen(s, n);
		char *line;

		if (!sl)
			break;
		if (!sl->running || !(line = line_of(s, sl, now_ms)))
			continue;
		redraw(s, n, line);
		free(line);
	}
}
