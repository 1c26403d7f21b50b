/*
 * itest_browser_devtools - what use_user_browser shows of a page beyond
 * what a person sees (issue 35): its console (action console), its
 * requests (network) and one request's headers and body (response), and
 * a script's value (evaluate, only for full-auto access and above),
 * driving a REAL headless Chromium on the local pages of
 * tests/browser/pages.mjs (the rig: browser_rig.h).  /devtools logs,
 * throws and fetches on load; a body is checked against what the page
 * itself received (its text, read with the read action) and what the
 * server sends, a script's effect on the page's own text.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser_rig.h"

/* What /devtools-data?n=7 answers (tests/browser/pages.mjs). */
#define DATA_BODY "{\"items\":[\"alpha\",\"beta\",\"gamma\"],\"n\":7}"

/* /devtools opened in a's tab, once it has logged and fetched. */
static void open_devtools(struct agent *a)
{
	free(open_page(a, "/devtools", 1, "Opened "));
	free(call(a, 1, NULL, "{\"action\":\"wait\",\"text\":\"Bytes: 256\"}"));
	free(call(a, 1, NULL, "{\"action\":\"wait\",\"text\":\"Fetched: \"}"));
}

/* The number of the request on the line of text that holds needle. */
static long request_number(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *line;

	if (!at)
		fail_msg("no \"%s\" in:\n%s", needle, text);
	for (line = at; line > text && line[-1] != '\n'; line--)
		;
	if (line[0] != '[')
		fail_msg("no request number on the line of \"%s\":\n%s", needle, text);
	return strtol(line + 1, NULL, 10);
}

/* ---- console: messages and exceptions, oldest first -------------------- */

static void test_console(void **state)
{
	const char *logged, *failed, *thrown;
	char *t;

	(void)state;
	open_devtools(&A);
	/* (Chromium's own message of the missing favicon may come too) */
	t = call(&A, 1, "Console messages since the page was opened or last navigated (", "{\"action\":\"console\"}");
	logged = strstr(t, "[log] Hello from the console 42 {answer: 42, name: \"page\"} (");
	failed = strstr(t, "[error] Something failed on purpose (");
	thrown = strstr(t, "[exception] Uncaught Error: Thrown on purpose");
	if (!logged || !failed || !thrown || !(logged < failed && failed < thrown))
		fail_msg("the console is not the page's, in order:\n%s", t);
	/* where each came from: the page's own script */
	assert_non_null(strstr(logged, "/devtools:"));
	free(t);
}

/* ---- network and response: the requests, one's headers and body ------- */

static void test_network_and_response(void **state)
{
	char args[200], *t, *page, *body;
	long data, bytes, doc;

	(void)state;
	open_devtools(&A);
	t = call(&A, 1, "Requests since the page was opened or last navigated (", "{\"action\":\"network\"}");
	assert_non_null(strstr(t, "oldest first; action response with request N shows one's headers and body):"));
	doc = request_number(t, "/devtools: 200 OK, Document, text/html");
	data = request_number(t, "/devtools-data?n=7: 200 OK, Fetch, application/json");
	bytes = request_number(t, "/devtools-bytes: 200 OK, Fetch, application/octet-stream");
	assert_true(doc < data && data != bytes);
	free(t);

	/* the JSON's body is what the page received, and what the server sent */
	snprintf(args, sizeof args, "{\"action\":\"response\",\"request\":%ld}", data);
	t = call(&A, 1, "Status: 200 OK", args);
	if (!strstr(t, "\n  X-Test-Header: devtools\n"))
		fail_msg("no header in:\n%s", t);
	/* a cookie is never shown */
	assert_null(strstr(t, "abc123"));
	body = strstr(t, "Body (");
	assert_non_null(body);
	body = strchr(body, '\n') + 1;
	assert_string_equal(body, DATA_BODY);
	page = call(&A, 1, "Fetched: ", "{\"action\":\"read\"}");
	assert_non_null(strstr(page, "Fetched: " DATA_BODY));
	free(page);
	free(t);

	/* a part of it, by characters */
	snprintf(args, sizeof args, "{\"action\":\"response\",\"request\":%ld,\"maxChars\":9,\"offset\":2}", data);
	t = call(&A, 1, "Body, characters 2 to 11 of 40:\nitems\":[\"\n[cut: the body goes on", args);
	free(t);

	/* binary: said so, with its size */
	snprintf(args, sizeof args, "{\"action\":\"response\",\"request\":%ld}", bytes);
	free(call(&A, 1, "Body: binary, 256 bytes", args));
	/* the page itself */
	snprintf(args, sizeof args, "{\"action\":\"response\",\"request\":%ld}", doc);
	t = call(&A, 1, "Status: 200 OK", args);
	assert_non_null(strstr(t, "<h1>Devtools</h1>"));
	free(t);
}

/* ---- a navigation starts both records anew ----------------------------- */

