/*
 * scale_broker - see scale_broker.h.  The services run as deploy/
 * services.conf has them (fx_deployed_config), so the figures are those
 * of the installed product, with svc-echo added for part 3's round trip.
 */
#include "scale_broker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appdata.h"
#include "envelope.h"
#include "paths.h"
#include "scale_stats.h"

/* svc-echo for part 3's round trip, beside the deployed services. */
static const char echo_section[] = "[service echo]\n"
				   "exec = @BUILD@/tests/svc-echo\n"
				   "concurrency = 4\n"
				   "tools = echo sleep\n";

void scale_print_log_tail(const char *path)
{
	char *text = fx_read_text(path);
	size_t len = strlen(text), from = len > 3000 ? len - 3000 : 0;

	fprintf(stderr, "---- the end of %s:\n%s%s", path, text + from, len && text[len - 1] != '\n' ? "\n" : "");
	free(text);
}

int scale_front_call(struct hb_client *c, const char *tool, const char *json, double *us)
{
	struct hb_env req, reply;
	char err[256];
	double t0;
	int ok;

	hb_env_init(&req);
	if (hb_env_set_str(&req, "op", "call") < 0 || hb_env_set_str(&req, "tool", tool) < 0 ||
	    hb_env_set_str(&req, "json", json) < 0)
		return fprintf(stderr, "bench-scale: %s: the request does not fit an envelope\n", tool), -1;
	t0 = bench_now_us();
	if (hb_client_request(c, &req, &reply, err, sizeof err) < 0)
		return fprintf(stderr, "bench-scale: %s: %s\n", tool, err), -1;
	if (us)
		*us = bench_now_us() - t0;
	if (!(ok = hb_env_bool(&reply, "ok", 0)))
		fprintf(stderr, "bench-scale: %s %s failed: %s\n", tool, json,
			hb_env_str_or(&reply, "err.msg", hb_env_str_or(&reply, "text", "?")));
	hb_env_free(&reply);
	return ok ? 0 : -1;
}

int scale_broker_start(struct scale_broker *b)
{
	char *conf = fx_deployed_config(echo_section, "svc-sessions", "svc-messages", (char *)NULL);
	char path[HB_PATH_MAX], err[512];
	const char *const env[] = { "HB_LOG=warn", NULL };
	int rc;

	memset(b, 0, sizeof *b);
	rc = conf ? fx_start(&b->f, conf, env) : -1;
	free(conf);
	if (rc < 0) {
		fprintf(stderr, "bench-scale: the broker with svc-sessions, svc-messages and svc-echo did not start\n");
		if (b->f.dir[0])
			scale_print_log_tail(b->f.log);
		return -1;
	}
	b->started = 1;
	if (fx_client(&b->f, &b->desk, 15000) < 0)
		return fprintf(stderr, "bench-scale: cannot connect to the broker\n"), -1;
	if (fx_create_session(&b->f, "Scale sender", "codex", "/tmp", "full-auto", b->sender, sizeof b->sender) < 0 ||
	    fx_open_run(&b->desk, SCALE_RUN_ID, b->sender, "/tmp", "codex", "full-auto") < 0)
		return -1;
	if (appdata_default_path(path, sizeof path, err, sizeof err) < 0 || !(b->db = appdata_open_ro(path, err, sizeof err)))
		return fprintf(stderr, "bench-scale: %s\n", err), -1;
	return 0;
}

int scale_broker_stop(struct scale_broker *b)
{
	int rc = 0;

	if (b->db)
		appdata_close(b->db);
	if (b->started)
		hb_client_close(&b->desk);
	if (b->f.dir[0] && fx_stop(&b->f, NULL) < 0) {
		fprintf(stderr, "bench-scale: hb-broker did not end cleanly; see above\n");
		rc = -1;
	}
	memset(b, 0, sizeof *b);
	return rc;
}
