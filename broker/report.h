/*
 * report - what a service says of its own state (a link it keeps, the
 * last error it saw), kept per incarnation for status and published as
 * the service.report event.  The broker reads nothing in it.
 */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <jansson.h>

#include "broker.h"

/* The most text a report may have: a sentence or two and a few values,
 * shown in every status, never a log. */
#define REPORT_MAX 4096

/* A back-socket `report` from `from`: its json, when an object of at
 * most REPORT_MAX bytes, replaces the instance's report and is
 * published; anything else is logged and dropped. */
void report_accept(struct broker *b, struct instance *from, const struct hb_env *e);
/* inst's latest report (a new reference), or JSON null when inst is NULL
 * or has sent none. */
json_t *report_json(const struct instance *inst);

#endif
