/*
 * explain_progress - the timeline row of a create_explainer_video call.
 * One topic, "timeline.explainer", whose rows carry the call's key (the
 * desktop updates one row per call), the phase, and what is known so far:
 * the revision being made, the scene count, the length, the frames
 * rendered.  A finished row names the saved video so the desktop can open
 * it.  The render reports every frame; the timeline needs a few updates a
 * second at most, so rendering rows are thinned by time.  Each row but the
 * last is also kept on disk (open_rows.h), so that a copy started after
 * this one was killed sends the last row this one could not.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "explain.h"
#include "explain_int.h"
#include "json.h"
#include "log.h"
#include "service.h"
#include "worker_scratch.h"

#define RENDER_ROW_EVERY_MS 500
/* How often the task looks for rows of a copy killed since it started. */
#define ORPHAN_SCAN_EVERY_MS 10000

/* The revision this call makes: the next one, or 0 for a first video. */
static long revision_made(const struct explain *x)
{
	return x->entry.has_video ? x->entry.record.revision + 1 : 0;
}

static void publish(struct explain *x, const char *phase, const char *error)
{
	const struct hb_call_context *ctx = hb_call_context(x->call);
	json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:I}", "kind", "explainer", "callKey", ctx->key, "sessionId",
				ctx->session, "phase", phase, "revision", (json_int_t)revision_made(x));
	char *text;

	if (!row)
		return;
	if (x->scenes > 0) {
		json_object_set_new(row, "scenes", json_integer(x->scenes));
		json_object_set_new(row, "durationSeconds", json_real(round(x->seconds * 10) / 10));
	}
	if (x->frames_total > 0) {
		json_object_set_new(row, "framesRendered", json_integer(x->frames_done));
		json_object_set_new(row, "framesTotal", json_integer(x->frames_total));
	}
	if (x->finished && strcmp(phase, "finished") == 0) {
		json_object_set_new(row, "videoPath", json_string(x->entry.video));
		json_object_set_new(row, "revision", json_integer(x->entry.record.revision));
		/* The desktop's thumbnail and captions for the video. */
		json_object_set_new(row, "posterPath", json_string(x->entry.poster));
		json_object_set_new(row, "captionsPath", json_string(x->entry.vtt));
	}
	if (error)
		json_object_set_new(row, "error", json_string(error));
	if ((text = hb_json_dump(row))) {
		hb_call_publish(x->call, "timeline.explainer", text); /* best effort */
		if (strcmp(phase, "finished") == 0 || strcmp(phase, "failed") == 0)
			open_row_end(&x->open_row);
		else
			open_row_keep(&x->open_row, &x->paths, text, ctx->key);
	}
	free(text);
	json_decref(row);
	x->published_ms = hb_monotonic_ms();
	x->published_scenes = x->scenes;
}

void explain_publish(struct explain *x, const char *phase)
{
	if (!phase)
		phase = x->phase ? x->phase : "worker starting";
	if (x->phase && strcmp(phase, x->phase) == 0 && strcmp(phase, "rendering") != 0 &&
	    x->scenes == x->published_scenes)
		return; /* nothing new: the same phase, the same scenes */
	if (x->phase && strcmp(phase, "rendering") == 0 && strcmp(x->phase, "rendering") == 0 &&
	    x->frames_done < x->frames_total && hb_monotonic_ms() - x->published_ms < RENDER_ROW_EVERY_MS)
		return;
	x->phase = phase;
	publish(x, phase, NULL);
}

void explain_publish_end(struct explain *x, const char *error)
{
	x->phase = error ? "failed" : "finished";
	publish(x, x->phase, error);
}

/* The last row of a call whose copy of svc-explainer was killed: the row
 * it kept, ended. */
static void end_orphan(const char *kept, void *arg)
{
	json_t *row = json_loads(kept, 0, NULL);
	json_t *rev = row ? json_object_get(row, "revision") : NULL;
	char *text;

	if (!json_is_object(row) || !json_is_string(json_object_get(row, "callKey"))) {
		json_decref(row);
		return;
	}
	json_object_set_new(row, "phase", json_string("failed"));
	json_object_set_new(row, "error",
			    json_string(json_integer_value(rev) > 0
						? "svc-explainer stopped while handling this call (it was killed or "
						  "crashed), so the video was not revised; the saved one is unchanged"
						: "svc-explainer stopped while handling this call (it was killed or "
						  "crashed), so no video was made"));
	if ((text = hb_json_dump(row))) {
		hb_task_publish(arg, "timeline.explainer", text); /* best effort */
		log_info(json_string_value(json_object_get(row, "callKey")),
			 "explainer: ended the row a killed svc-explainer left open");
	}
	free(text);
	json_decref(row);
}

void explain_rows_run(struct hb_task *task, void *arg)
{
	struct hb_paths p;
	char err[1024];

	(void)arg;
	if (hb_paths_resolve(&p, err, sizeof err) < 0) {
		log_warn(NULL, "explainer: the rows a killed copy left open stay so: %s", err);
		return;
	}
	while (!hb_task_stopping(task)) {
		struct pollfd wake = { hb_task_wake_fd(task), POLLIN, 0 };

		open_rows_end_orphans(&p, end_orphan, task);
		worker_scratch_remove_orphans(&p);
		if (poll(&wake, 1, ORPHAN_SCAN_EVERY_MS) < 0 && errno != EINTR)
			break;
		if (wake.revents & POLLIN)
			hb_task_drain_wake(task);
	}
}
