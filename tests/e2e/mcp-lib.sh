# mcp-lib.sh - what the end-to-end scripts of hb-mcp with the real
# clients (mcp-codex.sh, mcp-claude.sh) read back from the broker:
# sourced after lib.sh, with watch_events running.

# The broker's ends of TOOL's calls for session $2 that went well; its
# starts of them.
calls_ok() { events "e.event === 'call.end' && e.tool === '$1' && e.session === '$2' && e.ok === true"; }
calls_of() { events "e.event === 'call.start' && e.tool === '$1' && e.session === '$2'"; }

# The sessions of agent external in $tmp/project, as svc-sessions lists them.
external_sessions() {
	"$build/hbctl" call maintain_sessions '{"action":"listSessions","limit":200}' | js '
		const s = input;
		for (const r of JSON.parse(s).sessions)
			if (r.agent === "external" && r.projectDirectory === argv[0]) print(r.id);' "$tmp/project"
}

# The title of session $1 ("no row" when there is none).
title_of() {
	"$build/hbctl" call maintain_sessions '{"action":"listSessions","limit":200}' |
		js 'const s = input; const r=JSON.parse(s).sessions.find(x=>x.id===argv[0]);print(r?r.title:"no row")' "$1"
}

# The id of HB Code's open card for TOOL of session $2.
card_of() {
	"$build/hbctl" approvals --json 2>/dev/null | js '
		const s = input;
		for (const c of JSON.parse(s || "[]"))
			if (c.session === argv[1] && String(c.tool).endsWith(argv[0])) print(c.id);' "$1" "$2"
}
