/*
 * test_browser_snapshot - svc-browser's page snapshot on accessibility
 * trees recorded from a real Chromium (tests/fixtures/browser/, see the
 * README there): the three pages' snapshots byte for byte; every ref
 * names a node of the tree and parses back to its backendDOMNodeId, and a
 * malformed ref is refused; a bound cuts at a line boundary with the note
 * that counts what was left out; and on synthetic trees: names a hostile
 * page chooses stay on their line, quoted, escaped and cut; cycles and
 * repeated children print once; ignored and unnamed wrapper nodes give
 * their place to their children; a tree deeper than any stack keeps its
 * indentation capped; missing or mistyped fields are tolerated.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-browser/snapshot.h"

/* A fixture's "nodes" (tests/fixtures/browser/NAME), from here or the build's parent. */
static json_t *fixture(const char *name)
{
	const char *build = getenv("HB_BUILD");
	char path[700];
	json_error_t e;
	json_t *root;

	snprintf(path, sizeof path, "tests/fixtures/browser/%s", name);
	if (!(root = json_load_file(path, 0, &e))) {
		snprintf(path, sizeof path, "%s/../tests/fixtures/browser/%s", build ? build : "build", name);
		root = json_load_file(path, 0, &e);
	}
	if (!root)
		fail_msg("fixture %s: %s", name, e.text);
	return root;
}

static void build(const json_t *nodes, size_t max, struct snapshot *s)
{
	char err[256];

	if (snapshot_build(nodes, max, s, err, sizeof err) != 0)
		fail_msg("snapshot_build: %s", err);
	assert_non_null(s->text);
	assert_int_equal(strlen(s->text), s->len);
}

