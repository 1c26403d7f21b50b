/*
 * relay_proto - see relay_proto.h and docs/relay-protocol.md.  Building
 * and reading go through the same checks of each field (check_*), so what
 * this side sends it would also accept, and the fake relay's rules in
 * tests/fake-relay/ are these.  No sentence here ever quotes the
 * credential; they quote other fields' names, never their values either,
 * since an alert's text is the user's.
 */
#include "relay_proto.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utf8.h"

static const char *const type_names[] = {
	[HB_RELAY_HELLO] = "hello",
	[HB_RELAY_READY] = "ready",
	[HB_RELAY_ERROR] = "error",
	[HB_RELAY_EVENT] = "agent-notification-requested",
	[HB_RELAY_ACK] = "ack",
	[HB_RELAY_DROPPED] = "dropped",
	[HB_RELAY_APPROVAL] = "approval-requested",
	[HB_RELAY_RESOLVE] = "approval-resolve",
	[HB_RELAY_RESULT] = "approval-result",
};
#define NTYPES (sizeof type_names / sizeof *type_names)

/* The latest createdAt accepted: 9999-12-31T23:59:59.999Z. */
#define CREATED_MAX_MS 253402300799999LL

const char *hb_relay_type_name(enum hb_relay_type type)
{
	return (size_t)type < NTYPES ? type_names[type] : "unknown";
}

static enum hb_relay_side side_of(enum hb_relay_type type)
{
	return type == HB_RELAY_HELLO || type == HB_RELAY_EVENT || type == HB_RELAY_APPROVAL ||
			       type == HB_RELAY_RESULT
		       ? HB_RELAY_FROM_DEVICE
		       : HB_RELAY_FROM_RELAY;
}

long hb_relay_chars(const char *s)
{
	return hb_utf8_chars(s);
}

/* Text of the user's (a title, a body): min to max characters of UTF-8. */
static int check_text(const char *type, const char *key, const char *s, long min, long max, char *err,
		      size_t errlen)
{
	long n = hb_relay_chars(s);

	if (n < 0)
		snprintf(err, errlen, "%s: %s is not valid UTF-8", type, key);
	else if (n < min)
		snprintf(err, errlen, "%s: %s is empty", type, key);
	else if (n > max)
		snprintf(err, errlen, "%s: %s is %ld characters; at most %ld", type, key, n, max);
	else
		return 0;
	return -1;
}

#define ID_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"
#define CODE_CHARS "abcdefghijklmnopqrstuvwxyz-"

/* 1 to max bytes, each in set (any printable ASCII but blanks when NULL);
 * what says the set in the sentence. */
static int check_token(const char *type, const char *key, const char *s, size_t max, const char *set,
		       const char *what, char *err, size_t errlen)
{
	size_t len = strlen(s);

	if (len == 0 || len > max) {
		snprintf(err, errlen, "%s: %s must be 1 to %zu characters", type, key, max);
		return -1;
	}
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (set ? !strchr(set, *c) : (*c <= 0x20 || *c >= 0x7f)) {
			snprintf(err, errlen, "%s: %s may hold only %s", type, key, what);
			return -1;
		}
	return 0;
}

static int check_id(const char *type, const char *id, char *err, size_t errlen)
{
	return check_token(type, "id", id, HB_RELAY_ID_MAX, ID_CHARS, "letters, digits and . _ : -", err, errlen);
}

static int check_credential(const char *cred, char *err, size_t errlen)
{
	return check_token("hello", "credential", cred, HB_RELAY_CREDENTIAL_MAX, NULL,
			   "printable ASCII without blanks", err, errlen);
}

static int check_code(const char *code, char *err, size_t errlen)
{
	return check_token("error", "code", code, HB_RELAY_CODE_MAX, CODE_CHARS, "a-z and -", err, errlen);
}

/* sessionId and runId (and a tool's name): the broker's, opaque; no
 * control bytes. */
static int check_ref_of(const char *type, const char *key, const char *s, char *err, size_t errlen)
{
	if (!*s || strlen(s) > HB_RELAY_REF_MAX || hb_relay_chars(s) < 0) {
		snprintf(err, errlen, "%s: %s must be 1 to %d bytes of UTF-8", type, key, HB_RELAY_REF_MAX);
		return -1;
	}
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			snprintf(err, errlen, "%s: %s holds a control character", type, key);
			return -1;
		}
	return 0;
}

