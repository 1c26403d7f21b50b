/*
 * snapshot_near - see snapshot_near.h.  The nodes are indexed by nodeId
 * once; the search after the cut keeps its own stack (a hostile tree is
 * as deep as it likes) and visits each node at most once and at most
 * NEAR_VISITS nodes in all, so a page of a million nodes costs a bounded
 * walk on top of the snapshot's.
 */
#include "snapshot_near.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "snapshot.h"

#define NEAR_VISITS 20000

const char *const snapshot_near_roles[] = {
	"list", "table", "rowgroup", "grid", "treegrid", "tree", "listbox", "menu", "menubar", "tablist", "feed",
	"navigation", "main", "region", "form", "search", "article", "complementary", "dialog", NULL,
};

struct near {
	const json_t *nodes;
	size_t n;
	struct hb_map ids;
	size_t *idx;          /* idx[i] == i: the map's values */
	char (*num)[24];      /* the keys of numeric nodeIds (the map borrows its keys) */
	unsigned char *seen;
	FILE *out;
	int named;            /* containers written so far */
};

/* A nodeId (a string in CDP, a number taken too) as a key. */
static const char *key_of(const json_t *id, char *num, size_t numlen)
{
	if (json_is_integer(id)) {
		snprintf(num, numlen, "%lld", (long long)json_integer_value(id));
		return num;
	}
	return json_string_value(id);
}

static long index_of(const struct near *w, const json_t *id)
{
	char num[24];
	const char *key = key_of(id, num, sizeof num);
	size_t *i = key ? hb_map_get(&w->ids, key) : NULL;

	return i ? (long)*i : -1;
}

/* The backend id of a container node, or -1 when it is none. */
static long container(const struct near *w, size_t i)
{
	const json_t *node = json_array_get(w->nodes, i), *id = json_object_get(node, "backendDOMNodeId");
	const char *role = json_string_value(json_object_get(json_object_get(node, "role"), "value"));

	if (!role || json_is_true(json_object_get(node, "ignored")) || !json_is_integer(id) ||
	    json_integer_value(id) <= 0 || json_integer_value(id) > INT_MAX)
		return -1;
	for (size_t k = 0; snapshot_near_roles[k]; k++)
		if (strcmp(role, snapshot_near_roles[k]) == 0)
			return (long)json_integer_value(id);
	return -1;
}

/* role "name" (ref eN), after sep. */
static void put_container(struct near *w, size_t i, long id, const char *sep)
{
	const json_t *node = json_array_get(w->nodes, i);
	const char *name = json_string_value(json_object_get(json_object_get(node, "name"), "value"));
	char *quoted;

	if (ftell(w->out) > SNAPSHOT_NEAR_CHARS)
		return;
	quoted = name && *name ? snapshot_quote(name, SNAPSHOT_NEAR_NAME_MAX) : NULL;
	fprintf(w->out, "%s%s%s%s (ref e%ld)", sep,
		json_string_value(json_object_get(json_object_get(node, "role"), "value")), quoted ? " " : "",
		quoted ? quoted : "", id);
	free(quoted);
	w->named++;
}

/* The containers after the cut: in the subtree of node i (itself first),
 * in document order, not inside one named.  0, or -1 out of memory. */
static int after_in(struct near *w, size_t root, int *count, size_t *visits)
{
	size_t *stack = malloc(sizeof *stack * 64), top = 0, cap = 64;

	if (!stack)
		return -1;
	stack[top++] = root;
	while (top > 0 && *count < SNAPSHOT_NEAR_AFTER && *visits < NEAR_VISITS) {
		size_t i = stack[--top];
		const json_t *kids = json_object_get(json_array_get(w->nodes, i), "childIds");
		long id;

		if (w->seen[i])
			continue;
		w->seen[i] = 1;
		++*visits;
		if ((id = container(w, i)) >= 0) {
			put_container(w, i, id, *count == 0 ? (w->named ? "; after it come " : "After the cut come ")
							    : ", ");
			++*count;
			continue;
		}
		for (size_t k = json_array_size(kids); k-- > 0;) {
			long c = index_of(w, json_array_get(kids, k));

			if (c < 0 || w->seen[c])
				continue;
			if (top == cap) {
				size_t *s = realloc(stack, sizeof *s * cap * 2);

				if (!s) {
					free(stack);
					return -1;
				}
				stack = s;
				cap *= 2;
			}
			stack[top++] = (size_t)c;
		}
	}
	free(stack);
	return 0;
}

