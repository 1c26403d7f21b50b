/*
 * opfields - see opfields.h.  A nested map is flattened by the decoder
 * into "name.member" fields, so a map field is there when any of its
 * members is (an empty map carries nothing and reads as absent).
 */
#include "opfields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	unsigned type;
	const char *words;
} type_words[] = {
	{ HB_FT_STR, "a string" },
	{ HB_FT_INT, "an integer" },
	{ HB_FT_BOOL, "a boolean" },
	{ HB_FT_MAP, "a map" },
};

#define NTYPES (sizeof type_words / sizeof type_words[0])

/* The type name holds in e (one HB_FT_* bit), or 0 when it is absent. */
static unsigned type_in(const struct hb_env *e, const char *name)
{
	const struct hb_field *f = hb_env_get(e, name);
	size_t len = strlen(name);

	if (f)
		return f->type == HB_VAL_STR ? HB_FT_STR : f->type == HB_VAL_INT ? HB_FT_INT : HB_FT_BOOL;
	for (int i = 0; i < e->n; i++)
		if (e->f[i].key[0] == name[0] && strncmp(e->f[i].key, name, len) == 0 && e->f[i].key[len] == '.')
			return HB_FT_MAP;
	return 0;
}

/* "a string or an integer" for the bits of types, into out. */
static void type_list(unsigned types, char *out, size_t outlen)
{
	size_t n = 0, said = 0, total = 0;

	for (size_t i = 0; i < NTYPES; i++)
		total += (types & type_words[i].type) != 0;
	out[0] = '\0';
	for (size_t i = 0; i < NTYPES && n < outlen; i++) {
		if (!(types & type_words[i].type))
			continue;
		n += (size_t)snprintf(out + n, outlen - n, "%s%s", !said ? "" : said + 1 == total ? " or " : ", ",
				      type_words[i].words);
		said++;
	}
}

static const char *type_word(unsigned type)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (type_words[i].type == type)
			return type_words[i].words;
	return "something else";
}

int hb_fields_check(const struct hb_env *e, const char *op, const struct hb_field_rule *rules, size_t max,
		    char *err, size_t errlen)
{
	for (size_t i = 0; i < max && rules[i].name; i++) {
		unsigned got = type_in(e, rules[i].name);
		char wanted[64];

		if (!got && rules[i].need == HB_REQUIRED) {
			snprintf(err, errlen, "%s: field \"%s\" is missing", op, rules[i].name);
			return -1;
		}
		if (got && !(got & rules[i].types)) {
			type_list(rules[i].types, wanted, sizeof wanted);
			snprintf(err, errlen, "%s: field \"%s\" must be %s, not %s", op, rules[i].name, wanted,
				 type_word(got));
			return -1;
		}
	}
	return 0;
}

/* A required field that is not there: the row and the handler disagree. */
static void not_required(const char *name)
{
	fprintf(stderr, "opfields: a handler read \"%s\" as required, but its row does not require it\n", name);
	abort();
}

const char *hb_req_str(const struct hb_env *e, const char *name)
{
	const char *s = hb_env_str(e, name);

	if (!s)
		not_required(name);
	return s;
}

int hb_req_bool(const struct hb_env *e, const char *name)
{
	const struct hb_field *f = hb_env_get(e, name);

	if (!f || f->type != HB_VAL_BOOL)
		not_required(name);
	return f->i != 0;
}
