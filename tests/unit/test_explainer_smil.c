/*
 * test_explainer_smil - the explainer renderer's SMIL evaluator: the value
 * of every supported attribute kind at chosen scene times (numbers,
 * lengths with units, colours, opacities, stroke-dashoffset, points, d,
 * transforms composed with the element's own), from/to/by/values,
 * keyTimes, discrete/linear/spline easing against a hand-solved bezier,
 * clock values, syncbase chains, repeats, freeze, the base value before
 * and after, several animations on one attribute.
 * (Targets, purity in t and refusals: test_explainer_smil_rules.c.)
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

/* Lengths keep their unit; numbers get four decimals, enough for 1920 px. */
static void test_numbers_and_lengths(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"10\" width=\"100px\" height=\"10%\">\n"
		"<animate attributeName=\"x\" from=\"10\" to=\"110\" dur=\"2s\"/>\n"
		"<animate attributeName=\"width\" from=\"100px\" to=\"200px\" begin=\"1s\" dur=\"2s\"/>\n"
		"<animate attributeName=\"height\" from=\"10%\" to=\"20%\" dur=\"1s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"y\" from=\"1000\" to=\"2000\" dur=\"3s\"/>\n"
		"<animate attributeName=\"rx\" from=\"1em\" to=\"2em\" dur=\"1s\"/>\n"
		"</rect>\n"));

	(void)state;
	assert_int_equal(smil_count(s.m), 5);
	expect_at(&s, 0, "r", "x", "10");
	expect_at(&s, 0.5, "r", "x", "35");
	expect_at(&s, 1, "r", "x", "60");
	expect_at(&s, 2, "r", "x", "10");            /* removed: the base value */
	expect_at(&s, 0.5, "r", "width", "100px");   /* not begun */
	expect_at(&s, 2, "r", "width", "150px");
	expect_at(&s, 0.25, "r", "height", "12.5%");
	expect_at(&s, 7, "r", "height", "20%");
	expect_at(&s, 1, "r", "y", "1333.3333");
	expect_at(&s, 0.5, "r", "rx", "1.5em");
	expect_at(&s, 9, "r", "rx", "(absent)");     /* it had no rx of its own */
	unload(&s);
}

static void test_colours(void **state)
{
	struct scene s = load(SVG(
		"<circle id=\"c\" fill=\"red\" stroke=\"#000\" r=\"5\">\n"
		"<animate attributeName=\"fill\" from=\"#ff0000\" to=\"blue\" dur=\"2s\"/>\n"
		"<animate attributeName=\"stroke\" values=\"rgb(0, 0, 0);rgb(100%, 100%, 100%);#0f0\" dur=\"2s\"/>\n"
		"</circle>\n"
		"<stop id=\"st\" offset=\"0\" stop-color=\"white\">\n"
		"<animate attributeName=\"stop-color\" to=\"BLACK\" dur=\"1s\"/>\n"
		"</stop>\n"));

	(void)state;
	expect_at(&s, 1, "c", "fill", "#800080");   /* 127.5 rounds up */
	expect_at(&s, 0.5, "c", "fill", "#bf0040");
	expect_at(&s, 3, "c", "fill", "red");        /* the base as written */
	expect_at(&s, 0.5, "c", "stroke", "#808080");
	expect_at(&s, 1.5, "c", "stroke", "#80ff80");
	expect_at(&s, 0.25, "st", "stop-color", "#bfbfbf");
	unload(&s);
}

/* opacity, fill-opacity, stroke-opacity and the line-drawing dashoffset. */
static void test_opacities_and_dashoffset(void **state)
{
	struct scene s = load(SVG(
		"<path id=\"p\" d=\"M0 0 L100 0\" stroke-dasharray=\"1000\" stroke-dashoffset=\"1000\">\n"
		"<animate attributeName=\"stroke-dashoffset\" from=\"1000\" to=\"0\" dur=\"4s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"opacity\" values=\"0;1;0\" dur=\"2s\"/>\n"
		"<animate attributeName=\"fill-opacity\" from=\"1\" to=\"0\" dur=\"1s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"stroke-opacity\" from=\"0\" to=\"0.8\" dur=\"1s\"/>\n"
		"</path>\n"));

	(void)state;
	expect_at(&s, 1, "p", "stroke-dashoffset", "750");
	expect_at(&s, 3.9, "p", "stroke-dashoffset", "25");
	expect_at(&s, 5, "p", "stroke-dashoffset", "0");
	expect_at(&s, 0.5, "p", "opacity", "0.5");
	expect_at(&s, 1, "p", "opacity", "1");
	expect_at(&s, 1.5, "p", "opacity", "0.5");
	expect_at(&s, 0.25, "p", "fill-opacity", "0.75");
	expect_at(&s, 2, "p", "fill-opacity", "0");
	expect_at(&s, 0.5, "p", "stroke-opacity", "0.4");
	expect_at(&s, 2, "p", "stroke-opacity", "(absent)");
	unload(&s);
}

