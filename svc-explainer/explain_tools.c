/*
 * explain_tools - the worker's tool calls as svc-explainer answers them:
 * finish (explain_finish.c) or a tool of the folder (worker_tools.c),
 * with what it showed recorded for finish's review rule (explain_seen.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_int.h"
#include "worker_tools.h"

struct workdir_answer explain_tool(void *arg, const char *tool, const char *args_json)
{
	struct explain *x = arg;
	enum worker_tool t;
	struct workdir_answer a;

	x->tool_calls++;
	if (x->fatal[0])
		return workdir_answer_text(0, "%s Stop now.", x->fatal);
	if (worker_tool_find(tool, &t) < 0)
		return workdir_answer_text(0, "there is no tool \"%.64s\": use write_scene, remove_scene, read_folder, "
					      "check_scenes, preview_scene, contact_sheet, make_block and finish", tool);
	if (x->finished)
		return workdir_answer_text(0, "the video is already finished and saved; end your turn");
	explain_publish(x, worker_tool_phase(t));
	if (t == WORKER_TOOL_FINISH)
		return explain_finish(x, args_json);
	a = worker_tools_run(x->workdir, t, args_json);
	{
		json_t *args = json_loads(args_json, 0, NULL);
		/* A write marks the scene changed whatever its checks said:
		 * its file is what the worker wrote. */
		if (a.ok || t == WORKER_TOOL_WRITE_SCENE)
			explain_mark_seen(x, t, args);
		json_decref(args);
	}
	if (t == WORKER_TOOL_WRITE_SCENE || t == WORKER_TOOL_REMOVE_SCENE) {
		explain_remember_script(x);
		explain_publish(x, NULL); /* a new scene count is a new row */
	}
	return a;
}
