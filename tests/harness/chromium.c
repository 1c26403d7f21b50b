/*
 * chromium - the process plumbing of chromium.h: the folders, the
 * command line, a fork and exec in a new process group, the bounded wait
 * for DevToolsActivePort, and the group's end.
 *
 * The flags, each for a reason (Chromium 156):
 *   --headless=new             no display; the new headless mode is the
 *                              real browser (its product reads "Chrome/"),
 *                              not the old separate headless shell
 *   --no-sandbox               Chromium refuses to run as root with its
 *                              sandbox, and CI runs as root; the pages are
 *                              the tests' own
 *   --remote-debugging-port=0  DevTools on a port of the system's choice,
 *                              told through DevToolsActivePort
 *   --user-data-dir=DIR        a profile of the test's, never the user's
 *   --no-first-run             no first-run tasks on a fresh profile
 *   --disable-gpu              software compositing only: no GPU process
 *   --disable-dev-shm-usage    shared memory in TMPDIR, as containers
 *                              often give /dev/shm 64 MB
 *   --window-size=1280,800     a known size for screenshots (headless
 *                              defaults to 800x600); the page's viewport
 *                              is 1280x713 in it (seen, Chromium 156)
 *   --host-resolver-rules, --proxy-server   nothing but 127.0.0.1
 *                              (chromium.h)
 * /usr/bin/chromium is Debian's launcher script; it adds its own defaults
 * (--disable-background-networking among them) and execs the browser, so
 * the pid is the browser's.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "chromium.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* Bounds on waiting for the browser, so a broken one fails the test
 * instead of hanging it; never a measure of speed (it starts in under a
 * second, and ends on SIGTERM in under one). */
#define START_PATIENCE_MS 30000
#define STOP_PATIENCE_MS 10000
#define PORT_FILE "DevToolsActivePort"
#define WS_PREFIX "/devtools/browser/"

