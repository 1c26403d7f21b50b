/*
 * test_explainer_blocks - the worker's building blocks (svc-explainer/
 * blocks.h): each block's fragment parses as XML, passes the scene checks
 * once pasted into a scene (written with the worker's own write_scene)
 * and renders (preview_scene's PNG) with ink where the block says it is:
 * a Python listing in at least three token colours, bars as tall as their
 * values, a line through its values, an arrow and a callout with its
 * pointer, emoji in colour where the same emoji as <text> have none.
 * Bad input of every kind is a sentence naming what is wrong
 * (and 600 random argument sets never crash a block nor make a fragment
 * that does not parse), and the highlighter's runner stops a program that
 * runs too long or writes too much.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cairo.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../svc-explainer/blocks.h"
#include "../../svc-explainer/blocks_int.h"
#include "../../svc-explainer/blocks_python.h"
#include "../../svc-explainer/workdir.h"
#include "../../lib/clock.h"
#include "../harness/group.h"
#include "workdir_rig.h"

#define BACKGROUND 0x101820

/* The block args_json describes; fails the test when it is refused. */
static char *block(const char *args_json)
{
	json_t *a = json_loads(args_json, 0, NULL);
	char err[512], *svg;

	assert_non_null(a);
	if (blocks_make(a, &svg, err, sizeof err) < 0)
		fail_msg("%s refused: %s", args_json, err);
	json_decref(a);
	return svg;
}

/* Asserts that args (taken over) is refused with a sentence holding want. */
static void refused_json(json_t *a, const char *want)
{
	char err[512] = "", *svg = (char *)"untouched";

	assert_non_null(a);
	if (blocks_make(a, &svg, err, sizeof err) == 0 || !strstr(err, want))
		fail_msg("wanted a refusal with \"%s\", got \"%s\"", want, svg ? svg : err);
	assert_null(svg);
	json_decref(a);
}

static void refused(const char *args_json, const char *want)
{
	json_t *a = json_loads(args_json, 0, NULL);

	if (!a)
		fail_msg("the test's JSON does not parse: %s", args_json);
	refused_json(a, want);
}

/* The fragment alone is well-formed XML with one <g> root; its document. */
static xmlDocPtr parse(const char *svg)
{
	xmlDocPtr doc = xmlReadMemory(svg, (int)strlen(svg), "block.xml", NULL, XML_PARSE_NONET);

	assert_non_null(doc);
	assert_string_equal((const char *)xmlDocGetRootElement(doc)->name, "g");
	return doc;
}

/* a then b, in a new string. */
static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 1;
	char *s = malloc(n);

	assert_non_null(s);
	snprintf(s, n, "%s%s", a, b);
	return s;
}

/* Pastes the fragment into a scene written with write_scene (so the
 * scene checks run on it: it must pass them) and renders its first frame. */
static cairo_surface_t *render(const struct fixture *f, const char *fragment)
{
	char *head = join("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1920 1080\">\n"
			  "<rect width=\"1920\" height=\"1080\" fill=\"#101820\"/>\n", fragment);
	char *scene = join(head, "</svg>\n");
	struct workdir_answer a;
	cairo_surface_t *img;

	free(head);
	write_ok(f, "01-block.svg", scene, SAY, 2, 0, "passes the checks");
	a = workdir_preview(f->dir, "01-block.svg", "start");
	assert_int_equal(a.ok, 1);
	expect_png(&a, 1920, 1080);
	img = png_image(&a);
	workdir_answer_free(&a);
	free(scene);
	return img;
}

static uint32_t at(cairo_surface_t *img, int x, int y)
{
	const unsigned char *row = cairo_image_surface_get_data(img) + (size_t)y * (size_t)cairo_image_surface_get_stride(img);

	return ((const uint32_t *)(const void *)row)[x] & 0xffffff;
}

/* Pixels of exactly colour rgb in the rectangle. */
static size_t count(cairo_surface_t *img, uint32_t rgb, int x0, int y0, int x1, int y1)
{
	size_t n = 0;

	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			n += at(img, x, y) == rgb;
	return n;
}

/* The attribute name of every element named element, in document order. */
static size_t attrs(xmlNodePtr n, const char *element, const char *name, char out[][64], size_t max)
{
	size_t got = 0;

	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)n->name, element) == 0 && got < max) {
			xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
			snprintf(out[got++], 64, "%s", v ? (const char *)v : "");
			xmlFree(v);
		}
		got += attrs(n->children, element, name, out + got, max - got);
	}
	return got;
}

