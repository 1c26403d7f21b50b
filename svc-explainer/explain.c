/*
 * explain - create_explainer_video (see explain.h).
 *
 * The call's order: the key (read now, every call), the arguments, the
 * binding (a session's agent: the worker plays the same agent and model),
 * the entry (a new video, or the one videoPath names, locked for the whole
 * call), the worker's folder (a copy of the entry's source), the worker
 * until its turn ends, then the answer.  Nothing is written at the
 * videoPath until a finish has rendered the whole video (videos.h): a
 * failed, cancelled or killed call leaves the previous revision as it was.
 *
 * The worker runs on this handler's thread; its tool calls are answered
 * here (explain_tools.c), between reads of its output, so it never waits
 * on another thread of ours and a cancel is seen within a poll.
 */
#include "explain.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_cmd.h"
#include "brief.h"
#include "canvas.h"
#include "claude_account.h"
#include "claude_usage.h"
#include "clock.h"
#include "envvar.h"
#include "exe_path.h"
#include "explain_int.h"
#include "gemini.h"
#include "json.h"
#include "log.h"
#include "reply_style.h"
#include "secrets.h"
#include "service.h"
#include "settings.h"
#include "worker.h"
#include "worker_scratch.h"
#include "worker_tools.h"

extern char **environ;

#define QUESTION_MAX 4000
#define FACTS_MAX 60000
#define SOURCES_MAX 50
#define SOURCE_MAX 2000

struct explain_args {
	const char *question, *facts, *video_path;
	int burn_captions;                   /* captions: "burn" (default "file") */
	const char *sources[SOURCES_MAX];
	size_t nsources;
	const json_t *args;      /* for "format" and "fps" (canvas.h), checked */
};

static int read_args(const json_t *args, struct explain_args *a, char *err, size_t errlen)
{
	static const char *const fields[] = { "question", "facts", "sources", "videoPath", "format", "fps", "captions",
					      NULL };
	static const char *const caption_modes[] = { "file", "burn", NULL };
	const json_t *sources = json_object_get(args, "sources"), *v;
	const char *captions = NULL;
	struct canvas canvas;
	size_t i;

	memset(a, 0, sizeof *a);
	if (hb_json_only_fields(args, fields, err, errlen) < 0 ||
	    hb_json_req_string(args, "question", QUESTION_MAX, &a->question, err, errlen) < 0 ||
	    hb_json_req_string(args, "facts", FACTS_MAX, &a->facts, err, errlen) < 0 ||
	    hb_json_opt_string(args, "videoPath", HB_PATH_MAX - 1, 1, &a->video_path, err, errlen) < 0 ||
	    hb_json_opt_string(args, "captions", 64, 1, &captions, err, errlen) < 0 ||
	    (captions && hb_json_check_choice("captions", captions, caption_modes, err, errlen) < 0))
		return -1;
	a->burn_captions = captions && strcmp(captions, "burn") == 0;
	if (!*a->question || !*a->facts) {
		snprintf(err, errlen, "%s must not be empty", !*a->question ? "question" : "facts");
		return -1;
	}
	if (sources && !json_is_array(sources)) {
		snprintf(err, errlen, "sources must be an array of strings (URLs or titles)");
		return -1;
	}
	if (json_array_size(sources) > SOURCES_MAX) {
		snprintf(err, errlen, "sources has %zu entries; at most %d are accepted", json_array_size(sources),
			 SOURCES_MAX);
		return -1;
	}
	json_array_foreach(sources, i, v) {
		const char *s = json_string_value(v);
		if (!s || !*s || strlen(s) > SOURCE_MAX) {
			snprintf(err, errlen, "sources[%zu] must be a non-empty string of at most %d bytes", i,
				 SOURCE_MAX);
			return -1;
		}
		a->sources[a->nsources++] = s;
	}
	/* A model may pass "9x16", "vertical" or 59.94: a sentence lists the choices. */
	a->args = args;
	canvas = canvas_default();
	return canvas_read(args, &canvas, err, errlen);
}

int explain_check_args(const json_t *args, char *err, size_t errlen)
{
	struct explain_args a;

	return read_args(args, &a, err, errlen);
}

/* The video's canvas into the entry's record: the call's format and fps
 * over the record's (the default for a new video, the saved video's for a
 * revision, which so keeps what the call does not give).  Whether the
 * size changed. */
