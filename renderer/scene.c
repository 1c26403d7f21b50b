/*
 * scene - loading one scene (parse, check, build its animation model) and
 * writing it out at a scene time (scene.h).
 *
 * The parser gets the file's bytes, read with the size checked first, so
 * libxml2 never opens anything itself; it runs without DTD loading, entity
 * substitution or network, and the SAX hooks below stop it at the first
 * declaration of an internal DTD subset, before an entity can be defined,
 * let alone expanded (billion laughs) or loaded.  Parser errors go to the
 * problem list through the context's own structured handler, not the
 * process-wide one, so scenes can load in parallel.
 */
#include "scene.h"

#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_limits.h"
#include "readfile.h"
#include "scene_check.h"
#include "scene_rules.h"
#include "smil.h"

#define DTD_REFUSED "a scene may not declare anything in a DOCTYPE (entities can blow up or load " \
	"files); remove the [...] part and write the text out"

/* libxml2 takes the length as an int; read_small_file bounds it. */
_Static_assert(SCENE_MAX_BYTES <= INT_MAX, "a scene's length must fit in an int");

struct scene {
	xmlDocPtr doc;
	struct smil *smil;
	xmlChar *text; /* the last serialization, for scene_svg_at */
	size_t text_len;
	/* The two layers (scene_layers_at): the still background, written
	 * once, and the root's start tag the foreground is written under. */
	char *still;
	size_t still_len;
	char *open_tag;
	size_t open_len;
	unsigned char *in_still; /* per root child, in order: drawn in the background */
	size_t nchildren;
	xmlBufferPtr fg;
};

/* What the parser's callbacks report to (the context's _private). */
struct parse_state {
	const char *name;
	struct problems *p;
	int failed;  /* a problem was reported */
	int stopped; /* at a DOCTYPE declaration */
	int fatal;   /* a fatal (well-formedness) error was reported */
};

static struct parse_state *state_of(void *ctx)
{
	return ((xmlParserCtxtPtr)ctx)->_private;
}

static void on_error(void *ctx, xmlErrorPtr e)
{
	struct parse_state *st = state_of(ctx);
	size_t len;

	if (e->level < XML_ERR_ERROR)
		return; /* warnings do not stop librsvg either */
	if (e->level == XML_ERR_FATAL && st->fatal)
		return; /* after the first fatal error the parser reports only its consequences */
	st->fatal |= e->level == XML_ERR_FATAL;
	len = e->message ? strlen(e->message) : 0;
	while (len > 0 && (e->message[len - 1] == '\n' || e->message[len - 1] == ' '))
		len--;
	problems_add(st->p, st->name, e->line, "not well-formed XML: %.*s%s", (int)len,
		     e->message ? e->message : "unknown error",
		     e->code == XML_ERR_UNDECLARED_ENTITY ? "; XML knows only &amp; &lt; &gt; &quot; and &apos;: "
		     "write the character itself or a numeric reference such as &#160;" : "");
	st->failed = 1;
}

/* Any declaration in the internal subset ends the parse here. */
static void refuse_declaration(void *ctx, const char *kind, const xmlChar *name)
{
	struct parse_state *st = state_of(ctx);

	problems_add(st->p, st->name, xmlSAX2GetLineNumber(ctx), "the DOCTYPE declares %s %s; " DTD_REFUSED,
		     kind, name ? (const char *)name : "");
	st->failed = st->stopped = 1;
	xmlStopParser(ctx);
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
			   const xmlChar *system_id, xmlChar *content)
{
	(void)type;
	(void)public_id;
	(void)system_id;
	(void)content;
	refuse_declaration(ctx, "the entity", name);
}

static void on_unparsed_entity_decl(void *ctx, const xmlChar *name, const xmlChar *public_id,
				    const xmlChar *system_id, const xmlChar *notation)
{
	(void)public_id;
	(void)system_id;
	(void)notation;
	refuse_declaration(ctx, "the entity", name);
}

