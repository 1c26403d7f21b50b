/*
 * test_explainer_smil_rules - the rules around the explainer renderer's
 * SMIL evaluator: which elements animations target and remove, purity in
 * t (the same document whatever times came before, attributes in the same
 * order), a scene without animations; and every refused construct with its
 * file, line and sentence, alone and all at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../renderer/smil.h"
#include "smil_rig.h"

/* Animations leave the document; href and xlink:href target elsewhere. */
static void test_targets_and_removal(void **state)
{
	struct scene s = load(SVG(
		"<circle id=\"c\" r=\"1\"/>\n"
		"<animate href=\"#c\" attributeName=\"r\" from=\"0\" to=\"10\" dur=\"1s\"/>\n"
		"<g><animate xlink:href=\"#c\" attributeName=\"cx\" from=\"0\" to=\"10\" dur=\"1s\"/></g>\n"));
	char *text;

	(void)state;
	assert_int_equal(smil_count(s.m), 2);
	expect_at(&s, 0.5, "c", "r", "5");
	expect_at(&s, 0.5, "c", "cx", "5");
	text = serialize(s.doc);
	assert_null(strstr(text, "<animate"));
	free(text);
	unload(&s);
}

/* Same t, same bytes; t=5 then t=1 gives what t=1 alone gives. */
static void test_pure_in_t(void **state)
{
	static const char svg[] = SVG(
		"<rect id=\"r\" x=\"3\" fill=\"red\" transform=\"scale(2)\">\n"
		"<animate attributeName=\"x\" from=\"0\" to=\"100\" begin=\"2s\" dur=\"2s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"fill\" to=\"blue\" dur=\"2s\"/>\n"
		"<animate attributeName=\"y\" from=\"0\" to=\"10\" dur=\"3s\"/>\n"
		"<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0\" to=\"90\" dur=\"4s\"/>\n"
		"</rect>\n");
	struct scene once = load(svg), twice = load(svg);
	char *a, *b, *c;

	(void)state;
	smil_apply(once.m, 1);
	a = serialize(once.doc);
	smil_apply(twice.m, 5);
	smil_apply(twice.m, 3);
	smil_apply(twice.m, 1);
	b = serialize(twice.doc);
	assert_string_equal(a, b);
	smil_apply(twice.m, 1);
	c = serialize(twice.doc);
	assert_string_equal(b, c);
	assert_non_null(strstr(a, "fill=\"#800080\""));
	assert_non_null(strstr(a, "x=\"3\""));
	free(a);
	free(b);
	free(c);
	unload(&once);
	unload(&twice);
}

/* Attributes the element did not have come and go with their animations;
 * their order in the element must not remember an earlier t either. */
static void test_pure_attribute_order(void **state)
{
	static const char svg[] = SVG(
		"<rect id=\"r\">\n"
		"<animate attributeName=\"y\" from=\"0\" to=\"10\" dur=\"3s\"/>\n"
		"<animate attributeName=\"x\" from=\"0\" to=\"10\" begin=\"1s\" dur=\"1s\"/>\n"
		"</rect>\n");
	struct scene once = load(svg), twice = load(svg);
	char *a, *b;

	(void)state;
	smil_apply(once.m, 1.5);
	a = serialize(once.doc);
	smil_apply(twice.m, 0.5);   /* y only */
	smil_apply(twice.m, 1.5);   /* then x as well */
	b = serialize(twice.doc);
	assert_string_equal(a, b);
	free(a);
	free(b);
	unload(&once);
	unload(&twice);
}

static void test_no_animation(void **state)
{
	struct scene s = load(SVG("<rect id=\"r\" x=\"1\"/>\n"));

	(void)state;
	assert_int_equal(smil_count(s.m), 0);
	expect_at(&s, 3, "r", "x", "1");
	unload(&s);
}

/* One x animation on line 3, with the attributes under test. */
#define ON_X(attrs) SVG("<rect x=\"0\" y=\"0\">\n<animate attributeName=\"x\" " attrs "/>\n</rect>\n")

struct refusal {
	const char *svg;
	int line;
	const char *words[4];   /* each in the problem's text; NULL ends */
};

