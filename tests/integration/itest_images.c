/*
 * itest_images - tool answers with images, through the real broker from
 * svc-echo's `image` tool (which answers with exactly the images its
 * arguments carry): the plain reply's `images` and hbctl's line per
 * image, Codex's inputImage items and Claude's image content blocks in
 * the agents' own answers, a large image that fits reaching the agent
 * whole, and every image the service API refuses (a type other than PNG
 * and JPEG, bytes that are not their declared type, more than the 4 MiB
 * an answer carries) answered as a failure with a sentence, the service
 * serving on.  A subcall gets the text.
 */
#include "../harness/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

static const char echo_conf[] =
	"[service svc-echo]\n"
	"exec = @BUILD@/tests/svc-echo\n"
	"concurrency = 2\n"
	"tools = image subcall\n";

/* A PNG's signature and two bytes, and a JPEG's first four, in base64. */
#define PNG_B64 "iVBORw0KGgoAAQ=="
#define JPEG_B64 "/9j/4A=="
#define TWO_IMAGES "[{\"mimeType\":\"image/png\",\"data\":\"" PNG_B64 "\"}," \
		   "{\"mimeType\":\"image/jpeg\",\"data\":\"" JPEG_B64 "\"}]"
#define TWO_IMAGES_ARGS "{\"text\":\"two pictures\",\"images\":" TWO_IMAGES "}"

static struct fixture F;
static char codex_session[64], claude_session[64];

static int setup(void **state)
{
	(void)state;
	return fx_start_agent_sessions(&F, echo_conf, "Images", codex_session, claude_session, sizeof codex_session);
}

static int teardown(void **state)
{
	(void)state;
	return fx_stop_clean(&F);
}

/* The reply to request id on c, which must come. */
static void reply_to(struct hb_client *c, int64_t id, struct hb_env *reply)
{
	int64_t got = -1;

	ck_recv(c, reply, 15000, &got);
	assert_int_equal(got, id);
}

/* The agent's own answer of a reply, parsed. */
static json_t *native(struct hb_env *reply)
{
	json_t *j = json_loads(hb_env_str_or(reply, "json", ""), 0, NULL);

	if (!j)
		fail_msg("no agent answer: %s", hb_env_str_or(reply, "err.msg", hb_env_str_or(reply, "text", "?")));
	return j;
}

static json_t *codex_call(struct hb_client *c, const char *callid, const char *args)
{
	size_t len = strlen(args) + 512;
	char *frame = malloc(len);
	struct hb_env reply;
	json_t *ans;

	assert_non_null(frame);
	snprintf(frame, len, "{\"method\":\"item/tool/call\",\"id\":5,\"params\":{\"threadId\":\"thread-images\","
		 "\"turnId\":\"turn-1\",\"callId\":\"%s\",\"namespace\":\"hbcode\",\"tool\":\"image\","
		 "\"arguments\":%s}}", callid, args);
	reply_to(c, fx_send_op(c, "codex.call", "json", frame, (char *)NULL), &reply);
	free(frame);
	ans = native(&reply);
	hb_env_free(&reply);
	return ans;
}

static json_t *claude_call(struct hb_client *c, int n, const char *args)
{
	struct hb_env reply;
	json_t *ans;

	reply_to(c, fx_claude_call(c, n, "image", args), &reply);
	ans = native(&reply);
	hb_env_free(&reply);
	return ans;
}

