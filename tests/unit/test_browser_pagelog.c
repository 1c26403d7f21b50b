/*
 * test_browser_pagelog - svc-browser's record of each tab's console and
 * requests (svc-browser/pagelog.c), fed DevTools events as Chrome sends
 * them: what an entry says, where a new page starts the record anew, the
 * bounds, the headers never kept.  The real Chromium's events are
 * itest_browser_devtools's; here the cases it cannot make at will (a
 * redirect, a cookie header, a thousand messages, a frame's navigation).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-browser/pagelog.h"

#define S1 "SESSION-1"

/* One event of session, its params written as JSON. */
static void event(struct pagelog *l, const char *session, const char *method, const char *params_json)
{
	json_error_t e;
	json_t *p = json_loads(params_json, 0, &e);

	if (!p)
		fail_msg("bad test JSON (%s): %s", e.text, params_json);
	pagelog_event(l, session, method, p);
	json_decref(p);
}

static const char *field(const json_t *entries, size_t i, const char *key)
{
	const char *s = json_string_value(json_object_get(json_array_get(entries, i), key));

	return s ? s : "";
}

static void test_console_entries(void **state)
{
	struct pagelog *l = pagelog_new();
	unsigned long dropped = 7;
	json_t *c;

	(void)state;
	assert_non_null(l);
	event(l, S1, "Runtime.consoleAPICalled",
	      "{\"type\":\"log\",\"args\":[{\"type\":\"string\",\"value\":\"Hello\"},"
	      "{\"type\":\"number\",\"value\":42,\"description\":\"42\"},"
	      "{\"type\":\"object\",\"description\":\"Object\",\"preview\":{\"type\":\"object\",\"overflow\":true,"
	      "\"properties\":[{\"name\":\"a\",\"type\":\"number\",\"value\":\"1\"},"
	      "{\"name\":\"b\",\"type\":\"string\",\"value\":\"x\"}]}},"
	      "{\"type\":\"object\",\"subtype\":\"array\",\"description\":\"Array(2)\",\"preview\":{\"type\":"
	      "\"object\",\"subtype\":\"array\",\"properties\":[{\"name\":\"0\",\"type\":\"number\",\"value\":\"1\"},"
	      "{\"name\":\"1\",\"type\":\"number\",\"value\":\"2\"}]}},"
	      "{\"type\":\"undefined\"},{\"type\":\"number\",\"unserializableValue\":\"NaN\"}],"
	      "\"stackTrace\":{\"callFrames\":[{\"url\":\"http://x/p\",\"lineNumber\":9,\"columnNumber\":4}]}}");
	event(l, S1, "Runtime.exceptionThrown",
	      "{\"exceptionDetails\":{\"text\":\"Uncaught\",\"url\":\"http://x/p\",\"lineNumber\":2,\"columnNumber\":0,"
	      "\"exception\":{\"type\":\"object\",\"subtype\":\"error\",\"description\":\"Error: boom\\n    at "
	      "http://x/p:3:1\",\"preview\":{\"properties\":[]}}}}");
	event(l, S1, "Runtime.exceptionThrown",
	      "{\"exceptionDetails\":{\"text\":\"Uncaught\",\"url\":\"http://x/q\",\"lineNumber\":0,\"columnNumber\":6,"
	      "\"exception\":{\"type\":\"string\",\"value\":\"plain\"}}}");
	event(l, S1, "Log.entryAdded",
	      "{\"entry\":{\"source\":\"network\",\"level\":\"error\",\"text\":\"Failed to load\",\"url\":\"http://x/f\"}}");
	/* another tab's message is not this one's */
	event(l, "SESSION-2", "Runtime.consoleAPICalled",
	      "{\"type\":\"log\",\"args\":[{\"type\":\"string\",\"value\":\"B\"}]}");

	c = pagelog_console(l, S1, &dropped);
	assert_int_equal(json_array_size(c), 4);
	assert_int_equal(dropped, 0);
	assert_string_equal(field(c, 0, "level"), "log");
	assert_string_equal(field(c, 0, "text"), "Hello 42 {a: 1, b: \"x\", \xe2\x80\xa6} [1, 2] undefined NaN");
	assert_string_equal(field(c, 0, "where"), "http://x/p:10:5");
	/* an Error's own stack names where it was: no second location */
	assert_string_equal(field(c, 1, "level"), "exception");
	assert_string_equal(field(c, 1, "text"), "Uncaught Error: boom\n    at http://x/p:3:1");
	assert_null(json_object_get(json_array_get(c, 1), "where"));
	assert_string_equal(field(c, 2, "text"), "Uncaught plain");
	assert_string_equal(field(c, 2, "where"), "http://x/q:1:7");
	assert_string_equal(field(c, 3, "level"), "error");
	assert_string_equal(field(c, 3, "source"), "network");
	assert_string_equal(field(c, 3, "where"), "http://x/f");
	json_decref(c);
	c = pagelog_console(l, "SESSION-2", &dropped);
	assert_int_equal(json_array_size(c), 1);
	json_decref(c);
	/* a session never seen: nothing, not an error */
	c = pagelog_console(l, "SESSION-3", &dropped);
	assert_int_equal(json_array_size(c), 0);
	json_decref(c);
	pagelog_free(l);
}

