/*
 * fuzz_envelope - what the broker does with a raw frame on its front and
 * back sockets: the MessagePack structure check, then the strict
 * envelope decode (common/msgpack_check.c, common/envelope.c).
 *
 * A frame that decodes must encode again, and the encoding must decode
 * to the same fields: the broker re-encodes every frame it forwards.
 */
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "fuzz.h"

static void same_fields(const struct hb_env *a, const struct hb_env *b)
{
	const struct hb_field *f, *g;
	int i;

	if (a->n != b->n)
		abort();
	for (i = 0; i < a->n; i++) {
		f = &a->f[i];
		g = hb_env_get(b, f->key);
		if (!g || g->type != f->type)
			abort();
		if (f->type == HB_VAL_STR) {
			if (g->len != f->len || memcmp(g->s, f->s, f->len) != 0)
				abort();
		} else if (g->i != f->i) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_env e, again;
	char err[256];
	char *buf;
	size_t len;
	int depth;

	/* The checker alone, at every depth the callers use. */
	for (depth = 0; depth <= HB_MAX_DEPTH; depth++)
		(void)hb_msgpack_check(data, size, depth, err, sizeof err);
	if (hb_env_decode(&e, data, size, err, sizeof err) < 0)
		return 0;
	(void)hb_env_str(&e, "op");
	(void)hb_env_str_or(&e, "json", "");
	(void)hb_env_bool(&e, "final", 0);
	if (hb_env_encode(&e, &buf, &len) < 0)
		abort();
	if (hb_env_decode(&again, buf, len, err, sizeof err) < 0)
		abort();
	same_fields(&e, &again);
	hb_env_free(&again);
	free(buf);
	hb_env_free(&e);
	return 0;
}