/* A Codex connection whose thread is linked to the Codex session. */
static void codex_client(struct hb_client *c)
{
	struct hb_env reply;

	ck_client(&F, c);
	reply_to(c, fx_send_op(c, "thread.link", "threadId", "thread-images", "sessionId", codex_session,
			       (char *)NULL), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	hb_env_free(&reply);
}

static void test_plain_reply_and_hbctl(void **state)
{
	const char *args[] = { "call", "image", TWO_IMAGES_ARGS, NULL };
	struct hb_client c;
	struct hb_env reply;
	char *out = NULL;

	(void)state;
	ck_client(&F, &c);
	reply_to(&c, ck_send_call(&c, "image", TWO_IMAGES_ARGS), &reply);
	assert_true(hb_env_bool(&reply, "ok", 0));
	assert_string_equal(hb_env_str_or(&reply, "text", ""), "two pictures");
	assert_string_equal(hb_env_str_or(&reply, "images", ""), TWO_IMAGES);
	assert_null(hb_env_str(&reply, "json"));
	hb_env_free(&reply);
	hb_client_close(&c);

	assert_int_equal(fx_hbctl(&F, &out, args), 0);
	assert_string_equal(out, "two pictures\n[image: image/png, 10 bytes]\n[image: image/jpeg, 4 bytes]\n");
	free(out);
}

static void test_codex_answer(void **state)
{
	struct hb_client c;
	json_t *ans, *want;

	(void)state;
	codex_client(&c);
	ans = codex_call(&c, "call-two", TWO_IMAGES_ARGS);
	want = json_loads("{\"id\":5,\"result\":{\"success\":true,\"contentItems\":["
			  "{\"type\":\"inputText\",\"text\":\"two pictures\"},"
			  "{\"type\":\"inputImage\",\"imageUrl\":\"data:image/png;base64," PNG_B64 "\"},"
			  "{\"type\":\"inputImage\",\"imageUrl\":\"data:image/jpeg;base64," JPEG_B64 "\"}]}}",
			  0, NULL);
	assert_non_null(want);
	if (!json_equal(ans, want)) {
		char *got = json_dumps(ans, JSON_COMPACT);
		fail_msg("Codex got %s", got);
	}
	json_decref(want);
	json_decref(ans);
	hb_client_close(&c);
}

static void test_claude_answer(void **state)
{
	struct hb_client c;
	struct hb_env reply;
	json_t *ans, *want;

	(void)state;
	ck_client(&F, &c);
	assert_int_equal(fx_open_run(&c, "run-images", claude_session, "/tmp", "claude", "full-auto"), 0);
	ans = claude_call(&c, 1, TWO_IMAGES_ARGS);
	want = json_loads("{\"requestId\":1,\"isError\":false,\"content\":["
			  "{\"type\":\"text\",\"text\":\"two pictures\"},"
			  "{\"type\":\"image\",\"data\":\"" PNG_B64 "\",\"mimeType\":\"image/png\"},"
			  "{\"type\":\"image\",\"data\":\"" JPEG_B64 "\",\"mimeType\":\"image/jpeg\"}]}",
			  0, NULL);
	assert_non_null(want);
	if (!json_equal(ans, want)) {
		char *got = json_dumps(ans, JSON_COMPACT);
		fail_msg("Claude got %s", got);
	}
	json_decref(want);
	json_decref(ans);
	reply_to(&c, fx_send_op(&c, "run.close", "run", "run-images", (char *)NULL), &reply);
	hb_env_free(&reply);
	hb_client_close(&c);
}

/* The arguments of an image call with one PNG of size bytes (its
 * signature, then a byte pattern), repeat times; the image's base64 into
 * *b64 (malloc'd). */
static char *png_args(size_t size, int repeat, char **b64)
{
	unsigned char *bytes = malloc(size);
	char *args;
	size_t len;

	assert_non_null(bytes);
	memcpy(bytes, "\x89PNG\r\n\x1a\n", 8);
	for (size_t i = 8; i < size; i++)
		bytes[i] = (unsigned char)(i * 31);
	*b64 = hb_base64_encode(bytes, size);
	free(bytes);
	assert_non_null(*b64);
	len = strlen(*b64) + 200;
	args = malloc(len);
	assert_non_null(args);
	snprintf(args, len, "{\"text\":\"big\",\"repeat\":%d,\"images\":[{\"mimeType\":\"image/png\","
		 "\"data\":\"%s\"}]}", repeat, *b64);
	return args;
}

/* 2.5 MiB of image, 3.3 MiB as base64: under the limit, and whole at the
 * agent (its answer is a frame of its own on the way). */
static void test_large_image_fits(void **state)
{
	struct hb_client c;
	char *b64, *args = png_args((size_t)5 << 19, 1, &b64), *url;
	json_t *ans, *item;

	(void)state;
	codex_client(&c);
	ans = codex_call(&c, "call-large", args);
	item = json_array_get(json_object_get(json_object_get(ans, "result"), "contentItems"), 1);
	url = malloc(strlen(b64) + 64);
	assert_non_null(url);
	sprintf(url, "data:image/png;base64,%s", b64);
	assert_true(json_is_true(json_object_get(json_object_get(ans, "result"), "success")));
	assert_string_equal(json_string_value(json_object_get(item, "type")), "inputImage");
	assert_true(strcmp(json_string_value(json_object_get(item, "imageUrl")), url) == 0);
	free(url);
	json_decref(ans);
	free(args);
	free(b64);
	hb_client_close(&c);
}

static void test_refused_images(void **state)
{
	static const struct {
		const char *args, *says;
	} cases[] = {
		{ "{\"images\":[{\"mimeType\":\"image/gif\",\"data\":\"R0lGODlh\"}]}",
		  "image could not answer with its images: image 1 is of type \"image/gif\"; an answer carries only "
		  "image/png and image/jpeg" },
		{ "{\"images\":[{\"mimeType\":\"image/png\",\"data\":\"" PNG_B64 "\"},"
		  "{\"mimeType\":\"image/png\",\"data\":\"" JPEG_B64 "\"}]}",
		  "image could not answer with its images: image 2 is declared image/png, but its bytes are not a "
		  "PNG" },
	};
	struct hb_client c;
	char *b64, *args, want[200];
	json_t *ans;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_call_says(&F, "image", cases[i].args, 0, cases[i].says);
	/* 1 MiB four times over: 5.3 MiB as base64, past the 4 MiB limit.
	 * The agent reads why, and the service serves on. */
	args = png_args((size_t)1 << 20, 4, &b64);
	/* The text, the brackets, three commas and four items of the wire form. */
	snprintf(want, sizeof want, "image answered %zu bytes with its 4 images as base64, more than the 4194304 "
		 "bytes an answer can carry",
		 strlen("big") + 2 + 3 + 4 * (strlen("{\"mimeType\":\"image/png\",\"data\":\"\"}") + strlen(b64)));
	codex_client(&c);
	ans = codex_call(&c, "call-too-large", args);
	assert_false(json_is_true(json_object_get(json_object_get(ans, "result"), "success")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
				    json_object_get(ans, "result"), "contentItems"), 0), "text")), want);
	assert_int_equal(json_array_size(json_object_get(json_object_get(ans, "result"), "contentItems")), 1);
	json_decref(ans);
	free(args);
	free(b64);
	hb_client_close(&c);
	ck_call_says(&F, "image", TWO_IMAGES_ARGS, 1, "two pictures");
}

/* A service that calls an image tool reads its text. */
static void test_subcall_gets_the_text(void **state)
{
	(void)state;
	ck_call_ok(&F, "subcall", "{\"tool\":\"image\",\"json\":\"{\\\"text\\\":\\\"seen\\\",\\\"images\\\":"
		   "[{\\\"mimeType\\\":\\\"image/jpeg\\\",\\\"data\\\":\\\"" JPEG_B64 "\\\"}]}\"}",
		   "subcall answered: seen");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_reply_and_hbctl),
		cmocka_unit_test(test_codex_answer),
		cmocka_unit_test(test_claude_answer),
		cmocka_unit_test(test_large_image_fits),
		cmocka_unit_test(test_refused_images),
		cmocka_unit_test(test_subcall_gets_the_text),
	};

	return ck_run_group_tests(tests, setup, teardown);
}
