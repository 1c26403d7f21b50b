/*
 * subagents - a Claude stream's subagents (page 003, "Subagents as child
 * threads"): the depth of each by its spawning call, and Claude's task
 * events as updates of its spawn row.  Internal to the timeline library:
 * project_claude.c calls it.
 */
#ifndef HB_TIMELINE_SUBAGENTS_H
#define HB_TIMELINE_SUBAGENTS_H

#include <jansson.h>

#include "project.h"

/* The depth of a message's rows: 0 for the conversation's own (parent
 * NULL), else the depth recorded for its spawning call (1 when unknown). */
int tl_claude_spawn_depth(const struct tl_claude *st, const char *parent);
/* Record that the subagent of spawning call id has rows of depth. */
void tl_claude_spawn_put(struct tl_claude *st, const char *id, int depth);
/* A system message whose subtype is task_started, task_progress,
 * task_updated or task_notification: the spawn row of its subagent,
 * updated (status, agentId, tool uses, summary), appended to rows and
 * kept open for the next update.  1 when msg was a task event (with or
 * without a row), 0 when it is not one. */
int tl_claude_task(struct tl_claude *st, const json_t *msg, json_t *rows);
/* Whether a spawn row stays open after its call's result: a subagent run
 * in the background goes on, and its task events still update the row. */
int tl_claude_spawn_runs_on(const json_t *row);

#endif