static void test_console_bounds(void **state)
{
	struct pagelog *l = pagelog_new();
	unsigned long dropped;
	char params[PAGELOG_TEXT_MAX * 2 + 200], *big;
	const char *text;
	json_t *c;

	(void)state;
	for (int i = 1; i <= PAGELOG_CONSOLE_KEEP + 5; i++) {
		snprintf(params, sizeof params, "{\"type\":\"log\",\"args\":[{\"type\":\"string\",\"value\":\"Line %d\"}]}",
			 i);
		event(l, S1, "Runtime.consoleAPICalled", params);
	}
	c = pagelog_console(l, S1, &dropped);
	assert_int_equal(json_array_size(c), PAGELOG_CONSOLE_KEEP);
	assert_int_equal(dropped, 5);
	assert_string_equal(field(c, 0, "text"), "Line 6");
	json_decref(c);

	/* a long text is cut on a character, and says so */
	big = malloc(PAGELOG_TEXT_MAX * 2 + 1);
	assert_non_null(big);
	for (int i = 0; i < PAGELOG_TEXT_MAX; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[PAGELOG_TEXT_MAX * 2] = '\0';
	snprintf(params, sizeof params, "{\"type\":\"warning\",\"args\":[{\"type\":\"string\",\"value\":\"%s\"}]}", big);
	free(big);
	event(l, S1, "Runtime.consoleAPICalled", params);
	c = pagelog_console(l, S1, &dropped);
	text = field(c, PAGELOG_CONSOLE_KEEP - 1, "text");
	assert_int_equal(strlen(text), PAGELOG_TEXT_MAX + 3);
	assert_string_equal(text + PAGELOG_TEXT_MAX, "\xe2\x80\xa6");
	json_decref(c);
	pagelog_free(l);
}

static void test_requests(void **state)
{
	struct pagelog *l = pagelog_new();
	unsigned long dropped;
	json_t *r, *one;

	(void)state;
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"7.1\",\"type\":\"Fetch\",\"request\":{\"method\":\"POST\",\"url\":\"http://x/old\"}}");
	/* a redirect: the first hop ends with its status, the second is new */
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"7.1\",\"type\":\"Fetch\",\"request\":{\"method\":\"GET\",\"url\":\"http://x/new\"},"
	      "\"redirectResponse\":{\"status\":302,\"statusText\":\"Found\",\"headers\":{\"Location\":\"/new\"}}}");
	event(l, S1, "Network.responseReceived",
	      "{\"requestId\":\"7.1\",\"type\":\"Fetch\",\"response\":{\"status\":200,\"statusText\":\"OK\","
	      "\"mimeType\":\"application/json\",\"headers\":{\"Content-Type\":\"application/json\","
	      "\"Set-Cookie\":\"sid=SECRET\",\"authorization\":\"Bearer SECRET\"}}}");
	event(l, S1, "Network.loadingFinished", "{\"requestId\":\"7.1\",\"encodedDataLength\":345}");
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"7.2\",\"type\":\"Image\",\"request\":{\"method\":\"GET\",\"url\":\"http://x/i.png\"}}");
	event(l, S1, "Network.loadingFailed", "{\"requestId\":\"7.2\",\"errorText\":\"net::ERR_FAILED\"}");
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"7.3\",\"type\":\"XHR\",\"request\":{\"method\":\"GET\",\"url\":\"http://x/slow\"}}");

	r = pagelog_requests(l, S1, &dropped);
	assert_int_equal(json_array_size(r), 4);
	assert_string_equal(field(r, 0, "state"), "redirected");
	assert_string_equal(field(r, 0, "method"), "POST");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 0), "status")), 302);
	assert_string_equal(field(r, 1, "url"), "http://x/new");
	assert_string_equal(field(r, 1, "state"), "done");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 1), "size")), 345);
	assert_string_equal(field(r, 2, "state"), "failed");
	assert_string_equal(field(r, 2, "error"), "net::ERR_FAILED");
	assert_string_equal(field(r, 3, "state"), "pending");
	json_decref(r);

	/* one by its number: the headers that carry credentials never kept */
	one = pagelog_request(l, S1, 2);
	assert_non_null(one);
	assert_string_equal(json_string_value(json_object_get(one, "requestId")), "7.1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(one, "headers"), "Content-Type")),
			    "application/json");
	{
		char *dump = json_dumps(one, 0);

		assert_null(strstr(dump, "SECRET"));
		free(dump);
	}
	json_decref(one);
	assert_null(pagelog_request(l, S1, 99));
	pagelog_free(l);
}

