/*
 * test_explainer_scene - loading and checking one scene: a good scene
 * loads; each thing a scene may not contain (wrong or missing viewBox,
 * references out of the scene, scripts, foreign HTML, event handlers, fonts
 * outside the set, CSS imports and animation, DTD declarations) is
 * reported on its own line, all of them at once, with the animation
 * problems of smil.h; scene_svg_at writes the document without its
 * animation elements, the same text for the same t whatever came before;
 * a <use> bomb and a chain of <use> too deep refused by their counts, and
 * a large scene under the limits loaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <libxml/parser.h>

#include "../../renderer/scene_limits.h"
#include "../../renderer/scene.h"
#include "../harness/fx_folder.h"

#define NS "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""
#define OPEN "<svg " NS " viewBox=\"0 0 1920 1080\">\n" /* line 1 */

struct fixture {
	char dir[64];
	struct problems p;
	struct scene *s;
};

static int make_dir(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f)
		return -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/hbscene.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int remove_dir(void **state)
{
	struct fixture *f = *state;
	int r = fx_remove_tree(f->dir);

	scene_free(f->s);
	problems_free(&f->p);
	free(f);
	return r == 0 ? 0 : -1;
}

static struct scene *load(struct fixture *f, const char *name, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", f->dir, name);
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(fclose(fp), 0);
	return scene_load(path, name, 1920, 1080, &f->p);
}

/* Whether a problem of s.svg at LINE contains TEXT; the list on no. */
static int has(const struct problems *p, int line, const char *text)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].file, "s.svg") == 0 && p->v[i].line == line && strstr(p->v[i].text, text))
			return 1;
	fprintf(stderr, "no problem s.svg:%d containing \"%s\" among:\n", line, text);
	problems_print(p, stderr);
	return 0;
}

/* TEXT as s.svg is refused with exactly one problem, at LINE, containing WHAT. */
static void refused_once(struct fixture *f, const char *text, int line, const char *what)
{
	problems_free(&f->p);
	assert_null(load(f, "s.svg", text));
	assert_true(has(&f->p, line, what));
	if (f->p.n != 1)
		problems_print(&f->p, stderr);
	assert_int_equal(f->p.n, 1);
}

static void test_good_scene(void **state)
{
	struct fixture *f = *state;
	const char *svg;
	size_t len;
	char err[128], *first;

	f->s = load(f, "good.svg",
		    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		    "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		    "<svg " NS " viewBox=\"0,0 1920 1080.0\" width=\"1920\" height=\"1080\">\n"
		    "<style>/* @import \"x.css\" in a comment */\n"
		    "  text { font-family: 'DejaVu Serif', serif !important; fill: url(#g) }\n"
		    "  @media screen { .a { font-family: monospace } }\n"
		    "  .b::after { content: \"url(http://x) } @import\" }\n"
		    "</style>\n"
		    "<defs><linearGradient id=\"g\"><stop offset=\"0\" stop-color=\"#fff\"/></linearGradient>"
		    "<symbol id=\"dot\"><circle r=\"4\"/></symbol></defs>\n"
		    "<rect width=\"1920\" height=\"1080\" fill=\"url(#g)\" style=\"stroke: url( '#g' ); "
		    "fill:url(data:image/png;base64,iVBO;R=)\"/>\n"
		    "<image xlink:href=\"data:image/png;base64,iVBORw0KGgo=\" width=\"10\" height=\"10\"/>\n"
		    "<image href=\" data:IMAGE/JPEG;base64,/9j/\" width=\"10\" height=\"10\"/>\n"
		    "<use href=\"#dot\"/><a xlink:href=\"#dot\"><text>no family: DejaVu Sans</text></a>\n"
		    "<text font-family=\"DejaVu Sans Condensed, sans-serif\" "
		    "style=\"font-family:'DejaVu Sans Mono'\">x &amp; y</text>\n"
		    "</svg>\n");
	if (!f->s)
		problems_print(&f->p, stderr);
	assert_non_null(f->s);
	assert_int_equal(f->p.n, 0);
	assert_int_equal(scene_svg_at(f->s, 0, &svg, &len, err, sizeof err), 0);
	assert_int_equal(strlen(svg), len);
	assert_null(strstr(svg, "DOCTYPE")); /* dropped: plain SVG for librsvg */
	assert_non_null(strstr(svg, "x &amp; y"));
	first = strdup(svg);
	assert_non_null(first);
	assert_int_equal(scene_svg_at(f->s, 5, &svg, &len, err, sizeof err), 0);
	assert_string_equal(svg, first); /* nothing animates */
	free(first);
	assert_int_equal(scene_svg_at(f->s, -1, &svg, &len, err, sizeof err), -1);
}

