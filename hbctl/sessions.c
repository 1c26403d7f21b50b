/*
 * sessions - hbctl sessions [--json] [--agent codex|claude] [--all]
 * [--since DURATION|TIME]: the sessions a person can resume, as a table
 * (title, agent, folder, last activity, the ids to resume by), most
 * recent first.  A session is resumable once its agent has a
 * conversation for it (a Claude session id, a Codex thread id): that id
 * is what `claude --resume` and `codex resume` take, and the HB Code
 * session id is what hbctl and the desktop take.  --all adds the
 * sessions not started yet and the archived ones; --json prints the
 * sessions as maintain_sessions gives them, for scripts.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hbctl.h"
#include "live_text.h"
#include "session_list.h"
#include "since.h"

#define TITLE_COLS  28
#define FOLDER_COLS 36

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* "12 s ago", "5 min ago", "3 h ago", else the local date. */
static void activity(char *out, size_t len, time_t at, time_t now)
{
	struct tm tm;

	if (at < 0)
		snprintf(out, len, "-");
	else if (now - at < 60)
		snprintf(out, len, "%lld s ago", (long long)(now - at > 0 ? now - at : 0));
	else if (now - at < 3600)
		snprintf(out, len, "%lld min ago", (long long)(now - at) / 60);
	else if (now - at < 86400)
		snprintf(out, len, "%lld h ago", (long long)(now - at) / 3600);
	else if (!localtime_r(&at, &tm) || !strftime(out, len, "%Y-%m-%d", &tm))
		snprintf(out, len, "-");
}

/* s cut to cols columns and padded to them. */
static void cell(const char *s, size_t cols)
{
	char cut[256];
	size_t used = live_fit(cut, sizeof cut, s, cols);

	printf("%s%*s  ", cut, (int)(cols - used), "");
}

static void print_table(const json_t *list, time_t now)
{
	const char *home = getenv("HOME");
	const json_t *s;
	size_t i;

	printf("%-*s  %-6s  %-*s  %-13s  %-30s  %s\n", TITLE_COLS, "TITLE", "AGENT", FOLDER_COLS, "FOLDER",
	       "LAST ACTIVITY", "SESSION", "RESUME");
	json_array_foreach(list, i, s) {
		const char *dir = str(s, "projectDirectory"), *resume = str(s, "claudeSessionId");
		char folder[1024], when[32];
		size_t hl = home ? strlen(home) : 0;

		if (!*resume)
			resume = str(s, "codexThreadId");
		if (hl > 1 && strncmp(dir, home, hl) == 0 && (dir[hl] == '/' || !dir[hl]))
			snprintf(folder, sizeof folder, "~%s", dir + hl);
		else
			snprintf(folder, sizeof folder, "%s", dir);
		activity(when, sizeof when, since_iso_utc(str(s, "updatedAt")), now);
		cell(str(s, "title"), TITLE_COLS);
		cell(str(s, "agent"), 6);
		cell(folder, FOLDER_COLS);
		cell(when, 13);
		printf("%-30s  %s%s\n", str(s, "id"), *resume ? resume : "-",
		       json_is_true(json_object_get(s, "archived")) ? " (archived)" : "");
	}
}

static int sessions_usage(void)
{
	fprintf(stderr, "usage: hbctl sessions [--json] [--agent codex|claude] [--all] [--since DURATION|TIME]\n"
			"  the sessions to resume, most recent first; --all: also those not started and archived;\n"
			"  --since: active since 10m, 2h, 3d, 14:05 or 2026-12-05\n");
	return EXIT_USAGE;
}

int cmd_sessions(int argc, char **argv)
{
	const char *agent = NULL;
	int json = 0, all = 0, code;
	time_t now = time(NULL), since = -1;
	json_t *list, *keep;
	char err[512];
	const json_t *s;
	size_t i;

	for (int a = 2; a < argc; a++) {
		if (strcmp(argv[a], "--json") == 0)
			json = 1;
		else if (strcmp(argv[a], "--all") == 0)
			all = 1;
		else if (strcmp(argv[a], "--agent") == 0 && a + 1 < argc && !agent &&
			 (strcmp(argv[a + 1], "codex") == 0 || strcmp(argv[a + 1], "claude") == 0))
			agent = argv[++a];
		else if (strcmp(argv[a], "--since") == 0 && a + 1 < argc && since < 0 &&
			 (since = since_parse(argv[a + 1], now)) >= 0)
			a++;
		else
			return sessions_usage();
	}
	if (session_list_fetch(agent, all, &list, &code, err, sizeof err) < 0) {
		fprintf(stderr, "hbctl: sessions: %s\n", err);
		return code;
	}
	if (!(keep = json_array())) {
		json_decref(list);
		fprintf(stderr, "hbctl: out of memory\n");
		return EXIT_FAIL;
	}
	json_array_foreach(list, i, s) {
		int started = *str(s, "claudeSessionId") || *str(s, "codexThreadId");

		if ((all || started) && (since < 0 || since_iso_utc(str(s, "updatedAt")) >= since))
			json_array_append(keep, (json_t *)s);
	}
	json_decref(list);
	if (json) {
		char *text = json_dumps(keep, JSON_COMPACT);

		if (text)
			puts(text);
		free(text);
	} else if (!json_array_size(keep)) {
		puts(all ? "no sessions" : "no sessions to resume (hbctl sessions --all lists those not started yet)");
	} else {
		print_table(keep, now);
	}
	json_decref(keep);
	return 0;
}
