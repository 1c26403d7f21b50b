/*
 * snapshot - see snapshot.h for the format and why.
 *
 * The walk is a depth-first pre-order over an explicit stack: an item is a
 * node with the output level it lands on, the name of the nearest shown
 * ancestor (for dropping text that repeats it) and its block (the nearest
 * ancestor that is not inline formatting, for spacing joined text).
 * Skipped and collapsed nodes push their children with their own level,
 * which is how children "move up".  Each line is built in a scratch buffer
 * and kept only if it fits; after the cut the walk goes on, counting.
 */
#include "snapshot.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

#define NO_NODE SIZE_MAX

struct sbuf {
	char *p;
	size_t len, cap;
	int oom;
};

struct ax {
	const json_t *j;
	const char *role;   /* "" when absent */
	const char *name;   /* "" when absent */
	char id[24];        /* nodeId when it is a number */
};

struct item {
	size_t node;
	size_t depth;
	const char *pname;  /* nearest shown ancestor's name, "" for none */
	size_t block;
	size_t doc;         /* the document (page or frame) it is in, or NO_NODE */
};

struct walk {
	struct ax *ax;
	size_t n;
	struct hb_map ids;
	unsigned char *seen;
	struct item *stack;
	size_t top, cap;
	struct sbuf out, line, text;
	size_t limit;       /* bound on the lines, the note's room taken off */
	int cut;
	size_t cut_node;    /* the first node left out */
	size_t lines, refs, more;
	int tpend;          /* text waiting in text */
	size_t tdepth, tblock, tnode;
};

/* Roles whose element an agent acts on or points at: these get a ref. */
const char *const snapshot_ref_roles[] = {
	"button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio",
	"menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
	"option", "listbox", "spinbutton", "treeitem", "DisclosureTriangle", NULL
};
/* Named, these get a ref too: what a drag drops onto, a picture to
 * hover or shoot; unnamed they are only wrappers of what is in them. */
static const char *const named_ref_roles[] = {
	"region", "article", "figure", "img", "dialog", "tabpanel", NULL
};
/* Unnamed, these only wrap their children. */
static const char *const wrapper_roles[] = {
	"generic", "none", "presentation", "LabelText", "Legend", "MenuListPopup",
	"Section", "Div", "", NULL
};
/* Inline formatting: wraps like the above, inside the same block of text. */
static const char *const inline_roles[] = {
	"strong", "emphasis", "mark", "code", "subscript", "superscript",
	"deletion", "insertion", "time", "Abbr", "Ruby", NULL
};
/* Dropped with their subtree: Chrome's plumbing. */
static const char *const dropped_roles[] = { "InlineTextBox", "ListMarker", NULL };

static int in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (b->len + n + 1 > cap)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The length of the UTF-8 sequence at s that must be escaped, or 0.
 * Besides the C0 and C1 controls: U+2028, U+2029 (line breaks to some
 * readers) and the bidi embeddings and isolates, which can make text read
 * in another order than it is. */
static size_t escaped_seq(const unsigned char *s, unsigned *cp)
{
	if (s[0] < 0x20 || s[0] == 0x7f) {
		*cp = s[0];
		return 1;
	}
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
		*cp = s[1];
		return 2;
	}
	if (s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0xa8 && s[2] <= 0xae) {
		*cp = 0x2000 + (s[2] & 0x3f);
		return 3;
	}
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9) {
		*cp = 0x2040 + (s[2] & 0x3f);
		return 3;
	}
	return 0;
}

/* s[0..n) quoted and escaped onto one line, cut after max characters. */
static void put_quoted(struct sbuf *b, const char *s, size_t n, size_t max)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t chars = 0;
	char esc[8];
	unsigned cp;
	size_t k;

	sb_putn(b, "\"", 1);
	while (p < end) {
		if ((*p & 0xc0) != 0x80 && chars++ == max) {
			sb_puts(b, "…");
			break;
		}
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			sb_putn(b, esc, 2);
			p++;
		} else if ((k = escaped_seq(p, &cp)) && p + k <= end) {
			if (cp == '\n' || cp == '\t' || cp == '\r')
				sb_puts(b, cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : "\\r");
			else
				sb_printf(b, "\\u%04x", cp);
			p += k;
		} else {
			sb_putn(b, (const char *)p, 1);
			p++;
		}
	}
	sb_putn(b, "\"", 1);
}

