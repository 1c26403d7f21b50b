/*
 * fake_gemini - process plumbing for the fake Gemini server: node runs
 * server.mjs with pipes on its stdin and stdout; the first line it prints
 * names its port.
 */
#include "fake_gemini.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* server.mjs of this source tree, found from the build folder or here. */
static int find_script(char *out, size_t outlen)
{
	const char *build = getenv("HB_BUILD");

	snprintf(out, outlen, "%s/../tests/fake-gemini/server.mjs", build ? build : "build");
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, outlen, "tests/fake-gemini/server.mjs");
	return access(out, R_OK);
}

/* Read the "listening PORT" line, 10 s at most. */
static int read_port(struct fake_gemini *g)
{
	char line[128];
	size_t n = 0;
	long long deadline = fx_now_ms() + 10000;

	while (n + 1 < sizeof line && fx_now_ms() < deadline) {
		struct pollfd p = { g->out_fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((r = read(g->out_fd, line + n, 1)) <= 0)
			return -1;
		if (line[n] == '\n') {
			line[n] = '\0';
			return sscanf(line, "listening %d", &g->port) == 1 ? 0 : -1;
		}
		n++;
	}
	return -1;
}

int fg_start(struct fake_gemini *g, const char *dir)
{
	char script[700];
	int in[2], out[2];

	memset(g, 0, sizeof *g);
	g->in_fd = g->out_fd = -1;
	snprintf(g->record, sizeof g->record, "%s/gemini-requests.jsonl", dir);
	snprintf(g->control, sizeof g->control, "%s/gemini-control.json", dir);
	if (find_script(script, sizeof script) < 0) {
		fprintf(stderr, "fake_gemini: tests/fake-gemini/server.mjs not found\n");
		return -1;
	}
	if (fg_control(g, "{}") < 0 || fg_clear(g) < 0 || pipe(in) < 0)
		return -1;
	if (pipe(out) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	if ((g->pid = fork()) == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		close(in[1]);
		close(out[0]);
		execlp("node", "node", script, "--record", g->record, "--control", g->control, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	g->in_fd = in[1];
	g->out_fd = out[0];
	/* Brokers started later must not hold its stdin open. */
	if (g->pid < 0 || fcntl(g->in_fd, F_SETFD, FD_CLOEXEC) < 0 || fcntl(g->out_fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    read_port(g) < 0) {
		fprintf(stderr, "fake_gemini: node %s did not start\n", script);
		fg_stop(g);
		return -1;
	}
	snprintf(g->base_url, sizeof g->base_url, "http://127.0.0.1:%d", g->port);
	return 0;
}

int fg_control(struct fake_gemini *g, const char *json)
{
	char tmp[420];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", g->control);
	if (!(f = fopen(tmp, "w")))
		return -1;
	if (fputs(json, f) < 0) {
		fclose(f);
		return -1;
	}
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, g->control);
}

/* The record lines of one event ("start" or "end"). */
static json_t *events(const struct fake_gemini *g, const char *event)
{
	json_t *all = json_array();
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(g->record, "r");

	if (!f)
		return all;
	while (getline(&line, &cap, f) > 0) {
		json_t *r = json_loads(line, 0, NULL);
		const char *e = json_string_value(json_object_get(r, "event"));
		if (e && strcmp(e, event) == 0)
			json_array_append_new(all, r);
		else
			json_decref(r);
	}
	free(line);
	fclose(f);
	return all;
}

json_t *fg_records(const struct fake_gemini *g)
{
	return events(g, "end");
}

json_t *fg_records_of(const struct fake_gemini *g, const char *kind)
{
	json_t *all = fg_records(g), *out = json_array(), *r;
	size_t i;

	json_array_foreach(all, i, r) {
		const char *k = json_string_value(json_object_get(r, "kind"));
		if (k && strcmp(k, kind) == 0)
			json_array_append(out, r);
	}
	json_decref(all);
	return out;
}

size_t fg_started(const struct fake_gemini *g)
{
	json_t *s = events(g, "start");
	size_t n = json_array_size(s);

	json_decref(s);
	return n;
}

size_t fg_connections(const struct fake_gemini *g)
{
	json_t *s = events(g, "connection");
	size_t n = json_array_size(s);

	json_decref(s);
	return n;
}

int fg_clear(const struct fake_gemini *g)
{
	int fd = open(g->record, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	return fd < 0 ? -1 : close(fd);
}

int fg_wait_records(const struct fake_gemini *g, size_t n, int timeout_ms)
{
	long long deadline = fx_now_ms() + timeout_ms;

	for (;;) {
		json_t *r = fg_records(g);
		size_t have = json_array_size(r);

		json_decref(r);
		if (have >= n)
			return 0;
		if (fx_now_ms() >= deadline)
			return -1;
		fx_sleep_ms(20);
	}
}

void fg_stop(struct fake_gemini *g)
{
	if (g->pid > 0) {
		kill(g->pid, SIGTERM);
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (g->in_fd >= 0)
		close(g->in_fd);
	if (g->out_fd >= 0)
		close(g->out_fd);
	g->pid = 0;
	g->in_fd = g->out_fd = -1;
}

const char *fg_str(const json_t *rec, const char *key)
{
	const char *v = json_string_value(json_object_get(rec, key));

	return v ? v : "";
}

long long fg_int(const json_t *rec, const char *key)
{
	return json_integer_value(json_object_get(rec, key));
}

int fg_reset(struct fake_gemini *g, const char *json)
{
	return fg_control(g, json) < 0 ? -1 : fg_clear(g);
}

int fg_fixture_start(struct fake_gemini *g, struct fixture *f, char *dir, const char *config,
		     const char *const *env, const char *key)
{
	char url[100], expanded[16][200];
	const char *all[16] = { url };
	size_t n = 1;

	unsetenv("GEMINI_API_KEY");
	if (!mkdtemp(dir) || fg_start(g, dir) < 0)
		return -1;
	snprintf(url, sizeof url, "HB_GEMINI_BASE_URL=%s", g->base_url);
	for (; env && env[n - 1] && n + 1 < sizeof all / sizeof all[0]; n++) {
		const char *at = strstr(env[n - 1], "@PORT@");

		all[n] = env[n - 1];
		if (at) { /* the port is only known now that the fake listens */
			snprintf(expanded[n], sizeof expanded[n], "%.*s%d%s", (int)(at - env[n - 1]), env[n - 1], g->port,
				 at + 6);
			all[n] = expanded[n];
		}
	}
	all[n] = NULL;
	/* The broker's environment is copied at its start: url may go now. */
	if (fx_start(f, config, all) < 0)
		return -1;
	return fx_save_gemini_key(key);
}

int fg_fixture_stop(struct fake_gemini *g, struct fixture *f, const char *dir)
{
	char cmd[300];
	int rc;

	fg_stop(g);
	rc = fx_stop_clean(f);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? rc : -1;
}