#define PYTHON_SNIPPET                                                                                   \
	"def area(r):\n"                                                                                 \
	"    \"\"\"The area of a circle.\"\"\"\n"                                                       \
	"    if r < 0 and r > -1 or r & 1:  # <&>\n"                                                     \
	"        return None\n"                                                                          \
	"    return 3.14159 * r ** 2\n"

static void test_code(void **state)
{
	json_t *a = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i}", "kind", "code", "language", "python", "code", PYTHON_SNIPPET,
			      "x", 160, "y", 200, "width", 1400);
	char *svg = json_dumps(a, 0), *frag = block(svg), fills[256][64];
	xmlDocPtr doc = parse(frag);
	size_t n = attrs(xmlDocGetRootElement(doc), "tspan", "fill", fills, 256), distinct = 0, inked = 0;
	cairo_surface_t *img;

	assert_non_null(strstr(frag, "# &lt;&amp;&gt;")); /* the comment, escaped */
	assert_non_null(strstr(frag, "font-family=\"DejaVu Sans Mono\""));
	img = render(*state, frag);
	assert_int_equal(at(img, 170, 210), 0x272822); /* the dark theme's panel */
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		uint32_t rgb = (uint32_t)strtoul(fills[i] + 1, NULL, 16);
		for (size_t k = 0; k < i; k++)
			seen |= strcmp(fills[k], fills[i]) == 0;
		if (seen)
			continue;
		distinct++;
		/* a colour the text is drawn in covers whole pixels of its stems */
		inked += count(img, rgb, 160, 200, 1560, 700) >= 20;
	}
	assert_true(distinct >= 3);
	assert_true(inked >= 3);
	cairo_surface_destroy(img);
	xmlFreeDoc(doc);
	free(frag);
	free(svg);
	json_decref(a);
}

static void test_code_light_and_fit(void **state)
{
	char *frag = block("{\"kind\":\"code\",\"language\":\"c\",\"theme\":\"light\",\"code\":\"int main(void)\\n{\\n"
			   "\\treturn 0;\\n}\\n\",\"x\":100,\"y\":100,\"width\":600,\"height\":300,\"font_size\":90}");
	xmlDocPtr doc = parse(frag);
	char sizes[16][64];
	size_t n = attrs(xmlDocGetRootElement(doc), "text", "font-size", sizes, 16);
	cairo_surface_t *img;

	(void)state;
	assert_int_equal(n, 4); /* one <text> a line */
	/* 4 lines in 300 units: 300 / (4 * 1.35 + 1.5) */
	assert_true(fabs(atof(sizes[0]) - 300 / (4 * 1.35 + 1.5)) < 0.1);
	assert_non_null(strstr(frag, "height=\"300.0\""));
	assert_null(strchr(frag, '\t')); /* the tab, expanded */
	assert_non_null(strstr(frag, "return"));
	img = render(*state, frag);
	assert_int_equal(at(img, 110, 110), 0xf8f8f8);
	cairo_surface_destroy(img);
	xmlFreeDoc(doc);
	free(frag);
}

static void test_code_refused(void **state)
{
	json_t *a;

	(void)state;
	refused("{\"kind\":\"code\",\"language\":\"klingon\",\"code\":\"x = 1\",\"x\":0,\"y\":0,\"width\":800}",
		"pygments does not know the language \"klingon\"");
	refused("{\"kind\":\"code\",\"language\":\"python\",\"code\":\"\",\"x\":0,\"y\":0,\"width\":800}", "code is empty");
	refused("{\"kind\":\"code\",\"language\":\"python\",\"code\":\"a\\u0001b\",\"x\":0,\"y\":0,\"width\":800}",
		"the character U+0001 at byte 1");
	refused("{\"kind\":\"code\",\"language\":\"python\",\"code\":\"x = 1\",\"x\":0,\"y\":0,\"width\":800,"
		"\"theme\":\"neon\"}", "theme must be dark or light");
	refused("{\"kind\":\"code\",\"language\":\"python\",\"code\":\"x = 1\",\"y\":0,\"width\":800}", "x is required");
	refused("{\"kind\":\"code\",\"language\":\"python\",\"code\":\"x = 1\",\"x\":0,\"y\":0,\"width\":-5}",
		"width must be a number");
	refused("{\"kind\":\"code\",\"language\":\"python\",\"code\":\"" /* 200 columns in 400 units */
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"\",\"x\":0,\"y\":0,\"width\":400}", "does not fit");
	a = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i}", "kind", "code", "language", "python", "code", "", "x", 0, "y", 0,
		      "width", 1600);
	json_object_set_new(a, "code", json_string(
		"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n"
		"28\n29\n30\n31\n32\n33\n34\n35\n36\n37\n38\n39\n40\n41\n42\n43\n44\n45\n46\n47\n48\n49\n50\n51\n52\n"
		"53\n54\n55\n56\n57\n58\n59\n60\n61\n62\n63\n64\n65\n66\n67\n68\n69\n70\n71\n72\n73\n74\n75\n76\n77\n"
		"78\n79\n80\n81\n82\n83\n84\n85\n"));
	refused_json(a, "at most 80");
	/* U+0000 cannot come through JSON text (the tool's parser refuses
	 * it), but a string may hold one: refused, not cut short */
	a = json_pack("{s:s,s:s,s:i,s:i,s:i}", "kind", "code", "language", "python", "x", 0, "y", 0, "width", 800);
	json_object_set_new(a, "code", json_stringn("a = 1\0; b", 9));
	refused_json(a, "U+0000");
}