static void on_attribute_decl(void *ctx, const xmlChar *elem, const xmlChar *fullname, int type, int def,
			      const xmlChar *default_value, xmlEnumerationPtr tree)
{
	(void)elem;
	(void)type;
	(void)def;
	(void)default_value;
	xmlFreeEnumeration(tree); /* the handler owns it */
	refuse_declaration(ctx, "the attribute", fullname);
}

static void on_element_decl(void *ctx, const xmlChar *name, int type, xmlElementContentPtr content)
{
	(void)type;
	(void)content;
	refuse_declaration(ctx, "the element", name);
}

static void on_notation_decl(void *ctx, const xmlChar *name, const xmlChar *public_id,
			     const xmlChar *system_id)
{
	(void)public_id;
	(void)system_id;
	refuse_declaration(ctx, "the notation", name);
}

/* The parsed document, or NULL; every parser problem appended. */
static xmlDocPtr parse(const char *buf, size_t len, const char *name, struct problems *p)
{
	struct parse_state st = { name, p, 0, 0, 0 };
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;

	ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		problems_add(p, name, 0, "out of memory creating the XML parser");
		return NULL;
	}
	ctxt->_private = &st;
	ctxt->sax->serror = on_error;
	ctxt->sax->entityDecl = on_entity_decl;
	ctxt->sax->unparsedEntityDecl = on_unparsed_entity_decl;
	ctxt->sax->attributeDecl = on_attribute_decl;
	ctxt->sax->elementDecl = on_element_decl;
	ctxt->sax->notationDecl = on_notation_decl;
	/* No XML_PARSE_NOENT, DTDLOAD, DTDATTR or XINCLUDE; BIG_LINES keeps
	 * line numbers right past line 65535. */
	doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
	if (!doc && !st.failed)
		problems_add(p, name, 0, "is not an XML document");
	/* A stopped parse leaves a partial tree; a namespace error leaves a
	 * whole one, checked on so every problem is listed. */
	if (doc && (st.stopped || !ctxt->wellFormed)) {
		xmlFreeDoc(doc);
		doc = NULL;
	}
	xmlFreeParserCtxt(ctxt);
	return doc;
}

static int scene_split_layers(struct scene *s);

struct scene *scene_load(const char *path, const char *name, int width, int height, struct problems *p)
{
	return scene_load_apart(path, name, width, height, p, p);
}

struct scene *scene_load_apart(const char *path, const char *name, int width, int height, struct problems *p,
			       struct problems *missing)
{
	size_t before = p->n, len = 0;
	struct scene *s;
	struct smil *smil;
	xmlDocPtr doc;
	xmlDtdPtr dtd;
	char err[256];
	char *buf;

	buf = read_small_file(path, SCENE_MAX_BYTES, READFILE_FOLLOW, &len, err, sizeof err);
	if (!buf) {
		problems_add(p, name, 0, "%s", err);
		return NULL;
	}
	doc = parse(buf, len, name, p);
	free(buf);
	if (!doc)
		return NULL;
	scene_check_document(doc, name, width, height, p);
	scene_check_limits(doc, name, p);
	scene_check_glyphs(doc, name, missing);
	/* A DOCTYPE without declarations is harmless but means nothing to
	 * librsvg; it is dropped so the text it gets is plain SVG. */
	if ((dtd = xmlGetIntSubset(doc))) {
		xmlUnlinkNode((xmlNodePtr)dtd);
		xmlFreeDtd(dtd);
	}
	/* Built even after a problem, so check lists the animation problems too. */
	smil = smil_build(doc, name, p);
	if (smil)
		scene_check_style_rules(doc, smil, name, p);
	if (smil && p->n == before) {
		s = calloc(1, sizeof *s);
		if (s) {
			s->doc = doc;
			s->smil = smil;
			if (scene_split_layers(s) == 0)
				return s;
			scene_free(s);
			problems_add(p, name, 0, "out of memory loading the scene");
			return NULL;
		}
		problems_add(p, name, 0, "out of memory loading the scene");
	}
	if (smil)
		smil_free(smil);
	xmlFreeDoc(doc);
	return NULL;
}

