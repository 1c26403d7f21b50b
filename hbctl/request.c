/*
 * request - one request of hbctl's to the broker, through the front-socket
 * client (common/client.h), its errors said on stderr: what every command
 * that asks the broker sends.
 */
#include <stdio.h>

#include "client.h"
#include "hbctl.h"

/* One request whose wait is limit_name's (for the sentence when it runs
 * out); prints errors itself.  0, EXIT_FAIL or EXIT_NO_BROKER. */
int request_limited(struct hb_env *req, struct hb_env *reply, int timeout_ms, const char *limit_name)
{
	struct hb_client c;
	char err[512];
	int rc;

	if (hb_client_open(&c, NULL, timeout_ms, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_NO_BROKER;
	}
	c.limit_name = limit_name;
	rc = hb_client_request(&c, req, reply, err, sizeof err);
	hb_client_close(&c);
	if (rc < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_NO_BROKER;
	}
	if (hb_env_str(reply, "err.msg")) {
		fprintf(stderr, "hbctl: %s\n", hb_env_str(reply, "err.msg"));
		hb_env_free(reply);
		return EXIT_FAIL;
	}
	return 0;
}

int request(struct hb_env *req, struct hb_env *reply, int timeout_ms)
{
	return request_limited(req, reply, timeout_ms, "hbctl's own time limit");
}
