/*
 * fonts - the private fontconfig configuration, the family checks and the
 * coverage question of fonts.h.
 *
 * The configuration is built from memory rather than from /etc/fonts so
 * that a video looks the same on every machine: it sees only the DejaVu
 * and Noto directories, and whatever family a pattern asks for, sans-serif
 * (DejaVu Sans) and then the Noto fallback chain are appended, so a family
 * fontconfig cannot find ends on DejaVu Sans instead of on whichever face
 * scores best, and a character DejaVu lacks ends on the Noto face of its
 * script.  That is also how text without a font-family is drawn: librsvg's
 * initial value is "Times New Roman", which is not installed, so it falls
 * through to sans-serif = DejaVu Sans.  Scenes may name only the families
 * below (scene checks refuse others).
 */
#include "fonts.h"

#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEJAVU_DIR "/usr/share/fonts/truetype/dejavu"
#define NOTO_DIR "/usr/share/fonts/truetype/noto"
#define NOTO_CJK_DIR "/usr/share/fonts/opentype/noto"
#define FONT_DIRS DEJAVU_DIR ", " NOTO_DIR " and " NOTO_CJK_DIR
#define DEFAULT_FAMILY "DejaVu Sans"
/* librsvg's initial font-family: what text with no font-family asks for. */
#define RSVG_INITIAL_FAMILY "Times New Roman"

struct family {
	const char *name;
	const char *package; /* the Debian package that installs it */
};

/* The families a scene may name, each checked at start-up.  The Noto ones
 * are also the fallback chain below. */
static const struct family families[] = {
	{ "DejaVu Sans", "fonts-dejavu-core" },
	{ "DejaVu Sans Mono", "fonts-dejavu-core" },
	{ "DejaVu Serif", "fonts-dejavu-core" },
	{ "DejaVu Sans Condensed", "fonts-dejavu-extra" },
	{ "DejaVu Serif Condensed", "fonts-dejavu-extra" },
	{ "Noto Sans CJK SC", "fonts-noto-cjk" },
	{ "Noto Sans CJK TC", "fonts-noto-cjk" },
	{ "Noto Sans CJK HK", "fonts-noto-cjk" },
	{ "Noto Sans CJK JP", "fonts-noto-cjk" },
	{ "Noto Sans CJK KR", "fonts-noto-cjk" },
	{ "Noto Serif CJK SC", "fonts-noto-cjk" },
	{ "Noto Serif CJK JP", "fonts-noto-cjk" },
	{ "Noto Serif CJK KR", "fonts-noto-cjk" },
	{ "Noto Sans Arabic", "fonts-noto-core" },
	{ "Noto Naskh Arabic", "fonts-noto-core" },
	{ "Noto Sans Hebrew", "fonts-noto-core" },
	{ "Noto Serif Hebrew", "fonts-noto-core" },
	{ "Noto Sans Devanagari", "fonts-noto-core" },
	{ "Noto Serif Devanagari", "fonts-noto-core" },
	{ "Noto Sans Thai", "fonts-noto-core" },
	{ "Noto Serif Thai", "fonts-noto-core" },
	{ "Noto Sans", "fonts-noto-core" },
	{ "Noto Serif", "fonts-noto-core" },
	{ "Noto Color Emoji", "fonts-noto-color-emoji" },
};

static const char *const generics[] = { "sans-serif", "serif", "monospace" };

/* Which CJK face draws Han characters (and kana, Hangul) for a language:
 * the regions write some of the same characters differently. */
#define LANG_FACE(lang, face)                                                                          \
	"  <match target=\"pattern\"><test name=\"lang\" compare=\"contains\"><string>" lang "</string>"   \
	"</test><edit name=\"family\" mode=\"append_last\" binding=\"strong\"><string>" face "</string>" \
	"</edit></match>\n"

/* The caches are the ones every fontconfig program on Debian uses: the
 * system's (written by fc-cache when the fonts are installed), then the
 * user's; without one, fontconfig rescans the folders (100 MB of fonts)
 * and complains on stderr that it cannot write a cache.
 *
 * Every family a pattern asks for is followed by sans-serif = DejaVu Sans
 * (strong, so a language never outranks it: Latin, Greek and Cyrillic stay
 * in DejaVu whatever xml:lang says), then by the CJK face of the text's
 * language, then by the fallback chain: colour emoji first (before the
 * monochrome symbol faces that share code points with it), Simplified
 * Chinese for Han without a language, the sans face of each major script,
 * and Noto Sans for the Latin DejaVu lacks.  Pango draws each character in
 * the first font of that order that has it; fonts outside the chain are
 * reached by coverage alone. */