static void test_navigation_starts_anew(void **state)
{
	char args[200], *t;
	long data;

	(void)state;
	open_devtools(&A);
	t = call(&A, 1, NULL, "{\"action\":\"network\"}");
	data = request_number(t, "/devtools-data?n=7");
	free(t);
	free(open_page(&A, "/button", 1, "Opened "));
	free(call(&A, 1, "The page wrote nothing to its console", "{\"action\":\"console\"}"));
	/* the new page's own request (and maybe its favicon's), none of the old */
	t = call(&A, 1, NULL, "{\"action\":\"network\"}");
	assert_non_null(strstr(t, "/button: 200 OK, Document"));
	assert_null(strstr(t, "/devtools"));
	free(t);
	snprintf(args, sizeof args, "{\"action\":\"response\",\"request\":%ld}", data);
	free(call(&A, 0, "has no request", args));
}

/* ---- bad input ---------------------------------------------------------- */

static void test_bad_input(void **state)
{
	char args[200];

	(void)state;
	open_devtools(&A);
	free(call(&A, 0, "Action response needs request", "{\"action\":\"response\"}"));
	free(call(&A, 0, "has no request 99999 since its page was opened",
		  "{\"action\":\"response\",\"request\":99999}"));
	free(call(&A, 0, "use_user_browser: ", "{\"action\":\"response\",\"request\":\"3\"}"));
	free(call(&A, 0, "use_user_browser: ", "{\"action\":\"response\",\"request\":0}"));
	/* another session's tab is not this one's to read */
	free(open_page(&B, "/devtools", 1, "Opened "));
	snprintf(args, sizeof args, "{\"action\":\"console\",\"tab\":\"%s\"}", B.tab);
	free(call(&A, 0, "There is no tab", args));
	snprintf(args, sizeof args, "{\"action\":\"network\",\"tab\":\"%s\"}", B.tab);
	free(call(&A, 0, "There is no tab", args));
}

/* ---- evaluate, and the console's bound ---------------------------------- */

static void test_evaluate(void **state)
{
	char *t;

	(void)state;
	open_devtools(&A);
	free(call(&A, 1, "The script's value (JSON):\n\"Devtools\"",
		  "{\"action\":\"evaluate\",\"expression\":\"document.title\"}"));
	free(call(&A, 1, "{\"n\":7}", "{\"action\":\"evaluate\",\"expression\":\"fetch('/devtools-data?n=7')"
				       ".then((r) => r.json()).then((j) => ({ n: j.n }))\"}"));
	/* its effect is the page's */
	free(call(&A, 1, NULL, "{\"action\":\"evaluate\",\"expression\":\"document.getElementById('got')"
			       ".textContent = 'Changed by a script'\"}"));
	free(call(&A, 1, "Changed by a script", "{\"action\":\"read\"}"));
	free(call(&A, 0, "The page's script failed: Error: no", "{\"action\":\"evaluate\",\"expression\":"
								 "\"(() => { throw new Error('no'); })()\"}"));
	free(call(&A, 0, "Action evaluate needs expression", "{\"action\":\"evaluate\"}"));

	/* the console keeps the newest, and says how many it left out */
	free(call(&A, 1, NULL, "{\"action\":\"evaluate\",\"expression\":"
			       "\"for (let i = 1; i <= 300; i++) console.log('Line ' + i)\"}"));
	t = call(&A, 1, "earlier not shown: the newest 200 are", "{\"action\":\"console\"}");
	assert_non_null(strstr(t, "[log] Line 300"));
	assert_non_null(strstr(t, "[log] Line 101"));
	assert_null(strstr(t, "[log] Line 100"));
	assert_null(strstr(t, "Hello from the console"));
	free(t);
}

/* A read-only session's agent may read the page but runs no script in it. */
static void test_evaluate_refused_below_full_auto(void **state)
{
	struct agent r = { .n = 0 };

	(void)state;
	snprintf(r.run, sizeof r.run, "run-ro");
	assert_int_equal(fx_create_session(&F, "Browser read-only", "claude", "/tmp", "read-only", r.session,
					   sizeof r.session), 0);
	assert_int_equal(fx_client(&F, &r.c, 20000), 0);
	assert_int_equal(fx_open_run(&r.c, r.run, r.session, "/tmp", "claude", "read-only"), 0);
	open_devtools(&r);
	free(call(&r, 1, "[log] Hello from the console", "{\"action\":\"console\"}"));
	free(call(&r, 0, "it is open to sessions with full auto access or more, and this one has read-only access",
		  "{\"action\":\"evaluate\",\"expression\":\"document.title = 'Changed'\"}"));
	/* and the page was not touched */
	free(call(&r, 1, "\"Devtools\"", "{\"action\":\"snapshot\"}"));
	hb_client_close(&r.c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console),
		cmocka_unit_test(test_network_and_response),
		cmocka_unit_test(test_navigation_starts_anew),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_evaluate),
		cmocka_unit_test(test_evaluate_refused_below_full_auto),
	};

	return ck_run_group_tests(tests, browser_setup, browser_teardown);
}
