/*
 * tool - the tool use_user_browser.
 */
#ifndef BROWSER_TOOL_H
#define BROWSER_TOOL_H

#include "service.h"

int browser_tool(struct hb_call *call, const json_t *args);
/* The types and sizes of every field, and the action's name (borrowed
 * from args): 0, or -1 with the tool error in err.  Whether the action
 * exists is the tool's own check.  Exported for the fuzz target of the
 * tools' arguments. */
int browser_check_args(const json_t *args, const char **action, char *err, size_t errlen);

#endif
