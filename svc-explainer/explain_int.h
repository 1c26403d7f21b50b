/*
 * explain_int - the state of one create_explainer_video call, shared by
 * explain.c (the call), explain_tools.c (the worker's tool calls and the
 * review), explain_finish.c (finish) and explain_progress.c (the
 * timeline).  Internal to explain*.c.  Everything here belongs to the
 * call's one handler thread: the worker's tool calls are answered on it.
 */
#ifndef EXPLAINER_EXPLAIN_INT_H
#define EXPLAINER_EXPLAIN_INT_H

#include <stddef.h>

#include "open_rows.h"
#include "paths.h"
#include "videos.h"
#include "workdir.h"
#include "worker_tools.h"

#define EXPLAIN_FINISH_ATTEMPTS 6

/* What the worker has looked at since a scene last changed. */
struct explain_seen {
	char *name;
	int start, end;
};

struct explain {
	struct hb_call *call;
	struct hb_paths paths;
	struct video_entry entry;
	const char *workdir;            /* entry.next_source: the worker's folder */
	char voice[64];
	double minutes;                 /* the worker's time limit (setting explainerWorkerMinutes) */
	int burn_captions;              /* the tool's captions: "burn": drawn into the picture too */
	long long deadline_ms;          /* hb_monotonic_ms() at which it is up: renders stop there too */
	int time_up;                    /* a finish was stopped by the time limit */
	int finish_attempts;
	int finished;                   /* a finish saved the video */
	char last_finish[2048];         /* the last failed finish's sentence */
	char fatal[512];                /* ends the call with this answer (the key is gone) */
	unsigned tool_calls;
	struct explain_seen *seen;
	size_t nseen;
	/* the timeline */
	long scenes;                    /* in the script, as last seen */
	double seconds;                 /* written, then narrated once fitted */
	const char *phase;
	long frames_done, frames_total;
	const struct workdir_fit *fit;  /* during a finish: the scenes as fitted, once known */
	int render_pointed;             /* the tests' failpoints were passed */
	long long published_ms;
	long published_scenes;          /* the scene count of the last row */
	struct open_row open_row;       /* the latest row, for a copy started after this one is killed */
};

/* The worker's tool call (worker_tool_fn); arg is the struct explain. */
struct workdir_answer explain_tool(void *arg, const char *tool, const char *args_json);
/* Scenes of the folder's script whose start or end frame the worker has
 * not looked at since they changed, as "a.svg, b.svg" (caller frees), ""
 * when none, NULL when out of memory or the script cannot be read. */
char *explain_unseen(struct explain *x, size_t *scenes);
/* What a successful look (or a write) of tool t with args showed or changed. */
void explain_mark_seen(struct explain *x, enum worker_tool t, const json_t *args);
/* The folder's scene count and seconds into x, from its script. */
void explain_remember_script(struct explain *x);
void explain_seen_free(struct explain *x);

/* finish (its arguments' JSON text): narrate, fit, gate, render, commit. */
struct workdir_answer explain_finish(struct explain *x, const char *args_json);

/* Publishes the call's timeline row "timeline.explainer" (best effort):
 * phase (NULL: the current one) and the numbers of the entry and the
 * render.  Rendering progress is published at most every half second. */
void explain_publish(struct explain *x, const char *phase);
/* The same as a last row: "finished" with the video's path, or "failed"
 * with why. */
void explain_publish_end(struct explain *x, const char *error);

#endif
