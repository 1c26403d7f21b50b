/*
 * svc-sessions - the service that owns appdata.db: session lookup for agents
 * (maintain_sessions), session changes (manage_sessions) and the broker's
 * internal requests (the underscore operations): thread and Claude links,
 * and the session a run.open names.
 */
#include "appdata_readers.h"
#include "handlers.h"
#include "service.h"
#include "protocol.h"

static const struct hb_service_tool tools[] = {
	{ "maintain_sessions", handle_maintain_sessions },
	{ "manage_sessions", handle_manage_sessions },
	{ HB_TOOL_RESOLVE_THREAD, handle_resolve_thread },
	{ HB_TOOL_LINK_THREAD, handle_link_thread },
	{ HB_TOOL_LINK_CLAUDE, handle_link_claude },
	{ HB_TOOL_SESSION_INFO, handle_session_info },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	/* Read-only connections kept open between lookups (the handlers
	 * reach them as the service's shared state). */
	struct appdata_readers readers;
	struct hb_service_spec spec = { .name = "svc-sessions", .tools = tools, .task_arg = &readers };
	int rc;

	if (appdata_readers_init(&readers) < 0)
		return 1;
	rc = hb_service_run(argc, argv, &spec);
	appdata_readers_free(&readers);
	return rc;
}