static void test_points_and_paths(void **state)
{
	struct scene s = load(SVG(
		"<polyline id=\"pl\" points=\"0,0 10,0 10,10\">\n"
		"<animate attributeName=\"points\" to=\"0,0 20 0 20,20\" dur=\"1s\"/>\n"
		"</polyline>\n"
		"<path id=\"a\" d=\"M0 0\">\n"
		"<animate attributeName=\"d\" from=\"M0 0 L10 10 Z\" to=\"M10,10 L30,50 Z\" dur=\"1s\"/>\n"
		"</path>\n"
		"<path id=\"b\">\n"
		"<animate attributeName=\"d\" from=\"M0 0 10 10 20 20\" to=\"M0 0 L20 20 L40 40\" dur=\"1s\"/>\n"
		"</path>\n"
		"<path id=\"c\">\n"
		"<animate attributeName=\"d\" from=\"m0 0c1 2 3 4 5 6a5 5 0 01 10 10\" "
		"to=\"m10 0c3 4 5 6 7 8a15 5 90 1,0 30 10\" dur=\"2s\"/>\n"
		"</path>\n"));

	(void)state;
	expect_at(&s, 0.5, "pl", "points", "0,0 15,0 15,15");
	expect_at(&s, 0.5, "a", "d", "M5 5 L20 30 Z");
	expect_at(&s, 0.5, "b", "d", "M0 0 L15 15 L30 30");   /* implicit linetos spelled out */
	expect_at(&s, 0, "c", "d", "m0 0 c1 2 3 4 5 6 a5 5 0 0 1 10 10");
	expect_at(&s, 1, "c", "d", "m5 0 c2 3 4 5 6 7 a10 5 45 1 1 20 10");
	expect_at(&s, 5, "c", "d", "(absent)");
	unload(&s);
}

/* from/by, by alone and to alone (from the base value), values lists. */
static void test_from_to_by(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"100\" y=\"7\" width=\"40\">\n"
		"<animate attributeName=\"x\" by=\"50\" dur=\"1s\"/>\n"
		"<animate attributeName=\"y\" from=\"10\" by=\"-5\" dur=\"1s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"width\" to=\"80\" dur=\"2s\"/>\n"
		"<animate attributeName=\"height\" values=\"0;10;30\" dur=\"2s\" fill=\"freeze\"/>\n"
		"</rect>\n"));

	(void)state;
	expect_at(&s, 0.5, "r", "x", "125");
	expect_at(&s, 0.5, "r", "y", "7.5");
	expect_at(&s, 3, "r", "y", "5");
	expect_at(&s, 0.5, "r", "width", "50");
	expect_at(&s, 0.5, "r", "height", "5");
	expect_at(&s, 1.5, "r", "height", "20");
	expect_at(&s, 3, "r", "height", "30");
	unload(&s);
}

