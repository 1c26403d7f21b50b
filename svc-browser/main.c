/*
 * svc-browser - use_user_browser: the user's own Chrome, driven over the
 * DevTools protocol.  A browser that hangs or a page that misbehaves
 * stays inside this process.  The one connection to the browser and the
 * list of the agents' tabs are the state the calls share; they live here.
 * libcurl's global set-up (for /json/version) runs before any thread.
 */
#include <stdio.h>

#include "browser.h"
#include "http.h"
#include "service.h"
#include "tool.h"

static int browser_pre_init(void)
{
	return hb_http_global_init();
}

static void browser_at_exit(void)
{
	hb_http_global_cleanup();
}

static const struct hb_service_tool tools[] = {
	{ "use_user_browser", browser_tool },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	static struct browser browser;
	struct hb_service_spec spec = {
		.name = "svc-browser",
		.tools = tools,
		.pre_init = browser_pre_init,
		.at_exit = browser_at_exit,
		.task_arg = &browser,
	};
	int rc;

	if (browser_init(&browser) < 0) {
		fprintf(stderr, "svc-browser: cannot set up its state\n");
		return 1;
	}
	rc = hb_service_run(argc, argv, &spec);
	browser_destroy(&browser);
	return rc;
}
