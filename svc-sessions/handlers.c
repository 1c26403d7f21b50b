/*
 * handlers - the service side of the svc-sessions tools.
 *
 * A write opens its own connection and closes it before answering.  A
 * read takes a read-only connection kept open between calls (the readers
 * main owns, appdata_readers.c) and gives it back: calls run on a worker
 * pool, and a connection taken by one call at a time keeps threads from
 * ever sharing one, without opening the file again for every lookup.
 *
 * Who calls comes from the call's context, which the broker fills from its
 * binding and never from the arguments: an agent's call always carries its
 * agent (codex, claude; a run's calls their run's), so a call with neither
 * agent nor run is the user's (a plain front call without a run: hbctl).
 */
#include "handlers.h"

#include "appdata.h"
#include "appdata_readers.h"
#include "json.h"
#include "log.h"
#include "paths.h"
#include "session_info.h"
#include "session_lookup.h"
#include "session_manage.h"
#include "thread_links.h"

#include <stdlib.h>

#define ERROR_LEN 1024

enum connection_kind { CONNECTION_READ_ONLY, CONNECTION_READ_WRITE };

/* On failure: NULL with err, and *code set for a failure the broker tells
 * apart (fail_codes.h). */
typedef json_t *(*run_fn)(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx,
			  const char **code, char *err, size_t errlen);

/* A string result is text for the model; anything else is sent as JSON. */
static int answer(struct hb_call *call, json_t *result)
{
	if (json_is_string(result))
		return hb_call_succeed(call, json_string_value(result));
	char *text = hb_json_dump(result);
	if (!text)
		return hb_call_fail(call, "out of memory while writing the answer");
	int rc = hb_call_succeed(call, text);
	free(text);
	return rc;
}

static int run_on_appdata(struct hb_call *call, const json_t *args, enum connection_kind kind, run_fn run)
{
	const struct hb_call_context *ctx = hb_call_context(call);
	char path[HB_PATH_MAX], err[ERROR_LEN];
	if (appdata_default_path(path, sizeof path, err, sizeof err) != 0) {
		log_error(ctx->key, "%s", err);
		return hb_call_fail(call, err);
	}
	struct appdata_readers *readers = hb_call_service_arg(call);
	struct appdata_reader reader = { 0 };
	sqlite3 *db = NULL;

	if (kind == CONNECTION_READ_ONLY && readers)
		db = appdata_readers_take(readers, path, &reader, err, sizeof err) == 0 ? reader.db : NULL;
	else
		db = kind == CONNECTION_READ_ONLY ? appdata_open_ro(path, err, sizeof err)
						  : appdata_open_rw(path, err, sizeof err);
	if (!db) {
		log_error(ctx->key, "%s", err);
		return hb_call_fail(call, err);
	}
	const char *code = NULL;
	json_t *result = run(db, args, ctx, &code, err, sizeof err);
	if (reader.db)
		appdata_readers_give(readers, &reader);
	else
		appdata_close(db);
	if (!result) {
		log_info(ctx->key, "%s failed: %s", ctx->tool, err);
		return code ? hb_call_fail_code(call, code, err) : hb_call_fail(call, err);
	}
	int rc = answer(call, result);
	json_decref(result);
	return rc;
}

/* Adapters to one signature: the lookup uses the caller's project, the
 * changes who the caller is. */
static json_t *run_lookup(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx, const char **code,
			  char *err, size_t errlen)
{
	(void)code;
	return session_lookup_run(db, args, ctx->project, err, errlen);
}

static json_t *run_manage(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx, const char **code,
			  char *err, size_t errlen)
{
	(void)code;
	const struct session_caller caller = { *ctx->agent || *ctx->run, ctx->access };

	return session_manage_run(db, args, &caller, err, errlen);
}

static json_t *run_resolve_thread(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx,
				  const char **code, char *err, size_t errlen)
{
	(void)ctx;
	return thread_links_resolve(db, args, code, err, errlen);
}

static json_t *run_link_thread(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx,
			       const char **code, char *err, size_t errlen)
{
	(void)ctx;
	(void)code;
	return thread_links_link_thread(db, args, err, errlen);
}

static json_t *run_link_claude(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx,
			       const char **code, char *err, size_t errlen)
{
	(void)ctx;
	return thread_links_link_claude(db, args, code, err, errlen);
}

static json_t *run_session_info(sqlite3 *db, const json_t *args, const struct hb_call_context *ctx,
			       const char **code, char *err, size_t errlen)
{
	(void)ctx;
	(void)code;
	return session_info_run(db, args, err, errlen);
}

int handle_maintain_sessions(struct hb_call *call, const json_t *args)
{
	return run_on_appdata(call, args, CONNECTION_READ_ONLY, run_lookup);
}

int handle_manage_sessions(struct hb_call *call, const json_t *args)
{
	return run_on_appdata(call, args, CONNECTION_READ_WRITE, run_manage);
}

int handle_resolve_thread(struct hb_call *call, const json_t *args)
{
	return run_on_appdata(call, args, CONNECTION_READ_ONLY, run_resolve_thread);
}

int handle_link_thread(struct hb_call *call, const json_t *args)
{
	return run_on_appdata(call, args, CONNECTION_READ_WRITE, run_link_thread);
}

int handle_link_claude(struct hb_call *call, const json_t *args)
{
	return run_on_appdata(call, args, CONNECTION_READ_WRITE, run_link_claude);
}

int handle_session_info(struct hb_call *call, const json_t *args)
{
	return run_on_appdata(call, args, CONNECTION_READ_ONLY, run_session_info);
}
