/*
 * checks_sockets - the broker's sockets as any local process could use
 * them: a bare DEALER on the front socket that sends whatever bytes a
 * test writes, and a subscriber on the events socket.  Each step fails
 * the running cmocka test when it goes wrong (see checks.h).
 */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "sock.h"

void ck_raw_open(struct ck_raw *r, struct fixture *f)
{
	char ep[400];
	int zero = 0;

	snprintf(ep, sizeof ep, "ipc://%s/run/front.sock", f->dir);
	r->ctx = zmq_ctx_new();
	assert_non_null(r->ctx);
	r->sock = zmq_socket(r->ctx, ZMQ_DEALER);
	assert_non_null(r->sock);
	assert_int_equal(zmq_setsockopt(r->sock, ZMQ_LINGER, &zero, sizeof zero), 0);
	assert_int_equal(zmq_connect(r->sock, ep), 0);
}

void ck_raw_close(struct ck_raw *r)
{
	zmq_close(r->sock);
	zmq_ctx_term(r->ctx);
}

void ck_raw_send(struct ck_raw *r, const void *buf, size_t len, int flags)
{
	assert_int_equal(zmq_send(r->sock, buf, len, flags), (int)len);
}

void ck_raw_recv(struct ck_raw *r, struct hb_env *e, int timeout_ms, const char *what)
{
	zmq_pollitem_t item = { r->sock, 0, ZMQ_POLLIN, 0 };
	char err[256];

	if (zmq_poll(&item, 1, timeout_ms) <= 0)
		fail_msg("%s: no reply within %d ms", what, timeout_ms);
	if (hb_recv_env(r->sock, e, err, sizeof err) != 1)
		fail_msg("%s: the broker's reply does not decode: %s", what, err);
}

void ck_raw_send_env(struct ck_raw *r, struct hb_env *e)
{
	char *buf;
	size_t len;

	assert_int_equal(hb_env_encode(e, &buf, &len), 0);
	ck_raw_send(r, buf, len, 0);
	free(buf);
}

void ck_raw_hello(struct ck_raw *r, int64_t id, const char *after)
{
	struct hb_env req, reply;
	int64_t got = -1;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", "hello");
	hb_env_set_int(&req, "id", id);
	ck_raw_send_env(r, &req);
	ck_raw_recv(r, &reply, 5000, after);
	if (hb_env_int(&reply, "id", &got) < 0 || got != id || !hb_env_bool(&reply, "ok", 0))
		fail_msg("%s: hello %lld was not answered (id %lld, ok %d, err %s)", after, (long long)id,
			 (long long)got, hb_env_bool(&reply, "ok", 0), hb_env_str_or(&reply, "err.msg", "-"));
	assert_non_null(strstr(hb_env_str_or(&reply, "json", ""), "\"protocol\":1"));
	hb_env_free(&reply);
}

void ck_sub_open(struct ck_sub *s, struct fixture *f, const char *prefix)
{
	char ep[400];

	snprintf(ep, sizeof ep, "ipc://%s/run/events.sock", f->dir);
	s->ctx = zmq_ctx_new();
	assert_non_null(s->ctx);
	s->sock = hb_sock_sub(s->ctx, prefix);
	assert_non_null(s->sock);
	assert_int_equal(zmq_connect(s->sock, ep), 0);
}

void ck_sub_close(struct ck_sub *s)
{
	zmq_close(s->sock);
	zmq_ctx_term(s->ctx);
}

json_t *ck_sub_next(struct ck_sub *s, int timeout_ms, char *topic, size_t topiclen)
{
	zmq_pollitem_t item = { s->sock, 0, ZMQ_POLLIN, 0 };
	struct hb_env e;
	char err[256];
	json_t *body;
	int n;

	if (zmq_poll(&item, 1, timeout_ms) <= 0)
		return NULL;
	n = zmq_recv(s->sock, topic, topiclen - 1, 0);
	assert_true(n >= 0);
	topic[(size_t)n < topiclen - 1 ? (size_t)n : topiclen - 1] = '\0';
	if (hb_recv_env(s->sock, &e, err, sizeof err) != 1)
		fail_msg("event %s: the envelope does not decode: %s", topic, err);
	assert_string_equal(hb_env_str_or(&e, "op", ""), "event");
	assert_string_equal(hb_env_str_or(&e, "topic", ""), topic);
	body = json_loads(hb_env_str_or(&e, "json", ""), 0, NULL);
	if (!body)
		fail_msg("event %s: its json is not JSON: %s", topic, hb_env_str_or(&e, "json", ""));
	hb_env_free(&e);
	return body;
}

json_t *ck_sub_wait(struct ck_sub *s, const char *want, const char *field, const char *value, int timeout_ms)
{
	long long deadline = fx_now_ms() + timeout_ms;

	for (;;) {
		long long left = deadline - fx_now_ms();
		char topic[128];
		json_t *body = NULL;

		if (left <= 0 || !(body = ck_sub_next(s, (int)left, topic, sizeof topic)))
			fail_msg("no %s event with %s=%s within %d ms", want, field ? field : "-",
				 value ? value : "-", timeout_ms);
		if (strcmp(topic, want) == 0 && strcmp(fx_jstr(body, "event"), want) == 0 &&
		    (!field || strcmp(fx_jstr(body, field), value) == 0))
			return body;
		json_decref(body);
	}
}

void ck_sub_warm(struct ck_sub *s, struct fixture *f)
{
	long long deadline = fx_now_ms() + 10000;
	int got = 0;

	while (!got && fx_now_ms() < deadline) {
		char topic[128], *text = NULL;
		json_t *body;
		int ok;

		assert_int_equal(fx_call(f, "echo", "{\"warm\":true}", &ok, &text), 0);
		free(text);
		while ((body = ck_sub_next(s, 100, topic, sizeof topic))) {
			got = 1;
			json_decref(body);
		}
	}
	assert_true(got);
}
