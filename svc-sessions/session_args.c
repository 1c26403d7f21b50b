/*
 * session_args - validation of the fields the svc-sessions tools take.
 *
 * Built on the common hb_json helpers so the wording of type errors is the
 * same across services; what is specific here is the per-action field rule
 * and the title rule (titles show in the app's session list, one line).
 */
#include "session_args.h"

#include "hidden_chars.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

const char *const session_agents[] = { "codex", "claude", "external", NULL };

/* A title field longer than this many bytes cannot trim down to 200
 * characters of sense; it bounds the work before trimming. */
#define TITLE_RAW_MAX 4096

void session_args_no_such_session(const char *id, char *err, size_t errlen)
{
	snprintf(err, errlen, "No session with id %s. Find ids with maintain_sessions listSessions.", id);
}

int session_args_known_fields(const json_t *args, const char *const *known, char *err, size_t errlen)
{
	if (!json_is_object(args)) {
		snprintf(err, errlen, "the arguments must be a JSON object");
		return -1;
	}
	return hb_json_only_fields(args, known, err, errlen);
}

static int in_list(const char *key, const char *const *list)
{
	for (size_t i = 0; list[i]; i++) {
		if (strcmp(key, list[i]) == 0)
			return 1;
	}
	return 0;
}

int session_args_used_fields(const json_t *args, const char *action, const char *const *used,
			     char *err, size_t errlen)
{
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)args, key, value) {
		(void)value;
		if (strcmp(key, "action") != 0 && !in_list(key, used)) {
			snprintf(err, errlen, "%s is not used by %s", key, action);
			return -1;
		}
	}
	return 0;
}

int session_args_action(const json_t *args, const char *const *choices, const char **action,
			char *err, size_t errlen)
{
	if (hb_json_req_string(args, "action", 64, action, err, errlen) != 0)
		return -1;
	return hb_json_check_choice("action", *action, choices, err, errlen);
}

int session_args_id(const json_t *args, const char *key, int required, const char **out,
		    char *err, size_t errlen)
{
	if (hb_json_opt_string(args, key, SESSION_ID_MAX, 1, out, err, errlen) != 0)
		return -1;
	if (!*out && required) {
		snprintf(err, errlen, "\"%s\" is required", key);
		return -1;
	}
	return 0;
}

int session_args_choice(const json_t *args, const char *key, const char *const *choices, int required,
			const char **out, char *err, size_t errlen)
{
	if (hb_json_opt_string(args, key, 64, 1, out, err, errlen) != 0)
		return -1;
	if (!*out) {
		if (!required)
			return 0;
		snprintf(err, errlen, "\"%s\" is required", key);
		return -1;
	}
	return hb_json_check_choice(key, *out, choices, err, errlen);
}

int session_args_model(const json_t *args, const char **out, char *err, size_t errlen)
{
	if (hb_json_opt_string(args, "model", SESSION_MODEL_MAX, 1, out, err, errlen) != 0)
		return -1;
	if (*out && (*out)[strspn(*out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:/@[]")]) {
		snprintf(err, errlen, "model must be a model name such as \"opus\" or \"gpt-6-codex\": letters, "
			 "digits and . _ - : / @ [ ] only");
		return -1;
	}
	return 0;
}

int session_args_effort(const json_t *args, const char *agent, const char **out, char *err, size_t errlen)
{
	static const char *const claude_efforts[] = { "low", "medium", "high", "xhigh", "max", NULL };

	if (hb_json_opt_string(args, "effort", 32, 1, out, err, errlen) != 0)
		return -1;
	if (!*out)
		return 0;
	if (strcmp(agent, "claude") == 0)
		return hb_json_check_choice("effort", *out, claude_efforts, err, errlen);
	if ((*out)[strspn(*out, "abcdefghijklmnopqrstuvwxyz")]) {
		snprintf(err, errlen, "effort must be a reasoning effort the Codex model offers, such as \"low\", "
			 "\"medium\" or \"high\"");
		return -1;
	}
	return 0;
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Characters in valid UTF-8 text (jansson guarantees validity); -1 when a
 * C0, DEL or C1 control character is present. */
static long count_title_chars(const unsigned char *s, size_t len)
{
	long chars = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
			return -1;
		if ((c & 0xc0) != 0x80)
			chars++;
	}
	return chars;
}

int session_args_title(const json_t *args, char *out, size_t outlen, char *err, size_t errlen)
{
	struct hb_hidden_char hidden;
	const char *raw;
	if (hb_json_req_string(args, "title", TITLE_RAW_MAX, &raw, err, errlen) != 0)
		return -1;
	size_t start = 0, end = strlen(raw);
	while (start < end && is_space((unsigned char)raw[start]))
		start++;
	while (end > start && is_space((unsigned char)raw[end - 1]))
		end--;
	long chars = count_title_chars((const unsigned char *)raw + start, end - start);
	if (chars < 0) {
		snprintf(err, errlen, "title must not contain control characters (such as newlines or tabs)");
		return -1;
	}
	if (hb_hidden_char_find(raw + start, end - start, &hidden)) {
		snprintf(err, errlen, "title must not contain invisible or direction-changing characters: character "
			 "%zu is U+%04lX %s, which can make a title read as something else; remove it", hidden.at,
			 hidden.cp, hidden.name);
		return -1;
	}
	if (chars == 0 || chars > SESSION_TITLE_MAX || end - start >= outlen) {
		snprintf(err, errlen, "title must be 1 to %d characters after trimming spaces (got %ld)",
			 SESSION_TITLE_MAX, chars);
		return -1;
	}
	memcpy(out, raw + start, end - start);
	out[end - start] = '\0';
	return 0;
}