static void test_root_and_viewbox(void **state)
{
	struct fixture *f = *state;

	refused_once(f, "<svg " NS " viewBox=\"0 0 800 600\">\n</svg>", 1,
		     "viewBox is \"0 0 800 600\"; a scene's viewBox must be \"0 0 1920 1080\"");
	refused_once(f, "<?xml version=\"1.0\"?>\n<svg " NS ">\n</svg>", 2,
		     "<svg> has no viewBox; give it viewBox=\"0 0 1920 1080\"");
	refused_once(f, "<svg " NS " viewBox=\"0 0 1920 1080 5\"/>", 1, "viewBox is");
	refused_once(f, "<svg viewBox=\"0 0 1920 1080\"/>", 1, "<svg> is not in the SVG namespace");
	refused_once(f, "<html " NS "/>", 1, "the root element is <html>, not <svg>");
}

static void test_references(void **state)
{
	struct fixture *f = *state;

	refused_once(f, OPEN "<image xlink:href=\"http://example.com/a.png\"/>\n</svg>", 2,
		     "xlink:href=\"http://example.com/a.png\" points outside the scene (http:), and nothing "
		     "is ever fetched; refer to an element as \"#id\", or embed an image as a data: URI");
	refused_once(f, OPEN "\n<image href=\"file:///etc/passwd\"/>\n</svg>", 3,
		     "href=\"file:///etc/passwd\" points outside the scene (file:)");
	refused_once(f, OPEN "<use href=\"other.svg#a\"/>\n</svg>", 2,
		     "href=\"other.svg#a\" refers to a file, and nothing outside the scene is read");
	refused_once(f, OPEN "<image href=\"/tmp/a.png\"/>\n</svg>", 2, "href=\"/tmp/a.png\" refers to a file");
	refused_once(f, OPEN "<use href=\"\"/>\n</svg>", 2, "href=\"\" names nothing");
	refused_once(f, OPEN "<rect fill=\"url(https://x/p.svg#g)\"/>\n</svg>", 2,
		     "url(https://x/p.svg#g) points outside the scene (https:)");
	refused_once(f, OPEN "<rect style=\"fill:red;\n mask: url('m.svg#m')\"/>\n</svg>", 3,
		     "url(m.svg#m) refers to a file");
	refused_once(f, OPEN "<image href=\"data:image/svg+xml;utf8,&lt;svg/&gt;\"/>\n</svg>", 2,
		     "embeds an SVG image, whose content would not be checked");
	refused_once(f, OPEN "<image href=\"data:text/html,hi\"/>\n</svg>", 2,
		     "is a data: URI of type text/html; a data: URI may hold only a PNG, JPEG, GIF or WebP");
	refused_once(f, "<?xml-stylesheet href=\"s.css\"?>\n" OPEN "</svg>", 1,
		     "<?xml-stylesheet?> loads a style sheet from outside the scene");
	refused_once(f, OPEN "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"#x\"/>\n</svg>", 2,
		     "XInclude is not allowed");
}

