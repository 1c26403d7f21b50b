/*
 * worker_tools - the tools of the explainer's private worker: their one
 * table (name, description, input schema), the two forms the agents take
 * it in (Codex dynamicTools, the Claude agent host's appCapabilities), and
 * every tool but finish run on the worker's folder through workdir.h.
 * finish needs the call (speech, render, the video's entry): the service
 * runs it (explain_finish.c).
 */
#ifndef EXPLAINER_WORKER_TOOLS_H
#define EXPLAINER_WORKER_TOOLS_H

#include "workdir.h"

enum worker_tool {
	WORKER_TOOL_WRITE_SCENE,
	WORKER_TOOL_REMOVE_SCENE,
	WORKER_TOOL_READ_FOLDER,
	WORKER_TOOL_CHECK,
	WORKER_TOOL_PREVIEW,
	WORKER_TOOL_SHEET,
	WORKER_TOOL_FINISH,
	WORKER_TOOL_MAKE_BLOCK,
};

/* The table as Codex's dynamicTools: one namespace WORKER_NAMESPACE.
 * JSON text (caller frees), or NULL when out of memory. */
char *worker_tools_codex(void);
/* The table as the agent host's appCapabilities (every tool "desktop":
 * it runs without asking).  JSON text (caller frees), or NULL. */
char *worker_tools_claude(void);
/* The tool named name: 0 with *out, or -1 when there is none. */
int worker_tool_find(const char *name, enum worker_tool *out);
/* The timeline phase a tool belongs to: "writing scenes" or "reviewing"
 * ("narrating" for finish, which then reports its own phases). */
const char *worker_tool_phase(enum worker_tool t);
/* Runs tool t (not finish) with the arguments' JSON text on the folder
 * dir.  Arguments are checked against the tool's schema here too (a model
 * may send anything): an unknown, missing or mistyped one is a not-ok
 * answer naming it, and nothing changes. */
struct workdir_answer worker_tools_run(const char *dir, enum worker_tool t, const char *args_json);

/* finish's arguments: the optional poster frame.  Its strings live in
 * the struct. */
struct worker_finish_args {
	int has_poster;
	struct workdir_poster poster; /* points into the buffers below */
	char scene[256], at[32];
};

/* finish's arguments checked against its schema.  0, or -1 with err. */
int worker_tools_finish_args(const char *args_json, struct worker_finish_args *out, char *err, size_t errlen);

#endif
