/*
 * blocks_code - the code block: source text highlighted by pygments
 * (Debian's python3-pygments, the highlighter behind most of the web's
 * code listings, ~500 languages) and drawn here as SVG text in DejaVu
 * Sans Mono on a rounded panel.
 *
 * pygments only tokenizes: a small script (run by blocks_python.c, the
 * code on its stdin) answers each token's text and its style's colour,
 * bold and italic as JSON, and this file lays the tokens out.  pygments'
 * own SvgFormatter was not used: it names a font family of its own and
 * sizes nothing to a box; with tokens, every byte of the SVG is ours.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_int.h"
#include "blocks_python.h"

#define HIGHLIGHT_TIMEOUT_MS 10000
#define HIGHLIGHT_MAX_OUT (4u << 20)
/* DejaVu Sans Mono's advance is 0.602 em; lines are 1.35 em apart. */
#define MONO_ADVANCE 0.602
#define LINE_HEIGHT 1.35

static const char script[] =
	"import json, sys\n"
	"def say(o):\n"
	"    sys.stdout.write(json.dumps(o))\n"
	"    sys.exit(0)\n"
	"try:\n"
	"    from pygments.lexers import get_lexer_by_name\n"
	"    from pygments.styles import get_style_by_name\n"
	"    from pygments.util import ClassNotFound\n"
	"except ImportError:\n"
	"    say({'error': 'the highlighter, pygments (Debian package python3-pygments), is not installed'})\n"
	"a = json.load(sys.stdin)\n"
	"try:\n"
	"    lexer = get_lexer_by_name(a['language'], stripnl=False, tabsize=4)\n"
	"except ClassNotFound:\n"
	"    say({'error': 'pygments does not know the language %s; give its pygments name, such as python, c, '\n"
	"         'cpp, javascript, typescript, rust, go, java, bash, json, yaml, sql, html or css' % "
	"json.dumps(a['language'])})\n"
	"style = get_style_by_name(a['style'])\n"
	"out = []\n"
	"for ttype, value in lexer.get_tokens(a['code']):\n"
	"    s = style.style_for_token(ttype)\n"
	"    out.append([s['color'] or '', 1 if s['bold'] else 0, 1 if s['italic'] else 0, value])\n"
	"say({'background': style.background_color or '', 'tokens': out})\n";

struct theme {
	const char *name, *pygments_style, *background, *ink;
};

static const struct theme themes[] = {
	{ "dark", "monokai", "#272822", "#f8f8f2" },
	{ "light", "default", "#f8f8f8", "#1a1a1a" },
};

/* pygments writes colours without '#' ("f92672"); ours with it, or the
 * theme's ink for a token without a colour of its own. */
static const char *token_colour(const char *c, const struct theme *t, char out[8])
{
	if (!c[0] || strlen(c) > 6)
		return t->ink;
	snprintf(out, 8, "#%s", c);
	return blocks_colour_ok(out) ? out : t->ink;
}

/* A refusal for what pygments or the SVG could not carry: a NUL or
 * another control character (tab and newline are fine), and for more
 * than a block holds. */
static int check_code(const char *code, size_t len, char *err, size_t errlen)
{
	size_t lines = 1, at;
	long bad;

	if (len == 0) {
		snprintf(err, errlen, "code is empty");
		return -1;
	}
	if (len > BLOCKS_CODE_MAX_BYTES) {
		snprintf(err, errlen, "code is %zu bytes; a code block holds at most %d (show the part that matters)",
			 len, BLOCKS_CODE_MAX_BYTES);
		return -1;
	}
	if ((bad = blocks_bad_char(code, len, "\t\n\r", &at)) >= 0) {
		snprintf(err, errlen, "code has the character U+%04lX at byte %zu; a code block holds printable text, "
			 "tabs and newlines", (unsigned long)bad, at);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		lines += code[i] == '\n';
	if (lines > BLOCKS_CODE_MAX_LINES) {
		snprintf(err, errlen, "code has %zu lines; a code block holds at most %d", lines, BLOCKS_CODE_MAX_LINES);
		return -1;
	}
	return 0;
}

/* The tokens of code in language: a JSON array of [colour, bold, italic,
 * text], or NULL with err. */
static json_t *highlight(const char *code, size_t len, const char *language, const struct theme *t, char *err,
			 size_t errlen)
{
	json_t *in = json_pack("{s:s%,s:s,s:s}", "code", code, len, "language", language, "style", t->pygments_style);
	char *text = in ? json_dumps(in, JSON_COMPACT) : NULL, *out = NULL;
	size_t out_len;
	json_t *answer = NULL, *tokens = NULL;

	json_decref(in);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (blocks_python(script, text, strlen(text), HIGHLIGHT_TIMEOUT_MS, HIGHLIGHT_MAX_OUT, &out, &out_len, err,
			  errlen) == 0) {
		answer = json_loadb(out, out_len, 0, NULL);
		if (json_is_string(json_object_get(answer, "error")))
			snprintf(err, errlen, "%s", json_string_value(json_object_get(answer, "error")));
		else if (!json_is_array(tokens = json_object_get(answer, "tokens")))
			snprintf(err, errlen, "the highlighter answered something else than tokens");
		else
			json_incref(tokens);
	}
	free(text);
	free(out);
	json_decref(answer);
	return json_is_array(tokens) ? tokens : NULL;
}

/* Lines and the widest line's characters of the highlighted text. */
static void measure(const json_t *tokens, size_t *lines, size_t *cols)
{
	size_t i, col = 0;
	json_t *tok;

	*lines = 1;
	*cols = 1;
	json_array_foreach(tokens, i, tok) {
		const char *s = json_string_value(json_array_get(tok, 3));
		size_t n = json_string_length(json_array_get(tok, 3));
		for (size_t k = 0; s && k < n; k++) {
			if (s[k] == '\n') {
				(*lines)++;
				col = 0;
			} else if (((unsigned char)s[k] & 0xc0) != 0x80 && ++col > *cols) {
				*cols = col;
			}
		}
	}
	/* pygments ends the text with a newline: no line of its own */
	if (*lines > 1)
		(*lines)--;
}

static void open_line(FILE *f, double x, double y, double size)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"DejaVu Sans Mono\" font-size=\"%.1f\" "
		   "xml:space=\"preserve\">", x, y, size);
}

