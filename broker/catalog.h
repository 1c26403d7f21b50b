/*
 * catalog - build_app_capabilities: the tools an agent gets, from the one
 * tool table and the settings of this moment, in the two forms the agents
 * take: Codex `dynamicTools` (the canonical namespace form) and Claude
 * `appCapabilities` with each tool's approval class plus `allowedTools`.
 */
#ifndef HB_CATALOG_H
#define HB_CATALOG_H

#include <stddef.h>

#include "paths.h"

/* agent "codex" or "claude"; a malloc'd JSON text, or NULL with err. */
char *catalog_build(const struct hb_paths *p, const char *agent, char *err, size_t errlen);

#endif
