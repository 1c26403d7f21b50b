/*
 * svc-echo - a test-only service for the kernel's tests and benchmark.
 *
 * Its tools exercise the service loop and the broker without any external
 * I/O: echo (the arguments back), sleep (a slow, cancellable call),
 * subcall (a call through the broker to another tool), progress, exit
 * (the process ends, for crash tests), stuck (a handler blocked in the
 * open of a FIFO, blind to its cancel), whoami (the call's context), env
 * (whether a variable is in its environment, for the secrets tests),
 * image (an answer with the images its arguments carry) and echo_report
 * (a report of the service's own state, sent by its background task,
 * which runs only with HB_ECHO_REPORT_TASK set so that no other test
 * sees its reports) and echo_event (a timeline event published as the
 * arguments say, as a bridge will publish timeline.row).  It is never
 * installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base64.h"
#include "json.h"
#include "service.h"

static int echo(struct hb_call *call, const json_t *args)
{
	char *text = hb_json_dump(args);
	int rc;

	if (!text)
		return hb_call_fail(call, "out of memory");
	rc = hb_call_succeed(call, text);
	free(text);
	return rc;
}

static int sleep_ms(struct hb_call *call, const json_t *args)
{
	long long ms;
	char err[256];

	if (hb_json_opt_int(args, "ms", 0, 600000, 100, &ms, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	for (long long left = ms; left > 0; left -= 5) {
		struct timespec ts = { 0, 5 * 1000000L };
		if (hb_call_cancelled(call))
			return hb_call_fail(call, "cancelled");
		nanosleep(&ts, NULL);
	}
	return hb_call_succeedf(call, "slept %lld ms", ms);
}

static int subcall(struct hb_call *call, const json_t *args)
{
	const char *tool, *json;
	char err[256], *text;
	int ok;

	if (hb_json_req_string(args, "tool", 64, &tool, err, sizeof err) < 0 ||
	    hb_json_req_string(args, "json", 65536, &json, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (hb_call_subcall(call, tool, json, 10000, &ok, &text) < 0 || !ok) {
		int rc = hb_call_failf(call, "subcall failed: %s", text ? text : "?");
		free(text);
		return rc;
	}
	ok = hb_call_succeedf(call, "subcall answered: %s", text);
	free(text);
	return ok;
}

/* {"text":T, "holdMs":N}: T as the call's progress, then the answer N ms
 * later (a long call, as an explainer's; cancellable), 0 by default. */
static int progress(struct hb_call *call, const json_t *args)
{
	const char *text;
	long long hold;
	char err[256];

	if (hb_json_req_string(args, "text", 1000, &text, err, sizeof err) < 0 ||
	    hb_json_opt_int(args, "holdMs", 0, 60000, 0, &hold, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	hb_call_progress(call, text);
	for (long long left = hold; left > 0; left -= 5) {
		struct timespec ts = { 0, 5 * 1000000L };
		if (hb_call_cancelled(call))
			return hb_call_fail(call, "cancelled");
		nanosleep(&ts, NULL);
	}
	return hb_call_succeed(call, "progress sent");
}

/* The call's context as the service sees it (from the broker's binding). */
static int whoami(struct hb_call *call, const json_t *args)
{
	const struct hb_call_context *c = hb_call_context(call);
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O}", "session", c->session, "run", c->run,
			      "project", c->project, "agent", c->agent, "access", c->access, "callId", c->call_id,
			      "model", c->model, "args", args);
	char *text = o ? hb_json_dump(o) : NULL;
	int rc = text ? hb_call_succeed(call, text) : hb_call_fail(call, "out of memory");

	free(text);
	json_decref(o);
	return rc;
}

#define MAX_IMAGES 64

/* {"text":T, "images":[{"mimeType":M, "data":BASE64}, ...], "repeat":N}:
 * answers T with the images (decoded, each N times over, in order), so
 * a test knows every byte the agent must get, and can make an answer too
 * large (repeat) or one the service API refuses (a type or bytes it does
 * not accept). */
