/*
 * json - argument checks on jansson objects with messages for the model.
 *
 * A tool error is read by a model that will try again: each message names
 * the field and says what would be accepted.
 */
#include "json.h"

#include <stdio.h>
#include <string.h>

json_t *hb_json_parse_object(const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);

	if (!v && (json_error_code(&jerr) == json_error_null_character ||
		   json_error_code(&jerr) == json_error_null_byte_in_key)) {
		/* jansson's own words name its flag (JSON_ALLOW_NUL), which
		 * means nothing to the model that wrote the string. */
		snprintf(err, errlen, "arguments must not hold \\u0000 (a NUL character) in a string or a field name (at line %d, "
			 "column %d)", jerr.line, jerr.column);
		return NULL;
	}
	if (!v) {
		snprintf(err, errlen, "arguments are not valid JSON: %s (at line %d, column %d)",
			 jerr.text, jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		snprintf(err, errlen, "arguments must be a JSON object");
		return NULL;
	}
	return v;
}

int hb_json_only_fields(const json_t *obj, const char *const *allowed, char *err, size_t errlen)
{
	const char *key;
	json_t *val;

	json_object_foreach((json_t *)obj, key, val) {
		const char *const *a = allowed;

		while (*a && strcmp(*a, key) != 0)
			a++;
		if (!*a) {
			size_t n = (size_t)snprintf(err, errlen, "unknown field \"%s\"; accepted fields:", key);
			for (a = allowed; *a && n < errlen; a++)
				n += (size_t)snprintf(err + n, errlen - n, " %s", *a);
			return -1;
		}
	}
	return 0;
}

int hb_json_opt_string(const json_t *obj, const char *key, size_t maxlen, int nonempty,
		       const char **out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v)) {
		snprintf(err, errlen, "\"%s\" must be a string", key);
		return -1;
	}
	if (json_string_length(v) > maxlen) {
		snprintf(err, errlen, "\"%s\" is too long (at most %zu bytes)", key, maxlen);
		return -1;
	}
	if (nonempty && json_string_length(v) == 0) {
		snprintf(err, errlen, "\"%s\" must not be empty", key);
		return -1;
	}
	if (strlen(json_string_value(v)) != json_string_length(v)) {
		snprintf(err, errlen, "\"%s\" must not contain NUL characters", key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

int hb_json_req_string(const json_t *obj, const char *key, size_t maxlen,
		       const char **out, char *err, size_t errlen)
{
	if (hb_json_opt_string(obj, key, maxlen, 1, out, err, errlen) < 0)
		return -1;
	if (!*out) {
		snprintf(err, errlen, "\"%s\" is required", key);
		return -1;
	}
	return 0;
}

int hb_json_opt_int(const json_t *obj, const char *key, long long min, long long max,
		    long long dflt, long long *out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	*out = dflt;
	if (!v)
		return 0;
	if (!json_is_integer(v)) {
		snprintf(err, errlen, "\"%s\" must be an integer from %lld to %lld", key, min, max);
		return -1;
	}
	if (json_integer_value(v) < min || json_integer_value(v) > max) {
		snprintf(err, errlen, "\"%s\" is %lld; it must be from %lld to %lld",
			 key, (long long)json_integer_value(v), min, max);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

int hb_json_opt_bool(const json_t *obj, const char *key, int dflt, int *out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	*out = dflt;
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		snprintf(err, errlen, "\"%s\" must be true or false", key);
		return -1;
	}
	*out = json_is_true(v);
	return 0;
}

int hb_json_check_choice(const char *key, const char *value, const char *const *choices,
			 char *err, size_t errlen)
{
	size_t n;

	for (const char *const *c = choices; *c; c++)
		if (strcmp(*c, value) == 0)
			return 0;
	n = (size_t)snprintf(err, errlen, "\"%s\" must be one of:", key);
	for (const char *const *c = choices; *c && n < errlen; c++)
		n += (size_t)snprintf(err + n, errlen - n, "%s %s", c == choices ? "" : ",", *c);
	return -1;
}

char *hb_json_dump(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}
