/*
 * tool - the tool use_user_browser.
 */
#ifndef BROWSER_TOOL_H
#define BROWSER_TOOL_H

#include "service.h"

int browser_tool(struct hb_call *call, const json_t *args);

#endif
