/*
 * devtools_call - one DevTools protocol command from a test to a real
 * Chromium over the project's WebSocket client, waited for: how the
 * browser tests look at the browser themselves (test_chromium_fixture.c)
 * and read a page's real state beside svc-browser
 * (itest_browser_emulate.c).
 */
#ifndef HB_DEVTOOLS_CALL_H
#define HB_DEVTOOLS_CALL_H

#include <jansson.h>

#include "ws.h"

/* Send {"id":id,"method":method,"params":params} (params taken; NULL for
 * none; on session, a flattened target session, when not NULL) and pump
 * until the answer with that id, skipping events, at most patience_ms.
 * Its "result", which the caller frees; the test fails on an "error" or
 * no answer. */
json_t *devtools_call(struct ws *ws, int id, const char *session, const char *method, json_t *params,
		      int patience_ms);

#endif