static int check_ref(const char *key, const char *s, char *err, size_t errlen)
{
	return check_ref_of(type_names[HB_RELAY_EVENT], key, s, err, errlen);
}

static int check_approval_id(const char *type, const char *id, char *err, size_t errlen)
{
	return check_token(type, "approvalId", id, HB_RELAY_ID_MAX, ID_CHARS, "letters, digits and . _ : -", err,
			   errlen);
}

static int check_approval(const struct hb_relay_approval *a, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_APPROVAL];

	if (check_approval_id(type, a->approval_id, err, errlen) < 0 ||
	    check_ref_of(type, "sessionId", a->session_id, err, errlen) < 0 ||
	    check_ref_of(type, "runId", a->run_id, err, errlen) < 0 ||
	    check_ref_of(type, "tool", a->tool, err, errlen) < 0 ||
	    check_text(type, "text", a->text, 0, HB_RELAY_ASK_MAX, err, errlen) < 0 ||
	    check_text(type, "cwd", a->cwd, 0, HB_RELAY_ASK_MAX, err, errlen) < 0 ||
	    check_text(type, "subagent", a->subagent, 0, HB_RELAY_SESSION_TITLE_MAX, err, errlen) < 0 ||
	    check_text(type, "reason", a->reason, 0, HB_RELAY_TEXT_MAX, err, errlen) < 0)
		return -1;
	if (strcmp(a->kind, "command") != 0 && strcmp(a->kind, "file") != 0 && strcmp(a->kind, "tool") != 0) {
		snprintf(err, errlen, "%s: kind must be command, file or tool", type);
		return -1;
	}
	return 0;
}

int hb_relay_check_event(const struct hb_relay_event *ev, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_EVENT];

	if (check_id(type, ev->id, err, errlen) < 0 || check_ref("sessionId", ev->session_id, err, errlen) < 0 ||
	    check_ref("runId", ev->run_id, err, errlen) < 0 ||
	    check_text(type, "sessionTitle", ev->session_title, 0, HB_RELAY_SESSION_TITLE_MAX, err, errlen) < 0 ||
	    check_text(type, "title", ev->title, 1, HB_RELAY_TITLE_MAX, err, errlen) < 0 ||
	    check_text(type, "body", ev->body, 1, HB_RELAY_BODY_MAX, err, errlen) < 0)
		return -1;
	if (ev->created_at_ms < 0 || ev->created_at_ms > CREATED_MAX_MS) {
		snprintf(err, errlen, "%s: createdAt is outside 1970 to 9999", type);
		return -1;
	}
	return 0;
}

/* ms as 2026-12-01T16:15:53.123Z (24 characters). */
static void format_time(int64_t ms, char *out, size_t outlen)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(out, outlen, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

/* The reverse, exactly that form and a real date; 0 or -1. */
static int parse_time(const char *s, int64_t *ms)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
	struct tm tm = { 0 }, back;
	time_t secs;
	int frac;

	if (strlen(s) != sizeof shape - 1)
		return -1;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return -1;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &frac) != 7 || tm.tm_year < 1970)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	back = tm;
	secs = timegm(&tm);
	/* timegm normalizes 02-30 into 03-02: such a date is refused. */
	if (secs == (time_t)-1 || tm.tm_mday != back.tm_mday || tm.tm_mon != back.tm_mon || tm.tm_hour != back.tm_hour ||
	    tm.tm_min != back.tm_min || tm.tm_sec != back.tm_sec)
		return -1;
	*ms = (int64_t)secs * 1000 + frac;
	return 0;
}

/* The text of o (taken), or NULL with err. */
static char *dump(json_t *o, const char *type, char *err, size_t errlen)
{
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	if (!text)
		snprintf(err, errlen, "%s: out of memory", type);
	return text;
}

char *hb_relay_hello(const char *credential, char *err, size_t errlen)
{
	if (check_credential(credential, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:i, s:s}", "type", "hello", "protocol", HB_RELAY_PROTOCOL, "credential",
			      credential),
		    "hello", err, errlen);
}