static int choose_canvas(struct explain *x, const struct explain_args *a)
{
	struct video_record *r = &x->entry.record;
	struct canvas c = { r->width, r->height, r->fps };
	char ignored[256];

	/* read_args has checked the values, so this cannot fail */
	(void)canvas_read(a->args, &c, ignored, sizeof ignored);
	r->fps = c.fps;
	if (c.width == r->width && c.height == r->height)
		return 0;
	r->width = c.width;
	r->height = c.height;
	return 1;
}

/* The worker's folder: the entry's source copied into its source.next
 * (which opening the entry emptied of a killed call's leftovers), so
 * that a successful finish's commit moves it into place; its script
 * names the video's canvas (script.h). */
static int make_workdir(struct explain *x, char *err, size_t errlen)
{
	const struct video_record *r = &x->entry.record;

	if (videos_copy_source(&x->entry, x->entry.next_source, err, errlen) < 0)
		return -1;
	return workdir_set_canvas(x->entry.next_source, r->width, r->height, r->fps, err, errlen);
}

/* Nonzero once the worker must stop: a cancel, or a failure that ends the
 * call whatever the worker does (the key is gone). */
static int must_stop(void *arg)
{
	struct explain *x = arg;

	return hb_call_cancelled(x->call) || x->fatal[0];
}

/* The session's model for the worker, or NULL: the agent's default. */
static const char *session_model(const struct explain *x)
{
	const char *model = hb_call_context(x->call)->model;

	return *model ? model : NULL;
}

/* Start, wait for and stop the worker: agent on argv with tools; *started
 * says whether it started. */
static enum worker_end drive_worker(struct explain *x, const struct worker_agent *agent, char *const *argv,
				    char *const *envp, const char *tools, const char *brief, long long deadline,
				    int *started, char *err, size_t errlen)
{
	struct worker_opts o = { .argv = argv, .envp = envp, .model = session_model(x), .cwd = x->workdir,
				 .tools = tools, .brief = brief, .tool = explain_tool, .tool_arg = x };
	enum worker_end end = WORKER_FAILED;
	struct worker *w;

	if ((*started = worker_start(agent, &o, &w, err, errlen) == 0)) {
		end = worker_wait(w, deadline, must_stop, x, err, errlen);
		worker_stop(w);
	}
	return end;
}

/* The Codex worker: `codex app-server`, the same user and CODEX_HOME. */
static enum worker_end run_codex(struct explain *x, char *const *envp, const char *brief, long long deadline,
				 char *err, size_t errlen)
{
	enum worker_end end;
	char codex[HB_PATH_MAX], *tools = NULL;
	char *argv[] = { codex, "app-server", NULL };
	int started;

	if (agent_program(&x->paths, codex, sizeof codex, err, errlen) < 0)
		return WORKER_FAILED;
	if (!(tools = worker_tools_codex())) {
		snprintf(err, errlen, "out of memory");
		return WORKER_FAILED;
	}
	end = drive_worker(x, &worker_codex, argv, envp, tools, brief, deadline, &started, err, errlen);
	free(tools);
	return end;
}

/* The Claude worker: the agent host of the setting agentHost, or the one
 * installed beside this service (agent_cmd.h). */
static enum worker_end run_claude(struct explain *x, char *const *envp, const char *brief, long long deadline,
				  char *err, size_t errlen)
{
	enum worker_end end;
	int started;
	char dir[HB_PATH_MAX], words[HB_AGENT_HOST_LINE_MAX], *argv[HB_AGENT_HOST_ARGS_MAX + 1], *tools = NULL;
	char why[640], account[HB_CLAUDE_ACCOUNT_NAME_MAX], config[HB_PATH_MAX], **account_env = NULL;

	/* Without the folder of this program, only the setting can name a host. */
	if (hb_agent_host_argv(&x->paths, hb_exe_dir(NULL, dir, sizeof dir, why, sizeof why) == 0 ? dir : NULL, words,
			       sizeof words, argv, why, sizeof why) < 0) {
		snprintf(err, errlen, "A Claude session's explainer worker runs on the Claude agent host: %s", why);
		return WORKER_FAILED;
	}
	if (!(tools = worker_tools_claude())) {
		snprintf(err, errlen, "out of memory");
		return WORKER_FAILED;
	}
	/* The worker's turn is paid by the active account, as a run's is. */
	if (hb_claude_account_for_run(&x->paths, account, sizeof account, config, sizeof config, why, sizeof why) < 0) {
		snprintf(err, errlen, "A Claude session's explainer worker runs on the active Claude account: %s", why);
		free(tools);
		return WORKER_FAILED;
	}
	if (*config && !(account_env = hb_env_with(envp, "CLAUDE_CONFIG_DIR", config))) {
		snprintf(err, errlen, "out of memory");
		free(tools);
		return WORKER_FAILED;
	}
	end = drive_worker(x, &worker_claude, argv, account_env ? account_env : envp, tools, brief, deadline,
			   &started, err, errlen);
	/* its turn changed the account's usage: the reading goes */
	if (started && hb_claude_usage_forget(&x->paths, account, why, sizeof why) < 0)
		log_warn(hb_call_context(x->call)->key, "explainer: the usage reading of %s is not cleared: %s",
			 account, why);
	free(tools);
	free(account_env);
	return end;
}