static void test_key_times_and_discrete(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"0\" y=\"0\" width=\"0\" height=\"0\">\n"
		"<animate attributeName=\"x\" values=\"0;100;200\" keyTimes=\"0;0.8;1\" dur=\"10s\"/>\n"
		"<animate attributeName=\"y\" values=\"0;50;100\" calcMode=\"discrete\" dur=\"3s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"width\" values=\"0;50;100\" keyTimes=\"0;0.5;0.9\" calcMode=\"discrete\" "
		"dur=\"10s\"/>\n"
		"<animate attributeName=\"height\" values=\"1;2;3;4\" keyTimes=\"0;0.5;0.5;1\" dur=\"10s\"/>\n"
		"</rect>\n"
		"<g id=\"g\" visibility=\"hidden\">\n"
		"<animate attributeName=\"visibility\" values=\"hidden;visible\" dur=\"2s\" fill=\"freeze\"/>\n"
		"</g>\n"));

	(void)state;
	expect_at(&s, 4, "r", "x", "50");
	expect_at(&s, 9, "r", "x", "150");
	expect_at(&s, 0.5, "r", "y", "0");
	expect_at(&s, 1.2, "r", "y", "50");
	expect_at(&s, 2.9, "r", "y", "100");
	expect_at(&s, 4, "r", "y", "100");
	expect_at(&s, 4, "r", "width", "0");
	expect_at(&s, 5, "r", "width", "50");
	expect_at(&s, 9.5, "r", "width", "100");
	expect_at(&s, 2.5, "r", "height", "1.5");
	expect_at(&s, 5, "r", "height", "3");      /* the jump at 0.5 */
	expect_at(&s, 6, "r", "height", "3.2");
	expect_at(&s, 0.9, "g", "visibility", "hidden");   /* keywords step, never blend */
	expect_at(&s, 1, "g", "visibility", "visible");
	expect_at(&s, 3, "g", "visibility", "visible");
	unload(&s);
}

/*
 * keySplines="0.42 0 0.58 1" at x = 0.25: solving
 * x(s) = 3(1-s)^2 s 0.42 + 3(1-s) s^2 0.58 + s^3 = 0.25 by bisection gives
 * s = 0.2250652, and y(s) = 3(1-s) s^2 + s^3 = 0.1291619.
 */
static void test_spline(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"0\" y=\"0\" width=\"0\">\n"
		"<animate attributeName=\"x\" from=\"0\" to=\"1000\" dur=\"1s\" calcMode=\"spline\" "
		"keySplines=\"0.42 0 0.58 1\"/>\n"
		"<animate attributeName=\"y\" values=\"0;100;300\" dur=\"2s\" calcMode=\"spline\" "
		"keySplines=\"0 0 1 1; 0.5,0,0.5,1\"/>\n"
		"<animate attributeName=\"width\" from=\"0\" to=\"1\" dur=\"1s\" calcMode=\"spline\" "
		"keySplines=\"0.25 0.1 0.25 1\"/>\n"
		"</rect>\n"));

	(void)state;
	assert_float_equal(number_at(&s, 0.25, "r", "x"), 129.1619, 0.001);
	assert_float_equal(number_at(&s, 0.75, "r", "x"), 870.8381, 0.001);   /* symmetric curve */
	expect_at(&s, 0.5, "r", "y", "50");      /* 0 0 1 1 is linear */
	expect_at(&s, 1.5, "r", "y", "200");     /* the symmetric curve's middle */
	assert_float_equal(number_at(&s, 0.3, "r", "width"), 0.5133, 0.0001);  /* CSS "ease" at 0.3 */
	unload(&s);
}

/* Every clock value form, and a begin list starting at its earliest time. */
static void test_clock_values(void **state)
{
	static const struct {
		const char *begin;
		double at;
	} cases[] = {
		{ "2", 2 }, { "2s", 2 }, { "1500ms", 1.5 }, { "00:01.5", 1.5 }, { "0:00:03", 3 },
		{ "0.05min", 3 }, { "0.0005h", 1.8 }, { " 1s ; 3s", 1 }, { "3s;1s;", 1 }, { "-0.5s", -0.5 },
		{ "+1.25s", 1.25 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char svg[400];
		struct scene s;
		snprintf(svg, sizeof svg, SVG("<rect id=\"r\" x=\"-1\">\n<animate attributeName=\"x\" from=\"0\" "
					      "to=\"10\" begin=\"%s\" dur=\"1s\"/>\n</rect>\n"), cases[i].begin);
		s = load(svg);
		expect_at(&s, cases[i].at - 0.01, "r", "x", "-1");
		expect_at(&s, cases[i].at + 0.5, "r", "x", "5");
		unload(&s);
	}
}

/* a.end, b.begin+1s, a chain of four written out of order. */
static void test_syncbase_chains(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"0\" y=\"0\" width=\"0\" height=\"0\">\n"
		"<animate id=\"d\" attributeName=\"height\" from=\"0\" to=\"10\" begin=\"c.end - 0.5s\" dur=\"1s\"/>\n"
		"<animate id=\"c\" attributeName=\"width\" from=\"0\" to=\"10\" begin=\"b.begin+1s\" dur=\"1s\"/>\n"
		"<animate id=\"b\" attributeName=\"y\" from=\"0\" to=\"10\" begin=\"a.end\" dur=\"1s\"/>\n"
		"<animate id=\"a\" attributeName=\"x\" from=\"0\" to=\"10\" begin=\"0.5s\" dur=\"2s\"/>\n"
		"</rect>\n"));

	(void)state;
	/* a 0.5-2.5, b 2.5-3.5, c 3.5-4.5, d 4-5 */
	expect_at(&s, 1.5, "r", "x", "5");
	expect_at(&s, 2.4, "r", "y", "0");
	expect_at(&s, 3, "r", "y", "5");
	expect_at(&s, 3, "r", "width", "0");
	expect_at(&s, 4, "r", "width", "5");
	expect_at(&s, 3.9, "r", "height", "0");
	expect_at(&s, 4.5, "r", "height", "5");
	unload(&s);
}

