/*
 * explain - create_explainer_video, the tool (page 000, "Narrated explainer
 * videos"): the call's checks, the video's entry (videos.h), the private
 * worker on the session's agent and model (worker.h) in the entry's
 * revision folder, its tools answered here, and the answer: the saved
 * video's path, length, scenes, revision and review.
 */
#ifndef EXPLAINER_EXPLAIN_H
#define EXPLAINER_EXPLAIN_H

#include <jansson.h>

struct hb_call;

int explain_create(struct hb_call *call, const json_t *args);
/* The call's argument checks alone: 0, or -1 with the tool error in err.
 * Exported for the fuzz target of the tools' arguments. */
int explain_check_args(const json_t *args, char *err, size_t errlen);

#endif
