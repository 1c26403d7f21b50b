/*
 * envelope - strict MessagePack codec for hbcode frames.
 *
 * Every frame is walked by hb_msgpack_check (msgpack_check.c) before
 * msgpack_unpack_next sees it; then the map is flattened into fields with
 * their own copies of the strings, and checked: string keys, no
 * duplicates, v = 1, an op.
 */
#include "envelope.h"

#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hb_env_init(struct hb_env *e)
{
	e->n = 0;
	e->arena = NULL;
}

void hb_env_free(struct hb_env *e)
{
	free(e->arena);
	e->arena = NULL;
	e->n = 0;
}

/* Every lookup walks the fields; the first byte settles most of them
 * without a call (strcmp was 3-5 % of the broker's CPU under load). */
static struct hb_field *find_field(const struct hb_env *e, const char *key)
{
	for (int i = 0; i < e->n; i++)
		if (e->f[i].key[0] == key[0] && strcmp(e->f[i].key, key) == 0)
			return (struct hb_field *)&e->f[i];
	return NULL;
}

/* Copy a msgpack string into the arena, NUL-terminated. */
static int copy_str(char **arena_pos, const msgpack_object_str *s, const char **out, char *err,
		    size_t errlen, const char *what)
{
	if (memchr(s->ptr, '\0', s->size)) {
		snprintf(err, errlen, "%s contains a NUL byte", what);
		return -1;
	}
	memcpy(*arena_pos, s->ptr, s->size);
	(*arena_pos)[s->size] = '\0';
	*out = *arena_pos;
	*arena_pos += s->size + 1;
	return 0;
}

/* No duplicate can reach here: flatten refuses a key written twice in
 * one map (key_repeats), and a dotted key cannot meet a plain one, since
 * keys hold no dot. */
static int add_value(struct hb_env *e, char **arena_pos, const char *key, const msgpack_object *v,
		     char *err, size_t errlen)
{
	struct hb_field *f;

	if (v->type == MSGPACK_OBJECT_NIL)
		return 0; /* nil means absent */
	if (e->n == HB_MAX_FIELDS) {
		snprintf(err, errlen, "more than %d fields", HB_MAX_FIELDS);
		return -1;
	}
	f = &e->f[e->n];
	memcpy(f->key, key, strlen(key) + 1); /* callers bound it by HB_MAX_KEY */
	switch (v->type) {
	case MSGPACK_OBJECT_STR:
		f->type = HB_VAL_STR;
		f->len = v->via.str.size;
		if (copy_str(arena_pos, &v->via.str, &f->s, err, errlen, key) < 0)
			return -1;
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		if (v->via.u64 > INT64_MAX) {
			snprintf(err, errlen, "\"%s\" is out of range", key);
			return -1;
		}
		f->type = HB_VAL_INT;
		f->i = (int64_t)v->via.u64;
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		f->type = HB_VAL_INT;
		f->i = v->via.i64;
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		f->type = HB_VAL_BOOL;
		f->i = v->via.boolean;
		break;
	default:
		snprintf(err, errlen, "\"%s\" has a type that is not accepted (string, integer or boolean)", key);
		return -1;
	}
	e->n++;
	return 0;
}

static int key_of(const msgpack_object *k, char out[HB_MAX_KEY + 1], char *err, size_t errlen)
{
	if (k->type != MSGPACK_OBJECT_STR) {
		snprintf(err, errlen, "a map key is not a string");
		return -1;
	}
	if (k->via.str.size == 0 || k->via.str.size > HB_MAX_KEY / 2 ||
	    memchr(k->via.str.ptr, '\0', k->via.str.size) || memchr(k->via.str.ptr, '.', k->via.str.size)) {
		snprintf(err, errlen, "a map key is empty, too long or has a NUL or dot");
		return -1;
	}
	memcpy(out, k->via.str.ptr, k->via.str.size);
	out[k->via.str.size] = '\0';
	return 0;
}

