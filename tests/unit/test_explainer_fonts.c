/*
 * test_explainer_fonts - the fixed font set: the private fontconfig
 * configuration sees only the DejaVu folder, resolves the generic families
 * and text without a family to DejaVu, and the CSS font-family lists a
 * scene may write are accepted or refused by name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fontconfig/fontconfig.h>

#include "../../renderer/fonts.h"
#include "../harness/group.h"

static int setup(void **state)
{
	char err[512] = "";

	(void)state;
	if (fonts_setup(err, sizeof err) < 0) {
		fprintf(stderr, "fonts_setup: %s\n", err);
		return -1;
	}
	return 0;
}

/* fontconfig keeps its configuration and caches until FcFini. */
static int teardown(void **state)
{
	(void)state;
	FcFini();
	return 0;
}

/* The file the current configuration picks for FAMILY. */
static void assert_matches(const char *family, const char *file)
{
	FcPattern *pat = FcPatternCreate(), *m;
	FcChar8 *got;
	FcResult res;

	assert_non_null(pat);
	assert_true(FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)family));
	assert_true(FcConfigSubstitute(NULL, pat, FcMatchPattern));
	FcDefaultSubstitute(pat);
	assert_non_null(m = FcFontMatch(NULL, pat, &res));
	assert_int_equal(FcPatternGetString(m, FC_FILE, 0, &got), FcResultMatch);
	assert_string_equal((const char *)got, file);
	FcPatternDestroy(m);
	FcPatternDestroy(pat);
}

#define DEJAVU "/usr/share/fonts/truetype/dejavu/"

static void test_private_configuration(void **state)
{
	FcStrList *dirs;
	FcChar8 *dir;
	int n = 0;

	(void)state;
	assert_non_null(dirs = FcConfigGetFontDirs(NULL));
	while ((dir = FcStrListNext(dirs))) {
		assert_string_equal((const char *)dir, "/usr/share/fonts/truetype/dejavu");
		n++;
	}
	FcStrListDone(dirs);
	assert_int_equal(n, 1);
	assert_matches("DejaVu Sans", DEJAVU "DejaVuSans.ttf");
	assert_matches("DejaVu Serif Condensed", DEJAVU "DejaVuSerifCondensed.ttf");
	assert_matches("sans-serif", DEJAVU "DejaVuSans.ttf");
	assert_matches("serif", DEJAVU "DejaVuSerif.ttf");
	assert_matches("monospace", DEJAVU "DejaVuSansMono.ttf");
	/* librsvg's family for text that names none. */
	assert_matches("Times New Roman", DEJAVU "DejaVuSans.ttf");
}

static void ok(const char *list)
{
	char bad[64] = "untouched";

	if (!fonts_family_ok(list, bad, sizeof bad))
		fail_msg("\"%s\" refused (bad \"%s\")", list, bad);
}

static void refused(const char *list, const char *expect_bad)
{
	char bad[64] = "untouched";

	if (fonts_family_ok(list, bad, sizeof bad))
		fail_msg("\"%s\" accepted", list);
	assert_string_equal(bad, expect_bad);
}

static void test_family_lists(void **state)
{
	(void)state;
	ok("DejaVu Sans");
	ok("sans-serif");
	ok("'DejaVu Sans', sans-serif");
	ok("\"DejaVu Sans Mono\",monospace");
	ok("  dejavu   SANS  ");
	ok("DejaVu Sans Condensed, DejaVu Serif Condensed, serif");
	ok("inherit");
	refused("Arial", "Arial");
	refused("DejaVu Sans, Arial", "Arial");
	refused("Arial, sans-serif", "Arial"); /* a fallback does not excuse it */
	refused("'Helvetica Neue', sans-serif", "Helvetica Neue");
	refused("cursive", "cursive");
	refused("", "");
	refused("DejaVu Sans,", "");
	refused("inherit, serif", "inherit");
	refused("'DejaVu Sans", "'DejaVu Sans");
	refused("'DejaVu Sans' Bold", "'DejaVu Sans' Bold");
	assert_non_null(strstr(fonts_family_list(), "DejaVu Sans Condensed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_configuration),
		cmocka_unit_test(test_family_lists),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