/* s without the white space around it: start and length. */
static const char *trimmed(const char *s, size_t *n)
{
	size_t len = strlen(s);

	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	*n = len;
	return s;
}

static const char *field_value_string(const json_t *node, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(node, key), "value"));

	return s ? s : "";
}

/* The value of property name, or NULL. */
static const json_t *prop(const struct ax *a, const char *name)
{
	const json_t *props = json_object_get(a->j, "properties"), *p;
	size_t i;

	json_array_foreach(props, i, p) {
		const char *pn = json_string_value(json_object_get(p, "name"));

		if (pn && strcmp(pn, name) == 0)
			return json_object_get(json_object_get(p, "value"), "value");
	}
	return NULL;
}

/* 1 for true or "true", 2 for "mixed", 0 otherwise. */
static int prop_state(const struct ax *a, const char *name)
{
	const json_t *v = prop(a, name);
	const char *s = json_string_value(v);

	if (json_is_true(v) || (s && strcmp(s, "true") == 0))
		return 1;
	return s && strcmp(s, "mixed") == 0 ? 2 : 0;
}

static long backend_id(const struct ax *a)
{
	const json_t *v = json_object_get(a->j, "backendDOMNodeId");
	json_int_t id;

	if (!json_is_integer(v) || (id = json_integer_value(v)) <= 0 || id > INT_MAX)
		return -1;
	return (long)id;
}

/* The <iframe> of a node of an out-of-process frame, or 0. */
static long frame_owner(const struct ax *a)
{
	const json_t *v = json_object_get(a->j, SNAPSHOT_FRAME_OWNER);
	json_int_t id;

	if (!json_is_integer(v) || (id = json_integer_value(v)) <= 0 || id > INT_MAX)
		return 0;
	return (long)id;
}

static int is_document(const struct ax *a)
{
	return strcmp(a->role, "RootWebArea") == 0 || strcmp(a->role, "WebArea") == 0;
}

static int wants_ref(const struct ax *a)
{
	if (backend_id(a) < 0 || is_document(a))
		return 0;
	return prop_state(a, "focusable") == 1 || in_list(a->role, snapshot_ref_roles) ||
	       (a->name[0] && in_list(a->role, named_ref_roles));
}

/* The inside of a plain text field is Chrome's editor: its text is the value. */
static int is_leaf(const struct ax *a)
{
	const char *e = json_string_value(prop(a, "editable"));

	return e && strcmp(e, "plaintext") == 0;
}

/* The role, kept to the characters a role has: the JSON is not trusted. */
static void put_role(struct sbuf *b, const char *role)
{
	size_t n = 0;

	for (; *role && n < 40; role++)
		if ((*role >= 'a' && *role <= 'z') || (*role >= 'A' && *role <= 'Z') ||
		    (*role >= '0' && *role <= '9') || *role == '-' || *role == '_') {
			sb_putn(b, role, 1);
			n++;
		}
	if (n == 0)
		sb_puts(b, "node");
}

static void put_indent(struct sbuf *b, size_t depth)
{
	static const char spaces[] = "                                        ";
	size_t i;

	if (depth > SNAPSHOT_MAX_DEPTH)
		depth = SNAPSHOT_MAX_DEPTH;
	for (i = 0; i < depth; i++)
		sb_putn(b, spaces, 2);
}

/* Keep the line of node in w->line if it fits, else count it as left out. */
static void commit_line(struct walk *w, int has_ref, size_t node)
{
	if (w->cut || w->out.len + w->line.len + 1 > w->limit) {
		if (!w->cut)
			w->cut_node = node;
		w->cut = 1;
		w->more++;
		return;
	}
	sb_putn(&w->out, w->line.p ? w->line.p : "", w->line.len);
	sb_putn(&w->out, "\n", 1);
	w->lines++;
	w->refs += has_ref;
}

static void flush_text(struct walk *w)
{
	const char *s;
	size_t n;

	if (!w->tpend)
		return;
	w->tpend = 0;
	s = trimmed(w->text.p ? w->text.p : "", &n);
	if (n == 0)
		return;
	w->line.len = 0;
	put_indent(&w->line, w->tdepth);
	sb_puts(&w->line, "- ");
	put_quoted(&w->line, s, n, SNAPSHOT_TEXT_MAX);
	commit_line(w, 0, w->tnode);
}