/* 1 (with the message) when the key of kvs[i] is also the key of an
 * earlier entry of the same map.  Compared as written, not as stored:
 * a nil value is not stored, yet its key still counts. */
static int key_repeats(const msgpack_object_kv *kvs, uint32_t i, const char *key, char *err, size_t errlen)
{
	const msgpack_object_str *k = &kvs[i].key.via.str;

	for (uint32_t j = 0; j < i; j++) {
		const msgpack_object_str *o = &kvs[j].key.via.str;
		if (o->size == k->size && memcmp(o->ptr, k->ptr, o->size) == 0) {
			snprintf(err, errlen, "key \"%s\" appears twice", key);
			return 1;
		}
	}
	return 0;
}

static int flatten(struct hb_env *e, char **arena_pos, const msgpack_object *root, char *err, size_t errlen)
{
	if (root->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "the envelope is not a map");
		return -1;
	}
	if (root->via.map.size > HB_MAX_FIELDS) {
		snprintf(err, errlen, "more than %d fields", HB_MAX_FIELDS);
		return -1;
	}
	for (uint32_t i = 0; i < root->via.map.size; i++) {
		const msgpack_object_kv *kv = &root->via.map.ptr[i];
		char key[HB_MAX_KEY + 1];

		if (key_of(&kv->key, key, err, errlen) < 0)
			return -1;
		if (key_repeats(root->via.map.ptr, i, key, err, errlen))
			return -1;
		if (kv->val.type != MSGPACK_OBJECT_MAP) {
			if (add_value(e, arena_pos, key, &kv->val, err, errlen) < 0)
				return -1;
			continue;
		}
		for (uint32_t j = 0; j < kv->val.via.map.size; j++) {
			const msgpack_object_kv *in = &kv->val.via.map.ptr[j];
			char sub[HB_MAX_KEY + 1], dotted[2 * HB_MAX_KEY + 2];

			if (key_of(&in->key, sub, err, errlen) < 0 || key_repeats(kv->val.via.map.ptr, j, sub, err, errlen))
				return -1;
			if (in->val.type == MSGPACK_OBJECT_MAP) {
				snprintf(err, errlen, "\"%s.%s\" nests deeper than one map", key, sub);
				return -1;
			}
			if (strlen(key) + 1 + strlen(sub) > HB_MAX_KEY) {
				snprintf(err, errlen, "\"%s.%s\" is longer than %d bytes", key, sub, HB_MAX_KEY);
				return -1;
			}
			snprintf(dotted, sizeof dotted, "%s.%s", key, sub);
			if (add_value(e, arena_pos, dotted, &in->val, err, errlen) < 0)
				return -1;
		}
	}
	return 0;
}

/* Room for the objects of a call's envelope (the map and some twenty
 * fields, each key and value a msgpack_object of 24 bytes), and small
 * enough with msgpack's 8-byte chunk header for malloc's per-thread
 * cache (requests up to 1,032 bytes): a larger chunk took the arena's
 * lock and a search of its bins on every frame.  A fuller envelope gets
 * a second chunk. */
enum { ENV_ZONE_CHUNK = 1016 };

