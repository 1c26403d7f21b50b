/*
 * bench-explainer-preview - the time of one preview frame inside a
 * process that has already started (as the explainer service will make
 * previews): open the folder, load the scene, evaluate, draw, write the
 * PNG.  Prints the median and the range over N runs.
 *
 *	bench-explainer-preview DIR SCENE AT OUT.png [N]
 */
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../renderer/folder.h"
#include "../../renderer/fonts.h"
#include "../../renderer/preview.h"
#include "../../renderer/problems.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 5 ? atoi(argv[5]) : 20;
	double *ms, first = 0, t_setup = now_ms();
	char err[1024];

	if (argc < 5 || n < 1 || !(ms = calloc((size_t)n, sizeof *ms))) {
		fprintf(stderr, "usage: bench-explainer-preview DIR SCENE AT OUT.png [N]\n");
		return 2;
	}
	xmlInitParser();
	if (fonts_setup(err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (int i = 0; i <= n; i++) {
		struct problems p = { 0 };
		struct explainer e;
		double t0 = now_ms();
		if (explainer_open(argv[1], &e, &p) < 0 || preview_write(&e, argv[2], argv[3], argv[4], &p, err, sizeof err) < 0) {
			problems_print(&p, stderr);
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		/* The first run warms the fonts and caches, as a service's first preview would. */
		if (i > 0)
			ms[i - 1] = now_ms() - t0;
		else
			first = now_ms() - t_setup;
		explainer_free(&e);
		problems_free(&p);
	}
	qsort(ms, (size_t)n, sizeof *ms, by_value);
	printf("%.1f %.1f %.1f %.1f\n", ms[n / 2], ms[0], ms[n - 1], first);
	free(ms);
	xmlCleanupParser();
	return 0;
}
