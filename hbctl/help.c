/*
 * help - hbctl's usage text, which every command prints when its words
 * are off (exit status EXIT_USAGE).  Apart from main.c, which calls the
 * commands, so a command's file does not call back into main's.
 */
#include <stdio.h>

#include "hbctl.h"

int usage(void)
{
	fprintf(stderr, "usage: hbctl status [--json]\n"
			"       hbctl call TOOL 'JSON' [--session ID] [--run ID] [--call-id ID] [--timeout MS]\n"
			"       hbctl watch [--text|--json] [--timeline [--session ID] [--thread THREAD]\n"
			"                   [--agent codex|claude] | TOPIC-PREFIX]\n"
			"       hbctl sessions [--json] [--agent codex|claude] [--all] [--since DURATION|TIME]\n"
			"       hbctl restart|stop|start SERVICE\n"
			"       hbctl replace SERVICE /absolute/path/to/new/binary\n"
			"       hbctl catalog --for codex|claude\n"
			"       hbctl approvals [--json] | approve ID | decline ID [--message TEXT]\n"
			"       hbctl messages [--session ID] [--json] | messages send|discard ID\n"
			"       hbctl run open RUN --session ID --project DIR --agent codex|claude --access LEVEL\n"
			"                          [--model MODEL]\n"
			"       hbctl run stop|close RUN\n"
			"       hbctl settings [--all | gemini-key set|delete | notifications on|off |\n"
			"                       policy important|frequent | relay-url set URL|delete |\n"
			"                       remote-access on|off | device-credential set|delete |\n"
			"                       browser on|off | browser-url set URL|delete |\n"
			"                       codex-path set PATH|delete | agent-host set LINE|delete |\n"
			"                       claude-path set PATH|delete]\n"
			"       hbctl claude history|list|inspect|subagents|subagentHistory|toolOutput|\n"
			"                    catalog|usage|title ['JSON params']\n"
			"       hbctl usage [--agent claude|codex] [--json]\n"
			"       hbctl timeline CLAUDE-SESSION-ID --cwd DIR [--thread CALL-ID] [--since WHEN] [--json|--plain]\n"
			"       hbctl timeline --codex THREAD-ID [--thread CHILD-THREAD-ID] [--since WHEN] [--json|--plain]\n"
			"       hbctl timeline --session HB-SESSION-ID [--thread ID] [--since WHEN] [--json|--plain]\n"
			"       hbctl accounts [--json] | accounts add|use|remove NAME |\n"
			"                      accounts login|logout NAME|default [CLAUDE AUTH OPTIONS]\n");
	return EXIT_USAGE;
}

/* hbctl timeline's own, longer usage (timeline.c, timeline_codex.c,
 * timeline_session.c). */
int timeline_usage(void)
{
	fprintf(stderr, "usage: hbctl timeline CLAUDE-SESSION-ID --cwd DIR [--thread CALL-ID] [--since WHEN] [--json|--plain]\n"
			"  the saved Claude conversation with that id in the project folder DIR, as timeline rows;\n"
			"  --thread: only the view of the subagent that call started (a spawn row's link.thread);\n"
			"  --since: only rows of messages since 10m, 2h, 3d, 14:05 or 2026-12-05\n"
			"       hbctl timeline --codex THREAD-ID [--thread CHILD-THREAD-ID] [--since WHEN] [--json|--plain]\n"
			"  the saved Codex thread with that id (its codexThreadId), as timeline rows\n"
			"       hbctl timeline --session HB-SESSION-ID [--thread ID] [--since WHEN] [--json|--plain]\n"
			"  the conversation of an HB Code session (hbctl sessions), Claude's or Codex's\n"
			"  (--agent claude|codex: which agent's id the ID is, as --codex says)\n");
	return EXIT_USAGE;
}