int hb_env_decode(struct hb_env *e, const void *buf, size_t len, char *err, size_t errlen)
{
	msgpack_zone zone;
	msgpack_object root;
	size_t off = 0;
	char *arena_pos;
	int64_t v;
	int rc;

	hb_env_init(e);
	if (len > HB_MAX_FRAME) {
		snprintf(err, errlen, "frame of %zu bytes is over the %u byte limit", len, HB_MAX_FRAME);
		return -1;
	}
	if (hb_msgpack_check(buf, len, HB_MAX_DEPTH, err, errlen) < 0)
		return -1;
	/* One zone on the stack with a chunk sized for an envelope's objects
	 * (the strings stay in buf): msgpack_unpack_next would allocate a
	 * zone and an 8 KiB chunk for every frame. */
	if (!msgpack_zone_init(&zone, ENV_ZONE_CHUNK)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = msgpack_unpack(buf, len, &off, &zone, &root);
	if (rc != MSGPACK_UNPACK_SUCCESS || off != len) {
		msgpack_zone_destroy(&zone);
		snprintf(err, errlen, "frame is not one MessagePack value");
		return -1;
	}
	e->arena = malloc(len + 1);
	if (!e->arena) {
		msgpack_zone_destroy(&zone);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	arena_pos = e->arena;
	rc = flatten(e, &arena_pos, &root, err, errlen);
	msgpack_zone_destroy(&zone);
	if (rc < 0)
		goto bad;
	if (hb_env_int(e, "v", &v) < 0) {
		snprintf(err, errlen, "the envelope has no protocol version \"v\"");
		goto bad;
	}
	if (v != HB_PROTO_VERSION) {
		snprintf(err, errlen, "protocol version %lld is not supported (this side speaks %d)",
			 (long long)v, HB_PROTO_VERSION);
		goto bad;
	}
	if (!hb_env_str(e, "op")) {
		snprintf(err, errlen, "the envelope has no \"op\" string");
		goto bad;
	}
	return 0;
bad:
	hb_env_free(e);
	return -1;
}

static struct hb_field *slot(struct hb_env *e, const char *key)
{
	struct hb_field *f = find_field(e, key);

	if (f)
		return f;
	size_t len = strlen(key);

	if (e->n == HB_MAX_FIELDS || len > HB_MAX_KEY)
		return NULL;
	f = &e->f[e->n++];
	memcpy(f->key, key, len + 1); /* on the hot path: no snprintf */
	return f;
}

int hb_env_set_strn(struct hb_env *e, const char *key, const char *s, size_t len)
{
	struct hb_field *f = slot(e, key);

	if (!f)
		return -1;
	f->type = HB_VAL_STR;
	f->s = s;
	f->len = len;
	return 0;
}

int hb_env_set_str(struct hb_env *e, const char *key, const char *s)
{
	return hb_env_set_strn(e, key, s, strlen(s));
}

int hb_env_set_int(struct hb_env *e, const char *key, int64_t v)
{
	struct hb_field *f = slot(e, key);

	if (!f)
		return -1;
	f->type = HB_VAL_INT;
	f->i = v;
	return 0;
}

int hb_env_set_bool(struct hb_env *e, const char *key, int v)
{
	struct hb_field *f = slot(e, key);

	if (!f)
		return -1;
	f->type = HB_VAL_BOOL;
	f->i = v != 0;
	return 0;
}

int hb_env_set_err(struct hb_env *e, const char *code, const char *msg)
{
	if (hb_env_set_str(e, "err.code", code) < 0 || hb_env_set_str(e, "err.msg", msg) < 0)
		return -1;
	return 0;
}

const struct hb_field *hb_env_get(const struct hb_env *e, const char *key)
{
	return find_field(e, key);
}

const char *hb_env_str(const struct hb_env *e, const char *key)
{
	const struct hb_field *f = find_field(e, key);

	return f && f->type == HB_VAL_STR ? f->s : NULL;
}

const char *hb_env_str_or(const struct hb_env *e, const char *key, const char *dflt)
{
	const char *s = hb_env_str(e, key);

	return s ? s : dflt;
}

int hb_env_int(const struct hb_env *e, const char *key, int64_t *out)
{
	const struct hb_field *f = find_field(e, key);

	if (!f || f->type != HB_VAL_INT)
		return -1;
	*out = f->i;
	return 0;
}

int hb_env_bool(const struct hb_env *e, const char *key, int dflt)
{
	const struct hb_field *f = find_field(e, key);

	return f && f->type == HB_VAL_BOOL ? (int)f->i : dflt;
}

static void pack_value(msgpack_packer *pk, const struct hb_field *f)
{
	switch (f->type) {
	case HB_VAL_STR:
		msgpack_pack_str(pk, f->len);
		msgpack_pack_str_body(pk, f->s, f->len);
		break;
	case HB_VAL_INT:
		msgpack_pack_int64(pk, f->i);
		break;
	case HB_VAL_BOOL:
		if (f->i)
			msgpack_pack_true(pk);
		else
			msgpack_pack_false(pk);
		break;
	}
}

/* Each field's key length and the length of its map prefix ("err" of
 * "err.code"; 0 for a plain key), measured once: the encoder looks at
 * them for every pair of fields. */
struct key_lens {
	size_t key[HB_MAX_FIELDS], prefix[HB_MAX_FIELDS];
};

static void measure_keys(const struct hb_env *e, struct key_lens *kl)
{
	for (int i = 0; i < e->n; i++) {
		const char *key = e->f[i].key, *dot = strchr(key, '.');

		kl->key[i] = strlen(key);
		kl->prefix[i] = dot ? (size_t)(dot - key) : 0;
	}
}

/* Whether fields i and j share the map prefix of field i. */
static int same_prefix(const struct hb_env *e, const struct key_lens *kl, int i, int j)
{
	return kl->prefix[j] == kl->prefix[i] && memcmp(e->f[j].key, e->f[i].key, kl->prefix[i]) == 0;
}

/* Whether field i's map prefix was already written by an earlier field. */
static int prefix_seen(const struct hb_env *e, const struct key_lens *kl, int i)
{
	for (int j = 0; j < i; j++)
		if (same_prefix(e, kl, i, j))
			return 1;
	return 0;
}

int hb_env_encode(const struct hb_env *e, char **buf, size_t *len)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct key_lens kl;
	int has_v = find_field(e, "v") != NULL;
	size_t entries = has_v ? 0 : 1;

	measure_keys(e, &kl);
	for (int i = 0; i < e->n; i++)
		if (!kl.prefix[i] || !prefix_seen(e, &kl, i))
			entries++;
	/* Size the buffer once: msgpack's default first chunk is 8 KiB, too
	 * big for malloc's per-thread cache, and the buffer is freed by
	 * libzmq's I/O thread. */
	msgpack_sbuffer_init(&sb);
	sb.alloc = 16;
	for (int i = 0; i < e->n; i++)
		sb.alloc += 2 * kl.key[i] + 24 + (e->f[i].type == HB_VAL_STR ? e->f[i].len : 0);
	if (!(sb.data = malloc(sb.alloc)))
		return -1;
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, entries);
	if (!has_v) {
		msgpack_pack_str(&pk, 1);
		msgpack_pack_str_body(&pk, "v", 1);
		msgpack_pack_int(&pk, HB_PROTO_VERSION);
	}
	for (int i = 0; i < e->n; i++) {
		const char *key = e->f[i].key;
		size_t plen = kl.prefix[i], members = 0;

		if (!plen) {
			msgpack_pack_str(&pk, kl.key[i]);
			msgpack_pack_str_body(&pk, key, kl.key[i]);
			pack_value(&pk, &e->f[i]);
			continue;
		}
		if (prefix_seen(e, &kl, i))
			continue;
		for (int j = i; j < e->n; j++)
			members += (size_t)same_prefix(e, &kl, i, j);
		msgpack_pack_str(&pk, plen);
		msgpack_pack_str_body(&pk, key, plen);
		msgpack_pack_map(&pk, members);
		for (int j = i; j < e->n; j++) {
			if (!same_prefix(e, &kl, i, j))
				continue;
			msgpack_pack_str(&pk, kl.key[j] - plen - 1);
			msgpack_pack_str_body(&pk, e->f[j].key + plen + 1, kl.key[j] - plen - 1);
			pack_value(&pk, &e->f[j]);
		}
	}
	if (!sb.data) {
		msgpack_sbuffer_destroy(&sb);
		return -1;
	}
	*len = sb.size;
	*buf = msgpack_sbuffer_release(&sb);
	return 0;
}
