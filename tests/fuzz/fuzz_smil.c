/*
 * fuzz_smil - an explainer scene as the worker's tools read it
 * (renderer/scene.c): the SVG parsed with the scene's own parser
 * settings, its checks (scene_check.c, scene_css.c), the SMIL animations
 * built (smil*.c), then evaluated and written out at a few times, as the
 * renderer does frame by frame, without drawing any pixels.
 *
 * The work per input is bounded: a handful of times, whatever the scene
 * asks for (the renderer's own frame count comes from the script).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../renderer/problems.h"
#include "../../renderer/scene.h"
#include "fuzz.h"

/* Frame times: before, at and after the usual begins and ends, and far on. */
static const double times[] = { 0, 1.0 / 30, 0.5, 1, 2.5, 7.25, 60, 1e7 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct problems p = { 0 };
	struct scene *s;
	const char *svg, *still, *moving;
	size_t len, still_len, moving_len;
	char path[64], err[256], first[256];
	int fd;

	fd = memfd_create("scene1.svg", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	s = scene_load(path, "scene1.svg", 1920, 1080, &p);
	if (s) {
		if (p.n)
			abort(); /* a scene that loads has no problem */
		for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
			(void)scene_svg_at(s, times[i], &svg, &len, err, sizeof err);
			(void)scene_layers_at(s, times[i], &still, &still_len, &moving, &moving_len, err, sizeof err);
		}
		scene_free(s);
	} else if (p.n == 0) {
		abort(); /* a refused scene must say why */
	}
	problems_first(&p, first, sizeof first);
	problems_free(&p);
	close(fd);
	return 0;
}
