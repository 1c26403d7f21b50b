/*
 * blocks_chart - the bar chart and the line chart: a small table of
 * labelled values drawn as SVG in a box, with a value axis of round steps
 * (1, 2 or 5 times a power of ten) through zero, grid lines, the labels
 * under the plot and the values on the bars (or points, when few).
 *
 * Every bar is a <rect class="bar"> whose height is its value's share of
 * the axis, so a chart's proportions can be checked in its SVG; a line
 * chart is one <polyline class="line">.  Sizes of text follow the box.
 */
#include <math.h>
#include <string.h>

#include "blocks_int.h"

#define GRID "#9aa0a6"
/* DejaVu Sans: an average advance of about 0.6 em for labels and digits. */
#define SANS_ADVANCE 0.6

struct axis {
	double lo, hi, step;
};

/* Round steps through zero that hold every value, about five of them. */
static struct axis axis_of(const struct block_row *rows, size_t n)
{
	struct axis a = { 0, 0, 1 };
	double raw, mag, f;

	for (size_t i = 0; i < n; i++) {
		a.lo = fmin(a.lo, rows[i].value);
		a.hi = fmax(a.hi, rows[i].value);
	}
	/* all zero, or so close to it that the step would underflow */
	if (a.hi - a.lo < 1e-9)
		a.hi = a.lo + 1;
	raw = (a.hi - a.lo) / 5;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	a.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	a.lo = floor(a.lo / a.step) * a.step;
	a.hi = ceil(a.hi / a.step) * a.step;
	return a;
}

/* A value as a person writes it on an axis: 1200, 0.25, 1.5e+09. */
static void number(char *out, size_t outlen, double v)
{
	snprintf(out, outlen, "%.4g", fabs(v) < 1e-12 ? 0.0 : v);
}

static void label(FILE *f, double x, double y, double size, const char *anchor, const char *fill, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"DejaVu Sans\" font-size=\"%.1f\" text-anchor=\"%s\" "
		   "fill=\"%s\">", x, y, size, anchor, fill);
	blocks_text(f, s, strlen(s));
	fputs("</text>\n", f);
}

struct plot {
	double left, top, width, height; /* the plot area */
	struct axis a;
	const char *ink; /* text: light on a dark scene, dark on a light one */
};

static double y_of(const struct plot *p, double v)
{
	return p->top + p->height * (p->a.hi - v) / (p->a.hi - p->a.lo);
}

static void draw_axis(FILE *f, const struct plot *p, double size)
{
	char num[32];
	long steps = lround((p->a.hi - p->a.lo) / p->a.step);

	for (long i = 0; i <= steps; i++) {
		double v = p->a.lo + (double)i * p->a.step, y = y_of(p, v);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\" "
			   "stroke-opacity=\"%s\"/>\n", p->left, y, p->left + p->width, y, GRID,
			fabs(v) < p->a.step / 1e6 ? 3.0 : 1.5, fabs(v) < p->a.step / 1e6 ? "1" : "0.5");
		number(num, sizeof num, v);
		label(f, p->left - size * 0.5, y + size * 0.35, size, "end", p->ink, num);
	}
}

/* Labels under the plot: every k-th when they would overlap. */
static void draw_labels(FILE *f, const struct plot *p, const struct block_row *rows, size_t n, double size)
{
	double slot = p->width / (double)n, widest = 1;
	size_t every;

	for (size_t i = 0; i < n; i++)
		widest = fmax(widest, (double)blocks_chars(rows[i].label, strlen(rows[i].label)) * size * SANS_ADVANCE);
	every = (size_t)ceil(widest * 1.1 / slot);
	every = every < 1 ? 1 : every;
	for (size_t i = 0; i < n; i += every)
		label(f, p->left + slot * ((double)i + 0.5), p->top + p->height + size * 1.3, size, "middle", p->ink,
		      rows[i].label);
}

