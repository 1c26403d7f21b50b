/*
 * spawn - a service's command line and environment, started through
 * lib/child.c's child_start (the one fork/exec, with its exec-failure
 * pipe and its async-signal-safe child).
 *
 * The environment a service gets is an allow-list of the broker's
 * (spawn_service_env), plus the secrets its own section names: the
 * broker's environment holds the user's keys and tokens (cloud, GitHub,
 * ssh-agent), none of them a service's to read.  The agents the broker
 * launches get the broker's whole environment but the secrets.
 */
#include "spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

extern char **environ;

/* The keys the broker sets itself for each service. */
static const char *const broker_keys[] = {
	"HB_SERVICE_ID", "HB_BACK_ENDPOINT", "HB_HEARTBEAT_MS", "HB_STOP_GRACE_MS", "HB_CONCURRENCY", "HB_BROKER_PID",
	"HB_CONFINE", "NOTIFY_SOCKET", NULL
};

/* What every service gets.  A trailing '*' is a prefix. */
static const char *const service_allowed[] = {
	"HB_*", "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR", "XDG_*",
	"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS", NULL
};

/* Whether the variable named by name[0..len) matches one of patterns. */
static int name_matches(const char *name, size_t len, const char *const *patterns)
{
	for (; *patterns; patterns++) {
		size_t plen = strlen(*patterns);

		if (plen && (*patterns)[plen - 1] == '*' ? len >= plen - 1 && strncmp(name, *patterns, plen - 1) == 0
							   : len == plen && strncmp(name, *patterns, len) == 0)
			return 1;
	}
	return 0;
}

/* environ without the broker's own keys and the secrets of cfg; for a
 * service (svc not NULL) only what service_allowed and its env line name,
 * and room free slots after its own secrets. */
static char **copy_env(const struct broker_config *cfg, const struct service_config *svc, int room)
{
	size_t n = 0, k = 0;
	char **env;
	int added;

	while (environ[n])
		n++;
	if (!(env = calloc(n + (svc ? CONFIG_MAX_SECRETS + (size_t)room : 0) + 1, sizeof *env)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");

		if (name_matches(environ[i], len, broker_keys) || config_is_secret(cfg, environ[i], len) ||
		    (svc && !name_matches(environ[i], len, service_allowed) &&
		     !name_matches(environ[i], len, (const char *const *)svc->env)))
			continue;
		if (!(env[k++] = strdup(environ[i]))) {
			spawn_free_env(env);
			return NULL;
		}
	}
	added = (int)k;
	if (svc && spawn_add_secrets(env, &added, svc->secrets) < 0) {
		spawn_free_env(env);
		return NULL;
	}
	return env;
}

char **spawn_base_env(const struct broker_config *cfg)
{
	return copy_env(cfg, NULL, 0);
}

char **spawn_service_env(const struct broker_config *cfg, const struct service_config *svc, int room)
{
	return copy_env(cfg, svc, room);
}

int spawn_add_secrets(char **env, int *n, char *const secrets[])
{
	for (char *const *s = secrets; *s; s++) {
		const char *value = getenv(*s);
		size_t len;

		if (!value)
			continue;
		len = strlen(*s) + 1 + strlen(value) + 1;
		if (!(env[*n] = malloc(len)))
			return -1;
		snprintf(env[*n], len, "%s=%s", *s, value);
		(*n)++;
	}
	return 0;
}

void spawn_free_env(char **env)
{
	if (!env)
		return;
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}

pid_t spawn_service(const char *exec, const char *name, char *const args[], char *const envp[],
		    char *err, size_t errlen)
{
	char *argv[64];
	int nargs = 0;

	argv[nargs++] = (char *)name;
	for (int i = 0; args[i] && nargs < 62; i++)
		argv[nargs++] = args[i];
	argv[nargs] = NULL;
	return child_start(&(struct child_exec){ .path = exec, .argv = argv, .envp = envp, .in = -1, .out = -1,
						 .err = -1, .keep = -1,
						 .flags = CHILD_OWN_GROUP | CHILD_DEFAULT_SIGNALS },
			   err, errlen);
}

void describe_exit(int status, char *out, size_t outlen)
{
	if (WIFEXITED(status))
		snprintf(out, outlen, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(out, outlen, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, outlen, "ended with wait status %d", status);
}