/* Join s to the text waiting at this level, or start a new one. */
static void add_text(struct walk *w, const struct item *it, const char *s)
{
	if (w->tpend && w->tdepth != it->depth)
		flush_text(w);
	if (!w->tpend) {
		w->text.len = 0;
		w->tpend = 1;
		w->tdepth = it->depth;
		w->tnode = it->node;
	} else if (w->tblock != it->block && w->text.len && !is_space(w->text.p[w->text.len - 1]) &&
		   *s && !is_space(*s)) {
		sb_putn(&w->text, " ", 1);
	}
	w->tblock = it->block;
	/* Enough for the line's cut; a page of a million words stops here. */
	if (w->text.len < 4 * SNAPSHOT_TEXT_MAX + 8)
		sb_putn(&w->text, s, strlen(s));
}

static void put_attrs(struct walk *w, const struct ax *a)
{
	const json_t *level = prop(a, "level");
	int st;

	/* A list item's level is only its nesting; a heading's is its rank. */
	if (json_is_integer(level) && strcmp(a->role, "listitem") != 0)
		sb_printf(&w->line, " [level=%lld]", (long long)json_integer_value(level));
	if ((st = prop_state(a, "checked")))
		sb_puts(&w->line, st == 2 ? " [checked=mixed]" : " [checked]");
	if ((st = prop_state(a, "pressed")))
		sb_puts(&w->line, st == 2 ? " [pressed=mixed]" : " [pressed]");
	if (prop_state(a, "selected") == 1)
		sb_puts(&w->line, " [selected]");
	if (prop_state(a, "expanded") == 1)
		sb_puts(&w->line, " [expanded]");
	if (prop_state(a, "disabled") == 1)
		sb_puts(&w->line, " [disabled]");
	if (prop_state(a, "required") == 1)
		sb_puts(&w->line, " [required]");
	if (prop_state(a, "readonly") == 1)
		sb_puts(&w->line, " [readonly]");
	st = 0;
	if (json_string_value(prop(a, "invalid")))
		st = strcmp(json_string_value(prop(a, "invalid")), "false") != 0;
	if (st || json_is_true(prop(a, "invalid")))
		sb_puts(&w->line, " [invalid]");
	if (prop_state(a, "focused") == 1 && !is_document(a))
		sb_puts(&w->line, " [focused]");
}

/* The placeholder of an empty field, from the name's sources. */
static const char *placeholder(const struct ax *a)
{
	const json_t *srcs = json_object_get(json_object_get(a->j, "name"), "sources"), *s;
	size_t i;

	json_array_foreach(srcs, i, s) {
		const char *t = json_string_value(json_object_get(s, "type"));
		const char *v = field_value_string(s, "value");

		if (t && strcmp(t, "placeholder") == 0 && *v && strcmp(v, a->name) != 0)
			return v;
	}
	return NULL;
}