static const struct refusal refusals[] = {
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"indefinite\""), 3,
	  { "<animate>", "begin=\"indefinite\"", "a clock value (\"2s\")" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"click\""), 3, { "<animate>", "\"click\" is an event", "syncbase" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"0s; r.mouseover\""), 3, { "\"r.mouseover\" is an event" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"accessKey(a)\""), 3, { "accessKey(a)", "key press" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"wallclock(2024-01-01T10:00)\""), 3, { "wallclock(", "a date" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"1.5.5s\""), 3, { "\"1.5.5s\" is not a clock value", "300ms" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"intro\""), 3, { "neither a clock value nor a syncbase", "intro.end" } },
	{ ON_X("to=\"1\" dur=\"1s\" begin=\"nope.end+1s\""), 3, { "names no animation", "id=\"nope\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" end=\"click\""), 3, { "end=\"click\"", "is an event" } },
	{ ON_X("to=\"1\" dur=\"2x\""), 3, { "dur=\"2x\"", "clock value above 0" } },
	{ ON_X("to=\"1\" dur=\"0s\""), 3, { "dur=\"0s\"", "above 0" } },
	{ ON_X("to=\"1\" dur=\"indefinite\""), 3, { "dur=\"indefinite\"", "never ends", "dur=\"2s\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" repeatCount=\"indefinite\""), 3,
	  { "repeatCount=\"indefinite\"", "repeatCount=\"3\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" repeatDur=\"indefinite\""), 3, { "repeatDur=\"indefinite\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" repeatCount=\"-1\""), 3, { "repeatCount=\"-1\"", "above 0" } },
	{ ON_X("to=\"1\""), 3, { "<animate> has no dur", "dur=\"1s\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" additive=\"sum\""), 3, { "additive=\"sum\"", "values=" } },
	{ ON_X("to=\"1\" dur=\"1s\" accumulate=\"sum\""), 3, { "accumulate=\"sum\"", "values=" } },
	{ ON_X("to=\"1\" dur=\"1s\" min=\"1s\""), 3, { "min=", "repeatDur" } },
	{ ON_X("values=\"0;5;20\" dur=\"1s\" calcMode=\"paced\""), 3, { "calcMode=\"paced\"", "keyTimes" } },
	{ ON_X("to=\"1\" dur=\"1s\" fill=\"red\""), 3, { "fill=\"red\"", "freeze", "attributeName=\"fill\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" attributeType=\"CSS\""), 3, { "attributeType=\"CSS\"", "not a CSS property" } },
	{ ON_X("to=\"1\" dur=\"1s\" href=\"#missing\""), 3,
	  { "href=\"#missing\"", "no element has id=\"missing\"" } },
	{ ON_X("to=\"1\" dur=\"1s\" href=\"other.svg#r\""), 3, { "href=\"other.svg#r\"", "href=\"#id\"" } },
	{ ON_X("values=\"0;1;2\" keyTimes=\"0;1\" dur=\"1s\""), 3, { "keyTimes=\"0;1\"", "2 times for 3 values" } },
	{ ON_X("values=\"0;1\" keyTimes=\"0.1;1\" dur=\"1s\""), 3, { "keyTimes=\"0.1;1\"", "start at 0" } },
	{ ON_X("values=\"0;1\" keyTimes=\"0;0.9\" dur=\"1s\""), 3, { "end at 1" } },
	{ ON_X("values=\"0;1;2\" calcMode=\"spline\" keySplines=\"0 0 1 1\" dur=\"1s\""), 3,
	  { "keySplines=\"0 0 1 1\"", "1 curve for 2 intervals" } },
	{ ON_X("values=\"0;1\" keySplines=\"0 0 1 1\" dur=\"1s\""), 3, { "calcMode is not \"spline\"" } },
	{ ON_X("values=\"0;1\" calcMode=\"spline\" dur=\"1s\""), 3, { "without keySplines", "0.42 0 0.58 1" } },
	{ ON_X("values=\"0;1\" calcMode=\"spline\" keySplines=\"0 0 1.5 1\" dur=\"1s\""), 3, { "outside 0..1" } },
	{ ON_X("from=\"10px\" to=\"5%\" dur=\"1s\""), 3, { "cannot interpolate x", "different units" } },
	{ ON_X("from=\"1\" to=\"auto\" dur=\"1s\""), 3, { "to \"auto\" is not a length" } },
	{ ON_X("from=\"1\" dur=\"1s\""), 3, { "has no values" } },
	{ SVG("<rect>\n<animate attributeName=\"width\" to=\"5\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "starts from the target's own width", "<rect> has no width attribute" } },
	{ SVG("<rect>\n<animate attributeName=\"foo\" to=\"5\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "animates foo", "cannot animate", "stroke-dashoffset" } },
	{ SVG("<a>\n<animate attributeName=\"xlink:href\" to=\"#x\" dur=\"1s\"/>\n</a>\n"), 3,
	  { "animates xlink:href" } },
	{ SVG("<rect>\n<animate attributeName=\"transform\" to=\"5\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "<animateTransform attributeName=\"transform\"" } },
	{ SVG("<rect>\n<animateTransform attributeName=\"x\" from=\"0\" to=\"5\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "<animateTransform> animates x", "<animate attributeName=\"x\">" } },
	{ SVG("<rect>\n<animateTransform attributeName=\"transform\" type=\"matrix\" from=\"1 0 0 1 0 0\" "
	      "to=\"1 0 0 1 5 0\" dur=\"1s\"/>\n</rect>\n"), 3, { "type=\"matrix\"", "translate" } },
	{ SVG("<rect>\n<animateTransform attributeName=\"transform\" type=\"rotate\" to=\"90\" dur=\"1s\"/>\n"
	      "</rect>\n"), 3, { "to= alone", "from=" } },
	{ SVG("<rect>\n<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0 1\" to=\"90\" "
	      "dur=\"1s\"/>\n</rect>\n"), 3, { "\"0 1\" does not fit this type", "angle cx cy" } },
	{ SVG("<rect>\n<animateMotion path=\"M0 0 L10 10\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "<animateMotion> is not supported", "type=\"translate\"" } },
	{ SVG("<rect>\n<animateColor attributeName=\"fill\" to=\"red\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "<animateColor> is not supported", "<animate>" } },
	{ SVG("<rect>\n<discard begin=\"2s\"/>\n</rect>\n"), 3, { "<discard> is not supported", "display" } },
	{ SVG("<rect fill=\"red\">\n<set attributeName=\"fill\" from=\"red\" to=\"blue\"/>\n</rect>\n"), 3,
	  { "<set> takes only to=" } },
	{ SVG("<rect>\n<set attributeName=\"visibility\" to=\"gone\"/>\n</rect>\n"), 3,
	  { "to \"gone\" is not a value of visibility", "visible" } },
	{ SVG("<rect style=\"stroke: blue; Fill :red\" fill=\"red\">\n"
	      "<animate attributeName=\"fill\" to=\"blue\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "the style attribute of <rect> sets fill", "move fill out of style into a fill=\"...\" attribute" } },
	{ SVG("<rect fill=\"none\">\n<animate attributeName=\"fill\" to=\"red\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "\"none\" cannot be interpolated", "calcMode=\"discrete\"", "animate fill-opacity" } },
	{ SVG("<rect>\n<animate attributeName=\"fill\" from=\"hsl(0, 50%, 50%)\" to=\"red\" dur=\"1s\"/>\n"
	      "</rect>\n"), 3, { "from \"hsl(0, 50%, 50%)\" is not a colour", "#rrggbb" } },
	{ SVG("<polyline>\n<animate attributeName=\"points\" from=\"0,0 1\" to=\"1,1 2,2\" dur=\"1s\"/>\n"
	      "</polyline>\n"), 3, { "from \"0,0 1\" is not a list of points" } },
	{ SVG("<polyline>\n<animate attributeName=\"points\" from=\"0,0 1,1\" to=\"1,1 2,2 3,3\" dur=\"1s\"/>\n"
	      "</polyline>\n"), 3, { "\"0,0 1,1\" has 2 points and \"1,1 2,2 3,3\" has 3" } },
	{ SVG("<path>\n<animate attributeName=\"d\" from=\"M0 0 L1 1\" to=\"M0 0 C1 1 2 2 3 3\" dur=\"1s\"/>\n"
	      "</path>\n"), 3, { "different commands (ML and MC)", "discrete" } },
	{ SVG("<path>\n<animate attributeName=\"d\" from=\"L0 0\" to=\"M0 0\" dur=\"1s\"/>\n</path>\n"), 3,
	  { "from \"L0 0\" is not path data that starts with M" } },
	{ SVG("<rect x=\"0\">\n<animate id=\"a\" attributeName=\"x\" to=\"1\" begin=\"b.end\" dur=\"1s\"/>\n"
	      "<animate id=\"b\" attributeName=\"x\" to=\"1\" begin=\"a.end\" dur=\"1s\"/>\n</rect>\n"), 3,
	  { "waits for itself", "a.begin waits for b.end waits for b.begin waits for a.end waits for a.begin" } },
	{ SVG("<rect x=\"0\">\n<animate id=\"a\" attributeName=\"x\" to=\"1\" begin=\"a.begin\" dur=\"1s\"/>\n"
	      "</rect>\n"), 3, { "waits for itself (a.begin waits for a.begin)" } },
	{ SVG("<rect x=\"0\" y=\"0\">\n<set id=\"s\" attributeName=\"x\" to=\"1\"/>\n"
	      "<animate attributeName=\"y\" to=\"1\" begin=\"s.end\" dur=\"1s\"/>\n</rect>\n"), 4,
	  { "never begins", "give that animation a dur" } },
	{ ON_X("to=\"1\" begin=\"5s\" end=\"2s\" dur=\"1s\""), 3, { "ends at 2s, before it begins at 5s" } },
};

static void test_refusals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
		const struct refusal *want = &refusals[i];
		struct problems p = { 0 };
		xmlDocPtr doc = parse(want->svg);
		int found = 0;

		assert_null(smil_build(doc, "scene.svg", &p));
		for (size_t k = 0; k < p.n && !found; k++) {
			found = p.v[k].line == want->line && strcmp(p.v[k].file, "scene.svg") == 0;
			for (size_t w = 0; w < 4 && want->words[w] && found; w++)
				found = strstr(p.v[k].text, want->words[w]) != NULL;
		}
		if (!found) {
			problems_print(&p, stderr);
			fail_msg("case %zu: no problem on line %d with \"%s\"", i, want->line, want->words[0]);
		}
		problems_free(&p);
		xmlFreeDoc(doc);
	}
}

/* `check` names every problem at once, and a refused document is left as it was. */
static void test_every_problem_at_once(void **state)
{
	static const char svg[] = SVG(
		"<rect x=\"0\" y=\"0\" width=\"1\">\n"
		"<animate attributeName=\"x\" to=\"1\" dur=\"1s\" begin=\"click\" additive=\"sum\"/>\n"
		"<animate attributeName=\"y\" to=\"1\"/>\n"
		"<animate attributeName=\"width\" to=\"2\" dur=\"1s\"/>\n"
		"<animateMotion dur=\"1s\"/>\n"
		"</rect>\n");
	struct problems p = { 0 };
	xmlDocPtr doc = parse(svg);
	char first[200], *text;

	(void)state;
	assert_null(smil_build(doc, "scene.svg", &p));
	assert_int_equal(p.n, 4);
	assert_int_equal(p.v[0].line, 6);   /* refused elements are found first */
	assert_int_equal(p.v[1].line, 3);
	assert_int_equal(p.v[2].line, 3);
	assert_int_equal(p.v[3].line, 4);
	assert_non_null(strstr(p.v[1].text, "additive"));
	assert_non_null(strstr(p.v[2].text, "click"));
	problems_first(&p, first, sizeof first);
	assert_true(strncmp(first, "scene.svg:6: <animateMotion>", 28) == 0);
	text = serialize(doc);
	assert_non_null(strstr(text, "attributeName=\"width\""));
	free(text);
	problems_free(&p);
	xmlFreeDoc(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets_and_removal),
		cmocka_unit_test(test_pure_in_t),
		cmocka_unit_test(test_pure_attribute_order),
		cmocka_unit_test(test_no_animation),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_every_problem_at_once),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	xmlCleanupParser();
	return rc;
}