/* The bars' heights, in data order. */
static size_t bar_heights(xmlDocPtr doc, double *h, size_t max)
{
	size_t n = 0;

	for (xmlNodePtr e = xmlDocGetRootElement(doc)->children; e; e = e->next) {
		xmlChar *cls = e->type == XML_ELEMENT_NODE ? xmlGetProp(e, (const xmlChar *)"class") : NULL;
		if (cls && strcmp((const char *)cls, "bar") == 0 && n < max) {
			xmlChar *v = xmlGetProp(e, (const xmlChar *)"height");
			h[n++] = atof((const char *)v);
			xmlFree(v);
		}
		xmlFree(cls);
	}
	return n;
}

static void test_bar_chart(void **state)
{
	static const double values[] = { 10, 20, 40, 5 };
	char *frag = block("{\"kind\":\"bar_chart\",\"title\":\"Jars <sold> & kept\",\"colour\":\"#ffd166\","
			   "\"data\":[{\"label\":\"2021\",\"value\":10},{\"label\":\"2022\",\"value\":20},"
			   "{\"label\":\"2023\",\"value\":40},{\"label\":\"2024\",\"value\":5}],"
			   "\"x\":200,\"y\":100,\"width\":1400,\"height\":800}");
	xmlDocPtr doc = parse(frag);
	double h[8];
	cairo_surface_t *img;

	assert_int_equal(bar_heights(doc, h, 8), 4);
	for (int i = 0; i < 4; i++) /* each bar's height is its value's share */
		assert_true(fabs(h[i] / h[2] - values[i] / values[2]) < 0.002);
	assert_non_null(strstr(frag, "Jars &lt;sold&gt; &amp; kept"));
	img = render(*state, frag);
	/* the tallest bar is solid at its middle, the shortest only low down */
	assert_true(count(img, 0xffd166, 200, 100, 1600, 900) > (size_t)(h[0] + h[1] + h[2] + h[3]) * 50);
	assert_true(count(img, 0xffd166, 200, 100, 1600, 900) < (size_t)(h[0] + h[1] + h[2] + h[3]) * 400);
	cairo_surface_destroy(img);
	xmlFreeDoc(doc);
	free(frag);
}

static void test_line_chart(void **state)
{
	char *frag = block("{\"kind\":\"line_chart\",\"theme\":\"light\",\"data\":[{\"label\":\"Mon\",\"value\":-3},"
			   "{\"label\":\"Tue\",\"value\":1.5},{\"label\":\"Wed\",\"value\":6}],"
			   "\"x\":100,\"y\":100,\"width\":1200,\"height\":700}");
	const char *points = strstr(frag, "points=\"");
	double x[3], y[3];
	cairo_surface_t *img;

	assert_non_null(strstr(frag, "<polyline class=\"line\""));
	assert_non_null(points);
	assert_int_equal(sscanf(points, "points=\"%lf,%lf %lf,%lf %lf,%lf\"", &x[0], &y[0], &x[1], &y[1], &x[2], &y[2]),
			 6);
	/* heights along the value axis in proportion to the values' steps */
	assert_true(fabs((y[0] - y[1]) / (y[0] - y[2]) - 4.5 / 9) < 0.002);
	assert_true(x[0] < x[1] && x[1] < x[2]);
	xmlFreeDoc(parse(frag));
	img = render(*state, frag);
	assert_true(count(img, 0x4e9af1, 100, 100, 1300, 800) > 500); /* the line, in the default colour */
	assert_int_equal(at(img, (int)x[1], (int)y[1]), 0x4e9af1);       /* a point on it */
	cairo_surface_destroy(img);
	free(frag);
}

