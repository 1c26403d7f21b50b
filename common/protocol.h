/*
 * protocol - the names of the operations on the broker's sockets and of
 * the broker's own (internal) tools, spelled once.  The broker, hbctl,
 * the bridges and the services name an op or an internal tool through
 * these, never as a free string, so a misspelt name fails to compile
 * instead of being answered unknown-op at run time.
 *
 * The fields of each op are in its row (broker/front.c, broker/back.c,
 * common/broker_ops.c; opfields.h); what each op means is in
 * docs/protocol.md.
 */
#ifndef HB_PROTOCOL_H
#define HB_PROTOCOL_H

/* Client -> broker, on front.sock (broker/front.c's table). */
#define HB_OP_HELLO "hello"
#define HB_OP_STATUS "status"
#define HB_OP_CATALOG "catalog"
#define HB_OP_CALL "call"
#define HB_OP_CANCEL "cancel"
#define HB_OP_CODEX_CALL "codex.call"
#define HB_OP_CODEX_CANCEL "codex.cancel"
#define HB_OP_CLAUDE_CALL "claude.call"
#define HB_OP_CLAUDE_CANCEL "claude.cancel"
#define HB_OP_CLAUDE_LINK "claude.link"
#define HB_OP_CLAUDE_PERMISSION "claude.permission"
#define HB_OP_CODEX_APPROVAL "codex.approval"
#define HB_OP_THREAD_LINK "thread.link"
#define HB_OP_APPROVAL_LIST "approval.list"
#define HB_OP_APPROVAL_RESOLVE "approval.resolve"
#define HB_OP_RUN_CHAT_RESOLVE_APPROVAL "run.chatResolveApproval"
#define HB_OP_RUN_OPEN "run.open"
#define HB_OP_RUN_CLOSE "run.close"
#define HB_OP_RUN_STOP "run.stop"
#define HB_OP_SESSION_ATTACH "session.attach"
#define HB_OP_SESSION_DETACH "session.detach"
#define HB_OP_DELIVER_DONE "deliver.done"
#define HB_OP_TIMELINE_PUBLISH "timeline.publish"
#define HB_OP_MESSAGES_LIST "messages.list"
#define HB_OP_MESSAGES_SEND "messages.send"
#define HB_OP_MESSAGES_DISCARD "messages.discard"
#define HB_OP_SERVICE_RESTART "service.restart"
#define HB_OP_SERVICE_REPLACE "service.replace"
#define HB_OP_SERVICE_STOP "service.stop"
#define HB_OP_SERVICE_START "service.start"

/* Broker -> client, on front.sock and events.sock (common/broker_ops.c's
 * client table).  A bridge gets deliver unasked. */
#define HB_OP_REPLY "reply"
#define HB_OP_DELIVER "deliver"
#define HB_OP_EVENT "event"

/* Service -> broker, on back.sock (broker/back.c's table); event,
 * deliver and run.chatResolveApproval (the approvalTask's) are spelled
 * above. */
#define HB_OP_READY "ready"
#define HB_OP_WORKER "worker"
#define HB_OP_HEARTBEAT "heartbeat"
#define HB_OP_RESULT "result"
#define HB_OP_PROGRESS "progress"
#define HB_OP_SUBCALL "subcall"
#define HB_OP_REPORT "report"
#define HB_OP_RENEW "renew"
#define HB_OP_APPROVAL_SYNC "approval.sync"
#define HB_OP_IDLE_ANSWER "idle.answer"

/* Broker -> service, on back.sock (common/broker_ops.c's service table);
 * call and cancel are spelled above. */
#define HB_OP_SUBCALL_RESULT "subcall.result"
#define HB_OP_DELIVER_RESULT "deliver.result"
#define HB_OP_SESSION_ATTACHED "session.attached"
#define HB_OP_APPROVAL_CARD "approval.card"
#define HB_OP_APPROVAL_ANSWERED "approval.answered"
#define HB_OP_APPROVAL_CARDS "approval.cards"
#define HB_OP_IDLE_ASK "idle.ask"

/* The broker's own requests to a service: tools whose names start with
 * "_", which no client may call from the front (route.c).  svc-sessions
 * serves the first four, svc-messages the rest. */
#define HB_TOOL_RESOLVE_THREAD "_resolve_thread"
#define HB_TOOL_LINK_THREAD "_link_thread"
#define HB_TOOL_LINK_CLAUDE "_link_claude"
#define HB_TOOL_SESSION_INFO "_session_info"
#define HB_TOOL_MESSAGES_LIST "_messages_list"
#define HB_TOOL_MESSAGES_SEND "_messages_send"
#define HB_TOOL_MESSAGES_DISCARD "_messages_discard"

#endif
