# mcp-lib.sh - what the end-to-end scripts of hb-mcp with the real
# clients (mcp-codex.sh, mcp-claude.sh) read back from the broker:
# sourced after lib.sh, with watch_events running.

# The broker's ends of TOOL's calls for session $2 that went well; its
# starts of them.
calls_ok() { events "e.event === 'call.end' && e.tool === '$1' && e.session === '$2' && e.ok === true"; }
calls_of() { events "e.event === 'call.start' && e.tool === '$1' && e.session === '$2'"; }

# The sessions of agent external in $tmp/project, as svc-sessions lists them.
external_sessions() {
	"$build/hbctl" call maintain_sessions '{"action":"listSessions","limit":200}' | node -e '
		let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => {
			for (const r of JSON.parse(s).sessions)
				if (r.agent === "external" && r.projectDirectory === process.argv[1]) console.log(r.id);
		});' "$tmp/project"
}

# The title of session $1 ("no row" when there is none).
title_of() {
	"$build/hbctl" call maintain_sessions '{"action":"listSessions","limit":200}' |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s).sessions.find(x=>x.id===process.argv[1]);console.log(r?r.title:"no row")})' "$1"
}

# The id of HB Code's open card for TOOL of session $2.
card_of() {
	"$build/hbctl" approvals --json 2>/dev/null | node -e '
		let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => {
			for (const c of JSON.parse(s || "[]"))
				if (c.session === process.argv[2] && String(c.tool).endsWith(process.argv[1])) console.log(c.id);
		});' "$1" "$2"
}