/* The ancestors of node i, innermost first, into chain (at most max): how many. */
static size_t ancestors(struct near *w, size_t i, size_t *chain, size_t max)
{
	size_t n = 0;
	long p;

	w->seen[i] = 2;
	while (n < max && (p = index_of(w, json_object_get(json_array_get(w->nodes, i), "parentId"))) >= 0 &&
	       w->seen[p] != 2) {
		w->seen[p] = 2;  /* a cycle of parents ends here */
		chain[n++] = (size_t)p;
		i = (size_t)p;
	}
	for (size_t k = 0; k < n; k++)
		w->seen[chain[k]] = 0;
	return n;
}

/* The containers of the chain, innermost first; not its root, the part
 * itself (the list a snapshot of one list is of). */
static void write_inside(struct near *w, const size_t *chain, size_t n)
{
	long id;

	for (size_t k = 0; k + 1 < n && w->named < SNAPSHOT_NEAR_INSIDE; k++)
		if ((id = container(w, chain[k])) >= 0)
			put_container(w, chain[k], id, w->named ? " in " : "The cut is inside ");
}

/* After the cut: the cut node's subtree, then the siblings after each
 * link of the chain, from the innermost up.  0, or -1 out of memory. */
static int write_after(struct near *w, size_t cut, const size_t *chain, size_t n)
{
	size_t visits = 0, child = cut;
	int count = 0;

	/* the ancestors are not after the cut: never named as such */
	for (size_t k = 0; k < n; k++)
		w->seen[chain[k]] = 1;
	w->seen[cut] = 0;
	if (after_in(w, cut, &count, &visits) < 0)
		return -1;
	for (size_t k = 0; k < n && count < SNAPSHOT_NEAR_AFTER; k++) {
		const json_t *kids = json_object_get(json_array_get(w->nodes, chain[k]), "childIds");
		size_t m = json_array_size(kids), j = 0;

		while (j < m && index_of(w, json_array_get(kids, j)) != (long)child)
			j++;
		for (j++; j < m && count < SNAPSHOT_NEAR_AFTER; j++) {
			long c = index_of(w, json_array_get(kids, j));

			if (c >= 0 && after_in(w, (size_t)c, &count, &visits) < 0)
				return -1;
		}
		child = chain[k];
	}
	return 0;
}

char *snapshot_near_cut(const json_t *nodes, size_t cut_node, int left_out)
{
	struct near w = { .nodes = nodes, .n = json_array_size(nodes) };
	size_t *chain = NULL, n, len = 0;
	char *text = NULL;
	int rc = -1;

	if (cut_node >= w.n)
		return NULL;
	hb_map_init(&w.ids);
	w.idx = calloc(w.n, sizeof *w.idx);
	w.seen = calloc(w.n, 1);
	w.num = calloc(w.n, sizeof *w.num);
	chain = calloc(w.n, sizeof *chain);
	if (!w.idx || !w.seen || !w.num || !chain || !(w.out = open_memstream(&text, &len)))
		goto done;
	for (size_t i = 0; i < w.n; i++) {
		const char *key = key_of(json_object_get(json_array_get(nodes, i), "nodeId"), w.num[i], sizeof w.num[i]);

		w.idx[i] = i;
		/* the first of two nodes with one id wins, as in the snapshot */
		if (key && !hb_map_get(&w.ids, key) && hb_map_put(&w.ids, key, &w.idx[i]) < 0)
			goto done;
	}
	n = ancestors(&w, cut_node, chain, w.n);
	write_inside(&w, chain, n);
	if (left_out && write_after(&w, cut_node, chain, n) < 0)
		goto done;
	if (w.named)
		fputs(".\n", w.out);
	rc = 0;
done:
	if (w.out && fclose(w.out) != 0)
		rc = -1;
	if (rc < 0 || !w.named) {
		free(text);
		text = NULL;
	}
	free(chain);
	free(w.seen);
	free(w.idx);
	free(w.num);
	hb_map_clear(&w.ids);
	return text;
}
