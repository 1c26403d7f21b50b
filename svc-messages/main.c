/*
 * svc-messages - messages between HB Code sessions: the tool
 * send_session_message, the user's queue (the underscore tools behind
 * hbctl messages), and the delivery loop that carries the outbox to the
 * recipients' bridges through the broker.
 */
#include "admin.h"
#include "outbox.h"
#include "send.h"
#include "service.h"
#include "protocol.h"

static const struct hb_service_tool tools[] = {
	{ "send_session_message", handle_send_session_message },
	{ HB_TOOL_MESSAGES_LIST, handle_messages_list },
	{ HB_TOOL_MESSAGES_SEND, handle_messages_send },
	{ HB_TOOL_MESSAGES_DISCARD, handle_messages_discard },
	{ NULL, NULL },
};

static const struct hb_service_spec spec = {
	.name = "svc-messages",
	.tools = tools,
	.task = outbox_run,
	.task_delivers = 1,
	.task_idles = 1,
};

int main(int argc, char **argv)
{
	return hb_service_run(argc, argv, &spec);
}
