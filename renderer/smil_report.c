/*
 * smil_report - the one way every part of the SMIL evaluator refuses an
 * animation: a problem with the file, the element's line and its name.
 */
#include "smil_int.h"

#include <stdarg.h>
#include <stdio.h>

void smil_refuse(const struct smil_report *r, const struct smil_anim *a, const char *fmt, ...)
{
	char text[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	problems_add(r->p, r->file, a->line, "<%s> %s", a->element, text);
}