static const char config_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE fontconfig SYSTEM \"urn:fontconfig:fonts.dtd\">\n"
	"<fontconfig>\n"
	"  <dir>" DEJAVU_DIR "</dir>\n"
	"  <dir>" NOTO_DIR "</dir>\n"
	"  <dir>" NOTO_CJK_DIR "</dir>\n"
	"  <cachedir>/var/cache/fontconfig</cachedir>\n"
	"  <cachedir prefix=\"xdg\">fontconfig</cachedir>\n"
	"  <match target=\"pattern\">\n"
	"    <edit name=\"family\" mode=\"append_last\" binding=\"strong\"><string>sans-serif</string></edit>\n"
	"  </match>\n"
	LANG_FACE("ja", "Noto Sans CJK JP")
	LANG_FACE("ko", "Noto Sans CJK KR")
	LANG_FACE("zh-tw", "Noto Sans CJK TC")
	LANG_FACE("zh-hk", "Noto Sans CJK HK")
	LANG_FACE("zh-mo", "Noto Sans CJK HK")
	"  <match target=\"pattern\">\n"
	"    <edit name=\"family\" mode=\"append_last\" binding=\"strong\">"
	"<string>Noto Color Emoji</string><string>Noto Sans CJK SC</string>"
	"<string>Noto Sans Arabic</string><string>Noto Sans Hebrew</string>"
	"<string>Noto Sans Devanagari</string><string>Noto Sans Thai</string>"
	"<string>Noto Sans</string></edit>\n"
	"  </match>\n"
	/* Noto Color Emoji is one bitmap strike (109 px); without this rule
	 * (the system's 10-scale-bitmap-fonts.conf) its glyphs keep that size
	 * whatever the font-size. */
	"  <match target=\"font\"><test name=\"outline\"><bool>false</bool></test>\n"
	"    <edit name=\"pixelsizefixupfactor\" mode=\"assign\"><divide><name target=\"pattern\">pixelsize"
	"</name><name target=\"font\">pixelsize</name></divide></edit>\n"
	"    <edit name=\"matrix\" mode=\"assign\"><times><name>matrix</name><matrix><name>"
	"pixelsizefixupfactor</name><double>0</double><double>0</double><name>pixelsizefixupfactor</name>"
	"</matrix></times></edit>\n"
	"    <edit name=\"size\" mode=\"assign\"><divide><name>size</name><name>pixelsizefixupfactor</name>"
	"</divide></edit>\n"
	"  </match>\n"
	"  <alias binding=\"same\"><family>sans-serif</family>"
	"<prefer><family>DejaVu Sans</family></prefer></alias>\n"
	"  <alias binding=\"same\"><family>serif</family>"
	"<prefer><family>DejaVu Serif</family></prefer></alias>\n"
	"  <alias binding=\"same\"><family>monospace</family>"
	"<prefer><family>DejaVu Sans Mono</family></prefer></alias>\n"
	"</fontconfig>\n";

const char *fonts_family_list(void)
{
	return "DejaVu Sans, DejaVu Sans Mono, DejaVu Serif, DejaVu Sans Condensed, "
	       "DejaVu Serif Condensed, Noto Sans CJK SC, Noto Sans CJK TC, Noto Sans CJK HK, "
	       "Noto Sans CJK JP, Noto Sans CJK KR, Noto Serif CJK SC, Noto Serif CJK JP, Noto Serif CJK KR, "
	       "Noto Sans Arabic, Noto Naskh Arabic, Noto Sans Hebrew, Noto Serif Hebrew, Noto Sans Devanagari, "
	       "Noto Serif Devanagari, Noto Sans Thai, Noto Serif Thai, Noto Sans, Noto Serif, Noto Color Emoji, "
	       "sans-serif, serif, monospace";
}

/* The font fontconfig picks for FAMILY under config c; NULL when none.
 * The caller destroys the result. */
static FcPattern *match_family(FcConfig *c, const char *family)
{
	FcPattern *pat = FcPatternCreate(), *match = NULL;
	FcResult res;

	if (!pat)
		return NULL;
	if (FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)family) &&
	    FcConfigSubstitute(c, pat, FcMatchPattern)) {
		FcDefaultSubstitute(pat);
		match = FcFontMatch(c, pat, &res);
	}
	FcPatternDestroy(pat);
	return match;
}

/* Whether the font matched is really of FAMILY (not a fallback) and its
 * file is readable; its file name in file. */
static int is_family(FcPattern *match, const char *family, char *file, size_t filelen)
{
	FcChar8 *s;
	int found = 0;

	file[0] = '\0';
	if (!match)
		return 0;
	for (int i = 0; FcPatternGetString(match, FC_FAMILY, i, &s) == FcResultMatch; i++)
		if (strcasecmp((const char *)s, family) == 0)
			found = 1;
	if (FcPatternGetString(match, FC_FILE, 0, &s) != FcResultMatch)
		return 0;
	snprintf(file, filelen, "%s", (const char *)s);
	return found && access(file, R_OK) == 0;
}

