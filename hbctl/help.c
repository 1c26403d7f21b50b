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
			"       hbctl watch [--text|--json] [--timeline [--session ID] [--thread THREAD] | TOPIC-PREFIX]\n"
			"       hbctl restart|stop|start SERVICE\n"
			"       hbctl replace SERVICE /absolute/path/to/new/binary\n"
			"       hbctl catalog --for codex|claude\n"
			"       hbctl approvals | approve ID | decline ID [--message TEXT]\n"
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
			"       hbctl timeline CLAUDE-SESSION-ID --cwd DIR [--thread CALL-ID] [--json|--plain]\n"
			"       hbctl timeline --codex THREAD-ID [--thread CHILD-THREAD-ID] [--json|--plain]\n"
			"       hbctl accounts [--json] | accounts add|use|remove NAME |\n"
			"                      accounts login|logout NAME|default [CLAUDE AUTH OPTIONS]\n");
	return EXIT_USAGE;
}
