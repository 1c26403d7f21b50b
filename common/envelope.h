/*
 * envelope - the one MessagePack map that every hbcode frame holds.
 *
 * An envelope is a map from short string keys to strings, integers and
 * booleans, with at most one level of nested map (e.g. "err": {"code",
 * "msg"}), which this API flattens to dotted keys ("err.code").  Agent
 * payloads stay JSON text in the "json" field.
 *
 * Decoding is strict because frames come from any local process: the frame
 * is pre-walked so that no container count can exceed the bytes left (the
 * msgpack-c unpacker allocates by count before it reads), depth is capped,
 * 0xc1, ext types, trailing bytes, non-string keys, duplicate keys, strings
 * with NUL bytes and a missing or wrong version are refused with a reason.
 *
 * A decoded envelope owns a copy of its strings, NUL-terminated.  A built
 * envelope borrows the caller's strings until it is encoded.
 */
#ifndef HB_ENVELOPE_H
#define HB_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#define HB_PROTO_VERSION 1
#define HB_MAX_FRAME (8u << 20)  /* also ZMQ_MAXMSGSIZE */
/* Tool arguments and results are capped at half a frame, so the envelope
 * around them (key, context, ids) always fits in the frame that carries
 * them on; a frame over HB_MAX_FRAME would be dropped by the receiver's
 * libzmq without a word. */
#define HB_MAX_PAYLOAD (HB_MAX_FRAME / 2)
#define HB_MAX_CONTEXT 4096      /* each context string: session, run, ... */
#define HB_MAX_DEPTH 4           /* msgpack nesting allowed before decoding */
#define HB_MAX_FIELDS 32
#define HB_MAX_KEY 32

enum hb_val_type { HB_VAL_STR, HB_VAL_INT, HB_VAL_BOOL };

struct hb_field {
	char key[HB_MAX_KEY + 1]; /* dotted for nested maps */
	enum hb_val_type type;
	const char *s;            /* HB_VAL_STR */
	size_t len;
	int64_t i;                /* HB_VAL_INT, HB_VAL_BOOL */
};

struct hb_env {
	struct hb_field f[HB_MAX_FIELDS];
	int n;
	char *arena;              /* decoded strings; owned */
};

void hb_env_init(struct hb_env *e);
void hb_env_free(struct hb_env *e);

/* Strict decode of one frame.  0, or -1 with a reason in err. */
int hb_env_decode(struct hb_env *e, const void *buf, size_t len, char *err, size_t errlen);
/* Check only the MessagePack structure (exported for tests and fuzzing). */
int hb_msgpack_check(const unsigned char *buf, size_t len, int max_depth, char *err, size_t errlen);

/* Encode into a malloc'd buffer (caller frees).  0 or -1 (ENOMEM/too many). */
int hb_env_encode(const struct hb_env *e, char **buf, size_t *len);

/* Setters replace an existing key.  Strings are borrowed, not copied.
 * They return -1 only when the envelope is full (a programming error). */
int hb_env_set_str(struct hb_env *e, const char *key, const char *s);
int hb_env_set_strn(struct hb_env *e, const char *key, const char *s, size_t len);
int hb_env_set_int(struct hb_env *e, const char *key, int64_t v);
int hb_env_set_bool(struct hb_env *e, const char *key, int v);
int hb_env_set_err(struct hb_env *e, const char *code, const char *msg);

const struct hb_field *hb_env_get(const struct hb_env *e, const char *key);
/* The string, or NULL when absent or not a string. */
const char *hb_env_str(const struct hb_env *e, const char *key);
/* The string, or dflt. */
const char *hb_env_str_or(const struct hb_env *e, const char *key, const char *dflt);
/* 0 with *out set, or -1 when absent or not an integer. */
int hb_env_int(const struct hb_env *e, const char *key, int64_t *out);
/* 1/0 for a boolean, dflt when absent. */
int hb_env_bool(const struct hb_env *e, const char *key, int dflt);

#endif