static int check_families(FcConfig *c, char *err, size_t errlen)
{
	char file[512];

	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		FcPattern *m = match_family(c, families[i].name);
		int ok = is_family(m, families[i].name, file, sizeof file);

		if (m)
			FcPatternDestroy(m);
		if (!ok) {
			snprintf(err, errlen, "the font family \"%s\" is not installed in %s; install the Debian "
				 "package %s (`make deps` does)", families[i].name, FONT_DIRS,
				 families[i].package);
			return -1;
		}
	}
	FcPattern *m = match_family(c, RSVG_INITIAL_FAMILY);
	int ok = is_family(m, DEFAULT_FAMILY, file, sizeof file);
	if (m)
		FcPatternDestroy(m);
	if (!ok) {
		snprintf(err, errlen, "text without a font-family would not be drawn in %s but in %s; the "
			 "private fontconfig configuration is wrong", DEFAULT_FAMILY, file[0] ? file : "nothing");
		return -1;
	}
	return 0;
}

int fonts_setup(char *err, size_t errlen)
{
	FcConfig *c = FcConfigCreate();

	if (!c) {
		snprintf(err, errlen, "out of memory creating the fontconfig configuration");
		return -1;
	}
	if (!FcConfigParseAndLoadFromMemory(c, (const FcChar8 *)config_xml, FcTrue)) {
		snprintf(err, errlen, "fontconfig refused the private font configuration");
		goto fail;
	}
	if (!FcConfigBuildFonts(c)) {
		snprintf(err, errlen, "fontconfig could not read the fonts in %s", FONT_DIRS);
		goto fail;
	}
	if (check_families(c, err, errlen) < 0)
		goto fail;
	if (!FcConfigSetCurrent(c)) {
		snprintf(err, errlen, "fontconfig could not switch to the private font configuration");
		goto fail;
	}
	FcConfigDestroy(c); /* fontconfig holds its own reference to the current one */
	return 0;
fail:
	FcConfigDestroy(c);
	return -1;
}

FcCharSet *fonts_missing(const FcCharSet *want)
{
	FcFontSet *fonts = FcConfigGetFonts(NULL, FcSetSystem);
	FcCharSet *left = FcCharSetCopy((FcCharSet *)want);

	/* The DejaVu folder comes first, so text in the scripts it covers
	 * stops after a font or two; only a character no font has goes
	 * through them all. */
	for (int i = 0; left && fonts && i < fonts->nfont && FcCharSetCount(left) > 0; i++) {
		FcCharSet *has, *rest;
		if (FcPatternGetCharSet(fonts->fonts[i], FC_CHARSET, 0, &has) != FcResultMatch ||
		    FcCharSetIntersectCount(left, has) == 0)
			continue;
		rest = FcCharSetSubtract(left, has);
		FcCharSetDestroy(left);
		left = rest;
	}
	return left;
}

static int family_known(const char *name)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (strcasecmp(name, families[i].name) == 0)
			return 1;
	for (size_t i = 0; i < sizeof generics / sizeof generics[0]; i++)
		if (strcasecmp(name, generics[i]) == 0)
			return 1;
	return 0;
}

/* One family of a CSS list at *p into name (unquoted, inner spaces
 * collapsed), leaving *p after it and its trailing spaces.  -1 when the
 * item is malformed (an unclosed quote, text after a quoted name). */
static int next_family(const char **p, char *name, size_t namelen)
{
	const char *s = *p;
	size_t n = 0;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f')
		s++;
	if (*s == '"' || *s == '\'') {
		char quote = *s++;
		while (*s && *s != quote) {
			if (*s == '\\' && s[1])
				s++;
			if (n + 1 < namelen)
				name[n++] = *s;
			s++;
		}
		if (*s != quote)
			return -1;
		s++;
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f')
			s++;
		name[n] = '\0';
		*p = s;
		return *s == ',' || *s == '\0' ? 0 : -1;
	}
	int space = 0;
	for (; *s && *s != ','; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f') {
			space = n > 0;
			continue;
		}
		if (space && n + 1 < namelen)
			name[n++] = ' ';
		space = 0;
		if (n + 1 < namelen)
			name[n++] = *s;
	}
	name[n] = '\0';
	*p = s;
	return 0;
}

int fonts_family_ok(const char *list, char *bad, size_t badlen)
{
	const char *p = list;
	char name[256];

	if (badlen)
		bad[0] = '\0';
	for (;;) {
		const char *item = p;
		if (next_family(&p, name, sizeof name) < 0) {
			snprintf(bad, badlen, "%s", item);
			return 0;
		}
		/* "inherit" alone takes the parent's family, which is checked there. */
		if (item == list && *p == '\0' && strcasecmp(name, "inherit") == 0)
			return 1;
		if (!family_known(name)) {
			snprintf(bad, badlen, "%s", name);
			return 0;
		}
		if (*p == '\0')
			return 1;
		p++; /* the comma */
	}
}
