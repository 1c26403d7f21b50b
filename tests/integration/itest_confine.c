/*
 * itest_confine - every service runs confined as deploy/services.conf
 * declares (common/confine.h), shown from inside each one: the broker
 * starts the deployed services with HB_CONFINE_PROBE=1, so each also
 * serves confine_probe_<service>, which tries to read and write files,
 * to connect to a TCP port and to start a program, and says what
 * happened.  Then each service is still up with the same pid and serves.
 *
 * What each family may do (its confine line):
 *   svc-sessions, svc-messages  write the data folder; no network, no programs
 *   svc-speech                  read config, write cache; network
 *   svc-video                   read anywhere, write nowhere; network
 *   svc-explainer               starts programs (its worker): no folder rules
 *   svc-alerts                  read config and data, write data/alerts; network
 *   svc-browser                 read config and xdg-config, write cache; network
 * Everything else is refused: a file outside those folders, a folder it
 * may only read, a program, an Internet socket where network=none.
 *
 * Then the attacks of a service that would act as the user (issue 33),
 * from inside each one: a new Unix socket to front.sock or events.sock
 * (refused: the service is sealed once its own sockets are connected), a
 * descriptor of its own that reaches them (none), a datagram socket
 * pair, an io_uring (which makes sockets past the filter), a netlink
 * socket where network=none, signal 0 to the broker and to another
 * service (refused by Landlock's signal scope, ABI 6), and the user's
 * other keys in its environment (the broker's environment carries them;
 * a service gets an allow-list, svc-explainer its agent's too).
 *
 * On a kernel without Landlock the file rules cannot hold, and the
 * service's log line says so; the test then checks the rest and says
 * what it skipped.  Run as root, the test drops to nobody first (setpriv),
 * since root would pass checks an ordinary user fails
 * (tests/harness/drop_root.c).
 */
#include "../harness/checks.h"

#include "paths.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static struct fixture F;
static int listener = -1, port;
/* The user's keys of other programs, in the broker's environment. */
static const char *const probe_env[] = { "HB_CONFINE_PROBE=1",
					 "ANTHROPIC_API_KEY=sk-ant-probe",
					 "OPENAI_API_KEY=sk-openai-probe",
					 "AWS_SECRET_ACCESS_KEY=aws-probe",
					 "GH_TOKEN=ghp-probe",
					 "SSH_AUTH_SOCK=/tmp/ssh-probe/agent.1",
					 NULL };
/* The user's other keys: in no service's environment but svc-explainer's,
 * whose worker is the user's agent and gets what an agent gets (env = *). */
static const char *const others_env[] = { "AWS_SECRET_ACCESS_KEY", "GH_TOKEN", "SSH_AUTH_SOCK", NULL };
static const char *const agent_env[] = { "ANTHROPIC_API_KEY", "OPENAI_API_KEY", NULL };

struct expect {
	const char *service;
	const char *may_write;   /* a file in a folder it may write, NULL: none */
	const char *may_read;    /* a file it may read besides the system's, NULL: none */
	int network, exec, read_any, no_rules;
};

/* Paths relative to the fixture's folder (HB_HOME). */
static const struct expect expects[] = {
	{ "svc-sessions", "data/probe-sessions", NULL, 0, 0, 0, 0 },
	{ "svc-messages", "data/probe-messages", NULL, 0, 0, 0, 0 },
	{ "svc-speech", "cache/probe-speech", "config/probe-readable", 1, 0, 0, 0 },
	{ "svc-video", NULL, "outside/secret", 1, 0, 1, 0 },
	{ "svc-explainer", "outside/written-by-explainer", "outside/secret", 1, 1, 1, 1 },
	{ "svc-alerts", "data/alerts/probe-alerts", "config/probe-readable", 1, 0, 0, 0 },
	{ "svc-browser", "cache/probe-browser", "config/probe-readable", 1, 0, 0, 0 },
};