static void test_chart_refused(void **state)
{
	struct block_row nan_row[] = { { "a", 1 }, { "b", NAN } };
	struct block_box b = { 0, 0, 800, 600 };
	json_t *a, *rows = json_array();
	char err[256], *tiny;
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	refused("{\"kind\":\"bar_chart\",\"data\":[],\"x\":0,\"y\":0,\"width\":800,\"height\":600}",
		"data has 0 rows; this chart takes 1 to 40");
	refused("{\"kind\":\"bar_chart\",\"x\":0,\"y\":0,\"width\":800,\"height\":600}", "data must be an array");
	refused("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":\"NaN\"}],\"x\":0,\"y\":0,\"width\":800,"
		"\"height\":600}", "data row 1 must be");
	refused("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":1e300}],\"x\":0,\"y\":0,\"width\":800,"
		"\"height\":600}", "data row 1 (a): value must be");
	refused("{\"kind\":\"line_chart\",\"data\":[{\"label\":\"a\",\"value\":1}],\"x\":0,\"y\":0,\"width\":800}",
		"needs a height");
	refused("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":1}],\"x\":0,\"y\":0,\"width\":800,"
		"\"height\":600,\"code\":\"x\"}", "code is not an argument of a bar_chart block");
	refused("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":1}],\"x\":0,\"y\":0,\"width\":800,"
		"\"height\":600,\"colour\":\"red\"}", "colour must be written #rrggbb");
	refused("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":1}],\"x\":0,\"y\":0,\"width\":80,"
		"\"height\":60}", "too small");
	/* what XML cannot carry never reaches the scene, wherever it is */
	refused("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\\u0007\",\"value\":1}],\"x\":0,\"y\":0,"
		"\"width\":800,\"height\":600}", "data row 1's label has the character U+0007 at byte 1");
	refused("{\"kind\":\"line_chart\",\"data\":[{\"label\":\"a\",\"value\":1}],\"title\":\"x\\uffff\",\"x\":0,"
		"\"y\":0,\"width\":800,\"height\":600}", "title has the character U+FFFF at byte 1");
	/* a value so small its step would underflow: an axis from 0 to 1,
	 * every number in the SVG a number */
	tiny = block("{\"kind\":\"bar_chart\",\"data\":[{\"label\":\"a\",\"value\":5e-324}],\"x\":0,\"y\":0,"
		     "\"width\":800,\"height\":600}");
	assert_null(strstr(tiny, "nan"));
	assert_null(strstr(tiny, "inf"));
	assert_non_null(strstr(tiny, ">1</text>"));
	free(tiny);
	refused("{\"kind\":\"pie_chart\"}", "kind must be one of code, bar_chart, line_chart, arrow, callout");
	refused("{\"x\":1}", "kind must be one of");
	for (int i = 0; i < 10000; i++)
		json_array_append_new(rows, json_pack("{s:s,s:i}", "label", "r", "value", i));
	a = json_pack("{s:s,s:o,s:i,s:i,s:i,s:i}", "kind", "line_chart", "data", rows, "x", 0, "y", 0, "width", 800,
		      "height", 600);
	refused_json(a, "data has 10000 rows; this chart takes 1 to 200");
	/* NaN cannot come through JSON; the drawing refuses it all the same */
	assert_non_null(f);
	assert_int_equal(block_chart(f, &b, 0, nan_row, 2, NULL, "#ffffff", "dark", err, sizeof err), -1);
	assert_non_null(strstr(err, "data row 2 (b): value must be"));
	fclose(f);
}