static void test_navigation_starts_anew(void **state)
{
	struct pagelog *l = pagelog_new();
	unsigned long dropped;
	json_t *r, *c;

	(void)state;
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"LOADER1\",\"type\":\"Document\",\"request\":{\"method\":\"GET\",\"url\":\"http://x/a\"}}");
	event(l, S1, "Runtime.consoleAPICalled", "{\"type\":\"log\",\"args\":[{\"type\":\"string\",\"value\":\"old\"}]}");
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"LOADER2\",\"type\":\"Document\",\"request\":{\"method\":\"GET\",\"url\":\"http://x/b\"}}");
	/* a frame's navigation is not the page's */
	event(l, S1, "Page.frameNavigated", "{\"frame\":{\"id\":\"F2\",\"parentId\":\"F1\",\"loaderId\":\"L9\"}}");
	r = pagelog_requests(l, S1, &dropped);
	assert_int_equal(json_array_size(r), 2);
	json_decref(r);
	event(l, S1, "Page.frameNavigated", "{\"frame\":{\"id\":\"F1\",\"loaderId\":\"LOADER2\",\"url\":\"http://x/b\"}}");
	r = pagelog_requests(l, S1, &dropped);
	c = pagelog_console(l, S1, &dropped);
	assert_int_equal(json_array_size(c), 0);
	/* only the request that loaded the new page, its number kept */
	assert_int_equal(json_array_size(r), 1);
	assert_string_equal(field(r, 0, "url"), "http://x/b");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 0), "id")), 2);
	json_decref(r);
	json_decref(c);
	/* a number is never used again */
	assert_null(pagelog_request(l, S1, 1));
	event(l, S1, "Network.requestWillBeSent",
	      "{\"requestId\":\"9.9\",\"request\":{\"method\":\"GET\",\"url\":\"http://x/c\"}}");
	assert_null(pagelog_request(l, S1, 1));
	r = pagelog_request(l, S1, 3);
	assert_non_null(r);
	json_decref(r);
	/* the tab's session ends: its record goes */
	event(l, "", "Target.detachedFromTarget", "{\"sessionId\":\"" S1 "\"}");
	assert_null(pagelog_request(l, S1, 3));
	pagelog_free(l);
}

static void test_only_console_events_leave_the_ring(void **state)
{
	(void)state;
	assert_true(pagelog_only("Runtime.consoleAPICalled"));
	assert_true(pagelog_only("Runtime.exceptionThrown"));
	assert_true(pagelog_only("Log.entryAdded"));
	/* the waits look for these */
	assert_false(pagelog_only("Network.requestWillBeSent"));
	assert_false(pagelog_only("Page.frameNavigated"));
	assert_false(pagelog_only("Page.javascriptDialogOpening"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_entries),
		cmocka_unit_test(test_console_bounds),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_navigation_starts_anew),
		cmocka_unit_test(test_only_console_events_leave_the_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
