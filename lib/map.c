/*
 * map - chained hash table; grows by doubling at load factor 1.
 */
#include "map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hb_map_entry {
	const char *key;
	void *value;
	struct hb_map_entry *next;
};

static uint64_t hash_key(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

void hb_map_init(struct hb_map *m)
{
	m->buckets = NULL;
	m->nbuckets = 0;
	m->count = 0;
}

void hb_map_clear(struct hb_map *m)
{
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct hb_map_entry *e = m->buckets[i];
		while (e) {
			struct hb_map_entry *next = e->next;
			free(e);
			e = next;
		}
	}
	free(m->buckets);
	hb_map_init(m);
}

static int grow(struct hb_map *m)
{
	size_t n = m->nbuckets ? m->nbuckets * 2 : 64;
	struct hb_map_entry **b = calloc(n, sizeof *b);

	if (!b)
		return -1;
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct hb_map_entry *e = m->buckets[i];
		while (e) {
			struct hb_map_entry *next = e->next;
			size_t j = hash_key(e->key) & (n - 1);
			e->next = b[j];
			b[j] = e;
			e = next;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
	return 0;
}

static struct hb_map_entry **find_slot(const struct hb_map *m, const char *key)
{
	struct hb_map_entry **p;

	if (!m->nbuckets)
		return NULL;
	p = &m->buckets[hash_key(key) & (m->nbuckets - 1)];
	while (*p && strcmp((*p)->key, key) != 0)
		p = &(*p)->next;
	return p;
}

int hb_map_put(struct hb_map *m, const char *key, void *value)
{
	struct hb_map_entry **p, *e;

	if (m->count >= m->nbuckets && grow(m) < 0)
		return -1;
	p = find_slot(m, key);
	if (*p) {
		(*p)->key = key;
		(*p)->value = value;
		return 0;
	}
	if (!(e = malloc(sizeof *e)))
		return -1;
	e->key = key;
	e->value = value;
	e->next = NULL;
	*p = e;
	m->count++;
	return 0;
}

void *hb_map_get(const struct hb_map *m, const char *key)
{
	struct hb_map_entry **p = find_slot(m, key);

	return p && *p ? (*p)->value : NULL;
}

void *hb_map_del(struct hb_map *m, const char *key)
{
	struct hb_map_entry **p = find_slot(m, key), *e;
	void *v;

	if (!p || !*p)
		return NULL;
	e = *p;
	v = e->value;
	*p = e->next;
	free(e);
	m->count--;
	return v;
}

void hb_map_each(const struct hb_map *m, void (*fn)(void *value, void *arg), void *arg)
{
	for (size_t i = 0; i < m->nbuckets; i++)
		for (struct hb_map_entry *e = m->buckets[i]; e; e = e->next)
			fn(e->value, arg);
}

void *hb_map_any(const struct hb_map *m)
{
	for (size_t i = 0; i < m->nbuckets; i++)
		if (m->buckets[i])
			return m->buckets[i]->value;
	return NULL;
}