static void test_arrow_and_callout(void **state)
{
	char *arrow = block("{\"kind\":\"arrow\",\"from\":[100,500],\"to\":[900,500],\"colour\":\"#06d6a0\"}");
	char *callout = block("{\"kind\":\"callout\",\"text\":\"Pectin & sugar <set> the jam when it cools.\","
			      "\"x\":1000,\"y\":200,\"width\":600,\"point\":[1300,700]}");
	char *both;
	cairo_surface_t *img;

	xmlFreeDoc(parse(arrow));
	xmlFreeDoc(parse(callout));
	assert_non_null(strstr(callout, "Pectin &amp; sugar &lt;set&gt;"));
	both = join(arrow, callout);
	img = render(*state, both);
	assert_int_equal(at(img, 500, 500), 0x06d6a0); /* the shaft */
	assert_int_equal(at(img, 880, 500), 0x06d6a0); /* the head */
	assert_int_equal(at(img, 870, 488), 0x06d6a0); /* wider than the shaft */
	assert_int_equal(at(img, 500, 488), BACKGROUND);
	assert_int_equal(at(img, 1010, 230), 0xfff3b0); /* the box */
	assert_int_equal(at(img, 1300, 650), 0xfff3b0); /* the pointer, near its tip */
	assert_true(count(img, 0x1a1a1a, 1000, 200, 1600, 500) > 100); /* dark text on the pale box */
	cairo_surface_destroy(img);
	free(both);
	free(arrow);
	free(callout);
	/* a point far to the left and a little above: the pointer leaves the
	 * left side (its base is upright), not a sliver from the top */
	callout = block("{\"kind\":\"callout\",\"text\":\"Here\",\"x\":1000,\"y\":500,\"width\":400,"
			"\"point\":[200,450]}");
	{
		double ax, ay, px, py, cx, cy;
		const char *poly = strstr(callout, "<polygon points=\"");
		assert_non_null(poly);
		assert_int_equal(sscanf(poly, "<polygon points=\"%lf,%lf %lf,%lf %lf,%lf\"", &ax, &ay, &px, &py, &cx, &cy), 6);
		assert_true(ax == cx && ax > 1000 && ax < 1002);
		assert_true(px == 200 && py == 450);
	}
	free(callout);
	refused("{\"kind\":\"arrow\",\"from\":[100,500],\"to\":[110,500]}", "the arrow is 10 long");
	refused("{\"kind\":\"arrow\",\"from\":[100],\"to\":[110,500]}", "from must be a point [x, y]");
	refused("{\"kind\":\"arrow\",\"from\":[100,500],\"to\":[900,500],\"x\":3}", "x is not an argument of a arrow");
	refused("{\"kind\":\"callout\",\"text\":\"Hi\",\"x\":100,\"y\":100,\"width\":400,\"point\":[200,120]}",
		"is inside the callout's box");
	refused("{\"kind\":\"callout\",\"text\":\"\",\"x\":100,\"y\":100,\"width\":400}", "text must be 1 to 600 bytes");
	refused("{\"kind\":\"callout\",\"text\":\"a\\tb\",\"x\":100,\"y\":100,\"width\":400}", "text has the character U+0009");
	refused("{\"kind\":\"callout\",\"text\":\"A sentence far too long for so small a box, it goes on and on.\","
		"\"x\":100,\"y\":100,\"width\":200,\"height\":40}", "does not fit");
}

/* Pixels in the rectangle of a saturated, not dark colour (HSV saturation
 * above 0.6, value above 0.3); hues[6] counts them by sixth of the hue
 * circle. */
static size_t colourful(cairo_surface_t *img, int x0, int y0, int x1, int y1, size_t hues[6])
{
	size_t n = 0;

	memset(hues, 0, 6 * sizeof hues[0]);
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++) {
			uint32_t p = at(img, x, y);
			double r = (p >> 16) / 255.0, g = (p >> 8 & 0xff) / 255.0, b = (p & 0xff) / 255.0;
			double hi = fmax(r, fmax(g, b)), lo = fmin(r, fmin(g, b)), d = hi - lo, h;
			if (hi < 0.3 || d / hi <= 0.6)
				continue;
			h = hi == r ? fmod((g - b) / d + 6, 6) : hi == g ? (b - r) / d + 2 : (r - g) / d + 4;
			hues[(int)h % 6]++;
			n++;
		}
	return n;
}

#define ROCKET_CODER "\xf0\x9f\x9a\x80\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb" /* 🚀👩‍💻 */

/* The emoji block is in colour (several hues, saturated) where the same
 * emoji as <text> in the scene are one colour; it sits where asked. */