/* Runs the worker on the session's agent until its turn ends.  The end,
 * or WORKER_FAILED with err. */
static enum worker_end run_worker(struct explain *x, const char *brief, char *err, size_t errlen)
{
	long long deadline = x->deadline_ms = hb_monotonic_ms() + (long long)(x->minutes * 60 * 1000);
	int codex = strcmp(hb_call_context(x->call)->agent, "codex") == 0;
	char scratch[HB_PATH_MAX] = "";
	/* A Claude worker must not run as a child session of a Claude Code
	 * that started the broker: its transcript would not be saved. */
	char **envp = hb_env_without_secrets(environ, hb_claude_child_markers), **private_env = NULL;
	enum worker_end end = WORKER_FAILED;

	if (!envp) {
		snprintf(err, errlen, "out of memory");
		return WORKER_FAILED;
	}
	/* what the agent keeps of a turn besides its history goes to a
	 * folder of its own, removed below (worker_scratch.h) */
	if (worker_scratch_make(&x->paths, scratch, sizeof scratch, err, errlen) < 0)
		goto out;
	if (!(private_env = hb_env_with(envp, codex ? "CODEX_SQLITE_HOME" : "XDG_CACHE_HOME", scratch))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (codex)
		end = run_codex(x, private_env, brief, deadline, err, errlen);
	else
		end = run_claude(x, private_env, brief, deadline, err, errlen);
out:
	worker_scratch_remove(scratch, hb_call_context(x->call)->key);
	free(private_env);
	free(envp); /* one allocation each */
	return end;
}

/* The review the answer carries: what was checked, and what was not. */
static json_t *review(const struct explain *x)
{
	char checks[3][256];

	snprintf(checks[0], sizeof checks[0], "Every scene passed the renderer's checks (SVG structure, "
		 "references, fonts, SMIL animation).");
	snprintf(checks[1], sizeof checks[1], "The worker looked at the rendered start and end frame of all %ld "
		 "scenes after their last change.", x->scenes);
	snprintf(checks[2], sizeof checks[2], "The narrated length, %.1f s, is within 30-120 s.", x->seconds);
	return json_pack("{s:[s,s,s], s:[s,s,s]}", "checks", checks[0], checks[1], checks[2], "limitations",
			 "The facts were not verified by HB Code: the video shows what the worker made of the "
			 "facts and sources it was given.",
			 "Nobody has watched the whole video: the worker reviewed still frames, not the motion "
			 "between them.",
			 "The narration is synthesized speech; names, numbers and foreign words may be "
			 "pronounced wrongly.");
}

/* The call's answer once the worker has ended. */
static int answer(struct explain *x, enum worker_end end, const char *werr)
{
	char text[3072];

	if (x->finished) {
		json_t *r = review(x);
		char *json = r ? videos_answer_text(&x->entry, r) : NULL;
		json_decref(r);
		explain_publish_end(x, NULL);
		if (!json)
			return hb_call_fail(x->call, "out of memory after the video was saved");
		hb_call_succeed(x->call, json);
		free(json);
		return 0;
	}
	if (x->fatal[0])
		snprintf(text, sizeof text, "%s", x->fatal);
	else if (end == WORKER_CANCELLED)
		snprintf(text, sizeof text, "Run stopped.");
	else if (end == WORKER_TIMED_OUT || x->time_up)
		snprintf(text, sizeof text, "The explainer worker did not finish in time (its limit is %g minutes, "
			 "setting explainerWorkerMinutes), so no video was made%s%s", x->minutes,
			 x->last_finish[0] ? ". Its last finish failed: " : ".", x->last_finish);
	else if (end == WORKER_FAILED)
		snprintf(text, sizeof text, "The explainer worker failed: %s", werr);
	else if (x->last_finish[0])
		snprintf(text, sizeof text, "The explainer worker stopped without a finished video. Its last "
			 "finish failed: %s", x->last_finish);
	else
		snprintf(text, sizeof text, "The explainer worker stopped without calling finish, so no video was "
			 "made.");
	explain_publish_end(x, text);
	return hb_call_fail(x->call, text);
}

/* The entry is open: the worker, the answer, and the entry settled. */
static int with_entry(struct explain *x, const struct explain_args *a, int revising)
{
	char err[1024] = "", setting[64], style_value[64];
	struct brief_input bi = { 0 };
	enum reply_style style;
	enum worker_end end = WORKER_FAILED;
	char *brief = NULL;
	int rc, resized = choose_canvas(x, a);

	if (make_workdir(x, err, sizeof err) < 0 ||
	    hb_settings_param_number(&x->paths, HB_PARAM_EXPLAINER_WORKER_MINUTES, &x->minutes, err, sizeof err) < 0 ||
	    hb_settings_param_string(&x->paths, HB_PARAM_EXPLAINER_VOICE, setting, sizeof setting, err, sizeof err) < 0 ||
	    hb_settings_param_string(&x->paths, HB_PARAM_REPLY_STYLE, style_value, sizeof style_value, err,
				     sizeof err) < 0 ||
	    reply_style_parse(style_value, &style, err, sizeof err) < 0) {
		explain_publish_end(x, err);
		return hb_call_fail(x->call, err);
	}
	snprintf(x->voice, sizeof x->voice, "%s", setting);
	x->workdir = x->entry.next_source;
	bi.question = a->question;
	bi.facts = a->facts;
	bi.sources = a->sources;
	bi.nsources = a->nsources;
	bi.revision = revising;
	bi.minutes = x->minutes;
	bi.finish_attempts = EXPLAIN_FINISH_ATTEMPTS;
	bi.narration = reply_style_narration(style);
	bi.width = x->entry.record.width;
	bi.height = x->entry.record.height;
	bi.fps = x->entry.record.fps;
	bi.canvas_changed = revising && resized;
	if (!(brief = brief_write(&bi))) {
		explain_publish_end(x, "out of memory");
		return hb_call_fail(x->call, "out of memory");
	}
	explain_publish(x, "worker starting");
	log_info(hb_call_context(x->call)->key, "explainer: the worker starts; its time limit is %g minutes",
		 x->minutes);
	end = run_worker(x, brief, err, sizeof err);
	free(brief);
	log_info(hb_call_context(x->call)->key, "explainer: the worker ended (%d) after %u tool calls%s%s", (int)end,
		 x->tool_calls, err[0] ? ": " : "", err);
	rc = answer(x, end, err);
	/* A finished revision moved the folder into place; anything else
	 * leaves the entry as it was before the call. */
	if (!x->finished && videos_abort_revision(&x->entry, err, sizeof err) < 0)
		log_warn(hb_call_context(x->call)->key, "explainer: %s", err);
	return rc;
}

int explain_create(struct hb_call *call, const json_t *args)
{
	const struct hb_call_context *ctx = hb_call_context(call);
	char key[HB_GEMINI_KEY_MAX + 1], err[1024];
	struct explain_args a;
	struct explain x;
	int rc;

	memset(&x, 0, sizeof x);
	x.call = call;
	x.entry.lock_fd = -1;
	if (hb_paths_resolve(&x.paths, err, sizeof err) < 0)
		return hb_call_fail(call, err);
	if ((rc = hb_settings_gemini_key(&x.paths, key, sizeof key, err, sizeof err)) != 0)
		return hb_call_fail(call, rc > 0 ? HB_GEMINI_NO_KEY : err);
	memset(key, 0, sizeof key); /* svc-speech reads it again for each narration */
	if (read_args(args, &a, err, sizeof err) < 0)
		return hb_call_failf(call, "create_explainer_video: %s", err);
	if (!*ctx->session || (strcmp(ctx->agent, "codex") != 0 && strcmp(ctx->agent, "claude") != 0))
		return hb_call_fail(call, "create_explainer_video runs its worker on the agent and model of the "
					  "calling session: call it from a Codex or Claude session's run.");
	if (a.video_path ? videos_find(&x.paths, ctx->session, a.video_path, &x.entry, err, sizeof err)
			 : videos_create(&x.paths, ctx->session, a.question, &x.entry, err, sizeof err))
		return hb_call_fail(call, err);
	x.burn_captions = a.burn_captions;
	rc = with_entry(&x, &a, a.video_path != NULL);
	open_row_end(&x.open_row); /* every way out has sent its last row */
	if (!x.finished && !x.entry.has_video && videos_discard(&x.entry, err, sizeof err) < 0)
		log_warn(ctx->key, "explainer: the unfinished entry could not be removed: %s", err);
	videos_close(&x.entry);
	explain_seen_free(&x);
	return rc;
}
