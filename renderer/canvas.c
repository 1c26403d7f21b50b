/*
 * canvas - the formats and frame rates a video may have (canvas.h).
 */
#include "canvas.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int width, height;
} formats[] = {
	{ "16:9", 1920, 1080 },
	{ "9:16", 1080, 1920 },
	{ "1:1", 1080, 1080 },
};

struct canvas canvas_default(void)
{
	return (struct canvas){ CANVAS_DEFAULT_WIDTH, CANVAS_DEFAULT_HEIGHT, CANVAS_DEFAULT_FPS };
}

const char *canvas_format_name(int width, int height)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (formats[i].width == width && formats[i].height == height)
			return formats[i].name;
	return NULL;
}

const char *canvas_orientation(int width, int height)
{
	return width > height ? "landscape" : width < height ? "vertical" : "square";
}

int canvas_take_format(const json_t *v, struct canvas *c, char *err, size_t errlen)
{
	const char *name = json_string_value(v);

	for (size_t i = 0; name && i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(formats[i].name, name) == 0) {
			c->width = formats[i].width;
			c->height = formats[i].height;
			return 0;
		}
	if (name)
		snprintf(err, errlen, "\"format\" is \"%.40s\", which is not a format; give " CANVAS_FORMAT_CHOICES,
			 name);
	else
		snprintf(err, errlen, "\"format\" must be a string: " CANVAS_FORMAT_CHOICES);
	return -1;
}

int canvas_take_fps(const json_t *v, struct canvas *c, char *err, size_t errlen)
{
	double fps = json_number_value(v);

	if (json_is_number(v) && (fps == 30 || fps == 60)) {
		c->fps = (int)fps;
		return 0;
	}
	if (json_is_number(v) && isfinite(fps))
		snprintf(err, errlen, "\"fps\" is %g, which is not a frame rate a video may have; give "
			 CANVAS_FPS_CHOICES, fps);
	else
		snprintf(err, errlen, "\"fps\" must be a number: " CANVAS_FPS_CHOICES);
	return -1;
}

int canvas_read(const json_t *obj, struct canvas *c, char *err, size_t errlen)
{
	const json_t *format = json_object_get(obj, "format"), *fps = json_object_get(obj, "fps");

	if (format && canvas_take_format(format, c, err, errlen) < 0)
		return -1;
	if (fps && canvas_take_fps(fps, c, err, errlen) < 0)
		return -1;
	return 0;
}

int canvas_read_file(const json_t *obj, const char *file, int *width, int *height, int *fps, struct problems *p)
{
	struct canvas c = canvas_default();
	char err[256];

	if (canvas_read(obj, &c, err, sizeof err) < 0) {
		problems_add(p, file, 0, "%s", err);
		return -1;
	}
	*width = c.width;
	*height = c.height;
	*fps = c.fps;
	return 0;
}

int canvas_write(json_t *obj, const struct canvas *c)
{
	const char *name = canvas_format_name(c->width, c->height);

	if (!name || json_object_set_new(obj, "format", json_string(name)) < 0 ||
	    json_object_set_new(obj, "fps", json_integer(c->fps)) < 0)
		return -1;
	return 0;
}