int scene_svg_at(struct scene *s, double t, const char **svg, size_t *len, char *err, size_t errlen)
{
	xmlChar *text = NULL;
	int n = 0;

	if (!isfinite(t) || t < 0) {
		snprintf(err, errlen, "scene time %g is not a time from the scene's start", t);
		return -1;
	}
	/* A scene without animation never changes: its text is written once
	 * (an embedded image can make that megabytes). */
	if (s->text && smil_count(s->smil) == 0) {
		*svg = (const char *)s->text;
		*len = s->text_len;
		return 0;
	}
	smil_apply(s->smil, t);
	xmlDocDumpMemory(s->doc, &text, &n);
	if (!text || n <= 0) {
		xmlFree(text);
		snprintf(err, errlen, "out of memory writing the scene's SVG");
		return -1;
	}
	xmlFree(s->text);
	s->text = text;
	s->text_len = (size_t)n;
	*svg = (const char *)text;
	*len = s->text_len;
	return 0;
}

void scene_free(struct scene *s)
{
	if (!s)
		return;
	free(s->still);
	free(s->open_tag);
	free(s->in_still);
	if (s->fg)
		xmlBufferFree(s->fg);
	smil_free(s->smil);
	xmlFreeDoc(s->doc);
	xmlFree(s->text);
	free(s);
}

/* ---- the two layers --------------------------------------------------- */

/* Root children that paint nothing themselves: kept in both layers. */
static int paints(const xmlNode *n)
{
	static const char *const quiet[] = { "defs", "style", "title", "desc", "metadata", "linearGradient",
					     "radialGradient", "pattern", "clipPath", "mask", "marker", "symbol",
					     "filter", NULL };

	if (n->type != XML_ELEMENT_NODE)
		return 0;
	for (const char *const *q = quiet; *q; q++)
		if (xmlStrcmp(n->name, (const xmlChar *)*q) == 0)
			return 0;
	return 1;
}

static int uses_anything(const xmlNode *n)
{
	if (n->type != XML_ELEMENT_NODE)
		return 0;
	if (xmlStrcmp(n->name, (const xmlChar *)"use") == 0)
		return 1;
	for (const xmlNode *c = n->children; c; c = c->next)
		if (uses_anything(c))
			return 1;
	return 0;
}

/* A style sheet whose selectors depend on siblings (":first-child",
 * "a + b", ...) could match differently once the layers are apart. */
static int styles_see_siblings(const xmlNode *n)
{
	static const char *const sibling[] = { "child", "of-type", "+", "~", NULL };

	for (const xmlNode *c = n; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(c->name, (const xmlChar *)"style") == 0) {
			xmlChar *css = xmlNodeGetContent(c);
			int found = 0;
			for (const char *const *w = sibling; css && *w && !found; w++)
				found = strstr((const char *)css, *w) != NULL;
			xmlFree(css);
			if (found)
				return 1;
		}
		if (styles_see_siblings(c->children))
			return 1;
	}
	return 0;
}

/* Whether drawing the background and then the foreground over it gives
 * the same pixels as drawing the whole: not when the root composites its
 * children as one group (opacity, filter, mask, clip, or a style that may
 * say so), when a style sheet's selectors look at siblings, nor when an
 * animation changes something a still element may use (a gradient in
 * defs, or an element a <use> shows). */
static int layers_are_exact(const struct scene *s, const xmlNode *root)
{
	static const char *const group[] = { "opacity", "filter", "mask", "clip-path", "style", NULL };

	for (const char *const *g = group; *g; g++)
		if (xmlHasProp(root, (const xmlChar *)*g))
			return 0;
	if (styles_see_siblings(root->children))
		return 0;
	for (const xmlNode *c = root->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !paints(c) && smil_animates_within(s->smil, c))
			return 0;
	return 1;
}