static void test_code_and_html(void **state)
{
	struct fixture *f = *state;

	refused_once(f, OPEN "<g>\n<script>alert(1)</script>\n</g>\n</svg>", 3,
		     "<script> is not allowed: nothing runs in a scene; animate with <animate>");
	refused_once(f, OPEN "<foreignObject>\n<div xmlns=\"http://www.w3.org/1999/xhtml\">"
		     "<img src=\"http://x/y.png\"/></div></foreignObject>\n</svg>", 2,
		     "<foreignObject> is not allowed: librsvg does not draw its HTML");
	refused_once(f, OPEN "<rect\n width=\"5\" onclick=\"go()\"/>\n</svg>", 3,
		     "the event attribute onclick is not allowed");
	refused_once(f, OPEN "<rect ONLOAD=\"go()\"/>\n</svg>", 2, "the event attribute ONLOAD");
}

static void test_fonts(void **state)
{
	struct fixture *f = *state;

	refused_once(f, OPEN "<text font-family=\"Arial\">a</text>\n</svg>", 2,
		     "font-family \"Arial\": \"Arial\" is not an installed family");
	refused_once(f, OPEN "\n<text style=\"font-size:20px; font-family: 'Helvetica Neue', sans-serif\">"
		     "a</text>\n</svg>", 3, "\"Helvetica Neue\" is not an installed family");
	refused_once(f, OPEN "<style>\n"
		     "text { fill: red }\n"
		     ".title {\n"
		     "  font-family: Comic Sans MS, cursive;\n"
		     "}\n"
		     "</style>\n</svg>", 5, "\"Comic Sans MS\" is not an installed family");
	refused_once(f, OPEN "<text font-family=\"\">a</text>\n</svg>", 2, "has an empty family name");
	refused_once(f, OPEN "<text style=\"font: 20px DejaVu Sans\">a</text>\n</svg>", 2,
		     "the CSS font shorthand is not allowed");
	refused_once(f, OPEN "<style>\n@font-face { font-family: X; src: url(x.ttf) }\n</style></svg>", 3,
		     "@font-face loads a font file");
}

static void test_css(void **state)
{
	struct fixture *f = *state;

	refused_once(f, OPEN "<style>\n"
		     "/* first */\n"
		     "@import url(\"theme.css\");\n"
		     "</style>\n</svg>", 4, "@import loads another style sheet; put its rules in this <style>");
	refused_once(f, OPEN "<style><![CDATA[\n"
		     "@keyframes spin { from { opacity: 0 } to { opacity: 1 } }\n"
		     "]]></style>\n</svg>", 3, "CSS animation (@keyframes) is not rendered into the video; "
		     "animate with <animate>, <set> or <animateTransform> instead");
	refused_once(f, OPEN "<style>\n"
		     "@media screen {\n"
		     "  .a { -webkit-animation: spin 2s }\n"
		     "}\n"
		     "</style>\n</svg>", 4, "CSS animation (the -webkit-animation property)");
	refused_once(f, OPEN "<rect style=\"transition: opacity 1s\"/>\n</svg>", 2,
		     "CSS animation (the transition property) is not rendered");
	refused_once(f, OPEN "<style>\n.a { background: url(//x.org/i.png) }\n</style>\n</svg>", 3,
		     "url(//x.org/i.png) points outside the scene (a network address)");
	/* CSS escapes spell the same names: decoded before the checks. */
	refused_once(f, OPEN "<style>\n@\\69mport url(\"theme.css\");\n</style>\n</svg>", 3,
		     "@import loads another style sheet");
	refused_once(f, OPEN "<style>\n@\\49 MPORT 'theme.css';\n</style>\n</svg>", 3,
		     "@import loads another style sheet");
	refused_once(f, OPEN "<style>\n@font-f\\61 ce { src: x }\n</style>\n</svg>", 3,
		     "@font-face loads a font file");
	refused_once(f, OPEN "<style>\n.a { anim\\61tion: spin 2s }\n</style>\n</svg>", 3,
		     "CSS animation (the animation property)");
	refused_once(f, OPEN "<style>\n.a { background: \\75rl(//x.org/i.png) }\n</style>\n</svg>", 3,
		     "url(//x.org/i.png) points outside the scene (a network address)");
}

