/*
 * accounts - hbctl accounts: the Claude accounts of page 003
 * (agents/claude_account.h).  A person lists them with the sign-in each
 * has, adds one (a folder of its own in the data folder, linked to
 * Claude's main folder), signs it in or out with Claude's own commands
 * (`claude auth login|logout` with CLAUDE_CONFIG_DIR on that folder),
 * chooses the one the next Claude run uses, and removes one.
 *
 * hbctl never reads a sign-in file: what an account is signed in as is
 * what `claude auth status --json` says.  Claude's program is the setting
 * claudePath (HB_CLAUDE), else `claude` in PATH, else the one the Claude
 * Agent SDK brings beside the agent host.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_cmd.h"
#include "child.h"
#include "claude_account.h"
#include "clock.h"
#include "envvar.h"
#include "exe_path.h"
#include "hbctl.h"
#include "paths.h"
#include "program_path.h"
#include "settings.h"

extern char **environ;

#define STATUS_MS 30000		/* claude auth status answers at once; bounded all the same */
#define STATUS_MAX 65536

static int accounts_usage(void)
{
	fprintf(stderr, "usage: hbctl accounts [--json]\n"
			"       hbctl accounts add NAME | use NAME|default | remove NAME\n"
			"       hbctl accounts login|logout NAME|default [CLAUDE AUTH OPTIONS]\n");
	return EXIT_USAGE;
}

/* Claude's program into out: the setting, PATH, or the SDK's own. */
static int claude_program(const char *argv0, const struct hb_paths *p, char *out, size_t outlen)
{
	char set[HB_PATH_MAX], words[HB_AGENT_HOST_LINE_MAX], *host[HB_AGENT_HOST_ARGS_MAX + 1], dir[HB_PATH_MAX],
		err[1024], pattern[HB_PATH_MAX + 64];
	glob_t g;

	if (hb_settings_param_string(p, HB_PARAM_CLAUDE_PATH, set, sizeof set, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return -1;
	}
	if (*set) {
		if (hb_find_program(set, out, outlen))
			return 0;
		fprintf(stderr, "hbctl: claudePath names %s, which is not there\n", set);
		return -1;
	}
	if (hb_find_program("claude", out, outlen))
		return 0;
	/* the host's folder: its command line's host.mjs */
	if (hb_exe_dir(argv0, dir, sizeof dir, err, sizeof err) == 0 &&
	    hb_agent_host_argv(p, dir, words, sizeof words, host, err, sizeof err) == 0)
		for (char **w = host; *w; w++) {
			char *slash = strrchr(*w, '/');

			if (!slash || strcmp(slash, "/host.mjs") != 0)
				continue;
			snprintf(pattern, sizeof pattern, "%.*s/node_modules/@anthropic-ai/claude-agent-sdk-*/claude",
				 (int)(slash - *w), *w);
			if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0 &&
			    (size_t)snprintf(out, outlen, "%s", g.gl_pathv[0]) < outlen) {
				globfree(&g);
				return 0;
			}
			globfree(&g);
		}
	fprintf(stderr, "hbctl: Claude's program was not found: install Claude Code, or give its path: hbctl settings "
			"claude-path set PATH (or HB_CLAUDE)\n");
	return -1;
}

/* The CLAUDE_CONFIG_DIR of account name, its links refreshed: its
 * folder, or "" for the default account (the environment's as it is).
 * 0, or -1 (said). */
static int account_config_dir(const struct hb_paths *p, const char *name, char *dir, size_t dirlen)
{
	char err[640];

	*dir = '\0';
	if (strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) == 0)
		return 0;
	if (hb_claude_account_link(p, name, 0, err, sizeof err) < 0 ||
	    hb_claude_account_dir(p, name, dir, dirlen, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return -1;
	}
	return 0;
}

/* CLAUDE_CONFIG_DIR for account name in this process.  0, or -1 (said). */
static int use_folder(const struct hb_paths *p, const char *name)
{
	char dir[HB_PATH_MAX];

	if (account_config_dir(p, name, dir, sizeof dir) < 0)
		return -1;
	return *dir ? setenv("CLAUDE_CONFIG_DIR", dir, 1) : 0;
}