/* ": value" of a field, or nothing when empty or the same as the name. */
static void put_value(struct walk *w, const struct ax *a)
{
	const json_t *v = json_object_get(json_object_get(a->j, "value"), "value");
	const char *s = json_string_value(v);

	if (s && *s && strcmp(s, a->name) != 0) {
		sb_puts(&w->line, ": ");
		put_quoted(&w->line, s, strlen(s), SNAPSHOT_NAME_MAX);
	} else if (json_is_integer(v)) {
		sb_printf(&w->line, ": %lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		sb_printf(&w->line, ": %g", json_real_value(v));
	}
}

/* Is the text waiting just before this element its label, which its
 * name already says ("Email" before textbox "Email")? */
static int label_of(const struct walk *w, const struct item *it, const struct ax *a)
{
	const char *s;
	size_t n;

	if (!w->tpend || w->tdepth != it->depth || !*a->name)
		return 0;
	s = trimmed(w->text.p ? w->text.p : "", &n);
	return n == strlen(a->name) && memcmp(s, a->name, n) == 0;
}

/* The length of the origin (http[s]://host[:port]) that url shares with
 * the document it is in, when a path follows it; else 0.  A link of the
 * page's own site is shown as its path, as the page's own HTML writes it
 * most of the time: the model pays for the origin once, on the tab's
 * line, not on every link. */
static size_t same_origin(const struct walk *w, const struct item *it, const char *url)
{
	const char *base, *host, *end;
	size_t n;

	if (it->doc == NO_NODE || !(base = json_string_value(prop(&w->ax[it->doc], "url"))))
		return 0;
	if (strncmp(base, "http://", 7) == 0)
		host = base + 7;
	else if (strncmp(base, "https://", 8) == 0)
		host = base + 8;
	else
		return 0;
	end = host + strcspn(host, "/?#");
	n = (size_t)(end - base);
	if (end == host || strncmp(url, base, n) != 0 || url[n] != '/')
		return 0;
	return n;
}

static void emit_node(struct walk *w, const struct item *it)
{
	const struct ax *a = &w->ax[it->node];
	const json_t *v = json_object_get(json_object_get(a->j, "value"), "value");
	const char *ph, *url;
	int ref = wants_ref(a);

	if (label_of(w, it, a))
		w->tpend = 0;
	flush_text(w);
	w->line.len = 0;
	put_indent(&w->line, it->depth);
	sb_puts(&w->line, "- ");
	put_role(&w->line, a->role);
	if (*a->name) {
		sb_putn(&w->line, " ", 1);
		put_quoted(&w->line, a->name, strlen(a->name), SNAPSHOT_NAME_MAX);
	}
	put_attrs(w, a);
	if ((!json_string_value(v) || !*json_string_value(v)) && (ph = placeholder(a))) {
		sb_puts(&w->line, " [placeholder=");
		put_quoted(&w->line, ph, strlen(ph), SNAPSHOT_NAME_MAX);
		sb_puts(&w->line, "]");
	}
	if (strcmp(a->role, "link") == 0 && (url = json_string_value(prop(a, "url"))) && *url) {
		url += same_origin(w, it, url);
		sb_puts(&w->line, " [url=");
		put_quoted(&w->line, url, strlen(url), SNAPSHOT_URL_MAX);
		sb_puts(&w->line, "]");
	}
	if (ref && frame_owner(a))
		sb_printf(&w->line, " [ref=f%lde%ld]", frame_owner(a), backend_id(a));
	else if (ref)
		sb_printf(&w->line, " [ref=e%ld]", backend_id(a));
	put_value(w, a);
	commit_line(w, ref, it->node);
}

static int push(struct walk *w, size_t node, size_t depth, const char *pname, size_t block, size_t doc)
{
	if (w->top == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct item *s = realloc(w->stack, cap * sizeof *s);

		if (!s)
			return -1;
		w->stack = s;
		w->cap = cap;
	}
	w->stack[w->top++] = (struct item){ node, depth, pname, block, doc };
	return 0;
}

/* The node a childIds entry (a string, or a number) names: its index's
 * place in the map, or NULL. */
static size_t *child_index(const struct walk *w, const json_t *k)
{
	const char *key = json_string_value(k);
	char num[24];

	if (json_is_integer(k)) {
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(k));
		key = num;
	}
	return key ? hb_map_get(&w->ids, key) : NULL;
}

/* The children in reverse, so that they come off the stack in order. */
static int push_children(struct walk *w, const struct item *it, size_t depth,
			 const char *pname, size_t block)
{
	const json_t *kids = json_object_get(w->ax[it->node].j, "childIds");
	size_t i = json_array_size(kids);

	while (i-- > 0) {
		size_t *idx = child_index(w, json_array_get(kids, i));

		if (!idx || w->seen[*idx])
			continue;
		if (push(w, *idx, depth, pname, block, is_document(&w->ax[it->node]) ? it->node : it->doc) < 0)
			return -1;
	}
	return 0;
}

/* Does the text only repeat what the enclosing element's name says?
 * Only the name's start is searched: a page with a huge name over many
 * texts must not cost their product. */
static int repeats(const char *text, const char *pname)
{
	size_t n;
	const char *s = trimmed(text, &n);
	size_t plen = strnlen(pname, 8 * SNAPSHOT_NAME_MAX), i;

	if (n == 0)
		return 1;
	for (i = 0; n <= plen && i <= plen - n; i++)
		if (memcmp(pname + i, s, n) == 0)
			return 1;
	return 0;
}