static void test_doctype_declarations(void **state)
{
	struct fixture *f = *state;

	refused_once(f, "<?xml version=\"1.0\"?>\n"
		     "<!DOCTYPE svg [\n"
		     "  <!ENTITY lol \"lol\">\n"
		     "  <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
		     "]>\n" OPEN "<text>&lol2;</text></svg>", 3,
		     "the DOCTYPE declares the entity lol; a scene may not declare anything in a DOCTYPE");
	refused_once(f, "<!DOCTYPE svg [\n<!ENTITY ext SYSTEM \"file:///etc/passwd\">\n]>\n"
		     OPEN "<text>&ext;</text></svg>", 2, "declares the entity ext");
	refused_once(f, "<!DOCTYPE svg [\n<!ATTLIST image href CDATA \"http://x/a.png\">\n]>\n"
		     OPEN "<image/></svg>", 2, "declares the attribute href");
	refused_once(f, OPEN "<text>&nbsp;</text>\n</svg>", 2, "not well-formed XML: Entity 'nbsp' not defined; "
		     "XML knows only &amp; &lt; &gt; &quot; and &apos;");
	refused_once(f, OPEN "<g>\n<rect>\n</g>\n</svg>", 4, "not well-formed XML: Opening and ending tag "
		     "mismatch");
}

static void test_many_problems(void **state)
{
	struct fixture *f = *state;

	assert_null(load(f, "s.svg",
			 "<svg " NS " viewBox=\"0 0 100 100\">\n"                      /* 1 */
			 "<script>x()</script>\n"                                      /* 2 */
			 "<image xlink:href=\"https://cdn.example/a.png\"/>\n"         /* 3 */
			 "<text font-family=\"Arial\" onclick=\"y()\">t</text>\n"      /* 4 */
			 "<style>\n"                                                   /* 5 */
			 "@import 'a.css';\n"                                          /* 6 */
			 "p { font-family: Georgia; animation: a 1s }\n"               /* 7 */
			 "</style>\n"                                                  /* 8 */
			 "<foreignObject/>\n"                                          /* 9 */
			 "</svg>\n"));
	assert_true(has(&f->p, 1, "viewBox is \"0 0 100 100\""));
	assert_true(has(&f->p, 2, "<script>"));
	assert_true(has(&f->p, 3, "https:"));
	assert_true(has(&f->p, 4, "\"Arial\""));
	assert_true(has(&f->p, 4, "onclick"));
	assert_true(has(&f->p, 6, "@import"));
	assert_true(has(&f->p, 7, "\"Georgia\""));
	assert_true(has(&f->p, 7, "the animation property"));
	assert_true(has(&f->p, 9, "<foreignObject>"));
	assert_int_equal(f->p.n, 9);
}

/* The bytes of the scene at t, copied (the scene's own buffer is reused). */
static char *svg_at(struct scene *s, double t)
{
	const char *svg;
	size_t len;
	char err[128], *copy;

	assert_int_equal(scene_svg_at(s, t, &svg, &len, err, sizeof err), 0);
	assert_int_equal(strlen(svg), len);
	assert_non_null(copy = strdup(svg));
	return copy;
}

static void test_svg_at_animated(void **state)
{
	struct fixture *f = *state;
	char *at1, *at3, *again, *at0;

	f->s = load(f, "anim.svg",
		    OPEN
		    "<rect id=\"r\" x=\"0\" width=\"10\" height=\"10\" fill=\"#000000\">\n"
		    "  <animate attributeName=\"x\" from=\"0\" to=\"100\" dur=\"2s\" fill=\"freeze\"/>\n"
		    "  <set attributeName=\"fill\" to=\"#ff0000\" begin=\"1s\"/>\n"
		    "</rect>\n"
		    "<g><animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0\" to=\"90\" "
		    "dur=\"4s\"/></g>\n"
		    "</svg>\n");
	if (!f->s)
		problems_print(&f->p, stderr);
	assert_non_null(f->s);
	at1 = svg_at(f->s, 1);
	at3 = svg_at(f->s, 3);
	again = svg_at(f->s, 1); /* whatever came before */
	at0 = svg_at(f->s, 0);
	assert_string_equal(at1, again);
	assert_string_not_equal(at1, at3);
	assert_string_not_equal(at0, at1);
	for (char *const *t = (char *const[]){ at0, at1, at3, NULL }; *t; t++) {
		assert_null(strstr(*t, "<animate"));
		assert_null(strstr(*t, "<set"));
		assert_non_null(strstr(*t, "viewBox=\"0 0 1920 1080\""));
	}
	assert_non_null(strstr(at1, "x=\"50\""));
	assert_non_null(strstr(at3, "x=\"100\""));
	assert_non_null(strstr(at0, "fill=\"#000000\""));
	assert_non_null(strstr(at1, "fill=\"#ff0000\""));
	free(at0);
	free(at1);
	free(at3);
	free(again);
}