char *hb_relay_ready(char *err, size_t errlen)
{
	return dump(json_pack("{s:s, s:i}", "type", "ready", "protocol", HB_RELAY_PROTOCOL), "ready", err, errlen);
}

char *hb_relay_error(const char *code, const char *message, char *err, size_t errlen)
{
	if (check_code(code, err, errlen) < 0 ||
	    check_text("error", "message", message, 0, HB_RELAY_TEXT_MAX, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:s, s:s}", "type", "error", "code", code, "message", message), "error", err,
		    errlen);
}

char *hb_relay_event(const struct hb_relay_event *ev, char *err, size_t errlen)
{
	char created[80];

	if (hb_relay_check_event(ev, err, errlen) < 0)
		return NULL;
	format_time(ev->created_at_ms, created, sizeof created);
	return dump(json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "type", type_names[HB_RELAY_EVENT], "id",
			      ev->id, "sessionId", ev->session_id, "runId", ev->run_id, "sessionTitle",
			      ev->session_title, "title", ev->title, "body", ev->body, "createdAt", created),
		    type_names[HB_RELAY_EVENT], err, errlen);
}

char *hb_relay_ack(const char *id, char *err, size_t errlen)
{
	if (check_id("ack", id, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:s}", "type", "ack", "id", id), "ack", err, errlen);
}

char *hb_relay_dropped(const char *id, const char *reason, char *err, size_t errlen)
{
	if (check_id("dropped", id, err, errlen) < 0 ||
	    check_text("dropped", "reason", reason, 1, HB_RELAY_TEXT_MAX, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:s, s:s}", "type", "dropped", "id", id, "reason", reason), "dropped", err,
		    errlen);
}

char *hb_relay_approval(const struct hb_relay_approval *a, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_APPROVAL];

	if (check_approval(a, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "approvalId",
			      a->approval_id, "sessionId", a->session_id, "runId", a->run_id, "kind", a->kind, "tool",
			      a->tool, "text", a->text, "cwd", a->cwd, "subagent", a->subagent, "reason", a->reason),
		    type, err, errlen);
}

char *hb_relay_resolve(const char *id, const char *approval_id, const char *run_id, int allow, char *err,
		       size_t errlen)
{
	const char *type = type_names[HB_RELAY_RESOLVE];

	if (check_id(type, id, err, errlen) < 0 || check_approval_id(type, approval_id, err, errlen) < 0 ||
	    check_ref_of(type, "runId", run_id, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "id", id, "approvalId", approval_id, "runId",
			      run_id, "decision", allow ? "allow" : "deny"),
		    type, err, errlen);
}

char *hb_relay_result(const char *id, int ok, const char *text, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_RESULT];

	if (check_id(type, id, err, errlen) < 0 || check_text(type, "message", text, 0, HB_RELAY_TEXT_MAX, err, errlen) < 0)
		return NULL;
	return dump(json_pack("{s:s, s:s, s:b, s:s}", "type", type, "id", id, "ok", ok, "message", text), type, err,
		    errlen);
}

/* The string field key of o copied into out (outlen bytes), or "" when
 * optional and absent.  0, or -1 with err. */
static int get_string(json_t *o, const char *type, const char *key, int optional, char *out, size_t outlen,
		      char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	*out = '\0';
	if (!v && optional)
		return 0;
	if (!v || !json_is_string(v)) {
		snprintf(err, errlen, "%s: %s %s", type, key, v ? "is not a string" : "is missing");
		return -1;
	}
	if (json_string_length(v) >= outlen) {
		snprintf(err, errlen, "%s: %s is longer than %zu bytes", type, key, outlen - 1);
		return -1;
	}
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_protocol(json_t *o, const char *type, int *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, "protocol");

	if (!json_is_integer(v)) {
		snprintf(err, errlen, "%s: protocol %s", type, v ? "is not an integer" : "is missing");
		return -1;
	}
	if (json_integer_value(v) != HB_RELAY_PROTOCOL) {
		snprintf(err, errlen, "%s: protocol %lld is not %d, the one this desktop speaks", type,
			 (long long)json_integer_value(v), HB_RELAY_PROTOCOL);
		return -1;
	}
	*out = HB_RELAY_PROTOCOL;
	return 0;
}