/* Appends node's serialization; 0 or -1. */
static int dump_node(xmlBufferPtr b, xmlDocPtr doc, xmlNodePtr n)
{
	return xmlNodeDump(b, doc, n, 0, 0) < 0 ? -1 : 0;
}

/* "<svg ...>" of the root: its attributes and namespaces, no children. */
static int write_open_tag(struct scene *s, xmlNodePtr root)
{
	xmlNodePtr bare = xmlDocCopyNode(root, s->doc, 2);
	xmlBufferPtr b = xmlBufferCreate();
	int rc = -1;

	if (bare && b && dump_node(b, s->doc, bare) == 0) {
		const char *t = (const char *)xmlBufferContent(b);
		size_t len = (size_t)xmlBufferLength(b);
		/* An element without children is written "<svg .../>". */
		if (len >= 2 && memcmp(t + len - 2, "/>", 2) == 0 && (s->open_tag = malloc(len))) {
			memcpy(s->open_tag, t, len - 2);
			s->open_tag[len - 2] = '>';
			s->open_len = len - 1;
			rc = 0;
		}
	}
	xmlFreeNode(bare);
	if (b)
		xmlBufferFree(b);
	return rc;
}

/* open tag + the children layer (1 still, 0 moving) wants + "</svg>". */
static int write_layer(struct scene *s, xmlBufferPtr b, int still)
{
	size_t i = 0;

	xmlBufferEmpty(b);
	if (xmlBufferAdd(b, (const xmlChar *)s->open_tag, (int)s->open_len) != 0)
		return -1;
	for (xmlNodePtr c = xmlDocGetRootElement(s->doc)->children; c; c = c->next, i++) {
		int wanted = !paints(c) ? c->type == XML_ELEMENT_NODE : s->in_still[i] == still;
		if (wanted && dump_node(b, s->doc, c) < 0)
			return -1;
	}
	return xmlBufferAdd(b, (const xmlChar *)"</svg>", 6) == 0 ? 0 : -1;
}

/* The leading root children that nothing animates and that show nothing
 * animated go to the background, drawn once per scene: a full-frame
 * gradient alone costs 8 ms of a 17 ms frame (reference/explainer-render.md). */
static int scene_split_layers(struct scene *s)
{
	xmlNodePtr root = xmlDocGetRootElement(s->doc);
	size_t i = 0, nstill = 0;

	for (xmlNodePtr c = root->children; c; c = c->next)
		s->nchildren++;
	if (!(s->in_still = calloc(s->nchildren ? s->nchildren : 1, 1)))
		return -1;
	if (layers_are_exact(s, root))
		for (xmlNodePtr c = root->children; c; c = c->next, i++) {
			if (!paints(c))
				continue;
			if (smil_animates_within(s->smil, c) || uses_anything(c))
				break;
			s->in_still[i] = 1;
			nstill++;
		}
	if (!(s->fg = xmlBufferCreate()) || write_open_tag(s, root) < 0)
		return -1;
	if (nstill == 0)
		return 0;
	if (write_layer(s, s->fg, 1) < 0 || !(s->still = malloc((size_t)xmlBufferLength(s->fg))))
		return -1;
	s->still_len = (size_t)xmlBufferLength(s->fg);
	memcpy(s->still, xmlBufferContent(s->fg), s->still_len);
	return 0;
}

int scene_layers_at(struct scene *s, double t, const char **still, size_t *still_len, const char **moving,
		    size_t *moving_len, char *err, size_t errlen)
{
	if (!isfinite(t) || t < 0) {
		snprintf(err, errlen, "scene time %g is not a time from the scene's start", t);
		return -1;
	}
	smil_apply(s->smil, t);
	if (write_layer(s, s->fg, 0) < 0) {
		snprintf(err, errlen, "out of memory writing the scene's SVG");
		return -1;
	}
	*still = s->still;
	*still_len = s->still_len;
	*moving = (const char *)xmlBufferContent(s->fg);
	*moving_len = (size_t)xmlBufferLength(s->fg);
	return 0;
}