/* Has the node one child at most that shows (a list marker does not)? */
static int single_child(const struct walk *w, const struct ax *a)
{
	const json_t *kids = json_object_get(a->j, "childIds"), *k;
	size_t i, n = 0;

	json_array_foreach(kids, i, k) {
		size_t *idx = child_index(w, k);

		if (!idx || in_list(w->ax[*idx].role, dropped_roles))
			continue;
		if (++n > 1)
			return 0;
	}
	return 1;
}

/* Are all of the node's children text: text, line breaks, Chrome's
 * text boxes, unnamed inline formatting (strong, emphasis)?  Only the
 * children are looked at: a wrapper among them may hold a link. */
static int text_only(const struct walk *w, const struct ax *a)
{
	const json_t *kids = json_object_get(a->j, "childIds"), *k;
	size_t i;

	json_array_foreach(kids, i, k) {
		size_t *idx = child_index(w, k);
		const struct ax *c;

		if (!idx)
			continue;
		c = &w->ax[*idx];
		if (strcmp(c->role, "StaticText") != 0 && strcmp(c->role, "LineBreak") != 0 &&
		    strcmp(c->role, "InlineTextBox") != 0 && !(in_list(c->role, inline_roles) && !*c->name))
			return 0;
	}
	return 1;
}

static int visit(struct walk *w, const struct item *it)
{
	const struct ax *a = &w->ax[it->node];
	int ignored = json_is_true(json_object_get(a->j, "ignored"));
	int inl;

	if (ignored)
		return push_children(w, it, it->depth, it->pname, it->block);
	if (in_list(a->role, dropped_roles))
		return 0;
	if (strcmp(a->role, "LineBreak") == 0) {
		flush_text(w);
		return 0;
	}
	if (strcmp(a->role, "StaticText") == 0) {
		if (!repeats(a->name, it->pname))
			add_text(w, it, a->name);
		return 0;
	}
	/* A document (the page's, or a frame's under its Iframe line) is
	 * named already: the tab's line has the page's title and url, the
	 * Iframe line the frame's */
	if (is_document(a)) {
		flush_text(w);
		return push_children(w, it, it->depth, "", it->node);
	}
	/* An unnamed list item of one thing is that thing, in the list */
	if (!*a->name && !wants_ref(a) && strcmp(a->role, "listitem") == 0 && single_child(w, a)) {
		flush_text(w);
		return push_children(w, it, it->depth, it->pname, it->node);
	}
	inl = in_list(a->role, inline_roles);
	if (!*a->name && !wants_ref(a) && (inl || in_list(a->role, wrapper_roles)))
		return push_children(w, it, it->depth, it->pname, inl ? it->block : it->node);
	/* An unnamed paragraph of text alone says no more than that its text
	 * is a text of its own: it is that text's line (a line less per
	 * paragraph for the model to pay; one with a link or a field in it
	 * stays, so that its sentence reads as one) */
	if (!*a->name && !wants_ref(a) && strcmp(a->role, "paragraph") == 0 && text_only(w, a)) {
		flush_text(w);
		return push_children(w, it, it->depth, it->pname, it->node);
	}
	emit_node(w, it);
	if (is_leaf(a))
		return 0;
	return push_children(w, it, it->depth + 1, is_document(a) ? "" : a->name, it->node);
}

static int walk_from(struct walk *w, size_t root)
{
	if (push(w, root, 0, "", root, NO_NODE) < 0)
		return -1;
	while (w->top > 0) {
		struct item it = w->stack[--w->top];

		if (w->seen[it.node])
			continue;
		w->seen[it.node] = 1;
		if (visit(w, &it) < 0)
			return -1;
	}
	flush_text(w);
	return 0;
}

/* Index the nodes by nodeId (a string in CDP; a number is taken too). */
static int index_nodes(struct walk *w, const json_t *nodes, size_t *idx)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct ax *a = &w->ax[i];
		const json_t *id;
		const char *key;

		a->j = json_array_get(nodes, i);
		idx[i] = i;
		if (!json_is_object(a->j)) {
			w->seen[i] = 1;  /* not a node: never shown */
			a->role = a->name = "";
			continue;
		}
		a->role = field_value_string(a->j, "role");
		a->name = field_value_string(a->j, "name");
		id = json_object_get(a->j, "nodeId");
		if (json_is_integer(id)) {
			snprintf(a->id, sizeof a->id, "%lld", (long long)json_integer_value(id));
			key = a->id;
		} else {
			key = json_string_value(id);
		}
		/* The first of two nodes with one id wins: a later one is unreachable. */
		if (key && !hb_map_get(&w->ids, key) && hb_map_put(&w->ids, key, &idx[i]) < 0)
			return -1;
	}
	return 0;
}

