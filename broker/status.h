/*
 * status - the broker's state as JSON for `hbctl status`.
 */
#ifndef HB_STATUS_H
#define HB_STATUS_H

#include "broker.h"

/* A malloc'd JSON text, or NULL when out of memory. */
char *status_json(const struct broker *b);

#endif
