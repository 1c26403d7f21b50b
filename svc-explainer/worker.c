/*
 * worker - the explainer's worker, one driver for both agents (see
 * worker.h): the options checked, the tools read, the agent started
 * through worker_proc.c and its table (worker_agent.h) called for what
 * only it knows.
 */
#include "worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker_agent.h"

static void free_worker(struct worker *w)
{
	if (w->state)
		w->agent->destroy(w->state);
	free(w->brief);
	free(w);
}

int worker_start(const struct worker_agent *agent, const struct worker_opts *o, struct worker **out, char *err,
		 size_t errlen)
{
	struct worker *w;
	json_t *tools;
	json_error_t jerr;

	*out = NULL;
	if (!o->argv || !o->argv[0] || !o->cwd || !o->tools || !o->brief || !o->tool) {
		snprintf(err, errlen, "the %s worker needs %s, a work folder, its tools, a brief and a tool callback",
			 agent->agent, agent->program);
		return -1;
	}
	if (!(tools = json_loads(o->tools, 0, &jerr)) || !json_is_array(tools)) {
		snprintf(err, errlen, "the %s worker's tools are not a JSON array: %s", agent->agent,
			 tools ? "another JSON value" : jerr.text);
		json_decref(tools);
		return -1;
	}
	if (!(w = calloc(1, sizeof *w)) || !(w->brief = strdup(o->brief))) {
		free(w);
		json_decref(tools);
		snprintf(err, errlen, "out of memory starting the %s worker", agent->agent);
		return -1;
	}
	w->agent = agent;
	w->tool = o->tool;
	w->tool_arg = o->tool_arg;
	w->state = agent->create(w, o, tools, err, errlen);
	json_decref(tools);
	if (!w->state || worker_proc_start(&w->proc, agent->name, o->argv, o->envp, err, errlen) < 0) {
		free_worker(w);
		return -1;
	}
	agent->begin(w->state);
	*out = w;
	return 0;
}

static void on_line(void *ctx, const char *line, size_t len)
{
	struct worker *w = ctx;
	json_t *msg = json_loadb(line, len, 0, NULL);

	if (json_is_object(msg))
		w->agent->line(w->state, msg, line, len);
	json_decref(msg);
}

static int interrupt(void *ctx)
{
	struct worker *w = ctx;

	return w->agent->interrupt(w->state);
}

enum worker_end worker_wait(struct worker *w, long long deadline_ms, int (*stop)(void *arg), void *stop_arg,
			    char *err, size_t errlen)
{
	static const struct worker_proc_ops ops = { on_line, interrupt };

	return worker_proc_wait(&w->proc, &ops, w, deadline_ms, stop, stop_arg, err, errlen);
}

const char *worker_turn_status(const struct worker *w)
{
	return w->proc.status[0] ? w->proc.status : NULL;
}

unsigned worker_tool_calls(const struct worker *w)
{
	return w->proc.tool_calls;
}

int worker_pgid(const struct worker *w)
{
	return (int)w->proc.lc.child.pid;
}

void worker_stop(struct worker *w)
{
	if (!w)
		return;
	if (w->agent->end && !w->proc.exited)
		w->agent->end(w->state);
	worker_proc_stop(&w->proc);
	free_worker(w);
}
