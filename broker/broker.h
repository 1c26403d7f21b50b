/*
 * broker - the types the kernel's modules share: services and their
 * incarnations (instances), calls in flight, and the broker itself.
 *
 * Ownership: struct broker (in main) owns the services array; a service
 * owns its instances (cur serving, next starting as its replacement,
 * and a list of old ones draining); the broker's call table owns every call, and
 * a call is linked on exactly one list: its service's wait queue or its
 * instance's in-flight list.  Every child process (an instance, a
 * launched bridge) is in the broker's one child table (children.h) from
 * its fork to its reap.  invariants.c checks these with HB_ASSERT.
 */
#ifndef HB_BROKER_H
#define HB_BROKER_H

#include <stdint.h>
#include <sys/types.h>

#include "children.h"
#include "clock.h"
#include "config.h"
#include "map.h"
#include "paths.h"
#include "sock.h"
#include "wait.h"

#define WAKE_DIRS 4 /* one per enum hb_dir (paths.h) */

struct hb_dirwatch;

#define BROKER_VERSION "0.1.0"

struct broker;
struct service;
struct call;
struct run;
struct approval;
struct attachment;
struct launch;

/* A request id from a client, echoed back with its own type. */
struct reqid {
	int is_str;
	int64_t i;
	char s[64];
};

/* A worker of an instance: a thread of hb_service_run takes one call at
 * a time (1 slot); an event-driven worker may announce more slots. */
struct worker {
	struct hb_peer peer;
	int slots, busy;
	int gone;                  /* a send to it failed: never used again */
};

struct instance {
	struct service *svc;
	unsigned gen;
	pid_t pid;
	char id[96];               /* its name in logs and status, "svc-sessions#3" */
	char rid[136];             /* its routing id, id + "~" + 32 random hex digits: a
				    * process cannot take a future generation's id first */
	char exec[CONFIG_PATH_MAX];
	int ready;
	int hung;                  /* killed for missing heartbeats, or held_call */
	int renew_asked;           /* it asked to be started anew (once a generation) */
	int held_call;             /* killed for a worker held past the call-limit */
	int term_sent;
	int idle_stop;             /* stopped for want of calls (an idling service) */
	long long quiet_since_ms;  /* no call in flight nor waiting since then; 0: busy */
	long long started_ms, last_beat_ms, kill_at_ms; /* last_beat_ms: or its first call after a quiet time */
	unsigned long beats;       /* heartbeat frames received (it beats only while it has calls) */
	long long held_since_ms;   /* its heartbeat: the longest call in flight began then; 0: none */
	char held_key[24];         /* that call's key */
	char held_tool[64];        /* its tool, when the broker still has the call */
	struct call *calls;        /* in flight here */
	unsigned inflight;
	struct worker *workers;    /* as they announce themselves */
	int nworkers, maxworkers;
	int slots, busy;           /* over all workers */
	int overflow, queued;      /* calls the loop may hold for busy workers */
	char delivery_task[192];   /* routing id of its task that carries session messages, or "" */
	char approval_task[192];   /* routing id of its task that hears of approval cards and may
				      answer an open one (svc-alerts, for a phone), or "" */
	char idle_task[192];       /* routing id of its task that says whether it holds work
				      before an idle stop (idle.c), or "" */
	uint64_t idle_ask;         /* the idle.ask out to that task, 0: none (a call voids it) */
	int holds_work;            /* that task's last answer: 1, 0, or -1 never asked */
	char holds_why[256];       /* and why */
	char *report;              /* its latest report (report.c), JSON object text, or NULL */
	struct instance *older;    /* next in the service's draining list */
	struct broker_child child; /* its entry in the broker's child table */
};

struct service {
	const struct service_config *cfg;
	char exec[CONFIG_PATH_MAX];     /* replace changes it */
	struct instance *cur, *next;
	struct instance *old;           /* draining generations, newest first */
	unsigned gen, restarts, consecutive;
	unsigned idle_stops;            /* start = demand: stopped after idle this often */
	int idle_last;                  /* its last instance ended by such a stop */
	int wake_pending;               /* its wake folder changed while it was stopped: start it */
	int admin_stopped, crashloop;
	long long restart_at_ms;        /* 0: no restart scheduled */
	long long last_death_ms;
	char last_exit[512];
	unsigned long served;
	struct call *wait_head, *wait_tail;
	/* an admin request answered when the replacement is ready */
	int admin_waiting;
	struct hb_peer admin_peer;
	struct reqid admin_id;
	char admin_op[24];
};

