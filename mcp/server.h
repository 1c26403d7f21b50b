/*
 * server - what hb-mcp answers: one message of the client at a time
 * (initialize, ping, tools/list, tools/call, the notifications), and the
 * look at the settings that sends notifications/tools/list_changed.
 */
#ifndef HB_MCP_SERVER_H
#define HB_MCP_SERVER_H

#include <jansson.h>
#include <stddef.h>

#include "mcp.h"

/* m's hooks (mcp.h): the broker's replies to calls.c, its events to
 * calls.c and approval.c, its going to both. */
void server_init(struct mcp *m);
/* One line from the client; answers it (or not: a notification). */
void server_line(struct mcp *m, const char *line, size_t len);
/* The initialize result for params (a new reference), noting the
 * client's name and elicitation capability in m. */
json_t *server_initialize(struct mcp *m, const json_t *params);
/* How often the settings folder is looked at for a change of the list
 * where it has no watch (or the catalog did not answer after a change). */
#define SERVER_SETTINGS_LOOK_MS 1000
/* The descriptor of the settings folder's watch to poll for POLLIN, or -1. */
int server_settings_fd(const struct mcp *m);
/* How long the loop may sleep for the settings' sake: -1 for ever (no
 * list given yet, or a watch that wakes it), else ms. */
int server_settings_wait_ms(const struct mcp *m);
/* Look whether the settings changed the tool list; send list_changed
 * when the list really differs from what the client was given. */
void server_look_at_settings(struct mcp *m);
/* Close the settings folder's watch. */
void server_free(struct mcp *m);

#endif