int accounts_use_active(char *name, size_t namelen)
{
	struct hb_paths p;
	char err[640];

	if (hb_paths_resolve(&p, err, sizeof err) < 0 || hb_claude_account_active(&p, name, namelen, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return -1;
	}
	return use_folder(&p, name);
}

/* What `claude auth status --json` says of the folder dir (the
 * environment's own for ""), or NULL (said). */
static json_t *sign_in_status(const char *claude, const char *dir)
{
	char *argv[] = { (char *)claude, "auth", "status", "--json", NULL }, buf[STATUS_MAX], err[512];
	char **envp = *dir ? hb_env_with(environ, "CLAUDE_CONFIG_DIR", dir) : NULL;
	long long deadline = hb_monotonic_ms() + STATUS_MS;
	struct child c;
	size_t len = 0;
	json_t *status;
	int rc;

	if (*dir && !envp) {
		fprintf(stderr, "hbctl: out of memory\n");
		return NULL;
	}
	rc = child_spawn(&c, argv, envp, CHILD_OWN_GROUP, err, sizeof err);
	free(envp); /* one allocation; the child has its copy */
	if (rc < 0) {
		fprintf(stderr, "hbctl: cannot run %s: %s\n", claude, err);
		return NULL;
	}
	close(c.in);
	for (;;) {
		struct pollfd pfd = { .fd = c.out, .events = POLLIN };
		long long left = deadline - hb_monotonic_ms();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) < 0) {
			if (left > 0 && errno == EINTR)
				continue;
			break;
		}
		if (!pfd.revents)
			continue;
		if ((n = read(c.out, buf + len, sizeof buf - 1 - len)) <= 0 || (len += (size_t)n) == sizeof buf - 1)
			break;
	}
	kill(-c.pid, SIGKILL);
	close(c.out);
	child_wait(&c);
	status = json_loadb(buf, len, 0, NULL);
	if (!json_is_object(status)) {
		fprintf(stderr, "hbctl: %s auth status gave no status\n", claude);
		json_decref(status);
		return NULL;
	}
	return status;
}

/* One account's line: {name, active, folder, signIn}. */
static json_t *describe(const struct hb_paths *p, const char *claude, const char *name, const char *active)
{
	char dir[HB_PATH_MAX] = "?", config[HB_PATH_MAX], err[640];
	json_t *status, *line;
	int rc = strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) == 0 ? hb_claude_main_dir(dir, sizeof dir, err, sizeof err)
							     : hb_claude_account_dir(p, name, dir, sizeof dir, err, sizeof err);

	if (rc < 0)
		snprintf(dir, sizeof dir, "?");
	status = *claude && account_config_dir(p, name, config, sizeof config) == 0 ? sign_in_status(claude, config)
										       : NULL;
	line = json_pack("{s:s, s:b, s:s}", "name", name, "active", strcmp(name, active) == 0, "folder", dir);
	if (line)
		json_object_set_new(line, "signIn", status ? status : json_null());
	return line;
}

static int list_accounts(const char *argv0, const struct hb_paths *p, int json)
{
	char active[HB_CLAUDE_ACCOUNT_NAME_MAX], err[640], claude[HB_PATH_MAX] = "", dir[HB_PATH_MAX + 32];
	json_t *all = json_array(), *line;
	struct dirent *de;
	DIR *d;
	size_t i;

	if (hb_claude_account_active(p, active, sizeof active, err, sizeof err) < 0)
		fprintf(stderr, "hbctl: %s\n", err), snprintf(active, sizeof active, "?");
	if (claude_program(argv0, p, claude, sizeof claude) < 0)
		*claude = '\0';
	json_array_append_new(all, describe(p, claude, HB_CLAUDE_ACCOUNT_DEFAULT, active));
	snprintf(dir, sizeof dir, "%s/%s", p->data, HB_CLAUDE_ACCOUNTS_DIR);
	if ((d = opendir(dir))) {
		while ((de = readdir(d)))
			if (hb_claude_account_name_ok(de->d_name) && hb_claude_account_exists(p, de->d_name))
				json_array_append_new(all, describe(p, claude, de->d_name, active));
		closedir(d);
	}
	if (json) {
		json_t *doc = json_pack("{s:s, s:o}", "active", active, "accounts", all);
		char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;

		puts(text ? text : "{}");
		free(text);
		json_decref(doc);
		return text ? 0 : EXIT_FAIL;
	}
	json_array_foreach(all, i, line) {
		const json_t *s = json_object_get(line, "signIn");
		const char *email = json_string_value(json_object_get(s, "email"));

		printf("%s %-12s %s\n", json_is_true(json_object_get(line, "active")) ? "*" : " ",
		       json_string_value(json_object_get(line, "name")), json_string_value(json_object_get(line, "folder")));
		if (!s)
			printf("    sign-in unknown (Claude's program did not say)\n");
		else if (json_is_true(json_object_get(s, "loggedIn")))
			printf("    signed in (%s)%s%s\n", json_string_value(json_object_get(s, "authMethod")),
			       email ? " as " : "", email ? email : "");
		else
			printf("    not signed in: hbctl accounts login %s\n", json_string_value(json_object_get(line, "name")));
	}
	json_decref(all);
	return 0;
}

