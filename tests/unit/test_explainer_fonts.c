/*
 * test_explainer_fonts - the fixed font set: the private fontconfig
 * configuration sees only the DejaVu and Noto folders, resolves the generic
 * families and text without a family to DejaVu, falls back by language and
 * coverage to the Noto faces, finds the characters no font has, and the
 * CSS font-family lists a scene may write are accepted or refused by name.
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
	static const char *const want[] = { "/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/noto",
					    "/usr/share/fonts/opentype/noto" };
	FcStrList *dirs;
	FcChar8 *dir;
	size_t n = 0;

	(void)state;
	assert_non_null(dirs = FcConfigGetFontDirs(NULL));
	while ((dir = FcStrListNext(dirs))) {
		assert_true(n < sizeof want / sizeof want[0]);
		assert_string_equal((const char *)dir, want[n]);
		n++;
	}
	FcStrListDone(dirs);
	assert_int_equal(n, sizeof want / sizeof want[0]);
	assert_matches("DejaVu Sans", DEJAVU "DejaVuSans.ttf");
	assert_matches("DejaVu Serif Condensed", DEJAVU "DejaVuSerifCondensed.ttf");
	assert_matches("sans-serif", DEJAVU "DejaVuSans.ttf");
	assert_matches("serif", DEJAVU "DejaVuSerif.ttf");
	assert_matches("monospace", DEJAVU "DejaVuSansMono.ttf");
	/* librsvg's family for text that names none. */
	assert_matches("Times New Roman", DEJAVU "DejaVuSans.ttf");
	assert_matches("Noto Sans Thai", "/usr/share/fonts/truetype/noto/NotoSansThai-Regular.ttf");
	assert_matches("Noto Color Emoji", "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf");
}

/* The family of the first font pango would take for character c in text
 * without a font-family, in language lang (NULL: none), as pango does:
 * the sorted list, the first font that has the character. */
static void assert_falls_to(unsigned c, const char *lang, const char *family)
{
	FcPattern *pat = FcPatternCreate();
	FcFontSet *sorted;
	FcChar8 *got = NULL;
	FcResult res;

	assert_non_null(pat);
	assert_true(FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)"Times New Roman"));
	if (lang)
		assert_true(FcPatternAddString(pat, FC_LANG, (const FcChar8 *)lang));
	assert_true(FcConfigSubstitute(NULL, pat, FcMatchPattern));
	FcDefaultSubstitute(pat);
	assert_non_null(sorted = FcFontSort(NULL, pat, FcFalse, NULL, &res));
	for (int i = 0; i < sorted->nfont && !got; i++) {
		FcCharSet *cs;
		if (FcPatternGetCharSet(sorted->fonts[i], FC_CHARSET, 0, &cs) == FcResultMatch &&
		    FcCharSetHasChar(cs, c))
			assert_int_equal(FcPatternGetString(sorted->fonts[i], FC_FAMILY, 0, &got), FcResultMatch);
	}
	if (!got || strcmp((const char *)got, family) != 0)
		fail_msg("U+%04X in %s: %s, not %s", c, lang ? lang : "no language", got ? (const char *)got : "no font",
			 family);
	FcFontSetDestroy(sorted);
	FcPatternDestroy(pat);
}

/* DejaVu first for what it has, whatever the language; then the face of
 * the text's language for Han; then the fallback chain. */
static void test_fallback_order(void **state)
{
	(void)state;
	assert_falls_to('A', "ja", "DejaVu Sans");
	assert_falls_to(0x3b1, "zh-cn", "DejaVu Sans");  /* Greek alpha */
	assert_falls_to(0x436, "ko", "DejaVu Sans");     /* Cyrillic zhe */
	assert_falls_to(0x76f4, NULL, "Noto Sans CJK SC");
	assert_falls_to(0x76f4, "zh-cn", "Noto Sans CJK SC");
	assert_falls_to(0x76f4, "ja", "Noto Sans CJK JP");
	assert_falls_to(0x76f4, "ko", "Noto Sans CJK KR");
	assert_falls_to(0x76f4, "zh-tw", "Noto Sans CJK TC");
	assert_falls_to(0x76f4, "zh-hk", "Noto Sans CJK HK");
	assert_falls_to(0x915, NULL, "Noto Sans Devanagari");
	assert_falls_to(0xe01, NULL, "Noto Sans Thai");
	assert_falls_to(0x1f680, NULL, "Noto Color Emoji"); /* rocket */
}

/* The characters no font has: a private-use one, a noncharacter; not
 * those the fonts between them have. */
static void test_missing(void **state)
{
	static const unsigned have[] = { 'a', 0x416, 0x4e16, 0x5d0, 0x627, 0x915, 0xe01, 0xac00, 0x1f680 };
	FcCharSet *want = FcCharSetCreate(), *missing;

	(void)state;
	assert_non_null(want);
	for (size_t i = 0; i < sizeof have / sizeof have[0]; i++)
		assert_true(FcCharSetAddChar(want, have[i]));
	assert_non_null(missing = fonts_missing(want));
	assert_int_equal(FcCharSetCount(missing), 0);
	FcCharSetDestroy(missing);
	assert_true(FcCharSetAddChar(want, 0xe000));
	assert_true(FcCharSetAddChar(want, 0x10fffd));
	assert_non_null(missing = fonts_missing(want));
	assert_int_equal(FcCharSetCount(missing), 2);
	assert_true(FcCharSetHasChar(missing, 0xe000));
	assert_true(FcCharSetHasChar(missing, 0x10fffd));
	FcCharSetDestroy(missing);
	FcCharSetDestroy(want);
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
	ok("'Noto Sans CJK JP', sans-serif");
	ok("Noto Color Emoji");
	refused("Noto Sans Cherokee", "Noto Sans Cherokee"); /* installed, but not in the set */
	assert_non_null(strstr(fonts_family_list(), "DejaVu Sans Condensed"));
	assert_non_null(strstr(fonts_family_list(), "Noto Sans CJK JP"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_configuration),
		cmocka_unit_test(test_fallback_order),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_family_lists),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
