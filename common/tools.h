/*
 * tools - the one table of the hbcode tools an agent can call.
 *
 * Each entry names the tool, the family (the service that serves it), its
 * approval class, the condition under which the catalog lists it, the
 * description the model reads and the input JSON Schema.  The broker, the
 * catalog and the services all read this table; nothing else repeats it.
 */
#ifndef HB_TOOLS_H
#define HB_TOOLS_H

#include <stddef.h>

#include "settings.h"

enum hb_approval_class { HB_CLASS_READ_ONLY, HB_CLASS_DESKTOP, HB_CLASS_AGENT };
enum hb_list_condition { HB_LIST_ALWAYS, HB_LIST_GEMINI_KEY, HB_LIST_NOTIFICATIONS };

struct hb_tool_def {
	const char *name;
	const char *family;        /* service name, e.g. "svc-sessions" */
	enum hb_approval_class approval;
	enum hb_list_condition listed;
	const char *description;
	const char *input_schema;  /* JSON Schema text */
};

const struct hb_tool_def *hb_tool_find(const char *name);
/* The whole table; *n gets its length. */
const struct hb_tool_def *hb_tools_all(size_t *n);
const char *hb_approval_class_name(enum hb_approval_class c);
/* The description the model reads: the "Agent notifications" policy
 * changes send_mobile_notification's, and only that one. */
const char *hb_tool_description(const struct hb_tool_def *t, enum hb_notify_policy policy);
/* Whether the catalog lists t under these settings (build_app_capabilities). */
int hb_tool_listed(const struct hb_tool_def *t, const struct hb_settings *s);
const char *hb_list_condition_name(enum hb_list_condition c);

#endif