/* The animation checks run after the scene's own, and both are listed. */
static void test_animation_problems_listed_too(void **state)
{
	struct fixture *f = *state;

	assert_null(load(f, "s.svg",
			 OPEN
			 "<script/>\n"
			 "<rect>\n"
			 "<animate attributeName=\"x\" to=\"1\" dur=\"1s\" begin=\"click\"/>\n"
			 "</rect>\n"
			 "</svg>\n"));
	assert_true(has(&f->p, 2, "<script>"));
	assert_true(has(&f->p, 4, "\"click\""));
	assert_int_equal(f->p.n, 2);
}

/* A <style> rule that sets an animated property of the same element
 * would silently win over the animation: refused at the animation's line;
 * rules for other elements or other properties are fine. */
static void test_style_rule_beats_animation(void **state)
{
	struct fixture *f = *state;
	static const char *const beaten[] = { ".dot { fill: red }", "circle{fill:red}", "#c1 { fill: red; }",
					      "g .dot { fill : red }", "@media screen { .dot { fill: red } }",
					      "circle.dot:first-of-type, rect { fill: red }", "[class] { fill: red }",
					      "* { fill: red }" };
	static const char *const fine[] = { ".dot { stroke: red }", "rect { fill: red }", ".other { fill: red }",
					    "#c2 { fill: red }", "/* .dot { fill: red } */ .x { fill: red }",
					    ".dot { content: \"fill: red\" }" };
	char svg[1024];

	for (size_t i = 0; i < sizeof beaten / sizeof beaten[0]; i++) {
		snprintf(svg, sizeof svg, OPEN "<style>%s</style>\n"
			 "<circle id=\"c1\" class=\"dot big\" r=\"10\">\n"
			 "<animate attributeName=\"fill\" from=\"#000\" to=\"#fff\" dur=\"1s\"/>\n"
			 "</circle>\n</svg>\n", beaten[i]);
		refused_once(f, svg, 4, "sets fill too, and a style rule wins over the animated attribute");
	}
	for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
		snprintf(svg, sizeof svg, OPEN "<style>%s</style>\n"
			 "<circle id=\"c1\" class=\"dot big\" r=\"10\">\n"
			 "<animate attributeName=\"fill\" from=\"#000\" to=\"#fff\" dur=\"1s\"/>\n"
			 "</circle>\n</svg>\n", fine[i]);
		problems_free(&f->p);
		struct scene *s = load(f, "s.svg", svg);
		if (!s)
			problems_print(&f->p, stderr);
		assert_non_null(s);
		scene_free(s);
	}
}

static void test_file_problems(void **state)
{
	struct fixture *f = *state;
	char path[128];
	int fd;

	assert_null(scene_load("/nonexistent/s.svg", "s.svg", 1920, 1080, &f->p));
	assert_true(has(&f->p, 0, "does not exist"));
	problems_free(&f->p);
	snprintf(path, sizeof path, "%s/s.svg", f->dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SCENE_MAX_BYTES + 1), 0);
	assert_int_equal(close(fd), 0);
	assert_null(scene_load(path, "s.svg", 1920, 1080, &f->p));
	assert_true(has(&f->p, 0, "has 16777217 bytes, more than the 16777216 it may have"));
	problems_free(&f->p);
	assert_null(scene_load(f->dir, "s.svg", 1920, 1080, &f->p));
	assert_true(has(&f->p, 0, "is not a regular file"));
	problems_free(&f->p);
	refused_once(f, "", 1, "not well-formed XML: Document is empty");
}

