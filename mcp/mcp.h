/*
 * mcp - the state of hb-mcp, the MCP stdio server (docs/mcp.md): one MCP
 * client on stdin/stdout, one run of hb-broker.  Every part of hb-mcp
 * (jsonrpc.c, tools.c, link.c, calls.c, approval.c, main.c) works on this
 * one struct, which main owns.
 */
#ifndef HB_MCP_H
#define HB_MCP_H

#include <jansson.h>
#include <stdint.h>

#include "client.h"

#define MCP_NAME "hb-mcp"
#define MCP_VERSION "0.1.0"

struct mcp_call;
struct mcp_ask;
struct mcp;
struct hb_dirwatch;
struct hb_env;

/* What the broker's link (link.c) hands on, set by server.c: a reply no
 * request of link.c waits for, an event, and the broker gone (why says
 * so).  So link.c knows nothing of the calls and the cards it carries. */
struct mcp_hooks {
	void (*reply)(struct mcp *m, const struct hb_env *reply);
	void (*event)(struct mcp *m, const char *topic, const json_t *body);
	void (*gone)(struct mcp *m, const char *why);
};

struct mcp {
	/* The command line. */
	const char *session_opt;        /* --session ID, or NULL: hb-mcp's own session */
	const char *access;             /* --access LEVEL */
	int no_elicitation;             /* --no-elicitation: cards never go to the client */
	int out_fd;                     /* protocol only: stdout */

	/* What the client said in initialize. */
	int initialized;                /* initialize answered */
	char protocol[16];              /* the negotiated revision */
	char client_name[128];
	int elicitation;                /* the client declared elicitation */
	int64_t next_out_id;            /* ids of hb-mcp's own requests to the client */

	/* The broker (link.c), and what it hands on. */
	struct mcp_hooks hooks;
	struct hb_client client;
	int connected;                  /* client open */
	void *ev_ctx, *sub;             /* events.sock */
	char run[64];                   /* this connection's run id */
	char session[128];              /* its session */
	int run_open;                   /* opened in the broker we talk to now */

	/* The tools/list the client saw last (tools.c), compact JSON text,
	 * and the look at the settings that may change it (server.c). */
	char *listing;
	struct hb_dirwatch *settings_watch; /* the config folder's watch, or NULL: a look on the timer */
	int settings_unwatchable;       /* the system has no watch (ENOSYS): never try again */
	int settings_unread;            /* a change the catalog could not be asked about yet */
	long long next_settings_look;   /* monotonic ms */
	char settings_stamp[96];        /* the config folder as last seen (without a watch) */

	struct mcp_call *calls;         /* tools/call in flight (calls.c) */
	unsigned long next_call;        /* the N of their call ids, mcp-N */
	struct mcp_ask *asks;           /* elicitations in flight (approval.c) */
};

#endif
