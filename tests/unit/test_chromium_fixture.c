/*
 * test_chromium_fixture - the browser tests' fixtures on the real wire:
 * a headless Chromium (tests/harness/chromium.h) found through the
 * DevToolsActivePort it writes, spoken to over the project's WebSocket
 * client (ws/ws.h) with DevTools protocol commands, opening a page of
 * tests/browser/pages.mjs (tests/harness/test_pages.h); and a browser
 * killed as in a crash, its stale port file left, started again.
 *
 * Chromium comes from Debian's package through `make deps`: a machine
 * without it fails here, saying so, rather than skipping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "clock.h"
#include "ws.h"
#include "../harness/chromium.h"
#include "../harness/devtools_call.h"
#include "../harness/test_pages.h"
#include "../harness/ws_pump.h"

/* A bound on waiting for what a test expects, so that a broken browser
 * fails the test instead of hanging it; never a measure of speed. */
#define PATIENCE_MS 20000

static struct ws *connect_browser(const struct chromium *c)
{
	struct ws *ws = NULL;
	char err[WS_ERROR_MAX];

	if (ws_connect(c->ws_url, NULL, &ws, err, sizeof err) != 0)
		fail_msg("cannot connect to %s: %s", c->ws_url, err);
	return ws;
}

/* The port file is what the fixture found, and the browser answers there
 * with its product name. */
static void test_version(void **state)
{
	struct chromium c;
	char path[sizeof c.ws_path];
	const char *product;
	json_t *version;
	struct ws *ws;
	int port;

	(void)state;
	assert_int_equal(chromium_start(&c, NULL), 0);
	assert_int_equal(chromium_read_port_file(c.dir, &port, path, sizeof path), 0);
	assert_int_equal(port, c.port);
	assert_string_equal(path, c.ws_path);
	assert_int_equal(strncmp(c.ws_path, "/devtools/browser/", 18), 0);

	ws = connect_browser(&c);
	version = devtools_call(ws, 1, NULL, "Browser.getVersion", NULL);
	product = json_string_value(json_object_get(version, "product"));
	assert_non_null(product);
	if (strncmp(product, "Chrome/", 7) != 0 && strncmp(product, "HeadlessChrome/", 15) != 0)
		fail_msg("product %s", product);
	json_decref(version);
	ws_free(ws);
	assert_int_equal(chromium_stop(&c), 0);
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

/* The targetInfo of targetId in Target.getTargets, once its title is
 * title (the page came from pages.mjs); NULL if it never is. */
static json_t *await_target(struct ws *ws, int *id, const char *target_id, const char *title)
{
	long long deadline = hb_monotonic_ms() + PATIENCE_MS;

	while (hb_monotonic_ms() < deadline) {
		json_t *targets = devtools_call(ws, (*id)++, NULL, "Target.getTargets", NULL), *info;
		size_t i;

		json_array_foreach(json_object_get(targets, "targetInfos"), i, info) {
			if (strcmp(str(info, "targetId"), target_id) == 0 && strcmp(str(info, "title"), title) == 0) {
				json_incref(info);
				json_decref(targets);
				return info;
			}
		}
		json_decref(targets);
		ws_pump(ws, 100);
	}
	return NULL;
}

/* A new tab on a local page shows in the browser's targets with that
 * page's URL and title. */
static void test_open_page(void **state)
{
	struct test_pages pages;
	struct chromium c;
	char url[100];
	json_t *created, *info;
	const char *target_id;
	struct ws *ws;
	int id = 1;

	(void)state;
	assert_int_equal(test_pages_start(&pages), 0);
	assert_int_equal(chromium_start(&c, NULL), 0);
	ws = connect_browser(&c);
	assert_non_null(test_pages_url(&pages, "/button", url, sizeof url));
	created = devtools_call(ws, id++, NULL, "Target.createTarget", json_pack("{s:s}", "url", url));
	assert_non_null(target_id = json_string_value(json_object_get(created, "targetId")));

	info = await_target(ws, &id, target_id, "Button");
	if (!info)
		fail_msg("no target %s titled Button", target_id);
	assert_string_equal(str(info, "type"), "page");
	assert_string_equal(str(info, "url"), url);
	json_decref(info);
	json_decref(created);
	ws_free(ws);
	assert_int_equal(chromium_stop(&c), 0);
	assert_int_equal(test_pages_stop(&pages), 0);
}

/* Killed as in a crash: DevToolsActivePort stays, naming a port nobody
 * answers; started again on the same folder, the browser writes a new
 * one and answers there. */
static void test_kill_and_restart(void **state)
{
	struct chromium c;
	char dir[sizeof c.dir], stale_url[sizeof c.ws_url], path[sizeof c.ws_path], err[WS_ERROR_MAX];
	struct ws *ws = NULL;
	json_t *version;
	int port;

	(void)state;
	assert_int_equal(chromium_start(&c, NULL), 0);
	snprintf(dir, sizeof dir, "%s", c.dir);
	snprintf(stale_url, sizeof stale_url, "%s", c.ws_url);
	chromium_kill(&c);

	assert_int_equal(chromium_read_port_file(dir, &port, path, sizeof path), 0);
	assert_int_equal(port, c.port);
	assert_int_equal(ws_connect(stale_url, NULL, &ws, err, sizeof err), -1);

	assert_int_equal(chromium_restart(&c), 0);
	assert_string_equal(c.dir, dir);
	assert_string_not_equal(c.ws_url, stale_url);
	ws = connect_browser(&c);
	version = devtools_call(ws, 1, NULL, "Browser.getVersion", NULL);
	assert_non_null(json_object_get(version, "product"));
	json_decref(version);
	ws_free(ws);
	assert_int_equal(chromium_stop(&c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_open_page),
		cmocka_unit_test(test_kill_and_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
