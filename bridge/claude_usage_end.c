/*
 * claude_usage_end - hb-claude-bridge's one part in the usage reading:
 * removing it when the run ends.  Runs use the default account (this
 * computer's Claude sign-in) only, until added accounts exist.
 */
#include "claude_usage.h"
#include "claude_usage_end.h"
#include "log.h"

void claude_usage_run_ended(void)
{
	struct hb_paths paths;
	char err[512];

	if (hb_paths_resolve(&paths, err, sizeof err) < 0 ||
	    hb_claude_usage_forget(&paths, HB_CLAUDE_DEFAULT_ACCOUNT, err, sizeof err) < 0)
		log_warn(NULL, "the usage reading is not cleared: %s", err);
}