/* 5000 steps, each beginning at the end of the one written after it: no
 * recursion depth, no quadratic lookups, and the last step lands where the
 * sum of the durations says. */
static void test_long_chain(void **state)
{
	enum { STEPS = 5000 };
	size_t cap = STEPS * 160 + 400, len = 0;
	char *svg = malloc(cap);
	struct scene s;

	(void)state;
	assert_non_null(svg);
	len += (size_t)snprintf(svg + len, cap - len, "<svg xmlns=\"http://www.w3.org/2000/svg\">\n<rect id=\"r\" x=\"-1\">\n");
	for (int i = STEPS - 1; i >= 0; i--) {
		char begin[32] = "0s";
		if (i > 0)
			snprintf(begin, sizeof begin, "s%d.end", i - 1);
		len += (size_t)snprintf(svg + len, cap - len, "<animate id=\"s%d\" attributeName=\"x\" from=\"%d\" "
					"to=\"%d\" begin=\"%s\" dur=\"0.5s\" fill=\"freeze\"/>\n", i, i, i + 1, begin);
	}
	snprintf(svg + len, cap - len, "</rect></svg>\n");
	s = load(svg);
	expect_at(&s, 0.25, "r", "x", "0.5");
	expect_at(&s, 1000.25, "r", "x", "2000.5");
	expect_at(&s, STEPS * 0.5 - 0.25, "r", "x", "4999.5");
	expect_at(&s, STEPS, "r", "x", "5000");
	unload(&s);
	free(svg);
}

static void test_repeat_and_end(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"0\" y=\"0\" width=\"0\" height=\"0\" rx=\"0\">\n"
		"<animate attributeName=\"x\" from=\"0\" to=\"10\" dur=\"1s\" repeatCount=\"3\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"y\" from=\"0\" to=\"10\" dur=\"1s\" repeatCount=\"2.5\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"width\" from=\"0\" to=\"10\" dur=\"1s\" repeatDur=\"1.25s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"height\" from=\"0\" to=\"100\" dur=\"4s\" end=\"2s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"rx\" from=\"0\" to=\"0.3\" dur=\"0.1s\" repeatCount=\"3\" fill=\"freeze\"/>\n"
		"</rect>\n"));

	(void)state;
	expect_at(&s, 1.5, "r", "x", "5");
	expect_at(&s, 2.25, "r", "x", "2.5");
	expect_at(&s, 5, "r", "x", "10");      /* frozen at the end of the last repeat, not its start */
	expect_at(&s, 5, "r", "y", "5");
	expect_at(&s, 5, "r", "width", "2.5");
	expect_at(&s, 1, "r", "height", "25");
	expect_at(&s, 3, "r", "height", "50");
	expect_at(&s, 1, "r", "rx", "0.3");    /* 0.1 x 3 is not exactly 0.3 in binary */
	unload(&s);
}

static void test_set_and_base_values(void **state)
{
	struct scene s = load(SVG(
		"<g id=\"g\" visibility=\"hidden\">\n"
		"<set attributeName=\"visibility\" to=\"visible\" begin=\"2s\"/>\n"
		"<set attributeName=\"display\" to=\"none\" begin=\"1s\" dur=\"1s\"/>\n"
		"<set attributeName=\"fill\" to=\"#ABCDEF\" begin=\"1s\" dur=\"1s\" fill=\"freeze\"/>\n"
		"</g>\n"));

	(void)state;
	expect_at(&s, 1, "g", "visibility", "hidden");
	expect_at(&s, 2, "g", "visibility", "visible");
	expect_at(&s, 600, "g", "visibility", "visible");   /* no dur: it holds */
	expect_at(&s, 0.5, "g", "display", "(absent)");
	expect_at(&s, 1.5, "g", "display", "none");
	expect_at(&s, 2, "g", "display", "(absent)");
	expect_at(&s, 0, "g", "fill", "(absent)");
	expect_at(&s, 9, "g", "fill", "#abcdef");   /* colours are always written as #rrggbb */
	unload(&s);
}

