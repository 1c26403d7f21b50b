/*
 * claude_usage_end - hb-claude-bridge's one part in the usage reading:
 * removing the reading of the run's account when the run ends.
 */
#include "claude_usage.h"
#include "claude_usage_end.h"
#include "log.h"

void claude_usage_run_ended(const char *account)
{
	struct hb_paths paths;
	char err[512];

	if (hb_paths_resolve(&paths, err, sizeof err) < 0 ||
	    hb_claude_usage_forget(&paths, account, err, sizeof err) < 0)
		log_warn(NULL, "the usage reading is not cleared: %s", err);
}
