/*
 * map - a string-keyed hash table of pointers (calls in flight by key).
 *
 * The map borrows keys: each key must live as long as its entry, which is
 * natural when the key is a field of the value.  Not thread-safe.
 */
#ifndef HB_MAP_H
#define HB_MAP_H

#include <stddef.h>

struct hb_map_entry;

struct hb_map {
	struct hb_map_entry **buckets;
	size_t nbuckets;
	size_t count;
};

void hb_map_init(struct hb_map *m);
/* Frees the table, not the values. */
void hb_map_clear(struct hb_map *m);
/* 0, or -1 on ENOMEM.  An existing key is replaced. */
int hb_map_put(struct hb_map *m, const char *key, void *value);
void *hb_map_get(const struct hb_map *m, const char *key);
/* Remove and return the value (NULL when absent). */
void *hb_map_del(struct hb_map *m, const char *key);
/* Call fn on each value; fn must not change the map. */
void hb_map_each(const struct hb_map *m, void (*fn)(void *value, void *arg), void *arg);
/* Any one value, or NULL when empty (for draining a map). */
void *hb_map_any(const struct hb_map *m);

#endif
