/*
 * devtools_call - a test's own DevTools protocol command to the real
 * Chromium (tests/harness/chromium.h), over a browser-wide WebSocket of
 * the project's client (ws/ws.h): what the browser tests read the page's
 * real state with, apart from the tool under test.
 */
#ifndef HB_DEVTOOLS_CALL_H
#define HB_DEVTOOLS_CALL_H

#include <jansson.h>

#include "ws.h"

/* Send {"id":id,"method":method,"params":params} (params taken; NULL for
 * none), on session when not NULL (a flat session of Target.attachToTarget),
 * and pump until the answer with that id, skipping events.  Its "result",
 * which the caller frees; the test fails on an "error" or no answer
 * within 20 s. */
json_t *devtools_call(struct ws *ws, int id, const char *session, const char *method, json_t *params);

#endif