static int image(struct hb_call *call, const json_t *args)
{
	const json_t *list = json_object_get(args, "images"), *item;
	struct hb_image images[MAX_IMAGES];
	unsigned char *bytes[MAX_IMAGES] = { NULL };
	const char *text;
	long long repeat;
	size_t n, i;
	char err[256];
	int rc;

	if (hb_json_opt_string(args, "text", 65536, 0, &text, err, sizeof err) < 0 ||
	    hb_json_opt_int(args, "repeat", 1, MAX_IMAGES, 1, &repeat, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	n = json_array_size(list);
	if (!json_is_array(list) || n == 0 || n * (size_t)repeat > MAX_IMAGES)
		return hb_call_failf(call, "\"images\" must be an array of 1 to %d images (with repeat)", MAX_IMAGES);
	json_array_foreach(list, i, item) {
		const char *data = json_string_value(json_object_get(item, "data"));
		size_t len = 0;

		images[i].mime_type = json_string_value(json_object_get(item, "mimeType"));
		if (!data || !(bytes[i] = hb_base64_decode(data, strlen(data), &len))) {
			rc = hb_call_failf(call, "image %zu's data is not base64", i + 1);
			goto out;
		}
		images[i].data = bytes[i];
		images[i].len = len;
	}
	for (i = n; i < n * (size_t)repeat; i++)
		images[i] = images[i % n];
	rc = hb_call_succeed_with_images(call, text ? text : "the images", images, n * (size_t)repeat);
out:
	for (i = 0; i < n; i++)
		free(bytes[i]);
	return rc;
}

/* "NAME is set" or "NAME is unset": never the value, which may be a key. */
static int env_has(struct hb_call *call, const json_t *args)
{
	const char *name;
	char err[256];

	if (hb_json_req_string(args, "name", 256, &name, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	return hb_call_succeedf(call, "%s is %s", name, getenv(name) ? "set" : "unset");
}

/* A PNG of one white pixel, for the stand-in's screenshot. */
static const unsigned char white_pixel_png[] = {
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
	0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xff, 0xff, 0x3f,
	0x00, 0x05, 0xfe, 0x02, 0xfe, 0x0d, 0xef, 0x46, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
	0x44, 0xae, 0x42, 0x60, 0x82,
};

/* Test-only: a tool under a catalog name (use_user_browser), so that the
 * end-to-end tests can drive a real agent through it.  A screenshot is
 * answered at once with a picture (and the model the call's run has, so
 * a test sees what the service saw); anything else sleeps 30 s unless
 * cancelled, so that a test can interrupt a real agent during a slow call. */
static int slow_stand_in(struct hb_call *call, const json_t *args)
{
	const char *action = json_string_value(json_object_get(args, "action"));

	if (action && strcmp(action, "screenshot") == 0) {
		const struct hb_image shot = { "image/png", white_pixel_png, sizeof white_pixel_png };
		char text[256];

		snprintf(text, sizeof text, "the stand-in's screenshot, taken for model \"%.128s\"",
			 hb_call_context(call)->model);
		return hb_call_succeed_with_images(call, text, &shot, 1);
	}
	for (int left = 30000; left > 0; left -= 5) {
		struct timespec ts = { 0, 5 * 1000000L };
		if (hb_call_cancelled(call))
			return hb_call_fail(call, "cancelled");
		nanosleep(&ts, NULL);
	}
	return hb_call_succeed(call, "the slow stand-in finished");
}

/* A handler stuck the way a reader of a FIFO with no writer is: a
 * blocking open of the FIFO named by "fifo", blind to its cancel, so only
 * the broker's call-limit ends it (or a writer the test opens). */
static int stuck(struct hb_call *call, const json_t *args)
{
	const char *path;
	char err[256], buf[64];
	ssize_t n;
	int fd;

	if (hb_json_req_string(args, "fifo", 4096, &path, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return hb_call_failf(call, "cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof buf);
	close(fd);
	return hb_call_succeedf(call, "read %zd bytes", n);
}

static int exit_now(struct hb_call *call, const json_t *args)
{
	long long code;
	char err[256];

	if (hb_json_opt_int(args, "code", 0, 255, 3, &code, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	_exit((int)code); /* no cleanup: a crash as the broker sees it */
}

/* ---- reports: handlers queue them, the task sends them ---------------- */

struct pending_report {
	struct pending_report *next;
	char json[];                    /* sent exactly as the test wrote it */
};

/* The service's shared state (spec.task_arg): reports in the order the
 * calls queued them, so a test knows which the broker sees first. */
struct echo_shared {
	pthread_mutex_t lock;
	struct pending_report *head, **tail;
};

static struct echo_shared *shared_state(void)
{
	static struct echo_shared shared = { PTHREAD_MUTEX_INITIALIZER, NULL, &shared.head };

	return &shared;
}

/* {"json": TEXT}: TEXT goes to the broker as the service's report, as
 * is, so a test can send ones the broker must drop. */
static int echo_report(struct hb_call *call, const json_t *args)
{
	struct echo_shared *sh = hb_call_service_arg(call);
	struct pending_report *r;
	const char *json;
	char err[256];

	if (!sh)
		return hb_call_fail(call, "svc-echo runs no report task (HB_ECHO_REPORT_TASK is unset)");
	if (hb_json_req_string(args, "json", 65536, &json, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (!(r = malloc(sizeof *r + strlen(json) + 1)))
		return hb_call_fail(call, "out of memory");
	r->next = NULL;
	memcpy(r->json, json, strlen(json) + 1);
	pthread_mutex_lock(&sh->lock);
	*sh->tail = r;
	sh->tail = &r->next;
	pthread_mutex_unlock(&sh->lock);
	hb_call_wake_task(call);
	return hb_call_succeed(call, "report queued");
}

static struct pending_report *take_reports(struct echo_shared *sh)
{
	struct pending_report *all;

	pthread_mutex_lock(&sh->lock);
	all = sh->head;
	sh->head = NULL;
	sh->tail = &sh->head;
	pthread_mutex_unlock(&sh->lock);
	return all;
}

/* Its first report names its pid, so a test tells which incarnation's
 * report status shows; then whatever echo_report queued. */
static void report_task(struct hb_task *task, void *arg)
{
	char first[128];

	snprintf(first, sizeof first, "{\"summary\":\"echo task up\",\"pid\":%ld}", (long)getpid());
	if (hb_task_report(task, first) < 0)
		fprintf(stderr, "svc-echo: cannot send the first report: %s\n", strerror(errno));
	while (!hb_task_stopping(task)) {
		struct pollfd p = { hb_task_wake_fd(task), POLLIN, 0 };
		struct pending_report *r, *next;

		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			break;
		hb_task_drain_wake(task);
		for (r = take_reports(arg); r; r = next) {
			next = r->next;
			if (hb_task_report(task, r->json) < 0)
				fprintf(stderr, "svc-echo: cannot send a report: %s\n", strerror(errno));
			free(r);
		}
	}
}

/* After every thread: what handlers queued after the task ended. */
static void free_reports(void)
{
	for (struct pending_report *r = take_reports(shared_state()), *next; r; r = next) {
		next = r->next;
		free(r);
	}
}

/* {"topic": "timeline.…", "json": TEXT}: published through the broker as
 * is, for the tests of what watches the timeline (itest_timeline_watch). */
static int echo_event(struct hb_call *call, const json_t *args)
{
	const char *topic, *json;
	char err[256];

	if (hb_json_req_string(args, "topic", 128, &topic, err, sizeof err) < 0 ||
	    hb_json_req_string(args, "json", 65536, &json, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if (hb_call_publish(call, topic, json) < 0)
		return hb_call_fail(call, "the event could not be sent to the broker");
	return hb_call_succeed(call, "event published");
}

/* {"always": bool}: given back for the next generation (hb_call_renew)
 * by the first generation, or by every one with always; a generation
 * that keeps it says which it is. */
static int renew(struct hb_call *call, const json_t *args)
{
	const char *id = getenv("HB_SERVICE_ID");
	const char *gen = id && strchr(id, '#') ? strchr(id, '#') + 1 : "?";

	if (json_is_true(json_object_get(args, "always")) || strncmp(gen, "1~", 2) == 0)
		return hb_call_renew(call, "the test asked", "not renewed");
	return hb_call_succeedf(call, "served by generation %.*s", (int)strcspn(gen, "~"), gen);
}

static const struct hb_service_tool tools[] = {
	{ "renew", renew },
	{ "echo", echo },
	{ "sleep", sleep_ms },
	{ "subcall", subcall },
	{ "progress", progress },
	{ "exit", exit_now },
	{ "stuck", stuck },
	{ "whoami", whoami },
	{ "env", env_has },
	{ "image", image },
	{ "use_user_browser", slow_stand_in },
	{ "echo_report", echo_report },
	{ "echo_event", echo_event },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	/* HB_ECHO_START_DELAY_MS holds each copy back before anything else,
	 * so that two starts of the supervisor overlap in time (race tests);
	 * HB_ECHO_FAIL_START makes a copy that then dies (crash-loop tests). */
	const char *delay = getenv("HB_ECHO_START_DELAY_MS");
	struct hb_service_spec spec = { .name = "svc-echo", .tools = tools };

	if (delay) {
		long ms = strtol(delay, NULL, 10);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (getenv("HB_ECHO_FAIL_START"))
		return 7;
	if (getenv("HB_ECHO_REPORT_TASK")) {
		spec.task = report_task;
		spec.task_arg = shared_state();
		spec.at_exit = free_reports;
	}
	return hb_service_run(argc, argv, &spec);
}