static int parse_event(json_t *o, struct hb_relay_event *ev, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_EVENT];
	char created[32];

	if (get_string(o, type, "id", 0, ev->id, sizeof ev->id, err, errlen) < 0 ||
	    get_string(o, type, "sessionId", 0, ev->session_id, sizeof ev->session_id, err, errlen) < 0 ||
	    get_string(o, type, "runId", 0, ev->run_id, sizeof ev->run_id, err, errlen) < 0 ||
	    get_string(o, type, "sessionTitle", 0, ev->session_title, sizeof ev->session_title, err, errlen) < 0 ||
	    get_string(o, type, "title", 0, ev->title, sizeof ev->title, err, errlen) < 0 ||
	    get_string(o, type, "body", 0, ev->body, sizeof ev->body, err, errlen) < 0 ||
	    get_string(o, type, "createdAt", 0, created, sizeof created, err, errlen) < 0)
		return -1;
	if (parse_time(created, &ev->created_at_ms) < 0) {
		snprintf(err, errlen, "%s: createdAt is not a UTC time like 2026-12-01T16:15:53.123Z", type);
		return -1;
	}
	return hb_relay_check_event(ev, err, errlen);
}

static int parse_approval(json_t *o, struct hb_relay_approval *a, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_APPROVAL];

	if (get_string(o, type, "approvalId", 0, a->approval_id, sizeof a->approval_id, err, errlen) < 0 ||
	    get_string(o, type, "sessionId", 0, a->session_id, sizeof a->session_id, err, errlen) < 0 ||
	    get_string(o, type, "runId", 0, a->run_id, sizeof a->run_id, err, errlen) < 0 ||
	    get_string(o, type, "kind", 0, a->kind, sizeof a->kind, err, errlen) < 0 ||
	    get_string(o, type, "tool", 0, a->tool, sizeof a->tool, err, errlen) < 0 ||
	    get_string(o, type, "text", 0, a->text, sizeof a->text, err, errlen) < 0 ||
	    get_string(o, type, "cwd", 1, a->cwd, sizeof a->cwd, err, errlen) < 0 ||
	    get_string(o, type, "subagent", 1, a->subagent, sizeof a->subagent, err, errlen) < 0 ||
	    get_string(o, type, "reason", 1, a->reason, sizeof a->reason, err, errlen) < 0)
		return -1;
	return check_approval(a, err, errlen);
}

/* approval-resolve: id, approvalId, runId and decision allow or deny. */
static int parse_resolve(json_t *o, struct hb_relay_msg *m, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_RESOLVE];
	char decision[8];

	if (get_string(o, type, "id", 0, m->id, sizeof m->id, err, errlen) < 0 || check_id(type, m->id, err, errlen) < 0 ||
	    get_string(o, type, "approvalId", 0, m->approval.approval_id, sizeof m->approval.approval_id, err,
		       errlen) < 0 ||
	    check_approval_id(type, m->approval.approval_id, err, errlen) < 0 ||
	    get_string(o, type, "runId", 0, m->approval.run_id, sizeof m->approval.run_id, err, errlen) < 0 ||
	    check_ref_of(type, "runId", m->approval.run_id, err, errlen) < 0)
		return -1;
	if (get_string(o, type, "decision", 0, decision, sizeof decision, err, errlen) < 0 ||
	    (strcmp(decision, "allow") != 0 && strcmp(decision, "deny") != 0)) {
		snprintf(err, errlen, "%s: decision must be allow or deny", type);
		return -1;
	}
	m->allow = strcmp(decision, "allow") == 0;
	return 0;
}

static int parse_result(json_t *o, struct hb_relay_msg *m, char *err, size_t errlen)
{
	const char *type = type_names[HB_RELAY_RESULT];
	json_t *ok = json_object_get(o, "ok");

	if (get_string(o, type, "id", 0, m->id, sizeof m->id, err, errlen) < 0 || check_id(type, m->id, err, errlen) < 0 ||
	    get_string(o, type, "message", 1, m->text, sizeof m->text, err, errlen) < 0 ||
	    check_text(type, "message", m->text, 0, HB_RELAY_TEXT_MAX, err, errlen) < 0)
		return -1;
	if (!json_is_boolean(ok)) {
		snprintf(err, errlen, "%s: ok %s", type, ok ? "is not a boolean" : "is missing");
		return -1;
	}
	m->ok = json_is_true(ok);
	return 0;
}