/* Each deployed section with its probe added to its tools. */
static char *probe_config(void)
{
	char *conf = fx_deployed_config(NULL, "svc-sessions", "svc-messages", "svc-speech", "svc-video",
					"svc-explainer", "svc-alerts", "svc-browser", (char *)NULL);
	size_t len = conf ? strlen(conf) : 0, cap = len + 1024, n = 0;
	char *out = conf ? malloc(cap) : NULL, *section = NULL;

	if (!out) {
		free(conf);
		return NULL;
	}
	for (char *line = strtok(conf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "[service ", 9) == 0)
			section = line + 9;
		n += (size_t)snprintf(out + n, cap - n, "%s", line);
		if (strncmp(line, "tools =", 7) == 0 && section) {
			n += (size_t)snprintf(out + n, cap - n, " confine_probe_");
			for (const char *s = section; *s && *s != ']'; s++)
				out[n++] = *s == '-' ? '_' : *s;
		}
		out[n++] = '\n';
		out[n] = '\0';
	}
	free(conf);
	return out;
}

static int open_listener(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof sa;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((listener = socket(AF_INET, SOCK_STREAM, 0)) < 0 || bind(listener, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(listener, 64) < 0 || getsockname(listener, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	port = ntohs(sa.sin_port);
	return 0;
}

static void write_file(const char *rel, const char *text)
{
	char path[600], dir[600], *slash;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", F.dir, rel);
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if (hb_mkdir_p(dir, 0700) < 0)
		fail_msg("cannot make %s", dir);
	if (!(f = fopen(path, "w")))
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char *conf = probe_config(), xdg[320];
	const char *env[sizeof probe_env / sizeof probe_env[0] + 1];
	size_t n = 0;
	int rc;

	(void)state;
	if (!conf || open_listener() < 0 || fx_prepare(&F, conf) < 0) {
		free(conf);
		return -1;
	}
	free(conf);
	/* the user's ~/.config: a browser's port file, another tool's token */
	write_file("xdg/chromium/DevToolsActivePort", "9222\n/devtools/browser/probe\n");
	write_file("xdg/gh/hosts.yml", "oauth_token: gho_probe\n");
	snprintf(xdg, sizeof xdg, "XDG_CONFIG_HOME=%s/xdg", F.dir);
	for (; probe_env[n]; n++)
		env[n] = probe_env[n];
	env[n++] = xdg;
	env[n] = NULL;
	rc = fx_start_prepared(&F, env);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	if (listener >= 0)
		close(listener);
	return fx_stop_clean(&F) == 0 ? 0 : -1;
}

/* The probe's answer for service with these arguments, as JSON. */
static json_t *probe(const char *service, const char *args)
{
	char tool[96], *text = NULL;
	json_t *v;
	int ok;

	snprintf(tool, sizeof tool, "confine_probe_%s", service);
	for (char *p = tool; *p; p++)
		if (*p == '-')
			*p = '_';
	if (fx_call(&F, tool, args, &ok, &text) < 0 || !ok)
		fail_msg("%s: %s", tool, text ? text : "no answer");
	if (!(v = json_loads(text, 0, NULL)))
		fail_msg("%s answered %s", tool, text);
	free(text);
	return v;
}

static void expect_outcome(const char *service, json_t *got, const char *what, int allowed, const char *detail)
{
	const char *v = fx_jstr(got, what);

	if (allowed ? strcmp(v, "ok") != 0 : (strcmp(v, "EACCES") != 0 && strcmp(v, "EPERM") != 0))
		fail_msg("%s: %s %s gave \"%s\"; the confine line %s it", service, what, detail, v,
			 allowed ? "allows" : "refuses");
}

/* The service's log line of what was applied (confine_linux.c), owned. */
static char *confined_line(const char *service)
{
	char *log = fx_read_text(F.log), needle[128], *out = NULL;

	snprintf(needle, sizeof needle, "%s[", service);
	for (char *line = strtok(log, "\n"); line && !out; line = strtok(NULL, "\n"))
		if (strstr(line, needle) && strstr(line, "confined:"))
			out = strdup(line);
	if (!out)
		fail_msg("%s never said it was confined:\n%s", service, log);
	free(log);
	return out;
}

/* Whether that line says what. */
static int confined_says(const char *service, const char *what)
{
	char *line = confined_line(service);
	int yes = strstr(line, what) != NULL;

	free(line);
	return yes;
}

/* Whether the service's log says Landlock holds its files. */
static int files_confined(const char *service)
{
	return !confined_says(service, "files: none");
}

static void test_each_service_confined(void **state)
{
	char args[1400], readable[600], outside[600];
	long long pids[sizeof expects / sizeof expects[0]];
	int skipped = 0;

	(void)state;
	write_file("outside/secret", "not for services\n");
	write_file("config/probe-readable", "settings\n");
	snprintf(outside, sizeof outside, "%s/outside/secret", F.dir);
	for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++) {
		const struct expect *e = &expects[i];
		int landlock = e->no_rules || files_confined(e->service);
		json_t *got;

		pids[i] = fx_service_pid(&F, e->service);
		snprintf(readable, sizeof readable, "%s/%s", F.dir, e->may_read ? e->may_read : "outside/secret");
		/* a file outside its folders, then what it may do */
		snprintf(args, sizeof args,
			 "{\"read\":\"%s\",\"write\":\"%s/outside/written-%s\",\"connect\":\"127.0.0.1:%d\","
			 "\"exec\":\"/bin/true\"}",
			 outside, F.dir, e->service, port);
		got = probe(e->service, args);
		if (landlock) {
			expect_outcome(e->service, got, "read", e->read_any, "of a file outside its folders");
			expect_outcome(e->service, got, "write", e->no_rules, "of a file outside its folders");
		} else {
			skipped++;
		}
		expect_outcome(e->service, got, "connect", e->network, "to a TCP port");
		expect_outcome(e->service, got, "exec", e->exec, "of /bin/true");
		json_decref(got);

		if (e->may_write) {
			snprintf(args, sizeof args, "{\"write\":\"%s/%s\",\"read\":\"%s\"}", F.dir, e->may_write, readable);
			got = probe(e->service, args);
			expect_outcome(e->service, got, "write", 1, "in its own folder");
			expect_outcome(e->service, got, "read", e->may_read != NULL || !landlock, "of a file it may read");
			json_decref(got);
		}
		if (landlock && !e->no_rules) {
			/* a folder it may only read, or not even that */
			snprintf(args, sizeof args, "{\"write\":\"%s/config/written-%s\"}", F.dir, e->service);
			got = probe(e->service, args);
			expect_outcome(e->service, got, "write", 0, "in the config folder");
			json_decref(got);
		}
	}
	/* none of them died of it, and they serve */
	for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++)
		if (fx_service_pid(&F, expects[i].service) != pids[i])
			fail_msg("%s was restarted by its probe", expects[i].service);
	free(fx_call_expect(&F, "maintain_sessions", "{\"action\":\"guide\"}", 1, NULL));
	if (skipped)
		printf("note: no Landlock here (see the services' log); the file rules of %d services were not checked\n", skipped);
}

static int has_name(const json_t *names, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(names, i, v)
		if (strcmp(json_string_value(v), name) == 0)
			return 1;
	return 0;
}

/* A service that would be the user: every way to front.sock it had. */
static void test_no_service_acts_as_user(void **state)
{
	char args[1400];
	int unscoped = 0;

	(void)state;
	for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++) {
		const struct expect *e = &expects[i];
		const char *other = expects[(i + 1) % (sizeof expects / sizeof expects[0])].service;
		int scoped = confined_says(e->service, "its own only (Landlock scopes)");
		json_t *got, *v;
		size_t j;

		snprintf(args, sizeof args,
			 "{\"unix\":\"%s/run/front.sock\",\"dgram\":true,\"io_uring\":true,\"netlink\":true,"
			 "\"signal\":[%ld,%lld],\"environ\":true,\"fds\":true}",
			 F.dir, (long)F.broker, (long long)fx_service_pid(&F, other));
		got = probe(e->service, args);
		expect_outcome(e->service, got, "unix", 0, "connect to front.sock");
		expect_outcome(e->service, got, "dgram", 0, "a datagram socket pair");
		expect_outcome(e->service, got, "io_uring", 0, "io_uring_setup");
		expect_outcome(e->service, got, "netlink", e->network, "a netlink socket");
		json_array_foreach(json_object_get(got, "fds"), j, v)
			if (strstr(json_string_value(v), "front.sock") || strstr(json_string_value(v), "events.sock"))
				fail_msg("%s holds a socket of %s", e->service, json_string_value(v));
		for (const char *const *n = others_env; *n; n++)
			if (has_name(json_object_get(got, "environ"), *n) != e->exec)
				fail_msg("%s %s %s in its environment", e->service, e->exec ? "lacks" : "has", *n);
		for (const char *const *n = agent_env; *n; n++)
			if (has_name(json_object_get(got, "environ"), *n) != e->exec)
				fail_msg("%s %s %s in its environment", e->service, e->exec ? "lacks" : "has", *n);
		if (scoped) {
			for (j = 0; j < 2; j++) {
				const char *o = json_string_value(json_array_get(json_object_get(got, "signal"), j));
				if (!o || strcmp(o, "EPERM") != 0)
					fail_msg("%s: signal 0 to %s gave %s; Landlock's signal scope refuses it", e->service,
						 j ? other : "hb-broker", o ? o : "nothing");
			}
		} else {
			unscoped++;
		}
		json_decref(got);
		snprintf(args, sizeof args, "{\"unix\":\"%s/run/events.sock\"}", F.dir);
		got = probe(e->service, args);
		expect_outcome(e->service, got, "unix", 0, "connect to events.sock");
		json_decref(got);
	}
	if (unscoped)
		printf("note: Landlock has no scopes here (ABI < 6); the signal checks of %d services were skipped\n",
		       unscoped);
}