static int is_root(const struct walk *w, size_t i)
{
	const json_t *p = json_object_get(w->ax[i].j, "parentId");
	const char *key = json_string_value(p);
	char num[24];

	if (json_is_integer(p)) {
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(p));
		key = num;
	}
	return !key || !hb_map_get(&w->ids, key);
}

static int walk_all(struct walk *w)
{
	size_t i;
	int any = 0;

	for (i = 0; i < w->n; i++)
		if (!w->seen[i] && is_root(w, i)) {
			any = 1;
			if (walk_from(w, i) < 0)
				return -1;
		}
	/* Every node has a parent: a cycle; start where Chrome starts. */
	if (!any && w->n > 0)
		return walk_from(w, 0);
	return 0;
}

static void walk_free(struct walk *w)
{
	free(w->ax);
	free(w->seen);
	free(w->stack);
	free(w->line.p);
	free(w->text.p);
	hb_map_clear(&w->ids);
}

int snapshot_build(const json_t *nodes, size_t max_chars, struct snapshot *out,
		   char *err, size_t errlen)
{
	struct walk w;
	size_t *idx = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (!json_is_array(nodes)) {
		snprintf(err, errlen, "The accessibility tree has no list of nodes.");
		return -1;
	}
	memset(&w, 0, sizeof w);
	hb_map_init(&w.ids);
	w.n = json_array_size(nodes);
	if (max_chars && max_chars < SNAPSHOT_MIN_CHARS)
		max_chars = SNAPSHOT_MIN_CHARS;
	/* Room for the note: its numbers are at most 20 digits each. */
	w.limit = max_chars ? max_chars - (sizeof SNAPSHOT_CUT_NOTE + 40) : SIZE_MAX;
	w.ax = calloc(w.n ? w.n : 1, sizeof *w.ax);
	w.seen = calloc(w.n ? w.n : 1, 1);
	idx = calloc(w.n ? w.n : 1, sizeof *idx);
	sb_puts(&w.out, "");
	rc = (!w.ax || !w.seen || !idx) ? -1 : index_nodes(&w, nodes, idx);
	if (rc == 0)
		rc = walk_all(&w);
	if (rc == 0 && w.cut)
		sb_printf(&w.out, SNAPSHOT_CUT_NOTE, max_chars, w.more);
	if (rc < 0 || w.out.oom || w.line.oom || w.text.oom) {
		snprintf(err, errlen, "Out of memory while writing the page's snapshot.");
		free(w.out.p);
		walk_free(&w);
		free(idx);
		return -1;
	}
	out->text = w.out.p;
	out->len = w.out.len;
	out->truncated = w.cut;
	out->cut_node = w.cut_node;
	out->nodes = w.lines;
	out->refs = w.refs;
	walk_free(&w);
	free(idx);
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	free(s->text);
	memset(s, 0, sizeof *s);
}

/* A backend id at p (1 to INT_MAX, no leading zero): its end, or NULL. */
static const char *parse_id(const char *p, long *v)
{
	*v = 0;
	if (*p < '1' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (INT_MAX - (*p - '0')) / 10)
			return NULL;
		*v = *v * 10 + (*p - '0');
	}
	return p;
}

int snapshot_ref_parse(const char *ref, long *owner, long *node)
{
	const char *p = ref;

	*owner = 0;
	if (p && *p == 'f' && (!(p = parse_id(p + 1, owner)) || *p != 'e'))
		return -1;
	if (!p || *p != 'e' || !(p = parse_id(p + 1, node)) || *p)
		return -1;
	return 0;
}

char *snapshot_quote(const char *s, size_t max)
{
	struct sbuf b = { 0 };

	put_quoted(&b, s, strlen(s), max);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

long snapshot_ref_node(const char *ref)
{
	long owner, node;

	return snapshot_ref_parse(ref, &owner, &node) == 0 && owner == 0 ? node : -1;
}