/* claude auth VERB [options] on account name's folder, in the foreground:
 * Claude's own sign-in talks to the person at the terminal. */
static int run_auth(const char *argv0, const struct hb_paths *p, const char *verb, const char *name, int argc,
		    char **argv)
{
	char claude[HB_PATH_MAX], *args[32];
	int n = 0, status;
	pid_t pid;

	if (strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) != 0 && !hb_claude_account_exists(p, name)) {
		fprintf(stderr, "hbctl: there is no Claude account \"%s\" (hbctl accounts add %s makes one)\n", name, name);
		return EXIT_FAIL;
	}
	if (argc > 24)
		return accounts_usage();
	if (claude_program(argv0, p, claude, sizeof claude) < 0 || use_folder(p, name) < 0)
		return EXIT_FAIL;
	args[n++] = claude, args[n++] = "auth", args[n++] = (char *)verb;
	for (int i = 0; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "hbctl: cannot start %s: %s\n", claude, strerror(errno));
		return EXIT_FAIL;
	}
	if (pid == 0) {
		execv(claude, args);
		fprintf(stderr, "hbctl: cannot run %s: %s\n", claude, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_FAIL;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : EXIT_FAIL;
}

int cmd_accounts(int argc, char **argv)
{
	struct hb_paths p;
	char err[640];
	const char *verb = argc > 2 ? argv[2] : NULL;

	if (hb_paths_resolve(&p, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: %s\n", err);
		return EXIT_FAIL;
	}
	if (!verb || (strcmp(verb, "--json") == 0 && argc == 3))
		return argc <= 3 ? list_accounts(argv[0], &p, verb != NULL) : accounts_usage();
	if ((strcmp(verb, "login") == 0 || strcmp(verb, "logout") == 0) && argc >= 4)
		return run_auth(argv[0], &p, verb, argv[3], argc - 4, argv + 4);
	if (argc != 4)
		return accounts_usage();
	if (strcmp(verb, "add") == 0) {
		if (hb_claude_account_exists(&p, argv[3])) {
			fprintf(stderr, "hbctl: the Claude account \"%s\" exists already\n", argv[3]);
			return EXIT_FAIL;
		}
		if (hb_claude_account_link(&p, argv[3], 1, err, sizeof err) < 0) {
			fprintf(stderr, "hbctl: %s\n", err);
			return EXIT_FAIL;
		}
		printf("added %s; sign it in with: hbctl accounts login %s\n", argv[3], argv[3]);
		return 0;
	}
	if (strcmp(verb, "use") == 0) {
		const char *name = argv[3];

		if (strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) != 0 && !hb_claude_account_exists(&p, name)) {
			fprintf(stderr, "hbctl: there is no Claude account \"%s\" (hbctl accounts add %s makes one)\n",
				name, name);
			return EXIT_FAIL;
		}
		if (hb_settings_param_set(&p, HB_PARAM_CLAUDE_ACCOUNT, strcmp(name, HB_CLAUDE_ACCOUNT_DEFAULT) == 0 ? NULL : name,
					   err, sizeof err) < 0) {
			fprintf(stderr, "hbctl: %s\n", err);
			return EXIT_FAIL;
		}
		printf("the next Claude run uses %s; a running one keeps its own\n", name);
		return 0;
	}
	if (strcmp(verb, "remove") == 0) {
		char active[HB_CLAUDE_ACCOUNT_NAME_MAX];

		if (hb_claude_account_active(&p, active, sizeof active, err, sizeof err) == 0 &&
		    strcmp(active, argv[3]) == 0) {
			fprintf(stderr, "hbctl: %s is the active account; choose another first (hbctl accounts use default)\n",
				argv[3]);
			return EXIT_FAIL;
		}
		if (hb_claude_account_remove(&p, argv[3], err, sizeof err) < 0) {
			fprintf(stderr, "hbctl: %s\n", err);
			return EXIT_FAIL;
		}
		printf("removed %s\n", argv[3]);
		return 0;
	}
	return accounts_usage();
}
