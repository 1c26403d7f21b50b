/*
 * smil_int - the private model of the SMIL evaluator (smil.h), shared by
 * its files: smil.c (build, apply), smil_report.c (a refusal as a
 * problem), smil_text.c (numbers in, text out), smil_read.c (one animation element's
 * attributes), smil_frames.c (its values: values/from/to/by), smil_curve.c
 * (keyTimes, keySplines, easing), smil_time.c (clock values, begin and
 * end lists, the timing attributes), smil_sync.c (syncbases resolved into
 * intervals, progress at t), smil_value.c (attribute kinds: parse, interpolate, write),
 * smil_colour.c and smil_path.c.
 *
 * Numbers are read and written in the C locale (the renderer never calls
 * setlocale), so "0.5" is always a half.
 */
#ifndef EXPLAINER_SMIL_INT_H
#define EXPLAINER_SMIL_INT_H

#include <libxml/tree.h>
#include <stddef.h>

#include "map.h"
#include "problems.h"

/* The longest explanation a parser gives back ("is not a colour ..."). */
#define SMIL_WHY_MAX 200
/* Numbers beyond this are mistakes, and bounding them bounds the text we write. */
#define SMIL_NUMBER_MAX 1e9

enum smil_kind {
	SMIL_LENGTH,     /* one number with an optional unit, kept: x, r, stroke-width */
	SMIL_NUMBER,     /* one plain number: opacity, fill-opacity */
	SMIL_COLOUR,     /* written back as #rrggbb */
	SMIL_POINTS,     /* coordinate pairs */
	SMIL_NUMBERS,    /* a list of numbers: stroke-dasharray */
	SMIL_PATH,       /* path data; interpolated only between equal command letters */
	SMIL_KEYWORD,    /* visibility, display: steps, never interpolated */
	SMIL_TRANSFORM,  /* the target of animateTransform */
};

struct smil_attr {
	const char *name;
	enum smil_kind kind;
	int presentation;             /* also a CSS property (attributeType="CSS" allowed) */
	const char *const *keywords;  /* SMIL_KEYWORD: the values allowed, NULL-terminated */
};

enum smil_transform { SMIL_TRANSLATE, SMIL_SCALE, SMIL_ROTATE, SMIL_SKEWX, SMIL_SKEWY };

/* One value of an animation (a keyframe), owned by its animation. */
struct smil_value {
	char *text;      /* as written: what a discrete step of a keyword writes */
	double *num;     /* NULL when the value has no numbers (a keyword, "none") */
	size_t n;
	char unit[4];    /* SMIL_LENGTH: "", "px", "%", "em", ... */
	char *letters;   /* SMIL_PATH: one command letter per segment */
};

/* A growing text buffer; out of memory aborts (smil_apply has no error path). */
struct smil_buf {
	char *s;
	size_t len, cap;
};

enum smil_element { SMIL_ANIMATE, SMIL_SET, SMIL_ANIMATE_TRANSFORM };
enum smil_calc { SMIL_DISCRETE, SMIL_LINEAR, SMIL_SPLINE };

/* One item of a begin or end list: a clock offset, or a syncbase plus offset. */
struct smil_time {
	double offset;
	long ref;     /* index of the referenced animation, -1 for a plain clock value */
	int ref_end;  /* 1: ref's end, 0: ref's begin */
};

struct smil_times {
	struct smil_time *v;
	size_t n;
};

struct smil_anim {
	xmlNodePtr node;          /* the element, until smil_build removes it */
	xmlChar *id;              /* its id, for syncbases (NULL without one) */
	int line;
	const char *element;      /* "animate", "set", "animateTransform" */
	enum smil_element type;
	int ok;                   /* read without a problem */
	xmlNodePtr target;
	const struct smil_attr *attr;
	enum smil_transform transform;
	enum smil_calc calc;
	int freeze;
	struct smil_value *values;
	size_t nvalues;
	double *key_times;        /* nvalues entries, or NULL */
	double *key_splines;      /* 4 per interval, or NULL */
	struct smil_times begin, end;
	double dur;               /* simple duration; INFINITY without dur */
	double repeat_count;      /* 0 without repeatCount */
	double repeat_dur;        /* INFINITY without repeatDur */
	double begin_at, active;  /* resolved: the interval is [begin_at, begin_at + active) */
	size_t order;             /* document order */
	size_t track;
};