/* The one that began last wins; at equal begins the later in the file. */
static void test_several_on_one_attribute(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"r\" x=\"1\" y=\"0\">\n"
		"<animate attributeName=\"x\" begin=\"2s\" from=\"500\" to=\"600\" dur=\"1s\" fill=\"freeze\"/>\n"
		"<animate attributeName=\"x\" from=\"0\" to=\"100\" dur=\"10s\"/>\n"
		"<animate attributeName=\"y\" from=\"0\" to=\"100\" dur=\"10s\"/>\n"
		"<animate attributeName=\"y\" from=\"50\" to=\"60\" dur=\"1s\"/>\n"
		"</rect>\n"));

	(void)state;
	expect_at(&s, 1, "r", "x", "10");
	expect_at(&s, 2.5, "r", "x", "550");
	expect_at(&s, 5, "r", "x", "600");     /* frozen, but it began later */
	expect_at(&s, 20, "r", "x", "600");
	expect_at(&s, 0.5, "r", "y", "55");
	expect_at(&s, 5, "r", "y", "50");
	unload(&s);
}

static void test_animate_transform(void **state)
{
	struct scene s = load(SVG(
		"<rect id=\"t\" transform=\"translate(5 5)\">\n"
		"<animateTransform attributeName=\"transform\" type=\"translate\" from=\"0\" to=\"100 50\" dur=\"1s\"/>\n"
		"</rect>\n"
		"<rect id=\"s\" transform=\"rotate(10)\">\n"
		"<animateTransform attributeName=\"transform\" type=\"scale\" from=\"1\" to=\"2\" dur=\"1s\"/>\n"
		"</rect>\n"
		"<rect id=\"r\" transform=\"scale(2)\">\n"
		"<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0 50 50\" to=\"90 50 50\" "
		"dur=\"1s\" fill=\"freeze\"/>\n"
		"</rect>\n"
		"<rect id=\"x\">\n"
		"<animateTransform attributeName=\"transform\" type=\"skewX\" values=\"0;30\" dur=\"1s\"/>\n"
		"</rect>\n"
		"<rect id=\"y\" transform=\"translate(1,2)\">\n"
		"<animateTransform attributeName=\"transform\" type=\"skewY\" from=\"0\" by=\"-20\" dur=\"1s\"/>\n"
		"</rect>\n"
		"<rect id=\"n\">\n"
		"<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0\" to=\"90\" dur=\"1s\"/>\n"
		"</rect>\n"));

	(void)state;
	expect_at(&s, 0.5, "t", "transform", "translate(5 5) translate(50 25)");
	expect_at(&s, 2, "t", "transform", "translate(5 5)");
	expect_at(&s, 0.5, "s", "transform", "rotate(10) scale(1.5 1.5)");
	expect_at(&s, 0.5, "r", "transform", "scale(2) rotate(45 50 50)");
	expect_at(&s, 3, "r", "transform", "scale(2) rotate(90 50 50)");
	expect_at(&s, 0.5, "x", "transform", "skewX(15)");
	expect_at(&s, 2, "x", "transform", "(absent)");
	expect_at(&s, 0.25, "y", "transform", "translate(1,2) skewY(-5)");
	expect_at(&s, 0.5, "n", "transform", "rotate(45 0 0)");
	unload(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_and_lengths),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_opacities_and_dashoffset),
		cmocka_unit_test(test_points_and_paths),
		cmocka_unit_test(test_from_to_by),
		cmocka_unit_test(test_key_times_and_discrete),
		cmocka_unit_test(test_spline),
		cmocka_unit_test(test_clock_values),
		cmocka_unit_test(test_syncbase_chains),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_repeat_and_end),
		cmocka_unit_test(test_set_and_base_values),
		cmocka_unit_test(test_several_on_one_attribute),
		cmocka_unit_test(test_animate_transform),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	xmlCleanupParser();
	return rc;
}
