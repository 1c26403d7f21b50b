/*
 * explain - create_explainer_video, the tool (page 000, "Narrated explainer
 * videos"): the call's checks, the video's entry (videos.h), the private
 * worker on the session's agent and model (worker.h) in the entry's
 * revision folder, its tools answered here, and the answer: the saved
 * video's path, length, scenes, revision and review; and the rows of a
 * killed copy's calls ended.
 */
#ifndef EXPLAINER_EXPLAIN_H
#define EXPLAINER_EXPLAIN_H

#include <jansson.h>

struct hb_call;
struct hb_task;

int explain_create(struct hb_call *call, const json_t *args);
/* svc-explainer's background task: ends the timeline rows a killed copy
 * left open (open_rows.h) as it starts, and again every few seconds, for
 * a copy that a replace left running and that was killed since. */
void explain_rows_run(struct hb_task *task, void *arg);
/* The call's argument checks alone: 0, or -1 with the tool error in err.
 * Exported for the fuzz target of the tools' arguments. */
int explain_check_args(const json_t *args, char *err, size_t errlen);

#endif
