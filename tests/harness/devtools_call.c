/*
 * devtools_call - see devtools_call.h.  The wait is a bound, so that a
 * broken browser fails the test instead of hanging it; never a measure
 * of speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "devtools_call.h"

#include "clock.h"
#include "ws_pump.h"

#define PATIENCE_MS 20000

json_t *devtools_call(struct ws *ws, int id, const char *session, const char *method, json_t *params)
{
	json_t *msg = json_pack("{s:i, s:s}", "id", id, "method", method);
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;
	char *text;

	assert_non_null(msg);
	if (params)
		assert_int_equal(json_object_set_new(msg, "params", params), 0);
	if (session)
		assert_int_equal(json_object_set_new(msg, "sessionId", json_string(session)), 0);
	assert_non_null(text = json_dumps(msg, JSON_COMPACT));
	json_decref(msg);
	assert_int_equal(ws_send_text(ws, text, strlen(text)), 0);
	free(text);
	while (hb_monotonic_ms() < deadline && ws_state(ws) == WS_OPEN) {
		size_t len;
		char *in = ws_next_message(ws, &len);
		json_t *answer, *result;

		if (!in) {
			ws_pump(ws, 50);
			continue;
		}
		answer = json_loadb(in, len, 0, NULL);
		free(in);
		assert_non_null(answer);
		if (json_integer_value(json_object_get(answer, "id")) != id) {
			json_decref(answer); /* an event, or an older answer */
			continue;
		}
		if (!(result = json_object_get(answer, "result")))
			fail_msg("%s: %s", method, json_dumps(answer, JSON_COMPACT));
		json_incref(result);
		json_decref(answer);
		return result;
	}
	fail_msg("%s: no answer (link %s)", method, ws_error(ws));
	return NULL;
}