/* The ids of the document, looked up while it is read (a scene may chain
 * thousands of steps, so not by walking it each time). */
struct smil_ids {
	struct hb_map elements;   /* id -> xmlNodePtr: every element, the first of an id */
	struct hb_map anims;      /* id -> index + 1 of the animation with that id */
	xmlChar **keys;           /* the element ids, owned */
	size_t nkeys;
};

/* The context for a problem about one animation element. */
struct smil_report {
	const char *file;
	struct problems *p;
};
void smil_refuse(const struct smil_report *r, const struct smil_anim *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* smil_read.c: fills a from its element; problems are appended and a->ok
 * says whether there were none. */
void smil_read_anim(struct smil_anim *a, const struct smil_ids *ids, const struct smil_report *r);
/* An SVG animation element, ours or one we refuse (animateMotion, ...). */
int smil_is_animation(const xmlNode *node);

/* smil_frames.c: the values of a from values/from/to/by (base values for
 * to and by alone come from the target).  0, or -1 with problems. */
int smil_frames_read(struct smil_anim *a, const struct smil_report *r);

/* smil_curve.c */
int smil_curve_read(struct smil_anim *a, const struct smil_report *r);
/* The value at simple progress p in [0,1]: values[*i] if *f is 0, else between
 * values[*i] and values[*i + 1] at fraction *f (already eased). */
void smil_curve_at(const struct smil_anim *a, double p, size_t *i, double *f);
double smil_spline(const double *c, double x);

/* smil_time.c */
int smil_clock_parse(const char *text, double *seconds);
/* begin, end, dur, repeatCount, repeatDur, fill; 0, or -1 with problems. */
int smil_read_timing(struct smil_anim *a, const struct smil_ids *ids, const struct smil_report *r);
/* A begin or end list; syncbase ids are looked up in ids->anims. */
int smil_times_parse(const char *text, const struct smil_ids *ids, struct smil_times *out, char *why,
		     size_t whylen);

/* smil_sync.c: begin_at and active of every animation read ok; 0, or -1
 * with problems (cycles, a syncbase that never comes, an end before the
 * begin). */
int smil_times_resolve(struct smil_anim *all, size_t n, const struct smil_report *r);
/* 1 with the simple progress in *p when a sets its attribute at t. */
int smil_anim_progress(const struct smil_anim *a, double t, double *p);

/* smil_text.c: numbers in, text out */
int smil_number_scan(const char **s, double *v);
/* Numbers separated by whitespace and/or a comma, up to the end of s. */
int smil_numbers_parse(const char *s, double **out, size_t *n);
const char *smil_skip_space(const char *s);
void smil_buf_add(struct smil_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void smil_buf_number(struct smil_buf *b, double v);

/* smil_value.c */
const struct smil_attr *smil_attr_find(const char *name);
int smil_value_parse(const struct smil_attr *attr, enum smil_transform type, const char *text,
		     struct smil_value *out, char *why, size_t whylen);
/* 0 when b can be interpolated with a (same count, letters, units). */
int smil_values_match(const struct smil_attr *attr, const struct smil_value *a,
		      const struct smil_value *b, char *why, size_t whylen);
/* a + by, number by number (from/by and by animations). */
int smil_value_sum(const struct smil_attr *attr, enum smil_transform type, const struct smil_value *a,
		   const struct smil_value *by, struct smil_value *out);
/* Writes a (to NULL), or a + (to - a) * f, in the attribute's syntax. */
void smil_value_write(struct smil_buf *b, const struct smil_attr *attr, enum smil_transform type,
		      const struct smil_value *a, const struct smil_value *to, double f);
void smil_value_free(struct smil_value *v);


/* smil_colour.c: 0 with rgb (0..255 each); 1 for "none" / "currentColor"
 * (steps only); -1 not a colour we read. */
int smil_colour_parse(const char *text, double rgb[3]);

/* smil_path.c */
int smil_path_parse(const char *text, char **letters, double **num, size_t *n, char *why, size_t whylen);
void smil_path_write(struct smil_buf *b, const char *letters, const double *a, const double *to, double f);

#endif