/* svc-browser reads the port files of the browser folders it searches,
 * those there at its start, and nothing else of ~/.config. */
static void test_browser_reads_only_port_files(void **state)
{
	char args[1200];
	json_t *got;

	(void)state;
	if (!files_confined("svc-browser")) {
		printf("note: no Landlock here; svc-browser's ~/.config rule was not checked\n");
		return;
	}
	write_file("xdg/google-chrome/DevToolsActivePort", "9223\n/devtools/browser/later\n");
	snprintf(args, sizeof args, "{\"read\":\"%s/xdg/chromium/DevToolsActivePort\",\"write\":\"%s/xdg/gh/hosts.yml\"}",
		 F.dir, F.dir);
	got = probe("svc-browser", args);
	expect_outcome("svc-browser", got, "read", 1, "of chromium's DevToolsActivePort");
	expect_outcome("svc-browser", got, "write", 0, "of another tool's token");
	json_decref(got);
	snprintf(args, sizeof args, "{\"read\":\"%s/xdg/gh/hosts.yml\"}", F.dir);
	got = probe("svc-browser", args);
	expect_outcome("svc-browser", got, "read", 0, "of another tool's token in ~/.config");
	json_decref(got);
	snprintf(args, sizeof args, "{\"read\":\"%s/xdg/google-chrome/DevToolsActivePort\"}", F.dir);
	got = probe("svc-browser", args);
	expect_outcome("svc-browser", got, "read", 0, "of a port file written after its start");
	json_decref(got);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_service_confined),
		cmocka_unit_test(test_no_service_acts_as_user),
		cmocka_unit_test(test_browser_reads_only_port_files),
	};

	(void)argc;
	if (fx_drop_root(argv) < 0)
		return 1;

	return ck_run_group_tests(tests, setup, teardown);
}
