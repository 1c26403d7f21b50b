/*
 * config - the services the broker supervises, read from a small file:
 *
 *	[service svc-sessions]
 *	exec = svc-sessions        # relative: found in the --libexec folder
 *	args = --flag value        # split on blanks
 *	concurrency = 4
 *	tools = maintain_sessions manage_sessions
 *	secrets = GEMINI_API_KEY   # environment variables only this service gets
 *	env = CODEX_HOME OPENAI_*  # more of the broker's environment it needs
 *	call-limit = 60            # seconds a call may hold a worker (default 600)
 *	start = demand             # boot (the default): at the broker's start;
 *	                           # demand: at its first call (Postfix's master)
 *	idle = 60s                 # stopped after this long without a call
 *	                           # (max_idle; 500ms, 60s, 10m): a demand
 *	                           # service always (default 60s), a boot one
 *	                           # only with this line; either starts again
 *	                           # at its next call.  A service whose ready
 *	                           # names an idleTask is stopped only when
 *	                           # that task says it holds no work.
 *	wake = config              # a folder of hbcode's (config, data, cache):
 *	                           # a change in it starts the service when it
 *	                           # was stopped for idleness (systemd's path
 *	                           # units; svc-alerts: the settings)
 *
 * A secret in the broker's environment reaches only the services whose
 * section names it; GEMINI_API_KEY is always a secret, so a config without
 * secrets lines gives it to nobody.  Of the rest, a service gets only
 * what every service needs (spawn.h: locale, HOME, PATH, XDG_*, HB_*, the
 * proxy) and what its env line names (NAME, PREFIX*, or * for all but the
 * secrets): the broker's environment holds the user's keys and tokens of
 * other programs.
 */
#ifndef HB_CONFIG_H
#define HB_CONFIG_H

#include <stddef.h>

#include "confine.h"

#define CONFIG_MAX_SERVICES 16
#define CONFIG_MAX_ARGS 16
#define CONFIG_MAX_TOOLS 32
#define CONFIG_MAX_SECRETS 8
#define CONFIG_MAX_ENV 32
#define CONFIG_NAME_MAX 64
#define CONFIG_PATH_MAX 1024
/* A call of a family that says nothing may hold a worker this long. */
#define CONFIG_CALL_LIMIT_S 600
#define CONFIG_CALL_LIMIT_MAX_S 86400
/* A demand service with no call this long is stopped. */
#define CONFIG_IDLE_MS 60000LL
#define CONFIG_IDLE_MAX_MS (86400 * 1000LL)
#define CONFIG_NO_WAKE (-1)

struct service_config {
	char name[CONFIG_NAME_MAX];
	char exec[CONFIG_PATH_MAX];
	char *args[CONFIG_MAX_ARGS + 1]; /* NULL-terminated, owned */
	int concurrency;
	char *tools[CONFIG_MAX_TOOLS];   /* owned */
	int ntools;
	char *secrets[CONFIG_MAX_SECRETS + 1]; /* variable names, NULL-terminated, owned */
	char *env[CONFIG_MAX_ENV + 1];         /* NAME, PREFIX* or *, NULL-terminated, owned */
	char confine[HB_CONFINE_SPEC_MAX];     /* what it may reach (common/confine.h); "" unconfined */
	long long call_limit_ms;               /* a worker holding a call longer (and the hang grace) is hung */
	int on_demand;                         /* start = demand: started by its first call */
	int idles;                             /* stopped after idle_ms without a call: start =
						  demand, or a boot service with an idle line */
	long long idle_ms;                     /* when it idles: stopped after this long without a call */
	int wake;                              /* wake = FOLDER: its enum hb_dir (paths.h), or
						  CONFIG_NO_WAKE */
};

struct broker_config {
	struct service_config services[CONFIG_MAX_SERVICES];
	int nservices;
};

/* Parse path; relative exec names resolve against libexec.  0, or -1 with
 * "file:line: reason" in err. */
int config_load(struct broker_config *cfg, const char *path, const char *libexec,
		char *err, size_t errlen);
void config_free(struct broker_config *cfg);
/* 1 when the variable named by the first len bytes of name is a secret:
 * GEMINI_API_KEY, or a name that some service lists in secrets. */
int config_is_secret(const struct broker_config *cfg, const char *name, size_t len);

#endif