enum call_origin { FROM_FRONT, FROM_SERVICE, FROM_BROKER };
enum call_state { CALL_RESOLVING, CALL_WAITING, CALL_SENT };
/* The shape of a front answer: plain, or the agent's own (call.c). */
enum answer_form { FORM_PLAIN, FORM_CODEX, FORM_CLAUDE };

/* code: the service's fail_codes.h code of a failure, or NULL. */
typedef void (*call_done_fn)(struct broker *b, void *arg, int ok, const char *code, const char *text);

/* Who gets the answer of a call: the requester, and each duplicate of it
 * that joined while it was in flight. */
struct waiter {
	enum call_origin origin;
	struct hb_peer peer;            /* front client, or the calling instance */
	struct reqid id;                /* FROM_FRONT */
	enum answer_form form;
	char *native_id;                /* JSON text of the JSON-RPC id or requestId */
	char parent_key[24], sub[24];   /* FROM_SERVICE */
	call_done_fn done;              /* FROM_BROKER */
	void *arg;
	struct waiter *next;
};

struct call {
	char key[24];
	enum call_state state;
	struct waiter *waiters;         /* the first is the requester */
	char *identity;                 /* the agent's call identity, or NULL */
	struct service *svc;
	struct instance *inst;          /* CALL_SENT */
	int worker;                     /* index in inst->workers, -1 for overflow */
	unsigned min_gen;               /* waiting: only a generation this new may take it (renew) */
	long long start_ms, wait_deadline_ms;
	char *strings;                  /* tool and args */
	char *ctx_strings;              /* the context, once it is known */
	const char *tool, *args, *session, *run, *project, *agent, *access, *call_id, *model;
	char fail_code[32];             /* the service's typed failure code, or "" */
	const char *images;             /* the result's images (images.h), borrowed while it is answered */
	/* Told when the call ends, however it ends (answered, cancelled,
	 * failed), before it is freed: a call held for an approval card has
	 * its card withdrawn so (approvals.c); NULL for the others. */
	void (*on_end)(struct broker *b, const struct call *c);
	struct call *prev, *next;       /* the wait queue or the instance's list */
};

struct broker_settings {
	int heartbeat_ms;       /* services beat this often while they have calls */
	int hang_ms;            /* no beat for this long with calls in flight: hung */
	int start_timeout_ms;   /* started but not ready: hung */
	int call_wait_ms;       /* a call waits this long for a restarting service */
	int healthy_ms;         /* up this long: the backoff starts again */
	int backoff_base_ms, backoff_cap_ms;
	int crashloop_after;    /* this many quick deaths in a row */
	int stop_grace_ms;      /* TERM to KILL for a service */
	int shutdown_grace_ms;  /* calls in flight get this long at SIGTERM */
	int attach_ttl_ms;      /* a bridge that stopped attaching is gone */
	int launch_attach_ms;   /* a bridge the broker started must attach within this */
	int launch_retry_ms;    /* a start that failed: the next one waits this */
};

struct broker {
	void *zctx, *front, *back, *pub;
	struct broker_wait wait;        /* sockets to read (wait.c) */
	struct hb_paths paths;
	char lock_path[HB_PATH_MAX];
	char sock_paths[3][HB_PATH_MAX];
	struct broker_config cfg;
	struct broker_settings set;
	struct service services[CONFIG_MAX_SERVICES];
	int nservices;
	struct hb_map calls;            /* key -> call */
	struct hb_map identities;       /* agent call identity -> call */
	struct hb_map thread_sessions;  /* Codex thread -> session (intake.c) */
	uint64_t next_key;
	struct run *runs;
	struct approval *approvals;
	struct attachment *attachments; /* bridges and their sessions (deliver.c) */
	struct broker_child *children;  /* every child process, with its type (children.c) */
	struct launch *launches;        /* sessions the broker started a bridge for (launch.c) */
	unsigned launch_seq;
	char exe_dir[HB_PATH_MAX];      /* hb-broker's folder: the bridges are beside it */
	uint64_t next_approval;
	long long started_ms;
	int stopping;                   /* SIGTERM received */
	long long stop_deadline_ms;
	int ready_notified;
	int event_topics;               /* topics someone subscribes to */
	char **child_env;               /* environ for services, without our keys */
	unsigned lost_instances;        /* broken invariant: reaped but still listed */
	uint64_t idle_asks;             /* idle.ask sent so far: the next one's number (idle.c) */
	struct hb_dirwatch *wake_watch[WAKE_DIRS]; /* per enum hb_dir: its watch, or NULL (wake.c) */
};

/* The broker's one clock: monotonic milliseconds. */
static inline long long broker_now_ms(void)
{
	return hb_monotonic_ms();
}

#endif
