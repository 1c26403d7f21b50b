/*
 * confine_probe - the test-only tool that shows a service's confinement
 * from inside it (HB_CONFINE_PROBE=1; confine_probe.c).
 */
#ifndef HB_CONFINE_PROBE_H
#define HB_CONFINE_PROBE_H

#include "service.h"

int hb_confine_probe(struct hb_call *call, const json_t *args);

#endif
