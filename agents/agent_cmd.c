/*
 * agent_cmd - see agent_cmd.h.  The default is looked up on every call
 * (no cache): a build tree and an installation differ only in where the
 * program sits, and the file is either there or not.
 */
#include "agent_cmd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "program_path.h"
#include "settings.h"

/* Where the host is, relative to the program's folder: the build tree
 * first (a program run from build/ must use its own tree's host, even
 * when an older one is installed), then the installed layout, seen from
 * PREFIX/bin (hbctl, hb-broker) and from PREFIX/libexec/hbcode (the
 * services: svc-explainer's Claude worker). */
static const char *const host_places[] = {
	"../agent-host/host.mjs",
	"../libexec/hbcode/agent-host/host.mjs",
	"agent-host/host.mjs",
	NULL
};

/* The line split at blanks into words; 0, or -1 with err. */
static int split(const char *line, char *words, size_t wordslen, char *argv[HB_AGENT_HOST_ARGS_MAX + 1],
		 char *err, size_t errlen)
{
	size_t n = 0;
	char *save = NULL, *tok;

	if (snprintf(words, wordslen, "%s", line) >= (int)wordslen) {
		snprintf(err, errlen, "the agentHost command line is longer than %zu bytes", wordslen - 1);
		return -1;
	}
	for (tok = strtok_r(words, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n == HB_AGENT_HOST_ARGS_MAX) {
			snprintf(err, errlen, "the agentHost command line has more than %d words",
				 HB_AGENT_HOST_ARGS_MAX);
			return -1;
		}
		argv[n++] = tok;
	}
	argv[n] = NULL;
	if (n == 0) {
		snprintf(err, errlen, "the agentHost setting has no command in it");
		return -1;
	}
	return 0;
}

/* {"node", host.mjs beside the program}: the path is one word even with
 * blanks in it. */
static int beside(const char *exe_dir, char *words, size_t wordslen, char *argv[HB_AGENT_HOST_ARGS_MAX + 1],
		  char *err, size_t errlen)
{
	char cand[PATH_MAX], real[PATH_MAX];

	if (!exe_dir) {
		snprintf(err, errlen, "no Claude agent host is set up: set agentHost in settings.json (or HB_AGENT_HOST) "
			 "to its command line, e.g. \"node /path/to/agent-host/host.mjs\"");
		return -1;
	}
	for (const char *const *place = host_places; *place; place++) {
		int n = snprintf(cand, sizeof cand, "%s/%s", exe_dir, *place);

		if (n < 0 || (size_t)n >= sizeof cand || access(cand, R_OK) != 0 || !realpath(cand, real))
			continue;
		n = snprintf(words, wordslen, "node%c%s", '\0', real);
		if (n < 0 || (size_t)n >= wordslen) {
			snprintf(err, errlen, "the agent host's path is too long: %s", real);
			return -1;
		}
		argv[0] = words;
		argv[1] = words + sizeof "node";
		argv[2] = NULL;
		return 0;
	}
	snprintf(err, errlen, "no Claude agent host is set up: %s/%s, %s/%s and %s/%s are not there; set agentHost "
		 "in settings.json (or HB_AGENT_HOST) to its command line, e.g. \"node /path/to/agent-host/host.mjs\"",
		 exe_dir, host_places[0], exe_dir, host_places[1], exe_dir, host_places[2]);
	return -1;
}

int hb_agent_host_argv(const struct hb_paths *p, const char *exe_dir, char *words, size_t wordslen,
		       char *argv[HB_AGENT_HOST_ARGS_MAX + 1], char *err, size_t errlen)
{
	char line[HB_AGENT_HOST_LINE_MAX];

	if (hb_settings_param_string(p, HB_PARAM_AGENT_HOST, line, sizeof line, err, errlen) < 0)
		return -1;
	if (line[strspn(line, " \t")] != '\0')
		return split(line, words, wordslen, argv, err, errlen);
	return beside(exe_dir, words, wordslen, argv, err, errlen);
}

int agent_program(const struct hb_paths *p, char *out, size_t outlen, char *err, size_t errlen)
{
	char codex[1024];

	if (hb_settings_param_string(p, HB_PARAM_CODEX_PATH, codex, sizeof codex, err, errlen) < 0)
		return -1;
	if (hb_find_program(codex, out, outlen))
		return 0;
	if (strchr(codex, '/'))
		snprintf(err, errlen, "codexPath %s is not an executable file; set it to the codex program: hbctl "
				      "settings codex-path set PATH (or HB_CODEX)", codex);
	else
		snprintf(err, errlen, "%s was not found in PATH (%s); install Codex, or give its path: hbctl settings "
				      "codex-path set PATH (or HB_CODEX)", codex, out);
	return -1;
}
