/*
 * svc-sessions - the service that owns appdata.db: session lookup for agents
 * (maintain_sessions), session changes (manage_sessions) and the broker's
 * internal requests (the underscore operations): thread and Claude links,
 * and the session a run.open names.
 */
#include "appdata_readers.h"
#include "handlers.h"
#include "service.h"

static const struct hb_service_tool tools[] = {
	{ "maintain_sessions", handle_maintain_sessions },
	{ "manage_sessions", handle_manage_sessions },
	{ "_resolve_thread", handle_resolve_thread },
	{ "_link_thread", handle_link_thread },
	{ "_link_claude", handle_link_claude },
	{ "_session_info", handle_session_info },
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
