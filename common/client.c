/*
 * client - request/reply over a DEALER to the broker's front socket.
 */
#include "client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zmq.h>

#include "paths.h"
#include "sock.h"

int hb_client_endpoint(char *out, size_t outlen, char *err, size_t errlen)
{
	char why[HB_PATH_MAX + 256];

	if (hb_runtime_endpoint("front.sock", out, outlen, why, sizeof why) == 0)
		return 0;
	/* No folder: no broker, as with no socket.  Any other refusal (a
	 * folder someone else may control) is said as it is. */
	if (errno == ENOENT)
		snprintf(err, errlen, "no hb-broker is running (%s)", why);
	else
		snprintf(err, errlen, "%s", why);
	return -1;
}

int hb_client_open(struct hb_client *c, const char *endpoint, int timeout_ms, char *err, size_t errlen)
{
	char ep[HB_PATH_MAX + 8];
	struct stat st;

	memset(c, 0, sizeof *c);
	c->timeout_ms = timeout_ms;
	c->next_id = 1;
	if (!endpoint) {
		if (hb_client_endpoint(ep, sizeof ep, err, errlen) < 0)
			return -1;
		endpoint = ep;
	}
	/* No socket file: no broker.  Say so without waiting for a timeout. */
	if (strncmp(endpoint, "ipc://", 6) == 0 && stat(endpoint + 6, &st) < 0) {
		snprintf(err, errlen, "no hb-broker is running (no socket at %s)", endpoint + 6);
		return -1;
	}
	if (!(c->zctx = zmq_ctx_new()) ||
	    !(c->sock = hb_sock_dealer(c->zctx, NULL, 1, timeout_ms)) ||
	    zmq_connect(c->sock, endpoint) < 0) {
		snprintf(err, errlen, "cannot connect to %s: %s", endpoint, zmq_strerror(errno));
		hb_client_close(c);
		return -1;
	}
	return 0;
}

void hb_client_close(struct hb_client *c)
{
	if (c->sock)
		zmq_close(c->sock);
	if (c->zctx)
		zmq_ctx_term(c->zctx);
	c->sock = c->zctx = NULL;
}

int hb_client_send(struct hb_client *c, struct hb_env *req, int64_t *id, char *err, size_t errlen)
{
	*id = c->next_id++;
	hb_env_set_int(req, "id", *id);
	if (hb_send_env(c->sock, NULL, req) < 0) {
		if (errno == EAGAIN)
			snprintf(err, errlen, "no hb-broker is answering (nothing accepted the request)");
		else
			snprintf(err, errlen, "cannot send to hb-broker: %s", zmq_strerror(errno));
		return -1;
	}
	return 0;
}

int hb_client_recv(struct hb_client *c, struct hb_env *reply, int timeout_ms, char *err, size_t errlen)
{
	hb_env_init(reply);
	for (;;) {
		zmq_pollitem_t item = { c->sock, 0, ZMQ_POLLIN, 0 };
		int rc = zmq_poll(&item, 1, timeout_ms);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			snprintf(err, errlen, "hb-broker did not answer within %d ms", timeout_ms);
			return -1;
		}
		rc = hb_recv_env(c->sock, reply, err, errlen);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return -1;
	}
}

int hb_client_request(struct hb_client *c, struct hb_env *req, struct hb_env *reply,
		      char *err, size_t errlen)
{
	int64_t id, got;

	if (hb_client_send(c, req, &id, err, errlen) < 0)
		return -1;
	for (;;) {
		if (hb_client_recv(c, reply, c->timeout_ms, err, errlen) < 0)
			return -1;
		if (hb_env_int(reply, "id", &got) == 0 && got == id)
			return 0;
		if (!hb_env_get(reply, "id") && hb_env_str(reply, "err.code"))
			return 0; /* an error about a frame the broker could not read */
		hb_env_free(reply); /* a late answer to an earlier request */
	}
}
