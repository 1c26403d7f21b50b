/*
 * handlers - the svc-sessions tool handlers, as main.c lists them.
 *
 * Thin wrappers: each opens appdata.db (read-only for lookups, read-write
 * for changes), runs the matching pure function and turns its JSON or error
 * into the call's answer.  The behaviour lives in session_lookup,
 * session_manage, session_info and thread_links, which unit tests call directly.
 */
#ifndef SESSIONS_HANDLERS_H
#define SESSIONS_HANDLERS_H

#include "service.h"

int handle_maintain_sessions(struct hb_call *call, const json_t *args);
int handle_manage_sessions(struct hb_call *call, const json_t *args);
int handle_resolve_thread(struct hb_call *call, const json_t *args);
int handle_link_thread(struct hb_call *call, const json_t *args);
int handle_link_claude(struct hb_call *call, const json_t *args);
int handle_session_info(struct hb_call *call, const json_t *args);

#endif
