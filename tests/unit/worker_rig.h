/*
 * worker_rig - what the two tests of svc-explainer's worker drivers
 * (test_explainer_worker_codex.c, test_explainer_worker_claude.c) share:
 * a temporary folder with a fake agent (a sh script that plays the
 * agent's side of a scenario and leaves what it received in files), the
 * tool callback they give the worker, the cancel flag the fakes raise by
 * SIGUSR1, the options for the fake, and the check that nothing of a
 * worker's process group lives on.  Included by each test program once,
 * so its functions are static.
 */
#ifndef TEST_WORKER_RIG_H
#define TEST_WORKER_RIG_H

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../svc-explainer/worker.h"
#include "base64.h"
#include "clock.h"

/* A 1x1 PNG. */
#define PNG_B64 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"

/* The fakes cancel by SIGUSR1 to us, after writing what must be read
 * first; a handler reaches only file-scope state. */
static volatile sig_atomic_t cancel_flag;

/* The wait's stop test: the flag. */
static int flag_raised(void *arg)
{
	(void)arg;
	return cancel_flag;
}

static void on_usr1(int sig)
{
	(void)sig;
	cancel_flag = 1;
}

/* What the tool callback was asked, and what it answers: every tool its
 * name and arguments as text; "picture" with the PNG, "broken" with bytes
 * that are not a PNG; "stop" sets the cancel flag meanwhile (a cancel
 * that comes while a tool runs); "slow" returns only once the test's
 * deadline has passed (a deadline that passes while a tool runs). */
struct calls {
	int n;
	char seen[4][160];  /* "tool args" of the first four */
	long long deadline; /* "slow"'s, hb_monotonic_ms */
};

struct rig {
	char dir[64];
	char fake[128];  /* the fake agent */
	char text[8192]; /* the last file read_rig_file read */
	struct calls calls;
};

static struct workdir_answer tool_fn(void *arg, const char *tool, const char *args)
{
	struct calls *c = arg;
	struct workdir_answer a = { 1, NULL, NULL, 0 };
	char text[200];

	if (c->n < 4)
		snprintf(c->seen[c->n], sizeof c->seen[c->n], "%s %s", tool, args);
	c->n++;
	snprintf(text, sizeof text, "%s got %s", tool, args);
	assert_non_null(a.text = strdup(text));
	if (strcmp(tool, "picture") == 0)
		assert_non_null(a.png = hb_base64_decode(PNG_B64, strlen(PNG_B64), &a.png_len));
	if (strcmp(tool, "broken") == 0) {
		assert_non_null(a.png = (unsigned char *)strdup("GIF89a, not a PNG"));
		a.png_len = strlen((char *)a.png);
	}
	if (strcmp(tool, "stop") == 0)
		cancel_flag = 1;
	while (strcmp(tool, "slow") == 0 && hb_monotonic_ms() <= c->deadline) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return a;
}

static int make_rig(void **state)
{
	struct rig *r = calloc(1, sizeof *r);
	struct sigaction sa;

	if (!r)
		return -1;
	snprintf(r->dir, sizeof r->dir, "/tmp/hb-worker.XXXXXX");
	if (!mkdtemp(r->dir)) {
		free(r);
		return -1;
	}
	snprintf(r->fake, sizeof r->fake, "%s/agent", r->dir);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		free(r);
		return -1;
	}
	cancel_flag = 0;
	*state = r;
	return 0;
}

/* A case whose fake honours the interrupt: its answer (a sh script's
 * read, echo and case) may take a loaded machine longer than the 200 ms a
 * cancel grants, and the case is about the interrupt being used, not about
 * that time (which no test asserts), so it gets all the time it may need.
 * remove_rig puts the default back. */
static void rig_patient_cancel(void)
{
	assert_int_equal(setenv("HB_WORKER_CANCEL_GRACE_MS", "30000", 1), 0);
}

static int remove_rig(void **state)
{
	struct rig *r = *state;
	char cmd[128];

	unsetenv("HB_WORKER_CANCEL_GRACE_MS");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
	if (system(cmd) != 0)
		return -1;
	free(r);
	return 0;
}

/* The fake agent: a sh script whose body is the scenario; $D is the rig's
 * folder, where it leaves its arguments (argv) and what it received, $T
 * the test's pid (not its parent's: that is the group's guard).  A
 * fake that goes on reading runs `cat >/dev/null` as a child: `exec`
 * would close its output, which the worker rightly takes for the agent's
 * end.  Lines that carry JSON text are read with `read -r`. */
static void write_fake(const struct rig *r, const char *body)
{
	FILE *f = fopen(r->fake, "w");

	assert_non_null(f);
	assert_true(fprintf(f, "#!/bin/sh\nD='%s'\nT=%ld\necho \"$*\" >\"$D/argv\"\n%s\n", r->dir, (long)getpid(),
			    body) > 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(r->fake, 0755), 0);
}

/* The text of the file name in the rig's folder (its first 8 KiB), or NULL
 * when there is no such file. */
static char *read_rig_file(struct rig *r, const char *name)
{
	char *buf = r->text;
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof r->text - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Processes of group pgid that are not zombies (a zombie is dead, only
 * waiting for init to reap it), from /proc. */
static int live_members(int pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], line[512], *rest, state;
		int ppid, pgrp;
		FILE *f;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue; /* gone meanwhile */
		rest = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
		fclose(f);
		if (rest && sscanf(rest, ") %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z')
			n++;
	}
	closedir(d);
	return n;
}

/* After a worker's stop, nothing of its group may live on.  A SIGKILL is
 * delivered asynchronously, so the group's last members get a bounded
 * moment to go: a bound on how long to look, not on how fast stop is. */
static void assert_group_gone(int pgid)
{
	long long until = hb_monotonic_ms() + 5000;

	while (live_members(pgid) > 0 && hb_monotonic_ms() < until) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	assert_int_equal(live_members(pgid), 0);
}

/* The worker's options for the rig's fake, run as {fake, arg} (argv
 * holds them: three entries), with tools and model. */
static struct worker_opts rig_opts(struct rig *r, char **argv, char *arg, const char *tools, const char *model)
{
	struct worker_opts o = { .argv = argv, .cwd = r->dir, .tools = tools, .brief = "Explain marmalade.",
				 .model = model, .tool = tool_fn, .tool_arg = &r->calls };

	argv[0] = r->fake;
	argv[1] = arg;
	argv[2] = NULL;
	return o;
}

static void stop_and_check_gone(struct worker *w)
{
	int pgid = worker_pgid(w);

	worker_stop(w);
	assert_group_gone(pgid);
}

#endif
