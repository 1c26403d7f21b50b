/*
 * message_row - a message from another session as an agent communication
 * row: the <session_message from_session_id=… from_title=… from_agent=…>
 * envelope of docs/messages.md, read back out of the user text both agents
 * receive.  One reader for both projectors.
 */
#ifndef HB_TIMELINE_MESSAGE_ROW_H
#define HB_TIMELINE_MESSAGE_ROW_H

#include <jansson.h>

/* Whether text holds an envelope. */
int tl_is_session_message(const char *text);
/* Set fromSession, fromTitle, fromAgent (XML entities decoded) and text
 * (the message between the tags, surrounding newlines dropped) on row. */
void tl_session_message_fields(json_t *row, const char *text);

#endif
