/*
 * snapshot - the page as an agent reads it: the accessibility tree that
 * Chrome gives (CDP Accessibility.getFullAXTree) turned into bounded
 * text, one line per node, with a ref on each element the agent can act
 * on.  Pure: JSON in, text out; no browser, no I/O.
 *
 * The format (Playwright's aria snapshot, as its MCP server shows it,
 * made smaller):
 *
 *   - main
 *     - heading "Create your account" [level=1]
 *     - "Fields marked * are required."
 *     - form
 *       - textbox "Full name" [ref=e2]: "Ada Lovelace"
 *       - textbox "Email" [focused] [placeholder="you@example.com"] [ref=e3]
 *       - button "Sign up" [ref=e28]
 *       - button "Cancel" [disabled] [ref=e29]
 *
 * - The document is not a line: the caller's line before the snapshot
 *   names the tab's title and url, an Iframe line its frame.
 * - Two spaces per level; `- role "name" [attrs] [ref=eN]: "value"`.
 *   Every string that comes from the page (names, text, values, urls,
 *   placeholders) is inside double quotes and escaped (\" \\ \n \t \r,
 *   other control characters, line and paragraph separators and bidi
 *   overrides as \uXXXX), so a page cannot start a line of its own, forge
 *   a ref or reorder what the agent reads.  Names and values are cut at
 *   SNAPSHOT_NAME_MAX characters, text at SNAPSHOT_TEXT_MAX, with "…".
 * - Attributes, in this order, only when they hold: [level=N] (not
 *   for list items, where it is only their nesting),
 *   [checked] / [checked=mixed], [pressed] / [pressed=mixed], [selected],
 *   [expanded], [disabled], [required], [readonly], [invalid], [focused],
 *   [placeholder="…"] (an empty field), [url="…"] (links, cut at
 *   SNAPSHOT_URL_MAX).
 * - ref = "e" + the node's backendDOMNodeId.  It lives as long as the DOM
 *   node does, needs no table kept between calls (it survives a restart
 *   of svc-browser), and svc-browser resolves it with DOM.getBoxModel or
 *   DOM.resolveNode {backendNodeId} in the agent's own tab only.  A node
 *   gets a ref when it has a backendDOMNodeId and is focusable or has a
 *   role an agent acts on or points at (button, link, textbox, checkbox,
 *   option...; see snapshot.c), or is a named region, article, figure,
 *   image, dialog or tab panel (what a drag drops onto).  The document
 *   itself gets none.
 * - A node of an out-of-process iframe (another site's page, in a
 *   renderer of its own, where backend ids may repeat the tab's) carries
 *   SNAPSHOT_FRAME_OWNER: the backend id of its <iframe> element in the
 *   tab's page.  Its ref is "f" + that id + "e" + its own id ("f9e14"),
 *   resolved through the iframe (act_frames.c), again with no table.
 * - What is left out, so the agent reads the page and not Chrome's
 *   plumbing: ignored nodes (their children move up to their place);
 *   unnamed containers that carry no meaning (generic, none,
 *   presentation, LabelText, Legend, MenuListPopup, and inline formatting
 *   such as strong and emphasis), whose children move up a level;
 *   InlineTextBox and ListMarker; the inside of a plain text field (its
 *   value is on the field's line); text that only repeats the name of the
 *   element it is in (a substring of it: a button's label, a heading's
 *   words, a legend inside its group), and a label's text just before the
 *   field it names ("Email" before textbox "Email"); an unnamed
 *   paragraph of text alone (text, line breaks, inline formatting), whose
 *   text takes its place; an unnamed list item of one thing, which is in
 *   the list in its place.  Text is a line of its own, a quoted string
 *   with no role: `- "…"`.  Neighbouring texts are joined into one line
 *   (with a space between pieces from different blocks); a <br> ends a
 *   line.
 * - Hostile trees: the walk keeps its own stack (no recursion, so depth
 *   cannot exhaust the C stack), visits each node once (a cycle in
 *   childIds, or a node listed twice, prints once), and caps the
 *   indentation at SNAPSHOT_MAX_DEPTH levels (deeper nodes are still
 *   listed, at that indentation).  Missing or mistyped fields are taken
 *   as absent.
 * - Bounded: the lines stop at a line boundary so that the text with the
 *   final note stays within max_chars (bytes), and the note says how many
 *   nodes were left out (SNAPSHOT_CUT_NOTE); cut_node names the first, so
 *   that the caller can offer the next part from there.
 */
#ifndef BROWSER_SNAPSHOT_H
#define BROWSER_SNAPSHOT_H

#include <jansson.h>
#include <stddef.h>

#define SNAPSHOT_NAME_MAX  200   /* characters of a name or value */
#define SNAPSHOT_TEXT_MAX  1000  /* characters of one text line */
#define SNAPSHOT_URL_MAX   100   /* characters of a link's url */
#define SNAPSHOT_MAX_DEPTH 40    /* levels of indentation */
#define SNAPSHOT_MIN_CHARS 256   /* a smaller max_chars is raised to this */
/* The last line of a cut snapshot: max_chars, then the nodes left out.
 * The way to them is the caller's to say (it knows where the nodes came
 * from): scrolling does not bring them, the tree is the whole page's. */
#define SNAPSHOT_CUT_NOTE "… snapshot cut at %zu characters: %zu more nodes.\n"

struct snapshot {
	char *text;      /* malloc'd, NUL-terminated; lines end in \n */
	size_t len;
	int truncated;   /* cut at max_chars (the last line says so) */
	size_t cut_node; /* when truncated: the index in nodes of the first node left out */
	size_t nodes;    /* lines shown, the note not counted */
	size_t refs;     /* of them, lines with a ref */
};

/* nodes: the "nodes" array of getFullAXTree's result; max_chars: a bound
 * on out->len, 0 for none.  0, or -1 with err (nodes not an array, out of
 * memory) and *out zeroed. */
int snapshot_build(const json_t *nodes, size_t max_chars, struct snapshot *out,
		   char *err, size_t errlen);
void snapshot_free(struct snapshot *s);
/* The roles whose nodes get a ref (besides focusable ones), NULL-ended:
 * page_walk.c asks for the backend ids of these only. */
extern const char *const snapshot_ref_roles[];
/* s quoted and escaped as the snapshot writes a page's string, cut after
 * max characters with "…": malloc'd, or NULL when out of memory. */
char *snapshot_quote(const char *s, size_t max);
/* "e123" -> 123 (the backendDOMNodeId), or -1 when ref is not of that form. */
long snapshot_ref_node(const char *ref);
/* The member of a node that names its out-of-process iframe's element. */
#define SNAPSHOT_FRAME_OWNER "hbFrameOwner"
/* Any ref: "e123" -> *owner 0, *node 123; "f9e14" -> *owner 9, *node 14.
 * 0, or -1 when ref is neither. */
int snapshot_ref_parse(const char *ref, long *owner, long *node);

#endif