static void tick(void)
{
	const struct timespec t = { 0, 20 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

int chromium_read_port_file(const char *dir, int *port, char *path, size_t pathlen)
{
	char name[300], buf[256], *nl, *end;
	ssize_t n;
	long p;
	int fd;

	snprintf(name, sizeof name, "%s/%s", dir, PORT_FILE);
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* A file caught while it is written has no second line yet, or only
	 * part of it: the path must be the prefix and an id. */
	if (!(nl = strchr(buf, '\n')))
		return -1;
	*nl = '\0';
	errno = 0;
	p = strtol(buf, &end, 10);
	if (errno || *end || p <= 0 || p > 65535)
		return -1;
	nl[1 + strcspn(nl + 1, "\r\n")] = '\0';
	if (strncmp(nl + 1, WS_PREFIX, strlen(WS_PREFIX)) != 0 || strlen(nl + 1) == strlen(WS_PREFIX) ||
	    strlen(nl + 1) >= pathlen)
		return -1;
	*port = (int)p;
	snprintf(path, pathlen, "%s", nl + 1);
	return 0;
}

static int make_dirs(struct chromium *c, const char *user_data_dir)
{
	char sub[300];

	if (user_data_dir) {
		if (snprintf(c->dir, sizeof c->dir, "%s", user_data_dir) >= (int)sizeof c->dir ||
		    (mkdir(c->dir, 0700) < 0 && errno != EEXIST)) {
			fprintf(stderr, "chromium: cannot make %s: %s\n", user_data_dir, strerror(errno));
			return -1;
		}
	} else {
		snprintf(c->dir, sizeof c->dir, "/tmp/hb-chromium.XXXXXX");
		if (!mkdtemp(c->dir)) {
			fprintf(stderr, "chromium: cannot make a temporary folder: %s\n", strerror(errno));
			return -1;
		}
		c->made_dir = 1;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(sub, sizeof sub, "%s/%s", c->dir, i ? "tmp" : "home");
		if (mkdir(sub, 0700) < 0 && errno != EEXIST) {
			fprintf(stderr, "chromium: cannot make %s: %s\n", sub, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* In the child: its own group, its HOME and TMPDIR, output to the log. */
static void spawn(const struct chromium *c)
{
	char data[250], home[250], tmp[250], log[250];
	int fd;

	snprintf(data, sizeof data, "--user-data-dir=%s", c->dir);
	snprintf(home, sizeof home, "%s/home", c->dir);
	snprintf(tmp, sizeof tmp, "%s/tmp", c->dir);
	snprintf(log, sizeof log, "%s/chromium.log", c->dir);
	if (setpgid(0, 0) < 0 || setenv("HOME", home, 1) < 0 || setenv("TMPDIR", tmp, 1) < 0)
		_exit(127);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_CACHE_HOME");
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0 || dup2(fd, 1) < 0 ||
	    dup2(fd, 2) < 0)
		_exit(127);
	if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 || dup2(fd, 0) < 0)
		_exit(127);
	execlp("chromium", "chromium", "--headless=new", "--no-sandbox", "--remote-debugging-port=0", data,
	       "--no-first-run", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
	       "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
	       "--proxy-server=http://127.0.0.1:9", "about:blank", (char *)NULL);
	dprintf(2, "chromium: cannot run chromium: %s\n", strerror(errno));
	_exit(127);
}

/* The end of the log, to say why the browser did not come up. */
static void show_log(const struct chromium *c)
{
	char name[250], buf[2048];
	ssize_t n;
	off_t size;
	int fd;

	snprintf(name, sizeof name, "%s/chromium.log", c->dir);
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof buf - 1)
		lseek(fd, size - (off_t)sizeof buf + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	if ((n = read(fd, buf, sizeof buf - 1)) > 0) {
		buf[n] = '\0';
		fprintf(stderr, "chromium: the end of %s:\n%s\n", name, buf);
	}
	close(fd);
}

/* Wait for a DevToolsActivePort whose path is not stale (the path of the
 * one there before the start, if any: each start has a new uuid). */
static int await_port_file(struct chromium *c, const char *stale)
{
	long long deadline = hb_monotonic_ms() + START_PATIENCE_MS;
	int status;

	while (hb_monotonic_ms() < deadline) {
		if (chromium_read_port_file(c->dir, &c->port, c->ws_path, sizeof c->ws_path) == 0 &&
		    strcmp(c->ws_path, stale) != 0)
			return 0;
		if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
			c->pid = -1;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
				fprintf(stderr, "chromium: not installed? `make deps` installs Debian's chromium\n");
			else
				fprintf(stderr, "chromium: the browser ended before it wrote %s\n", PORT_FILE);
			return -1;
		}
		tick();
	}
	fprintf(stderr, "chromium: no %s in %s after %d ms\n", PORT_FILE, c->dir, START_PATIENCE_MS);
	return -1;
}

/* Start the browser on c->dir and wait for its port file. */
static int launch(struct chromium *c)
{
	char stale[sizeof c->ws_path] = "";
	int ignored;

	c->pid = -1;
	c->port = 0;
	c->ws_path[0] = c->ws_url[0] = '\0';
	if (chromium_read_port_file(c->dir, &ignored, stale, sizeof stale) < 0)
		stale[0] = '\0';
	if ((c->pid = fork()) == 0)
		spawn(c);
	if (c->pid < 0) {
		fprintf(stderr, "chromium: fork: %s\n", strerror(errno));
		return -1;
	}
	/* Also here, so a kill right after the fork reaches the group. */
	if (setpgid(c->pid, c->pid) < 0 && errno != EACCES && errno != ESRCH) {
		fprintf(stderr, "chromium: setpgid: %s\n", strerror(errno));
		return -1;
	}
	if (await_port_file(c, stale) < 0) {
		show_log(c);
		return -1;
	}
	snprintf(c->ws_url, sizeof c->ws_url, "ws://127.0.0.1:%d%s", c->port, c->ws_path);
	return 0;
}

int chromium_start(struct chromium *c, const char *user_data_dir)
{
	memset(c, 0, sizeof *c);
	c->pid = -1;
	if (make_dirs(c, user_data_dir) < 0 || launch(c) < 0) {
		chromium_stop(c);
		return -1;
	}
	return 0;
}

int chromium_restart(struct chromium *c)
{
	if (c->pid > 0 || !c->dir[0]) {
		fprintf(stderr, "chromium: restart of a browser that is running or never was\n");
		return -1;
	}
	if (launch(c) < 0) {
		chromium_kill(c);
		return -1;
	}
	return 0;
}

/* Reap the browser within ms: 1 once it is reaped, 0 if still there. */
static int reap(pid_t pid, int ms)
{
	long long deadline = hb_monotonic_ms() + ms;
	pid_t r;

	while (((r = waitpid(pid, NULL, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) && hb_monotonic_ms() < deadline)
		tick();
	return r == pid || (r < 0 && errno == ECHILD);
}

/* Whether a process of group pgid is still running: /proc/N/stat, whose
 * fields after the name (which ends at the last ')') are the state, the
 * parent and the group.  A zombie counts as gone: the browser's helpers
 * are reparented to init on its death, and some inits reap late (seen:
 * over a second), while a zombie holds no file of the folder. */
static int group_running(pid_t pgid)
{
	struct dirent *e;
	int running = 0;
	DIR *proc;

	if (!(proc = opendir("/proc")))
		return kill(-pgid, 0) == 0; /* no /proc: zombies count */
	while (!running && (e = readdir(proc))) {
		char name[300], buf[512], *paren, state;
		long ppid, pgrp;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(name, sizeof name, "/proc/%s/stat", e->d_name);
		if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if ((paren = strrchr(buf, ')')) && sscanf(paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3)
			running = pgrp == pgid && state != 'Z' && state != 'X';
	}
	closedir(proc);
	return running;
}

/* Wait, within ms, until no process of the group runs. */
static void await_group(pid_t pgid, int ms)
{
	long long deadline = hb_monotonic_ms() + ms;

	while (group_running(pgid) && hb_monotonic_ms() < deadline)
		tick();
}

/* SIGKILL to the group and reap the browser; then wait for its helpers,
 * which its death reparented, so the folder is free when this returns. */
static void kill_group(struct chromium *c)
{
	kill(-c->pid, SIGKILL);
	if (!reap(c->pid, STOP_PATIENCE_MS))
		fprintf(stderr, "chromium: pid %ld still there after SIGKILL\n", (long)c->pid);
	await_group(c->pid, STOP_PATIENCE_MS);
	c->pid = -1;
}

void chromium_kill(struct chromium *c)
{
	if (c->pid > 0)
		kill_group(c);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

int chromium_stop(struct chromium *c)
{
	int r = -1;

	if (c->pid > 0) {
		kill(-c->pid, SIGTERM);
		if (reap(c->pid, STOP_PATIENCE_MS))
			r = 0;
		else
			fprintf(stderr, "chromium: pid %ld still there after SIGTERM: killed\n", (long)c->pid);
		kill_group(c); /* and any helper the browser left behind */
	}
	/* Deepest first, not following links out of the folder. */
	if (c->made_dir && c->dir[0] && nftw(c->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0) {
		fprintf(stderr, "chromium: cannot remove %s: %s\n", c->dir, strerror(errno));
		r = -1;
	}
	c->made_dir = 0;
	return r;
}
