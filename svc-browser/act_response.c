/*
 * act_response - the action response: one request of the tab's page (by
 * the number action network shows), its status, its response headers
 * (those that carry credentials are never kept: pagelog.c) and its body,
 * as chrome-devtools-mcp's get_network_request shows them.
 *
 * The body is Chrome's (Network.getResponseBody), which it keeps only
 * for a while and up to a size: one it no longer has is said so.  Text is
 * shown in parts of maxChars characters from offset, as action read
 * does; a body Chrome sends as base64 (an image, a font, any binary) is
 * not shown, only its size.
 */
#include "act.h"
#include "actions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "pagelog.h"
#include "utf8.h"

#define BODY_DEFAULT_CHARS 10000

static const char *jstr(const json_t *e, const char *key)
{
	return json_string_value(json_object_get(e, key));
}

/* The request's first lines: what it was, its status, its headers. */
static void put_head(FILE *f, const struct act *a, const json_t *e)
{
	const json_t *headers = json_object_get(e, "headers"), *value;
	const char *name, *state = jstr(e, "state") ? jstr(e, "state") : "";

	fprintf(f, "Request %lld of tab %s: %s %s\n", (long long)json_integer_value(json_object_get(e, "id")),
		a->tab.id, jstr(e, "method") ? jstr(e, "method") : "GET", jstr(e, "url") ? jstr(e, "url") : "");
	if (json_object_get(e, "status"))
		fprintf(f, "Status: %lld %s\n", (long long)json_integer_value(json_object_get(e, "status")),
			jstr(e, "statusText") ? jstr(e, "statusText") : "");
	if (jstr(e, "type") || jstr(e, "mimeType"))
		fprintf(f, "Type: %s%s%s\n", jstr(e, "type") ? jstr(e, "type") : "",
			jstr(e, "type") && jstr(e, "mimeType") ? ", " : "", jstr(e, "mimeType") ? jstr(e, "mimeType") : "");
	if (json_object_get(e, "size"))
		fprintf(f, "Transferred: %lld bytes\n", (long long)json_integer_value(json_object_get(e, "size")));
	if (strcmp(state, "failed") == 0)
		fprintf(f, "Failed: %s\n", jstr(e, "error") ? jstr(e, "error") : "no reason given");
	if (json_object_size(headers)) {
		fprintf(f, "Response headers:\n");
		json_object_foreach((json_t *)headers, name, value)
			fprintf(f, "  %s: %s\n", name, json_string_value(value) ? json_string_value(value) : "");
		if (json_is_true(json_object_get(e, "headersCut")))
			fprintf(f, "  (more headers, not kept)\n");
	}
}

/* The text body, or the part of it from offset, into f. */
static void put_text_body(FILE *f, const struct act *a, const char *body)
{
	json_int_t max = json_integer_value(json_object_get(a->args, "maxChars"));
	json_int_t offset = json_integer_value(json_object_get(a->args, "offset"));
	size_t len = strlen(body), total = hb_utf8_count(body, len), from, to;

	if (max <= 0)
		max = BODY_DEFAULT_CHARS;
	if (total == 0) {
		fprintf(f, "Body: empty");
		return;
	}
	if ((size_t)offset >= total) {
		fprintf(f, "Body: %zu characters; offset %lld is past its end.", total, (long long)offset);
		return;
	}
	from = hb_utf8_advance(body, len, (size_t)offset);
	to = from + hb_utf8_advance(body + from, len - from, (size_t)max);
	if (offset == 0 && to == len)
		fprintf(f, "Body (%zu characters):\n%s", total, body);
	else
		fprintf(f, "Body, characters %lld to %lld of %zu:\n%.*s%s", (long long)offset,
			(long long)offset + (long long)hb_utf8_count(body + from, to - from), total, (int)(to - from),
			body + from, to < len ? "\n[cut: the body goes on; ask again with offset for more]" : "");
}

/* Chrome's body of the request into f: 0, or -1 after answering. */
static int put_body(FILE *f, struct act *a, const json_t *e)
{
	const char *state = jstr(e, "state") ? jstr(e, "state") : "", *body;
	char err[CDP_ERR_MAX];
	json_t *res = NULL;
	enum cdp_fail fail;
	size_t bytes;

	if (strcmp(state, "redirected") == 0)
		return fprintf(f, "Body: none (a redirect; the request after it in action network is where it led)."), 0;
	if (strcmp(state, "failed") == 0)
		return fprintf(f, "Body: none (the request failed)."), 0;
	if (strcmp(state, "pending") == 0)
		return fprintf(f, "Body: not yet (the request is still loading; ask again when action network shows it "
				  "done)."), 0;
	fail = cdp_call(a->conn.cdp, a->tab.session, "Network.getResponseBody",
			json_pack("{s:s}", "requestId", jstr(e, "requestId") ? jstr(e, "requestId") : ""), a->step_ms,
			a->cancel, &res, err, sizeof err);
	if (fail == CDP_PROTOCOL)
		return fprintf(f, "Body: Chrome no longer has it (%.200s). It keeps bodies for a while and up to a size: "
				  "load the page again to see them anew.", err), 0;
	if (fail != CDP_OK)
		return act_fail(a, fail, "reading the response's body", err), -1;
	body = jstr(res, "body") ? jstr(res, "body") : "";
	if (json_is_true(json_object_get(res, "base64Encoded"))) {
		if (hb_base64_check(body, strlen(body), &bytes) < 0)
			bytes = strlen(body) / 4 * 3;
		fprintf(f, "Body: binary, %zu bytes (Chrome sends it as base64); not shown.", bytes);
	} else {
		put_text_body(f, a, body);
	}
	json_decref(res);
	return 0;
}

int action_response(struct act *a)
{
	const json_t *id = json_object_get(a->args, "request");
	json_t *e;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f;
	int rc;

	if (!json_is_integer(id))
		return hb_call_fail(a->call, "Action response needs request: the number action network shows for the "
					     "request, like 3.");
	if (!(e = pagelog_request(cdp_pagelog(a->conn.cdp), a->tab.session, (long)json_integer_value(id))))
		return hb_call_failf(a->call,
				     "Tab %s has no request %lld since its page was opened or last navigated: action "
				     "network lists the requests with their numbers.",
				     a->tab.id, (long long)json_integer_value(id));
	if (!(f = open_memstream(&out, &out_len))) {
		json_decref(e);
		return hb_call_fail(a->call, "Out of memory while reading the request.");
	}
	put_head(f, a, e);
	rc = put_body(f, a, e);
	json_decref(e);
	if (fclose(f) != 0) {
		free(out);
		return rc < 0 ? -1 : hb_call_fail(a->call, "Out of memory while reading the request.");
	}
	if (rc == 0)
		rc = hb_call_succeed(a->call, out);
	free(out);
	return rc;
}
