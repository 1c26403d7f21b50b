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

#include "readfile.h"
#include "scene_check.h"
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

struct scene *scene_load(const char *path, const char *name, struct problems *p)
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
	scene_check_document(doc, name, p);
	/* A DOCTYPE without declarations is harmless but means nothing to
	 * librsvg; it is dropped so the text it gets is plain SVG. */
	if ((dtd = xmlGetIntSubset(doc))) {
		xmlUnlinkNode((xmlNodePtr)dtd);
		xmlFreeDtd(dtd);
	}
	/* Built even after a problem, so check lists the animation problems too. */
	smil = smil_build(doc, name, p);
	if (smil && p->n == before) {
		s = calloc(1, sizeof *s);
		if (s) {
			s->doc = doc;
			s->smil = smil;
			return s;
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
	smil_free(s->smil);
	xmlFreeDoc(s->doc);
	xmlFree(s->text);
	free(s);
}