/* The snapshot of synthetic nodes written as JSON text. */
static void build_text(const char *json, size_t max, struct snapshot *s)
{
	json_error_t e;
	json_t *nodes = json_loads(json, 0, &e);

	if (!nodes)
		fail_msg("bad test JSON at %d: %s", e.position, e.text);
	build(nodes, max, s);
	json_decref(nodes);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static const char form_golden[] =
	"- main\n"
	"  - heading \"Create your account\" [level=1]\n"
	"  - form\n"
	"    - textbox \"Full name\" [ref=e2]: \"Ada Lovelace\"\n"
	"    - textbox \"Email\" [focused] [placeholder=\"you@example.com\"] [ref=e3]\n"
	"    - textbox \"Password\" [required] [ref=e21]\n"
	"    - textbox \"About you\" [ref=e25]: \"Line one\\nLine \\\"two\\\"\"\n"
	"    - button \"Sign up\" [ref=e28]\n"
	"    - button \"Cancel\" [disabled] [ref=e29]\n";

static const char links_golden[] =
	"- banner\n"
	"  - navigation \"Main\"\n"
	"    - link \"Home\" [url=\"https://example.com/\"] [ref=e9]\n"
	"    - \"|\"\n"
	"    - link \"Getting started\" [url=\"https://example.com/docs/getting-started?lang=en&v=2#install\"] [ref=e10]\n"
	"- article\n"
	"  - heading \"Documentation\" [level=1]\n"
	"  - paragraph\n"
	"    - \"Welcome to the docs. Read the\"\n"
	"    - link \"guide\" [url=\"file:///tmp/hbpages/guide.html\"] [ref=e15]\n"
	"    - \"first.\"\n"
	"  - heading \"Topics\" [level=2]\n"
	"  - list\n"
	"    - link \"Configuration\" [url=\"https://example.com/docs/a-very-long-path/that/goes/on/and/on/and/on/for/quite/a/while/before/it/end…\"] [ref=e19]\n"
	"    - \"Plain item\"\n"
	"    - listitem\n"
	"      - \"Nested text\"\n"
	"  - image \"A tiny picture\"\n"
	"- contentinfo\n"
	"  - \"© 2025 Example\"\n";

static const char choices_golden[] =
	"- heading \"Preferences\" [level=1]\n"
	"- group \"Notifications\"\n"
	"  - checkbox \"Email me\" [checked] [ref=e12]\n"
	"  - checkbox \"Text me\" [ref=e14]\n"
	"- group \"Theme\"\n"
	"  - radio \"Light\" [ref=e18]\n"
	"  - radio \"Dark\" [checked] [ref=e20]\n"
	"- combobox \"Language\" [ref=e22]: \"Français\"\n"
	"  - option \"English\" [ref=e29]\n"
	"  - option \"Français\" [selected] [ref=e32]\n"
	"  - option \"Deutsch\" [ref=e35]\n"
	"- group\n"
	"  - DisclosureTriangle \"Advanced\" [ref=e43]\n"
	"- group\n"
	"  - DisclosureTriangle \"Shown\" [expanded] [ref=e50]\n"
	"  - slider \"Volume\" [ref=e52]: 3\n"
	"- button \"Custom control\" [ref=e56]\n"
	"- \"Click div without role\"\n";

static void golden(const char *name, const char *want, size_t refs)
{
	json_t *root = fixture(name);
	struct snapshot s;

	build(json_object_get(root, "nodes"), 0, &s);
	assert_string_equal(s.text, want);
	assert_int_equal(s.truncated, 0);
	assert_int_equal(s.nodes, count_lines(want));
	assert_int_equal(s.refs, refs);
	snapshot_free(&s);
	json_decref(root);
}

/* Labelled fields, a focused one with a placeholder, a multi-line value
 * with quotes, a required and a disabled control; the labels' texts, the
 * fields' insides and the wrapping divs are gone. */
static void test_golden_form(void **state)
{
	(void)state;
	golden("form.json", form_golden, 6);
}

/* Landmarks, headings, links with their urls (one cut), text joined
 * across <strong> and <em>, list markers gone, hidden nodes absent. */
static void test_golden_links(void **state)
{
	(void)state;
	golden("links.json", links_golden, 4);
}

/* Checkboxes and radios with their state, a select with its options, a
 * <details> open and closed, a range, an ARIA button. */
static void test_golden_choices(void **state)
{
	(void)state;
	golden("choices.json", choices_golden, 12);
}

/* Is there a node with this backendDOMNodeId that is not ignored? */
static int has_node(const json_t *nodes, long id)
{
	const json_t *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (json_integer_value(json_object_get(n, "backendDOMNodeId")) == id &&
		    !json_is_true(json_object_get(n, "ignored")))
			return 1;
	return 0;
}

static void test_refs_name_nodes(void **state)
{
	static const char *const names[] = { "form.json", "links.json", "choices.json" };
	size_t k;

	(void)state;
	for (k = 0; k < sizeof names / sizeof *names; k++) {
		json_t *root = fixture(names[k]);
		const json_t *nodes = json_object_get(root, "nodes");
		struct snapshot s;
		const char *p;
		size_t seen = 0;

		build(nodes, 0, &s);
		for (p = s.text; (p = strstr(p, "[ref=")); p++) {
			char ref[32];
			size_t n = strcspn(p + 5, "]");
			long id;

			assert_true(n < sizeof ref);
			memcpy(ref, p + 5, n);
			ref[n] = '\0';
			id = snapshot_ref_node(ref);
			assert_true(id > 0);
			assert_true(has_node(nodes, id));
			seen++;
		}
		assert_int_equal(seen, s.refs);
		snapshot_free(&s);
		json_decref(root);
	}
}

static void test_ref_parse(void **state)
{
	(void)state;
	assert_int_equal(snapshot_ref_node("e123"), 123);
	assert_int_equal(snapshot_ref_node("e1"), 1);
	assert_int_equal(snapshot_ref_node("e2147483647"), 2147483647L);
	assert_int_equal(snapshot_ref_node("e2147483648"), -1);
	assert_int_equal(snapshot_ref_node("e99999999999999999999999"), -1);
	assert_int_equal(snapshot_ref_node("e0"), -1);
	assert_int_equal(snapshot_ref_node("e012"), -1);
	assert_int_equal(snapshot_ref_node("e"), -1);
	assert_int_equal(snapshot_ref_node(""), -1);
	assert_int_equal(snapshot_ref_node(NULL), -1);
	assert_int_equal(snapshot_ref_node("E12"), -1);
	assert_int_equal(snapshot_ref_node("e-1"), -1);
	assert_int_equal(snapshot_ref_node("e+1"), -1);
	assert_int_equal(snapshot_ref_node("e12a"), -1);
	assert_int_equal(snapshot_ref_node("e12 "), -1);
	assert_int_equal(snapshot_ref_node(" e12"), -1);
	assert_int_equal(snapshot_ref_node("ref=e12"), -1);
}

/* A bound cuts at a line boundary: the kept lines begin the whole
 * snapshot, the note follows with the bound and the count of nodes left
 * out, and the text with the note stays within the bound. */
static void test_cut(void **state)
{
	json_t *root = fixture("links.json");
	const json_t *nodes = json_object_get(root, "nodes");
	struct snapshot full, cut, tiny, roomy;
	char note[200];
	size_t kept;

	(void)state;
	build(nodes, 0, &full);
	build(nodes, 400, &cut);
	assert_int_equal(cut.truncated, 1);
	assert_true(cut.len <= 400);
	assert_true(cut.nodes > 0 && cut.nodes < full.nodes);
	/* the first node left out is one of the tree's (the next part's start) */
	assert_true(cut.cut_node < json_array_size(nodes));
	snprintf(note, sizeof note, SNAPSHOT_CUT_NOTE, (size_t)400, full.nodes - cut.nodes);
	kept = cut.len - strlen(note);
	assert_string_equal(cut.text + kept, note);
	assert_true(kept > 0 && cut.text[kept - 1] == '\n');
	assert_memory_equal(cut.text, full.text, kept);
	assert_int_equal(count_lines(cut.text), cut.nodes + 1);
	assert_true(strstr(note, "400 characters") != NULL);

	/* A bound below the minimum is raised to it. */
	build(nodes, 10, &tiny);
	assert_int_equal(tiny.truncated, 1);
	assert_true(tiny.len <= SNAPSHOT_MIN_CHARS);
	assert_true(tiny.nodes >= 1);

	/* A bound the whole snapshot fits in changes nothing. */
	build(nodes, full.len + 200, &roomy);
	assert_int_equal(roomy.truncated, 0);
	assert_string_equal(roomy.text, full.text);

	snapshot_free(&full);
	snapshot_free(&cut);
	snapshot_free(&tiny);
	snapshot_free(&roomy);
	json_decref(root);
}

/* Names a page chooses: a newline and a forged ref, quotes and
 * backslashes, control characters, a line separator, a right-to-left
 * override, a C1 control; a role with a newline; a name far too long,
 * cut on a character boundary. */
static void test_hostile_names(void **state)
{
	struct snapshot s;
	char json[4096], longname[1300];
	const char *want;
	size_t i;

	(void)state;
	for (i = 0; i < 600; i++)
		memcpy(longname + 2 * i, "\xc3\xa9", 2);  /* é */
	longname[1200] = '\0';
	snprintf(json, sizeof json,
		 "[{\"nodeId\":\"1\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"T\"},"
		 "\"childIds\":[\"2\",\"3\",\"4\",\"5\",\"6\"]},"
		 "{\"nodeId\":\"2\",\"parentId\":\"1\",\"backendDOMNodeId\":10,\"role\":{\"value\":\"button\"},"
		 "\"name\":{\"value\":\"ok\\\"] [ref=e99]\\n- button \\\"Pay\\\" [ref=e1]\"}},"
		 "{\"nodeId\":\"3\",\"parentId\":\"1\",\"backendDOMNodeId\":11,\"role\":{\"value\":\"link\"},"
		 "\"name\":{\"value\":\"a\\\\b\\tc\\u0001d\\u2028e\\u202ef\\u0085g\\u007f\"},"
		 "\"properties\":[{\"name\":\"url\",\"value\":{\"value\":\"https://x.test/\\\"]\\n- x\"}}]},"
		 "{\"nodeId\":\"4\",\"parentId\":\"1\",\"role\":{\"value\":\"heading\\n- button\"},"
		 "\"name\":{\"value\":\"%s\"}},"
		 "{\"nodeId\":\"5\",\"parentId\":\"1\",\"backendDOMNodeId\":12,\"role\":{\"value\":\"textbox\"},"
		 "\"name\":{\"value\":\"q\"},\"value\":{\"value\":\"1\\r\\n2\"}},"
		 "{\"nodeId\":\"6\",\"parentId\":\"1\",\"role\":{\"value\":\"StaticText\"},"
		 "\"name\":{\"value\":\"  spaced\\nout  \"}}]",
		 longname);
	build_text(json, 0, &s);
	assert_int_equal(s.nodes, 5);
	assert_int_equal(count_lines(s.text), 5);
	assert_int_equal(s.refs, 3);
	want = "- button \"ok\\\"] [ref=e99]\\n- button \\\"Pay\\\" [ref=e1]\" [ref=e10]\n";
	assert_non_null(strstr(s.text, want));
	want = "- link \"a\\\\b\\tc\\u0001d\\u2028e\\u202ef\\u0085g\\u007f\" "
	       "[url=\"https://x.test/\\\"]\\n- x\"] [ref=e11]\n";
	assert_non_null(strstr(s.text, want));
	want = "- textbox \"q\" [ref=e12]: \"1\\r\\n2\"\n";
	assert_non_null(strstr(s.text, want));
	assert_non_null(strstr(s.text, "- \"spaced\\nout\"\n"));
	/* The heading: its role kept to the characters of a role, its name 200 é and "…". */
	{
		const char *h = strstr(s.text, "- heading-button \"");
		const char *q;

		assert_non_null(h);
		h += strlen("- heading-button \"");
		q = strchr(h, '"');
		assert_non_null(q);
		assert_int_equal(q - h, 2 * SNAPSHOT_NAME_MAX + 3);
		assert_memory_equal(q - 3, "…", 3);
	}
	snapshot_free(&s);
}

/* A cycle through childIds, a node that is its own child, and a child
 * listed twice: each shows once and the walk ends.  When every node has a
 * parent (a cycle with no root), the walk starts at the first. */
static void test_cycles(void **state)
{
	struct snapshot s;

	(void)state;
	build_text("[{\"nodeId\":\"1\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"c\"},"
		   "\"childIds\":[\"2\",\"2\"]},"
		   "{\"nodeId\":\"2\",\"parentId\":\"1\",\"role\":{\"value\":\"list\"},\"childIds\":[\"3\",\"2\"]},"
		   "{\"nodeId\":\"3\",\"parentId\":\"2\",\"role\":{\"value\":\"listitem\"},"
		   "\"childIds\":[\"1\",\"3\",\"2\"]}]", 0, &s);
	assert_string_equal(s.text,
			    "- list\n"
			    "  - listitem\n");
	snapshot_free(&s);

	build_text("[{\"nodeId\":\"a\",\"parentId\":\"b\",\"role\":{\"value\":\"group\"},\"childIds\":[\"b\"]},"
		   "{\"nodeId\":\"b\",\"parentId\":\"a\",\"role\":{\"value\":\"region\"},\"childIds\":[\"a\"]}]",
		   0, &s);
	assert_string_equal(s.text, "- group\n  - region\n");
	snapshot_free(&s);
}

/* Ignored nodes and unnamed wrappers give their place to their children;
 * a named or focusable generic stays; text repeating the enclosing name
 * goes; inline formatting joins its text without a space, a block
 * boundary with one; a <br> starts a new text line. */
/* A link of the page's own origin is shown as its path; one of another
 * origin (another host, port or scheme, or a host that only starts the
 * same) whole; a frame's links against the frame's own origin. */
static void test_link_urls(void **state)
{
#define LINK(id, url) "{\"nodeId\":\"" id "\",\"role\":{\"value\":\"link\"},\"name\":{\"value\":\"L" id "\"}," \
		      "\"properties\":[{\"name\":\"url\",\"value\":{\"value\":\"" url "\"}}]}"
	struct snapshot s;

	(void)state;
	build_text("["
		   "{\"nodeId\":\"1\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"P\"},"
		   "\"properties\":[{\"name\":\"url\",\"value\":{\"value\":\"https://example.com/a/page?q=1\"}}],"
		   "\"childIds\":[\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\"]}," LINK("2", "https://example.com/b?x=1#f") ","
		   LINK("3", "https://example.com.evil.org/x") "," LINK("4", "https://example.com:8443/x") ","
		   LINK("5", "http://example.com/x") "," LINK("6", "https://example.com") ","
		   "{\"nodeId\":\"7\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"F\"},"
		   "\"properties\":[{\"name\":\"url\",\"value\":{\"value\":\"http://localhost:9/f\"}}],"
		   "\"childIds\":[\"9\",\"10\"]}," LINK("8", "https://example.com/after") ","
		   LINK("9", "http://localhost:9/in-frame") "," LINK("10", "https://example.com/from-frame") "]",
		   0, &s);
	assert_non_null(strstr(s.text, "link \"L2\" [url=\"/b?x=1#f\"]"));
	assert_non_null(strstr(s.text, "[url=\"https://example.com.evil.org/x\"]"));
	assert_non_null(strstr(s.text, "[url=\"https://example.com:8443/x\"]"));
	assert_non_null(strstr(s.text, "[url=\"http://example.com/x\"]"));
	assert_non_null(strstr(s.text, "[url=\"https://example.com\"]"));
	assert_non_null(strstr(s.text, "link \"L9\" [url=\"/in-frame\"]"));
	assert_non_null(strstr(s.text, "[url=\"https://example.com/from-frame\"]"));
	/* after the frame, the page's own origin again */
	assert_non_null(strstr(s.text, "link \"L8\" [url=\"/after\"]"));
	snapshot_free(&s);
#undef LINK
}

static void test_collapse(void **state)
{
	struct snapshot s;

	(void)state;
	build_text("["
		   "{\"nodeId\":\"1\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"P\"},\"childIds\":[\"2\"]},"
		   "{\"nodeId\":\"2\",\"ignored\":true,\"role\":{\"value\":\"none\"},\"childIds\":[\"3\",\"9\"]},"
		   "{\"nodeId\":\"3\",\"role\":{\"value\":\"generic\"},\"name\":{\"value\":\"\"},\"childIds\":[\"4\",\"6\"]},"
		   "{\"nodeId\":\"4\",\"role\":{\"value\":\"button\"},\"name\":{\"value\":\"Go now\"},"
		   "\"backendDOMNodeId\":7,\"childIds\":[\"5\"]},"
		   "{\"nodeId\":\"5\",\"role\":{\"value\":\"StaticText\"},\"name\":{\"value\":\"Go\"}},"
		   "{\"nodeId\":\"6\",\"role\":{\"value\":\"generic\"},\"name\":{\"value\":\"Card\"},\"childIds\":[\"7\"]},"
		   "{\"nodeId\":\"7\",\"role\":{\"value\":\"generic\"},\"backendDOMNodeId\":8,"
		   "\"properties\":[{\"name\":\"focusable\",\"value\":{\"value\":true}}],\"childIds\":[\"8\"]},"
		   "{\"nodeId\":\"8\",\"role\":{\"value\":\"StaticText\"},\"name\":{\"value\":\"inside\"}},"
		   "{\"nodeId\":\"9\",\"role\":{\"value\":\"paragraph\"},\"childIds\":[\"10\",\"11\",\"13\",\"15\",\"16\",\"17\"]},"
		   "{\"nodeId\":\"10\",\"role\":{\"value\":\"StaticText\"},\"name\":{\"value\":\"Big\"}},"
		   "{\"nodeId\":\"11\",\"role\":{\"value\":\"strong\"},\"childIds\":[\"12\"]},"
		   "{\"nodeId\":\"12\",\"role\":{\"value\":\"StaticText\"},\"name\":{\"value\":\"gest\"}},"
		   "{\"nodeId\":\"13\",\"role\":{\"value\":\"generic\"},\"childIds\":[\"14\"]},"
		   "{\"nodeId\":\"14\",\"role\":{\"value\":\"StaticText\"},\"name\":{\"value\":\"block\"}},"
		   "{\"nodeId\":\"15\",\"role\":{\"value\":\"LineBreak\"},\"name\":{\"value\":\"\\n\"}},"
		   "{\"nodeId\":\"16\",\"ignored\":true,\"childIds\":[\"18\"]},"
		   "{\"nodeId\":\"17\",\"role\":{\"value\":\"InlineTextBox\"},\"name\":{\"value\":\"plumbing\"}},"
		   "{\"nodeId\":\"18\",\"role\":{\"value\":\"StaticText\"},\"name\":{\"value\":\"after\"}}"
		   "]", 0, &s);
	assert_string_equal(s.text,
			    "- button \"Go now\" [ref=e7]\n"
			    "- generic \"Card\"\n"
			    "  - generic [ref=e8]\n"
			    "    - \"inside\"\n"
			    "- paragraph\n"
			    "  - \"Biggest block\"\n"
			    "  - \"after\"\n");
	assert_int_equal(s.refs, 2);
	snapshot_free(&s);
}

/* A node of an out-of-process frame names its iframe in its ref; a bad
 * owner is taken as none. */
static void test_frame_refs(void **state)
{
	struct snapshot s;
	long owner, node;

	(void)state;
	build_text("["
		   "{\"nodeId\":\"1\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"P\"},\"childIds\":[\"2\"]},"
		   "{\"nodeId\":\"2\",\"role\":{\"value\":\"Iframe\"},\"name\":{\"value\":\"Ad\"},"
		   "\"backendDOMNodeId\":9,\"childIds\":[\"F0:1\"]},"
		   "{\"nodeId\":\"F0:1\",\"parentId\":\"2\",\"role\":{\"value\":\"RootWebArea\"},\"name\":{\"value\":\"In\"},"
		   "\"backendDOMNodeId\":3,\"hbFrameOwner\":9,\"childIds\":[\"F0:2\",\"F0:3\"]},"
		   "{\"nodeId\":\"F0:2\",\"role\":{\"value\":\"button\"},\"name\":{\"value\":\"Go\"},"
		   "\"backendDOMNodeId\":14,\"hbFrameOwner\":9},"
		   "{\"nodeId\":\"F0:3\",\"role\":{\"value\":\"link\"},\"name\":{\"value\":\"Odd\"},"
		   "\"backendDOMNodeId\":15,\"hbFrameOwner\":\"9\"}"
		   "]", 0, &s);
	assert_string_equal(s.text,
			    "- Iframe \"Ad\"\n"
			    "  - button \"Go\" [ref=f9e14]\n"
			    "  - link \"Odd\" [ref=e15]\n");
	snapshot_free(&s);
	assert_int_equal(snapshot_ref_parse("f9e14", &owner, &node), 0);
	assert_int_equal(owner, 9);
	assert_int_equal(node, 14);
	assert_int_equal(snapshot_ref_parse("e14", &owner, &node), 0);
	assert_int_equal(owner, 0);
	assert_int_equal(node, 14);
	assert_int_equal(snapshot_ref_parse("f2147483647e2147483647", &owner, &node), 0);
	assert_int_equal(owner, 2147483647L);
	assert_int_equal(snapshot_ref_parse("f9", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("f9e", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("fe14", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("f0e14", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("f09e14", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("f9e14x", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("f9f9e14", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse("f2147483648e1", &owner, &node), -1);
	assert_int_equal(snapshot_ref_parse(NULL, &owner, &node), -1);
	/* the plain form alone is a node of the tab's renderer */
	assert_int_equal(snapshot_ref_node("f9e14"), -1);
}

/* 100000 nested groups: no recursion to overflow, indentation capped. */
static void test_deep(void **state)
{
	enum { N = 100000 };
	json_t *nodes = json_array();
	struct snapshot s;
	const char *p, *line;
	size_t i, maxind = 0;

	(void)state;
	assert_non_null(nodes);
	for (i = 0; i < N; i++) {
		char id[24], kid[24];

		snprintf(id, sizeof id, "%zu", i);
		snprintf(kid, sizeof kid, "%zu", i + 1);
		assert_int_equal(json_array_append_new(nodes, json_pack("{s:s, s:b, s:{s:s}, s:[s]}",
			"nodeId", id, "ignored", i % 2 == 1, "role", "value", "group",
			"childIds", kid)), 0);
	}
	build(nodes, 0, &s);
	assert_int_equal(s.nodes, N / 2);
	for (line = s.text; *line; line = p + 1) {
		size_t ind = strspn(line, " ");

		p = strchr(line, '\n');
		assert_non_null(p);
		if (ind > maxind)
			maxind = ind;
	}
	assert_int_equal(maxind, 2 * SNAPSHOT_MAX_DEPTH);
	snapshot_free(&s);

	/* And bounded, the walk still ends with the count. */
	build(nodes, 2000, &s);
	assert_int_equal(s.truncated, 1);
	assert_true(s.len <= 2000);
	snapshot_free(&s);
	json_decref(nodes);
}

/* Entries that are no objects, nodes without id, role or name, ids as
 * numbers, a child that does not exist, a mistyped backendDOMNodeId: no
 * crash, the rest shows; a node without a role is an unnamed wrapper.  A nodes value that is no array is an error. */
static void test_missing_fields(void **state)
{
	struct snapshot s;
	char err[256] = "";
	json_t *bad = json_object();

	(void)state;
	build_text("[42, null, \"x\", {},"
		   "{\"nodeId\":1,\"role\":{\"value\":\"RootWebArea\"},\"childIds\":[2,\"nope\",3,{}]},"
		   "{\"nodeId\":2,\"parentId\":1,\"role\":{\"value\":\"button\"},\"name\":{\"value\":5},"
		   "\"backendDOMNodeId\":\"9\"},"
		   "{\"nodeId\":3,\"parentId\":1,\"role\":\"link\",\"backendDOMNodeId\":-4,"
		   "\"properties\":[7,{\"name\":\"checked\"},{\"value\":{\"value\":true}}]}]", 0, &s);
	assert_string_equal(s.text, "- button\n");
	assert_int_equal(s.refs, 0);
	snapshot_free(&s);

	build_text("[]", 0, &s);
	assert_string_equal(s.text, "");
	assert_int_equal(s.nodes, 0);
	snapshot_free(&s);

	assert_non_null(bad);
	assert_int_equal(snapshot_build(bad, 0, &s, err, sizeof err), -1);
	assert_null(s.text);
	assert_true(strlen(err) > 0);
	assert_int_equal(snapshot_build(NULL, 0, &s, err, sizeof err), -1);
	json_decref(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_form),
		cmocka_unit_test(test_golden_links),
		cmocka_unit_test(test_golden_choices),
		cmocka_unit_test(test_refs_name_nodes),
		cmocka_unit_test(test_ref_parse),
		cmocka_unit_test(test_frame_refs),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_link_urls),
		cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_missing_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