static void draw_bars(FILE *f, const struct plot *p, const struct block_row *rows, size_t n, const char *colour,
		      double size)
{
	double slot = p->width / (double)n, zero = y_of(p, 0);
	char num[32];

	for (size_t i = 0; i < n; i++) {
		double y = y_of(p, rows[i].value), cx = p->left + slot * ((double)i + 0.5);
		fprintf(f, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
			cx - slot * 0.3, fmin(y, zero), slot * 0.6, fabs(zero - y), colour);
		number(num, sizeof num, rows[i].value);
		if (blocks_chars(num, strlen(num)) * size * SANS_ADVANCE <= slot)
			label(f, cx, rows[i].value >= 0 ? y - size * 0.4 : y + size * 1.1, size, "middle", p->ink, num);
	}
}

static void draw_line(FILE *f, const struct plot *p, const struct block_row *rows, size_t n, const char *colour,
		      double size)
{
	double slot = p->width / (double)n;
	char num[32];

	fprintf(f, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
		   "stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"", colour, fmax(3, size * 0.2));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.2f,%.2f", i ? " " : "", p->left + slot * ((double)i + 0.5), y_of(p, rows[i].value));
	fputs("\"/>\n", f);
	if (n > 24)
		return;
	for (size_t i = 0; i < n; i++) {
		double cx = p->left + slot * ((double)i + 0.5), y = y_of(p, rows[i].value);
		fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"%s\"/>\n", cx, y, fmax(4, size * 0.3),
			colour);
		number(num, sizeof num, rows[i].value);
		if (n <= 12)
			label(f, cx, y - size * 0.7, size * 0.9, "middle", p->ink, num);
	}
}

int block_chart(FILE *f, const struct block_box *b, int line, const struct block_row *rows, size_t n,
		const char *title, const char *colour, const char *theme, char *err, size_t errlen)
{
	size_t most = line ? BLOCKS_LINE_MAX_ROWS : BLOCKS_BAR_MAX_ROWS, axis_chars = 1;
	double size = fmin(48, fmax(b->h / 16, b->w / 40)), title_h;
	struct plot p;
	char num[32];

	if (n == 0 || n > most) {
		snprintf(err, errlen, "data has %zu rows; a %s chart takes 1 to %zu", n, line ? "line" : "bar", most);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(rows[i].value) || fabs(rows[i].value) > 1e15) {
			snprintf(err, errlen, "data row %zu (%s): value must be a finite number within "
				 "+-1e15", i + 1, rows[i].label);
			return -1;
		}
	if (b->h <= 0) {
		snprintf(err, errlen, "a chart needs a height");
		return -1;
	}
	p.a = axis_of(rows, n);
	p.ink = strcmp(theme, "light") == 0 ? "#1a1a1a" : "#e8eaed";
	for (double v = p.a.lo; v <= p.a.hi + p.a.step / 2; v += p.a.step) {
		number(num, sizeof num, v);
		if (strlen(num) > axis_chars)
			axis_chars = strlen(num);
	}
	title_h = title && title[0] ? size * 1.8 : size * 0.5;
	p.left = b->x + (double)axis_chars * size * SANS_ADVANCE + size;
	p.top = b->y + title_h + size;
	p.width = b->x + b->w - p.left;
	p.height = b->y + b->h - size * 2 - p.top;
	if (size * 0.8 < BLOCKS_MIN_FONT || p.width < (double)n * 2 || p.height < size * 3) {
		snprintf(err, errlen, "a %.0fx%.0f block is too small for this chart; give it more room", b->w, b->h);
		return -1;
	}
	fprintf(f, "<g class=\"block-%s-chart\">\n", line ? "line" : "bar");
	if (title && title[0])
		label(f, b->x + b->w / 2, b->y + size * 1.2, size * 1.2, "middle", p.ink, title);
	draw_axis(f, &p, size * 0.8);
	draw_labels(f, &p, rows, n, size * 0.8);
	if (line)
		draw_line(f, &p, rows, n, colour, size * 0.8);
	else
		draw_bars(f, &p, rows, n, colour, size * 0.8);
	fputs("</g>\n", f);
	return 0;
}
