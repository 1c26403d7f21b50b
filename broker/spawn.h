/*
 * spawn - the mechanism of supervision: start a service (its command
 * line and environment; the fork/exec is lib/child.c's child_start)
 * and describe how a process ended.  The policy (when, how often) is
 * supervise.c's.
 */
#ifndef HB_SPAWN_H
#define HB_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "config.h"

/* Start exec with argv0 = name, the extra args and the environment.  The
 * child gets its own process group, so a terminal's Ctrl-C reaches only
 * the broker, which then stops its services in order.  Returns the pid, or
 * -1 with a reason (exec failures are reported, not discovered later). */
pid_t spawn_service(const char *exec, const char *name, char *const args[], char *const envp[],
		    char *err, size_t errlen);
/* "exited with status 1", "killed by signal 9". */
void describe_exit(int status, char *out, size_t outlen);
/* A copy of environ without the keys the broker sets for each service and
 * without the secrets of cfg (config_is_secret): the environment of the
 * agents the broker launches, which need the user's (ssh-agent, tokens). */
char **spawn_base_env(const struct broker_config *cfg);
/* A service's environment, an allow-list: of environ, what every service
 * needs (locale, HOME, USER, PATH, TMPDIR, TZ, XDG_*, HB_*, the proxy and
 * CA variables, the sanitizers' options) and what svc's env line names,
 * never a secret nor a key the broker sets itself; then svc's own
 * secrets.  room: free slots left at the end for the caller.  NULL when
 * out of memory. */
char **spawn_service_env(const struct broker_config *cfg, const struct service_config *svc, int room);
/* Append "NAME=value" from the broker's environment to env[*n] for each
 * of secrets that is set, counting in *n (env must have room for
 * CONFIG_MAX_SECRETS more).  0, or -1 when out of memory. */
int spawn_add_secrets(char **env, int *n, char *const secrets[]);
void spawn_free_env(char **env);

#endif