static void draw_tokens(FILE *f, const json_t *tokens, const struct theme *t, double x, double y, double size,
			size_t lines)
{
	size_t i, line = 0;
	json_t *tok;

	open_line(f, x, y, size);
	json_array_foreach(tokens, i, tok) {
		const char *s = json_string_value(json_array_get(tok, 3));
		const char *c = json_string_value(json_array_get(tok, 0));
		size_t n = json_string_length(json_array_get(tok, 3)), start = 0;
		char buf[8];
		const char *colour;

		if (!s)
			continue;
		colour = token_colour(c ? c : "", t, buf);
		for (size_t k = 0; k <= n; k++) {
			if (k < n && s[k] != '\n')
				continue;
			if (k > start) {
				fprintf(f, "<tspan fill=\"%s\"%s%s>", colour,
					json_integer_value(json_array_get(tok, 1)) ? " font-weight=\"bold\"" : "",
					json_integer_value(json_array_get(tok, 2)) ? " font-style=\"italic\"" : "");
				blocks_text(f, s + start, k - start);
				fputs("</tspan>", f);
			}
			if (k < n && ++line < lines) {
				fputs("</text>\n", f);
				open_line(f, x, y + (double)line * size * LINE_HEIGHT, size);
			}
			start = k + 1;
		}
	}
	fputs("</text>\n", f);
}

int block_code(FILE *f, const struct block_box *b, const char *code, size_t len, const char *language,
	       const char *theme, double font_size, char *err, size_t errlen)
{
	const struct theme *t = NULL;
	size_t lines, cols;
	double size, pad, h;
	json_t *tokens;

	for (size_t i = 0; i < sizeof themes / sizeof themes[0]; i++)
		if (strcmp(themes[i].name, theme) == 0)
			t = &themes[i];
	if (!t) {
		snprintf(err, errlen, "theme must be dark or light");
		return -1;
	}
	if (check_code(code, len, err, errlen) < 0 || !(tokens = highlight(code, len, language, t, err, errlen)))
		return -1;
	measure(tokens, &lines, &cols);
	/* The panel's padding is 0.75 em on each side. */
	size = fmin(font_size, b->w / ((double)cols * MONO_ADVANCE + 1.5));
	if (b->h > 0)
		size = fmin(size, b->h / ((double)lines * LINE_HEIGHT + 1.5));
	if (size < BLOCKS_MIN_FONT) {
		snprintf(err, errlen, "the code (%zu lines, up to %zu characters wide) does not fit a %.0fx%.0f block "
			 "at a readable size (%.0f at least); give it more room or fewer or shorter lines", lines, cols,
			 b->w, b->h > 0 ? b->h : b->w, BLOCKS_MIN_FONT);
		json_decref(tokens);
		return -1;
	}
	pad = 0.75 * size;
	h = b->h > 0 ? b->h : (double)lines * size * LINE_HEIGHT + 2 * pad;
	fprintf(f, "<g class=\"block-code\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"%.1f\" "
		   "fill=\"%s\"/>\n", b->x, b->y, b->w, h, pad * 0.8, t->background);
	draw_tokens(f, tokens, t, b->x + pad, b->y + pad + size * 0.95, size, lines);
	fputs("</g>\n", f);
	json_decref(tokens);
	return 0;
}
