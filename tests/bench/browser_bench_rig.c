/*
 * browser_bench_rig - the use_user_browser benchmarks' fixture and their
 * timed call (browser_bench_rig.h), kept once for bench-browser.c and
 * bench-browser-peers.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_stats.h"
#include "browser_bench_rig.h"
#include "settings.h"
#include "tunables.h"

/* A bound on one answer, not a measure. */
#define ANSWER_PATIENCE_MS 60000

/* The broker with svc-browser as deployed, finding the browser under
 * <dir>/xdg; browser control on.  0, or -1. */
static int broker_start(struct browser_bench_rig *r, const char *who, char *xdg, size_t xdglen)
{
	char *config = fx_deployed_config(NULL, "svc-browser", NULL), env_xdg[400], err[512];
	const char *env[] = { env_xdg, NULL };
	struct hb_paths p;
	int rc;

	if (!config)
		return -1;
	rc = fx_prepare(&r->f, config);
	free(config);
	if (rc < 0)
		return -1;
	snprintf(xdg, xdglen, "%s/xdg", r->f.dir);
	snprintf(env_xdg, sizeof env_xdg, "XDG_CONFIG_HOME=%s", xdg);
	if (mkdir(xdg, 0700) < 0 && errno != EEXIST)
		return -1;
	if ((r->f.broker = fx_spawn_broker(&r->f, env, "broker.log")) < 0 ||
	    fx_wait_up(&r->f, "svc-browser", 1, 10000) < 0) {
		fprintf(stderr, "%s: svc-browser did not come up; log %s\n", who, r->f.log);
		return -1;
	}
	if (hb_paths_resolve(&p, err, sizeof err) < 0 || hb_settings_set_browser(&p, 1, err, sizeof err) < 0)
		return fprintf(stderr, "%s: %s\n", who, err), -1;
	if (fx_client(&r->f, &r->cl, ANSWER_PATIENCE_MS) < 0)
		return -1;
	r->client_up = 1;
	return 0;
}

int browser_bench_rig_start(struct browser_bench_rig *r, const char *who)
{
	char xdg[300], user_data[320];

	if (broker_start(r, who, xdg, sizeof xdg) < 0)
		return -1;
	snprintf(user_data, sizeof user_data, "%s/chromium", xdg);
	if (test_pages_start(&r->pages) < 0)
		return -1;
	r->pages_up = 1;
	if (chromium_start(&r->c, user_data) < 0)
		return -1;
	r->browser_up = 1;
	return 0;
}

void browser_bench_rig_stop(struct browser_bench_rig *r, int failed)
{
	if (r->client_up)
		hb_client_close(&r->cl);
	if (r->browser_up)
		chromium_stop(&r->c);
	if (r->pages_up)
		test_pages_stop(&r->pages);
	if (failed && r->f.dir[0]) {
		char *log = fx_read_text(r->f.log);

		fprintf(stderr, "broker log:\n%s\n", log ? log : "(none)");
		free(log);
	}
	if (r->f.broker > 0)
		fx_stop(&r->f, NULL);
	r->client_up = r->pages_up = r->browser_up = 0;
}

double browser_bench_call(struct browser_bench_rig *r, const char *args, int *ok, char **text)
{
	struct hb_env req, reply;
	char err[256];
	double t0 = bench_now_ms(), t;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "call");
	hb_env_set_str(&req, "tool", "use_user_browser");
	hb_env_set_str(&req, "json", args);
	if (hb_client_request(&r->cl, &req, &reply, err, sizeof err) < 0) {
		fprintf(stderr, "use_user_browser %s: %s\n", args, err);
		return -1;
	}
	t = bench_now_ms() - t0;
	*ok = hb_env_bool(&reply, "ok", 0);
	if (text) {
		*text = strdup(hb_env_str_or(&reply, "text", hb_env_str_or(&reply, "err.msg", "")));
		if (!*text) {
			hb_env_free(&reply);
			return fprintf(stderr, "use_user_browser: out of memory\n"), -1;
		}
	}
	hb_env_free(&reply);
	return t;
}