/* A scene of LEVELS groups in <defs>, each drawing the one before it
 * WIDTH times through <use>, and one <use> of the last: a <use> bomb when
 * large.  Each level multiplies the elements by about WIDTH. */
static char *use_levels(int levels, int width)
{
	size_t cap = 4096 + (size_t)levels * (size_t)width * 40, len = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len, OPEN "<defs><g id=\"l0\"><rect width=\"1\" height=\"1\"/></g>\n");
	for (int l = 1; l <= levels; l++) {
		len += (size_t)snprintf(s + len, cap - len, "<g id=\"l%d\">", l);
		for (int i = 0; i < width; i++)
			len += (size_t)snprintf(s + len, cap - len, "<use href=\"#l%d\"/>", l - 1);
		len += (size_t)snprintf(s + len, cap - len, "</g>\n");
	}
	snprintf(s + len, cap - len, "</defs><use xlink:href=\"#l%d\"/></svg>\n", levels);
	return s;
}

/* A chain of N groups, each a <use> of the one before, and a <use> of the
 * last: N + 1 levels of <use>, the groups written forwards or backwards,
 * since the depth must not depend on which comes first. */
static char *use_chain(int n, int backwards)
{
	size_t cap = 4096 + (size_t)n * 64, len = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len, OPEN "<defs><g id=\"c0\"><rect width=\"1\" height=\"1\"/></g>\n");
	for (int k = 1; k <= n; k++) {
		int i = backwards ? n + 1 - k : k;
		len += (size_t)snprintf(s + len, cap - len, "<g id=\"c%d\"><use href=\"#c%d\"/></g>\n", i, i - 1);
	}
	snprintf(s + len, cap - len, "</defs><use href=\"#c%d\"/></svg>\n", n);
	return s;
}

static void test_use_limits(void **state)
{
	struct fixture *f = *state;
	char *svg;

	/* 8^4 copies of a rectangle, about 29,000 elements in all: a big
	 * scene, still drawn */
	svg = use_levels(4, 8);
	f->s = load(f, "s.svg", svg);
	free(svg);
	if (!f->s)
		problems_print(&f->p, stderr);
	assert_non_null(f->s);
	scene_free(f->s);
	f->s = NULL;
	/* 10^7: refused before anything is drawn, and measured without
	 * drawing it out (a walk of every copy would take seconds) */
	svg = use_levels(7, 10);
	refused_once(f, svg, 1, "the scene has more than 50000 elements, each <use> counted as a copy");
	free(svg);
	/* two levels of 300 <use> each: 90,000 copies from 600 lines */
	svg = use_levels(2, 300);
	refused_once(f, svg, 1, "a scene may have at most 50000");
	free(svg);
	/* a cycle draws nothing in librsvg, and counts nothing here */
	refused_once(f, OPEN "<g id=\"a\"><use href=\"#b\"/></g><g id=\"b\"><use href=\"#a\"/></g>"
		     "<script>1</script></svg>", 2, "<script> is not allowed");
	for (int backwards = 0; backwards < 2; backwards++) {
		svg = use_chain(SCENE_MAX_USE_DEPTH - 1, backwards);
		f->s = load(f, "s.svg", svg);
		free(svg);
		assert_non_null(f->s);
		scene_free(f->s);
		f->s = NULL;
		svg = use_chain(SCENE_MAX_USE_DEPTH, backwards);
		refused_once(f, svg, 1, "more than 64 levels deep");
		free(svg);
		svg = use_chain(5000, backwards);
		refused_once(f, svg, 1, "more than 64 levels deep");
		free(svg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_scene, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_root_and_viewbox, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_references, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_code_and_html, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_fonts, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_css, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_doctype_declarations, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_many_problems, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_svg_at_animated, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_animation_problems_listed_too, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_file_problems, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_style_rule_beats_animation, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_use_limits, make_dir, remove_dir),
	};
	int failed;

	xmlInitParser(); /* the program's job, once, before any scene loads */
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	return failed;
}
