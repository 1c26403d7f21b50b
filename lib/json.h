/*
 * json - small helpers on jansson for validating tool arguments.
 *
 * Every helper writes a sentence a person understands into err on failure,
 * naming the field, so a handler can pass it straight back as a tool error.
 */
#ifndef HB_JSON_H
#define HB_JSON_H

#include <jansson.h>
#include <stddef.h>

/* Parse text as a JSON object; NULL with err set otherwise. */
json_t *hb_json_parse_object(const char *text, size_t len, char *err, size_t errlen);
/* Reject any key of obj not in allowed (NULL-terminated). 0 or -1. */
int hb_json_only_fields(const json_t *obj, const char *const *allowed, char *err, size_t errlen);
/* Optional string field: *out = NULL when absent; -1 when present but not a string
 * or longer than maxlen characters (bytes) or empty when nonempty is set. */
int hb_json_opt_string(const json_t *obj, const char *key, size_t maxlen, int nonempty,
		       const char **out, char *err, size_t errlen);
/* Required string field. */
int hb_json_req_string(const json_t *obj, const char *key, size_t maxlen,
		       const char **out, char *err, size_t errlen);
/* Optional integer in [min,max]; *out = dflt when absent. */
int hb_json_opt_int(const json_t *obj, const char *key, long long min, long long max,
		    long long dflt, long long *out, char *err, size_t errlen);
/* Optional boolean; *out = dflt when absent. */
int hb_json_opt_bool(const json_t *obj, const char *key, int dflt, int *out, char *err, size_t errlen);
/* One of the NULL-terminated choices; the error lists them. */
int hb_json_check_choice(const char *key, const char *value, const char *const *choices,
			 char *err, size_t errlen);
/* json_dumps with compact, sorted-key-free output; caller frees. */
char *hb_json_dump(const json_t *v);

#endif