static void test_emoji(void **state)
{
	char *frag = block("{\"kind\":\"emoji\",\"text\":\"" ROCKET_CODER "\",\"x\":200,\"y\":300,\"size\":200}");
	/* with U+FE0F, which the font lacks: drawn in colour all the same */
	char *heart_key = block("{\"kind\":\"emoji\",\"text\":\"\xe2\x9d\xa4\xef\xb8\x8f" "1\xef\xb8\x8f\xe2\x83\xa3\","
				"\"x\":200,\"y\":650,\"size\":200}");
	char *both, *all, widths[1][64], heights[1][64], hrefs[1][64];
	xmlDocPtr doc = parse(frag);
	size_t hues[6], in_block, in_text, spread = 0;
	double w;
	cairo_surface_t *img;

	assert_int_equal(attrs(xmlDocGetRootElement(doc), "image", "href", hrefs, 1), 1);
	assert_int_equal(strncmp(hrefs[0], "data:image/png;base64,iVBORw0KGgo", 33), 0);
	assert_int_equal(attrs(xmlDocGetRootElement(doc), "image", "height", heights, 1), 1);
	assert_int_equal(attrs(xmlDocGetRootElement(doc), "image", "width", widths, 1), 1);
	assert_string_equal(heights[0], "200.0");
	w = strtod(widths[0], NULL);
	assert_true(w > 300 && w < 600); /* two emoji, each about as wide as tall */
	xmlFreeDoc(doc);
	both = join(frag, "<text x=\"1000\" y=\"460\" font-size=\"160\" fill=\"#ffffff\">" ROCKET_CODER "</text>\n");
	all = join(both, heart_key);
	img = render(*state, all);
	in_block = colourful(img, 200, 650, 600, 850, hues);
	if (in_block < 5000 || hues[0] < 2000) /* the heart is red */
		fail_msg("%zu colourful pixels, %zu red, in the heart and keycap", in_block, hues[0]);
	in_block = colourful(img, 200, 300, 200 + (int)w, 500, hues);
	for (int i = 0; i < 6; i++)
		spread += hues[i] >= 200;
	in_text = colourful(img, 1000, 280, 1600, 520, hues);
	if (in_block < 5000 || spread < 2 || in_text != 0)
		fail_msg("%zu colourful pixels in %zu hues in the block, %zu in the text", in_block, spread, in_text);
	assert_true(count(img, 0xffffff, 1000, 280, 1600, 520) > 1000); /* the text is drawn, white */
	assert_true(colourful(img, 0, 0, 190, 1080, hues) == 0); /* nothing left of the blocks */
	cairo_surface_destroy(img);
	free(all);
	free(heart_key);
	free(both);
	free(frag);
	/* a keycap, a flag and a skin tone are emoji; eight of the largest
	 * stay well inside a scene's limits */
	frag = block("{\"kind\":\"emoji\",\"text\":\"1\xef\xb8\x8f\xe2\x83\xa3\xf0\x9f\x87\xab\xf0\x9f\x87\xb7"
		     "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd\",\"x\":0,\"y\":0,\"size\":16}");
	free(frag);
	frag = block("{\"kind\":\"emoji\",\"text\":\"\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80"
		     "\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\",\"x\":0,\"y\":0,\"size\":1080}");
	assert_true(strlen(frag) < 4u << 20);
	free(frag);
}

static void test_emoji_refused(void **state)
{
	(void)state;
	refused("{\"kind\":\"emoji\",\"text\":\"\",\"x\":0,\"y\":0,\"size\":100}", "text must hold one to 8 emoji");
	refused("{\"kind\":\"emoji\",\"text\":\"a\",\"x\":0,\"y\":0,\"size\":100}", "\"a\", is not an emoji");
	refused("{\"kind\":\"emoji\",\"text\":\"1\",\"x\":0,\"y\":0,\"size\":100}", "\"1\", is not an emoji");
	refused("{\"kind\":\"emoji\",\"text\":\"\xf0\x9f\x9a\x80 \",\"x\":0,\"y\":0,\"size\":100}",
		"character 2, \" \", is not an emoji");
	refused("{\"kind\":\"emoji\",\"text\":\"\xe4\xb8\xad\",\"x\":0,\"y\":0,\"size\":100}", "is not an emoji");
	refused("{\"kind\":\"emoji\",\"text\":\"\xe2\x80\x8d\xf0\x9f\x9a\x80\",\"x\":0,\"y\":0,\"size\":100}",
		"character 1");
	refused("{\"kind\":\"emoji\",\"text\":\"\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80"
		"\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\xf0\x9f\x9a\x80\",\"x\":0,\"y\":0,"
		"\"size\":100}", "more than 8 emoji");
	refused("{\"kind\":\"emoji\",\"text\":\"" ROCKET_CODER "\",\"x\":0,\"y\":0,\"size\":0}",
		"size must be a number from 16 to 1080");
	refused("{\"kind\":\"emoji\",\"text\":\"" ROCKET_CODER "\",\"x\":0,\"y\":0,\"size\":5000}",
		"size must be a number from 16 to 1080");
	/* JSON has no NaN (jansson makes none): the nearest the model can send */
	refused("{\"kind\":\"emoji\",\"text\":\"" ROCKET_CODER "\",\"x\":0,\"y\":0,\"size\":\"NaN\"}",
		"size must be a number from 16 to 1080");
	refused("{\"kind\":\"emoji\",\"text\":\"" ROCKET_CODER "\",\"x\":0,\"y\":0}", "size is required");
	refused("{\"kind\":\"emoji\",\"text\":\"" ROCKET_CODER "\",\"x\":0,\"y\":0,\"size\":50,\"width\":9}",
		"width is not an argument of a emoji block");
}