/* The fields of m's type from o: 0, or -1 with err. */
static int parse_fields(json_t *o, struct hb_relay_msg *m, char *err, size_t errlen)
{
	const char *type = type_names[m->type];
	int bad = 1;

	switch (m->type) {
	case HB_RELAY_HELLO:
		bad = get_protocol(o, type, &m->protocol, err, errlen) < 0 ||
		      get_string(o, type, "credential", 0, m->credential, sizeof m->credential, err, errlen) < 0 ||
		      check_credential(m->credential, err, errlen) < 0;
		break;
	case HB_RELAY_READY:
		bad = get_protocol(o, type, &m->protocol, err, errlen) < 0;
		break;
	case HB_RELAY_ERROR:
		bad = get_string(o, type, "code", 0, m->code, sizeof m->code, err, errlen) < 0 ||
		      check_code(m->code, err, errlen) < 0 ||
		      get_string(o, type, "message", 1, m->text, sizeof m->text, err, errlen) < 0 ||
		      check_text(type, "message", m->text, 0, HB_RELAY_TEXT_MAX, err, errlen) < 0;
		break;
	case HB_RELAY_EVENT:
		bad = parse_event(o, &m->event, err, errlen) < 0;
		break;
	case HB_RELAY_ACK:
		bad = get_string(o, type, "id", 0, m->id, sizeof m->id, err, errlen) < 0 ||
		      check_id(type, m->id, err, errlen) < 0;
		break;
	case HB_RELAY_DROPPED:
		bad = get_string(o, type, "id", 0, m->id, sizeof m->id, err, errlen) < 0 ||
		      check_id(type, m->id, err, errlen) < 0 ||
		      get_string(o, type, "reason", 0, m->text, sizeof m->text, err, errlen) < 0 ||
		      check_text(type, "reason", m->text, 1, HB_RELAY_TEXT_MAX, err, errlen) < 0;
		break;
	case HB_RELAY_APPROVAL:
		bad = parse_approval(o, &m->approval, err, errlen) < 0;
		break;
	case HB_RELAY_RESOLVE:
		bad = parse_resolve(o, m, err, errlen) < 0;
		break;
	case HB_RELAY_RESULT:
		bad = parse_result(o, m, err, errlen) < 0;
		break;
	}
	return bad ? -1 : 0;
}

int hb_relay_parse(const char *text, size_t len, enum hb_relay_side from, struct hb_relay_msg *out, char *err,
		   size_t errlen)
{
	json_error_t jerr;
	json_t *o, *t;
	size_t i;
	int rc = -1;

	hb_relay_msg_wipe(out);
	if (!(o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr))) {
		/* Not jerr.text: its "near '...'" could quote a credential. */
		snprintf(err, errlen, "a relay message that is not JSON (at byte %d)", jerr.position);
		return -1;
	}
	t = json_object_get(o, "type");
	if (!json_is_object(o))
		snprintf(err, errlen, "a relay message that is not a JSON object");
	else if (!json_is_string(t))
		snprintf(err, errlen, "a relay message without a type");
	else {
		for (i = 0; i < NTYPES && strcmp(type_names[i], json_string_value(t)) != 0; i++)
			;
		if (i == NTYPES)
			snprintf(err, errlen, "a relay message of an unknown type (%.40s)", json_string_value(t));
		else if (side_of((enum hb_relay_type)i) != from)
			snprintf(err, errlen, "a %s message, which only the %s sends", type_names[i],
				 from == HB_RELAY_FROM_RELAY ? "device" : "relay");
		else {
			out->type = (enum hb_relay_type)i;
			rc = parse_fields(o, out, err, errlen);
		}
	}
	json_decref(o);
	if (rc < 0)
		hb_relay_msg_wipe(out);
	return rc;
}

void hb_relay_msg_wipe(struct hb_relay_msg *m)
{
	/* volatile: the wipe of a credential must not be optimized away. */
	volatile unsigned char *p = (volatile unsigned char *)m;

	for (size_t i = 0; i < sizeof *m; i++)
		p[i] = 0;
}
