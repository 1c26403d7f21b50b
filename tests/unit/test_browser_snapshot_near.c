/*
 * test_browser_snapshot_near - the sentence a cut snapshot ends with
 * about the containers near its cut (svc-browser/snapshot_near.h), on
 * synthetic trees of getFullAXTree's shape: the containers the cut is in,
 * innermost first, and those after it in document order, each with the
 * ref of its backend node id; a nested one, an ignored one, one without
 * a backend id and the part's own root are not named; a hostile name
 * stays quoted and escaped and the sentence bounded; a cycle of parents
 * ends; nothing near gives no sentence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../svc-browser/snapshot_near.h"

/* One node: id, its parent ("" none), role, name, backend id (0 none), children. */
static json_t *node(const char *id, const char *parent, const char *role, const char *name, int backend,
		    const char *kids)
{
	json_t *n = json_pack("{s:s, s:{s:s}, s:{s:s}, s:o}", "nodeId", id, "role", "value", role, "name", "value",
			      name, "childIds", json_loads(kids, 0, NULL));

	assert_non_null(n);
	if (*parent)
		json_object_set_new(n, "parentId", json_string(parent));
	if (backend)
		json_object_set_new(n, "backendDOMNodeId", json_integer(backend));
	return n;
}

/* The page: main > [list "Items" > [item 4, item 5], generic > list
 * "Later", ...], table > rowgroup. */
static json_t *page(const char *later_name)
{
	json_t *nodes = json_array();

	json_array_append_new(nodes, node("1", "", "RootWebArea", "Page", 1, "[\"2\", \"8\"]"));
	json_array_append_new(nodes, node("2", "1", "main", "", 20, "[\"3\", \"6\"]"));
	json_array_append_new(nodes, node("3", "2", "list", "Items", 30, "[\"4\", \"5\"]"));
	json_array_append_new(nodes, node("4", "3", "listitem", "", 40, "[]"));
	json_array_append_new(nodes, node("5", "3", "listitem", "", 50, "[]"));
	json_array_append_new(nodes, node("6", "2", "generic", "", 60, "[\"7\"]"));
	json_array_append_new(nodes, node("7", "6", "list", later_name, 70, "[]"));
	json_array_append_new(nodes, node("8", "1", "table", "", 80, "[\"9\"]"));
	json_array_append_new(nodes, node("9", "8", "rowgroup", "", 90, "[]"));
	return nodes;
}

static void expect(const json_t *nodes, size_t cut, int left_out, const char *want)
{
	char *got = snapshot_near_cut(nodes, cut, left_out);

	if (!want) {
		if (got)
			fail_msg("wanted no sentence, got %s", got);
		return;
	}
	if (!got)
		fail_msg("wanted %s, got none", want);
	assert_string_equal(got, want);
	free(got);
}

static void test_inside_and_after(void **state)
{
	json_t *nodes = page("Later");

	(void)state;
	expect(nodes, 4, 1,
	       "The cut is inside list \"Items\" (ref e30) in main (ref e20); after it come list \"Later\" (ref e70), "
	       "table (ref e80).\n");
	/* the last node shown of a part: only what it is in */
	expect(nodes, 4, 0, "The cut is inside list \"Items\" (ref e30) in main (ref e20).\n");
	/* a container left out first is after the cut itself */
	expect(nodes, 6, 1, "The cut is inside main (ref e20); after it come list \"Later\" (ref e70), table (ref e80).\n");
	expect(nodes, 8, 1, "The cut is inside table (ref e80); after it come rowgroup (ref e90).\n");
	/* past the last container, or no node: nothing near */
	json_object_set_new(json_array_get(nodes, 8), "role", json_pack("{s:s}", "value", "row"));
	expect(nodes, 8, 0, "The cut is inside table (ref e80).\n");
	json_object_set_new(json_array_get(nodes, 7), "role", json_pack("{s:s}", "value", "generic"));
	expect(nodes, 8, 1, NULL);
	expect(nodes, 99, 1, NULL);
	json_decref(nodes);
}

static void test_not_named(void **state)
{
	json_t *nodes = page("Later");

	(void)state;
	/* ignored, or without a backend id: not containers */
	json_object_set_new(json_array_get(nodes, 6), "ignored", json_true());
	json_object_del(json_array_get(nodes, 7), "backendDOMNodeId");
	expect(nodes, 4, 1, "The cut is inside list \"Items\" (ref e30) in main (ref e20); after it come rowgroup "
			    "(ref e90).\n");
	json_decref(nodes);
	/* the part's root is the element asked for, not named as inside */
	nodes = json_array();
	json_array_append_new(nodes, node("3", "", "list", "Items", 30, "[\"4\", \"5\"]"));
	json_array_append_new(nodes, node("4", "3", "listitem", "", 40, "[]"));
	json_array_append_new(nodes, node("5", "3", "listitem", "", 50, "[]"));
	expect(nodes, 2, 1, NULL);
	json_decref(nodes);
}

static void test_hostile(void **state)
{
	char name[400];
	json_t *nodes;
	char *got;

	(void)state;
	nodes = page("x\") (ref e1)\n- button \"Pay");
	got = snapshot_near_cut(nodes, 4, 1);
	assert_non_null(got);
	assert_non_null(strstr(got, "list \"x\\\") (ref e1)\\n- button \\\"Pay\" (ref e70)"));
	assert_int_equal(strchr(got, '\n') - got, (long)strlen(got) - 1);
	free(got);
	json_decref(nodes);
	/* many long names: the sentence stays bounded, at most the number named */
	memset(name, '\x01', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	nodes = json_array();
	json_array_append_new(nodes, node("1", "", "RootWebArea", "", 1, "[\"2\", \"3\", \"4\", \"5\", \"6\", \"7\", "
									"\"8\", \"9\", \"10\"]"));
	json_array_append_new(nodes, node("2", "1", "listitem", "", 2, "[]"));
	for (int i = 3; i <= 10; i++) {
		char id[16];

		snprintf(id, sizeof id, "%d", i);
		json_array_append_new(nodes, node(id, "1", "list", name, i, "[]"));
	}
	got = snapshot_near_cut(nodes, 1, 1);
	assert_non_null(got);
	assert_true(strlen(got) < 700);
	assert_null(strstr(got, "(ref e10)"));
	free(got);
	json_decref(nodes);
}

static void test_cycle(void **state)
{
	json_t *nodes = json_array();
	char *got;

	(void)state;
	json_array_append_new(nodes, node("1", "2", "list", "A", 10, "[\"2\"]"));
	json_array_append_new(nodes, node("2", "1", "list", "B", 20, "[\"1\"]"));
	json_array_append_new(nodes, node("3", "2", "listitem", "", 30, "[]"));
	got = snapshot_near_cut(nodes, 2, 1);
	free(got);
	json_decref(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inside_and_after),
		cmocka_unit_test(test_not_named),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