static const char *const pieces[] = { "a", " ", "<", "&", ">", "\"", "'", "\n", "\t", "\x01", "\xef\xbf\xbe",
				      "\xc3\xa9", "\xe4\xb8\xad", "]]>", "#fff", "#12345g", "dark" };
static const double numbers[] = { 0, -1, 1, 50, 400, 900, 1e5, -1e300, 1e-300, 5e-324, 0.5 };
/* xorshift32: every bit of it random enough to pick with % */
static unsigned next(unsigned *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

#define PICK(seed, a) (a)[next(seed) % (sizeof(a) / sizeof(a)[0])]

/* A random string of XML's special and forbidden characters. */
static json_t *random_string(unsigned *seed)
{
	char text[64] = "";

	for (int i = next(seed) % 8; i > 0; i--)
		strncat(text, PICK(seed, pieces), sizeof text - strlen(text) - 1);
	return json_string(text);
}

/* A random value for key: mostly of the key's type (numbers of every
 * size, strings of special characters, points, rows), else anything. */
static json_t *random_value(const char *key, unsigned *seed)
{
	json_t *v;

	if (next(seed) % 10 == 0) /* the wrong type, or an empty thing */
		return next(seed) % 2 ? json_true() : json_object();
	if (!strcmp(key, "x") || !strcmp(key, "y") || !strcmp(key, "width") || !strcmp(key, "height") ||
	    !strcmp(key, "font_size") || !strcmp(key, "size"))
		return json_real(next(seed) % 3 ? 100 + next(seed) % 900 : PICK(seed, numbers));
	if (!strcmp(key, "from") || !strcmp(key, "to") || !strcmp(key, "point"))
		return json_pack("[f,f]", next(seed) % 3 ? (double)(next(seed) % 1920) : PICK(seed, numbers),
				 (double)(next(seed) % 1080));
	if (!strcmp(key, "data")) {
		v = json_array();
		for (int i = next(seed) % 6; i > 0; i--)
			json_array_append_new(v, json_pack("{s:o,s:f}", "label", random_string(seed), "value",
							   PICK(seed, numbers)));
		return v;
	}
	if (!strcmp(key, "colour"))
		return json_string(next(seed) % 2 ? "#4e9af1" : PICK(seed, pieces));
	if (!strcmp(key, "theme"))
		return json_string(next(seed) % 2 ? "light" : PICK(seed, pieces));
	if (!strcmp(key, "language"))
		return json_string(next(seed) % 2 ? "python" : PICK(seed, pieces));
	return random_string(seed);
}

/* a (taken over) is refused with a sentence, counted in *refusals, or
 * makes a fragment that parses, counted in *made. */
static void try_random(json_t *a, size_t *made, size_t *refusals)
{
	char err[512] = "", *svg = NULL;

	if (blocks_make(a, &svg, err, sizeof err) == 0) {
		xmlDocPtr doc = xmlReadMemory(svg, (int)strlen(svg), "random.xml", NULL, XML_PARSE_NONET);
		if (!doc)
			fail_msg("a fragment that does not parse:\n%s", svg);
		xmlFreeDoc(doc);
		/* no number went wrong (an embedded picture's base64 may spell anything) */
		for (char *b64 = strstr(svg, ";base64,"); b64 && *b64 != '"'; b64++)
			*b64 = '.';
		assert_null(strstr(svg, "nan"));
		assert_null(strstr(svg, "inf"));
		(*made)++;
	} else {
		assert_null(svg);
		assert_true(strlen(err) > 10);
		(*refusals)++;
	}
	free(svg);
	json_decref(a);
}

/* Random emoji text: emoji, joiners, selectors, skin tones, half a flag
 * and a letter, in any order. */
static json_t *random_emoji(unsigned *seed)
{
	static const char *const emoji[] = { "\xf0\x9f\x9a\x80", "\xf0\x9f\x91\xa9", "\xe2\x80\x8d",
					     "\xef\xb8\x8f", "\xf0\x9f\x8f\xbd", "\xf0\x9f\x87\xab", "a" };
	char text[64] = "";

	for (int i = next(seed) % 10; i > 0; i--)
		strncat(text, PICK(seed, emoji), sizeof text - strlen(text) - 1);
	return json_string(text);
}

/* Random arguments never crash a block: each is refused with a sentence
 * or makes a fragment that parses (a fixed seed, so a failure repeats). */
static void test_random_arguments(void **state)
{
	static const char *const kinds[][10] = {
		{ "bar_chart", "x", "y", "width", "height", "data", "title", "colour", "theme", NULL },
		{ "line_chart", "x", "y", "width", "height", "data", "title", "colour", "theme", NULL },
		{ "arrow", "from", "to", "colour", NULL },
		{ "callout", "x", "y", "width", "height", "text", "point", "font_size", "colour", NULL },
		{ "code", "x", "y", "width", "height", "code", "language", "theme", "font_size", NULL },
	};
	static const char *const emoji_args[] = { "x", "y", "size", "text", NULL };
	unsigned seed = 36;
	size_t made = 0, refusals = 0;

	(void)state;
	for (int i = 0; i < 600; i++) {
		/* the code block starts Python: a few of them only */
		const char *const *k = kinds[next(&seed) % (i % 50 == 0 ? 5 : 4)];
		json_t *a = json_pack("{s:s}", "kind", k[0]);
		for (k++; *k; k++)
			if (next(&seed) % 8) /* mostly there, required ones too */
				json_object_set_new(a, *k, random_value(*k, &seed));
		if (next(&seed) % 20 == 0)
			json_object_set_new(a, "stray", json_true());
		try_random(a, &made, &refusals);
	}
	if (made <= 50 || refusals <= 50)
		fail_msg("%zu made, %zu refused: the arguments are not random enough", made, refusals);
	made = refusals = 0;
	for (int i = 0; i < 200; i++) {
		json_t *a = json_pack("{s:s}", "kind", "emoji");
		for (const char *const *k = emoji_args; *k; k++)
			if (next(&seed) % 8)
				json_object_set_new(a, *k, strcmp(*k, "text") ? random_value(*k, &seed) : random_emoji(&seed));
		try_random(a, &made, &refusals);
	}
	if (made <= 10 || refusals <= 10)
		fail_msg("emoji: %zu made, %zu refused: the arguments are not random enough", made, refusals);
}

/* The runner stops what runs too long or writes too much, with a sentence. */
static void test_python_bounded(void **state)
{
	char err[256], *out;
	size_t len;
	long long t0 = hb_monotonic_ms();

	(void)state;
	assert_int_equal(blocks_python("import time\ntime.sleep(30)\n", "", 0, 300, 1024, &out, &len, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "took longer than 300 ms and was stopped"));
	assert_true(hb_monotonic_ms() - t0 < 5000);
	assert_int_equal(blocks_python("import sys\nwhile True: sys.stdout.write('x' * 65536)\n", "", 0, 5000, 100000,
				       &out, &len, err, sizeof err), -1);
	assert_non_null(strstr(err, "more than 100000 bytes"));
	assert_int_equal(blocks_python("import sys\nsys.exit(3)\n", "", 0, 5000, 1024, &out, &len, err, sizeof err), -1);
	assert_non_null(strstr(err, "status 3"));
	/* input arrives on stdin, whole, however large (more than a pipe holds) */
	{
		size_t n = 300000;
		char *big = malloc(n);
		assert_non_null(big);
		memset(big, 'a', n);
		assert_int_equal(blocks_python("import sys\nprint(len(sys.stdin.read()))\n", big, n, 5000, 1024, &out,
					       &len, err, sizeof err), 0);
		assert_string_equal(out, "300000\n");
		free(out);
		free(big);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_code, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_code_light_and_fit, make_dir, remove_dir),
		cmocka_unit_test(test_code_refused),
		cmocka_unit_test_setup_teardown(test_bar_chart, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_line_chart, make_dir, remove_dir),
		cmocka_unit_test(test_chart_refused),
		cmocka_unit_test_setup_teardown(test_arrow_and_callout, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_emoji, make_dir, remove_dir),
		cmocka_unit_test(test_emoji_refused),
		cmocka_unit_test(test_random_arguments),
		cmocka_unit_test(test_python_bounded),
	};
	return ck_run_group_tests(tests, fx_explainer_setup, fx_explainer_teardown);
}
