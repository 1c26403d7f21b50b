/*
 * fail_codes - the typed failure codes a service gives with a failed
 * `result` (its `code` field), for the failures the broker acts on.
 *
 * The broker knows services only through the protocol: it never reads a
 * service's sentences for meaning, so a failure it must tell apart has a
 * code of its own here, set with hb_call_fail_code.
 */
#ifndef HB_FAIL_CODES_H
#define HB_FAIL_CODES_H

/* _resolve_thread: the Codex thread is not linked to a HB Code session (yet). */
#define HB_FAIL_NOT_LINKED "not-linked"
/* _link_claude: the Claude conversation belongs to another HB Code session;
 * the broker answers the bridge "conflict", and it ends the run instead of
 * writing into another session's conversation. */
#define HB_FAIL_LINK_TAKEN "link-taken"

/* The service asked to be started anew (hb_call_ask_renew) because this
 * call needs what only a new generation may reach: the broker gives the
 * call to that generation once it is ready, once, instead of answering. */
#define HB_FAIL_RENEW "renew"

#endif
