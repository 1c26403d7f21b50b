/*
 * test_map - the string-keyed hash table the broker keeps calls in flight
 * in: put/get/del, replacement, growth well past the first table size,
 * draining with hb_map_any, and hb_map_each visiting every value once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "map.h"

/* A value that carries its own key, as the map expects. */
struct item {
	char key[24];
	int n;
	int seen;
};

#define MANY 20000

static struct item *make_items(int count)
{
	struct item *items = calloc((size_t)count, sizeof *items);

	assert_non_null(items);
	for (int i = 0; i < count; i++) {
		snprintf(items[i].key, sizeof items[i].key, "call-%d", i);
		items[i].n = i;
	}
	return items;
}

static void test_empty(void **state)
{
	struct hb_map m;

	(void)state;
	hb_map_init(&m);
	assert_null(hb_map_get(&m, "x"));
	assert_null(hb_map_del(&m, "x"));
	assert_null(hb_map_any(&m));
	assert_int_equal(m.count, 0);
	hb_map_clear(&m);
	hb_map_clear(&m);
}

static void test_put_get_del(void **state)
{
	static const struct {
		const char *key;
		int value;
	} table[] = {
		{ "a", 1 }, { "b", 2 }, { "", 3 }, { "codex:thread-1:call-9", 4 },
		{ "ab", 5 }, { "ba", 6 }, { "a b", 7 }, { "\xc3\xa9", 8 },
	};
	const size_t n = sizeof table / sizeof table[0];
	struct hb_map m;
	int values[8];

	(void)state;
	hb_map_init(&m);
	for (size_t i = 0; i < n; i++) {
		values[i] = table[i].value;
		assert_int_equal(hb_map_put(&m, table[i].key, &values[i]), 0);
	}
	assert_int_equal(m.count, n);
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(hb_map_get(&m, table[i].key), &values[i]);
	assert_null(hb_map_get(&m, "c"));
	assert_null(hb_map_get(&m, "a "));

	/* Delete every other key; the rest stay. */
	for (size_t i = 0; i < n; i += 2)
		assert_ptr_equal(hb_map_del(&m, table[i].key), &values[i]);
	assert_int_equal(m.count, n / 2);
	for (size_t i = 0; i < n; i++) {
		if (i % 2 == 0) {
			assert_null(hb_map_get(&m, table[i].key));
			assert_null(hb_map_del(&m, table[i].key));
		} else {
			assert_ptr_equal(hb_map_get(&m, table[i].key), &values[i]);
		}
	}
	assert_int_equal(m.count, n / 2);
	/* A deleted key can come back. */
	assert_int_equal(hb_map_put(&m, "a", &values[1]), 0);
	assert_ptr_equal(hb_map_get(&m, "a"), &values[1]);
	hb_map_clear(&m);
	assert_int_equal(m.count, 0);
	assert_null(hb_map_get(&m, "b"));
}

static void test_replace(void **state)
{
	struct hb_map m;
	int one = 1, two = 2;
	char key1[] = "same", key2[] = "same";

	(void)state;
	hb_map_init(&m);
	assert_int_equal(hb_map_put(&m, key1, &one), 0);
	assert_int_equal(hb_map_put(&m, key2, &two), 0);
	assert_int_equal(m.count, 1);
	assert_ptr_equal(hb_map_get(&m, "same"), &two);
	/* The map now borrows the new key: the old one may go away. */
	memset(key1, 'x', 4);
	assert_ptr_equal(hb_map_get(&m, "same"), &two);
	assert_ptr_equal(hb_map_del(&m, "same"), &two);
	assert_int_equal(m.count, 0);
	hb_map_clear(&m);
}

static void test_growth(void **state)
{
	struct hb_map m;
	struct item *items = make_items(MANY);

	(void)state;
	hb_map_init(&m);
	for (int i = 0; i < MANY; i++) {
		assert_int_equal(hb_map_put(&m, items[i].key, &items[i]), 0);
		/* Spot checks while the table grows. */
		if ((i & (i - 1)) == 0 || i % 997 == 0) {
			assert_ptr_equal(hb_map_get(&m, items[i / 2].key), &items[i / 2]);
			assert_ptr_equal(hb_map_get(&m, items[i].key), &items[i]);
		}
	}
	assert_int_equal(m.count, MANY);
	assert_true(m.nbuckets >= MANY);
	for (int i = 0; i < MANY; i++) {
		struct item *it = hb_map_get(&m, items[i].key);

		assert_non_null(it);
		assert_int_equal(it->n, i);
	}
	assert_null(hb_map_get(&m, "call-20000"));
	assert_null(hb_map_get(&m, "call--1"));
	/* Delete the odd ones, then check both halves. */
	for (int i = 1; i < MANY; i += 2)
		assert_ptr_equal(hb_map_del(&m, items[i].key), &items[i]);
	assert_int_equal(m.count, MANY / 2);
	for (int i = 0; i < MANY; i++) {
		if (i % 2)
			assert_null(hb_map_get(&m, items[i].key));
		else
			assert_ptr_equal(hb_map_get(&m, items[i].key), &items[i]);
	}
	hb_map_clear(&m);
	free(items);
}

static void mark(void *value, void *arg)
{
	struct item *it = value;

	it->seen++;
	(*(int *)arg)++;
}

static void test_each(void **state)
{
	struct hb_map m;
	struct item *items = make_items(MANY);
	int calls = 0;

	(void)state;
	hb_map_init(&m);
	hb_map_each(&m, mark, &calls); /* empty: no calls */
	assert_int_equal(calls, 0);
	for (int i = 0; i < MANY; i++)
		assert_int_equal(hb_map_put(&m, items[i].key, &items[i]), 0);
	for (int i = 0; i < MANY; i += 3)
		hb_map_del(&m, items[i].key);
	hb_map_each(&m, mark, &calls);
	assert_int_equal((size_t)calls, m.count);
	for (int i = 0; i < MANY; i++)
		assert_int_equal(items[i].seen, i % 3 ? 1 : 0);
	hb_map_clear(&m);
	free(items);
}

static void test_any_drains(void **state)
{
	struct hb_map m;
	struct item *items = make_items(MANY);
	struct item *it;
	int drained = 0;

	(void)state;
	hb_map_init(&m);
	for (int i = 0; i < MANY; i++)
		assert_int_equal(hb_map_put(&m, items[i].key, &items[i]), 0);
	/* The way the broker fails every call of a dead service. */
	while ((it = hb_map_any(&m)) != NULL) {
		assert_int_equal(it->seen, 0);
		it->seen = 1;
		assert_ptr_equal(hb_map_del(&m, it->key), it);
		drained++;
	}
	assert_int_equal(drained, MANY);
	assert_int_equal(m.count, 0);
	for (int i = 0; i < MANY; i++)
		assert_int_equal(items[i].seen, 1);
	/* The map still works after draining. */
	assert_int_equal(hb_map_put(&m, items[5].key, &items[5]), 0);
	assert_ptr_equal(hb_map_any(&m), &items[5]);
	hb_map_clear(&m);
	free(items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_put_get_del),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_each),
		cmocka_unit_test(test_any_drains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
