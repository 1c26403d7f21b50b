// mcp-conformance.mjs BUILD TMP: the official MCP TypeScript SDK's client
// (tests/mcp, pinned) against hb-mcp and a real hb-broker
// (mcp-conformance.sh starts it): initialize, tools/list, a read-only call,
// approval-class calls approved through hbctl and through elicitation and
// one declined, a question dismissed (cancel) and one the client could not
// ask (an error answer) that leave the card open, an image result, progress
// on a long call, a cancelled call that its service sees cancelled, a
// broker restart between two calls, list_changed when a Gemini key is
// saved, and no wakeups of an idle hb-mcp.  One "ok"/"FAIL" line a check.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../mcp/package.json"));
const sdk = (p) => import(require.resolve(`@modelcontextprotocol/sdk/${p}`));
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ElicitRequestSchema, ToolListChangedNotificationSchema, McpError } = await sdk("types.js");

const [build, tmp] = process.argv.slice(2);
const hbctl = (...args) => execFileSync(`${build}/hbctl`, args, { encoding: "utf8" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failed = 0;
const check = (name, cond, detail) => {
	console.log(`${cond ? "ok  " : "FAIL"} ${name}${cond || detail === undefined ? "" : `: ${JSON.stringify(detail).slice(0, 600)}`}`);
	if (!cond) failed = 1;
};
const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");
async function until(ms, cond) {
	for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await cond()) return true;
	return false;
}
const openCards = () => JSON.parse(hbctl("approvals", "--json"));

// The elicitation the client answers: "approve", "decline", "cancel" (the
// person dismissed it), "error" (the client could not ask), or "wait"
// (unanswered until hb-mcp withdraws it, when hbctl answered the card).
let elicitMode = "wait";
const asked = [], withdrawn = [];
const client = new Client({ name: "mcp-conformance", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, (req, extra) => {
	asked.push(req.params.message);
	if (elicitMode === "approve") return { action: "accept", content: { approve: true } };
	if (elicitMode === "decline") return { action: "decline" };
	if (elicitMode === "cancel") return { action: "cancel" };
	if (elicitMode === "error") throw new McpError(-32603, "the test's client cannot ask");
	// (hbctl runs synchronously here, so the withdrawal may be read
	// together with the question: the signal is aborted already then)
	return new Promise((resolve) => {
		const gone = () => {
			withdrawn.push(req.params.message);
			resolve({ action: "cancel" });
		};
		if (extra.signal.aborted) gone();
		else extra.signal.addEventListener("abort", gone);
	});
});
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });

const transport = new StdioClientTransport({
	command: `${build}/hb-mcp`, args: ["--access", "full-auto"], cwd: `${tmp}/project`,
	env: { ...process.env }, stderr: "pipe",
});
let stderr = "";
transport.stderr.on("data", (d) => { stderr += d; });
let negotiated = null;
transport.setProtocolVersion = (v) => { negotiated = v; };

// initialize
await client.connect(transport);
check("initialize: the newest revision the SDK knows", negotiated === "2025-11-25", negotiated);
check("initialize: serverInfo hb-mcp", client.getServerVersion()?.name === "hb-mcp", client.getServerVersion());
check("initialize: tools with listChanged", client.getServerCapabilities()?.tools?.listChanged === true,
	client.getServerCapabilities());
// an older client's revision is answered as asked (hb-mcp alone, raw)
{
	const init = { jsonrpc: "2.0", id: 1, method: "initialize",
		params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "old", version: "1" } } };
	const r = spawnSync(`${build}/hb-mcp`, [], { input: JSON.stringify(init) + "\n", encoding: "utf8", timeout: 10000 });
	const answer = JSON.parse(r.stdout.split("\n")[0]);
	check("initialize: 2025-03-26 negotiated down", answer.result?.protocolVersion === "2025-03-26", r.stdout);
}

// tools/list
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
check("tools/list: the catalog's four tools without a Gemini key",
	["use_user_browser", "maintain_sessions", "manage_sessions", "send_session_message"].every((n) => byName[n]) &&
	!byName.synthesize_speech, tools.map((t) => t.name));
check("tools/list: input schemas", tools.every((t) => t.inputSchema?.type === "object"));
check("tools/list: read-only annotated", byName.maintain_sessions?.annotations?.readOnlyHint === true,
	byName.maintain_sessions?.annotations);
check("tools/list: the browser destructive and open-world",
	byName.use_user_browser?.annotations?.readOnlyHint === false &&
	byName.use_user_browser?.annotations?.destructiveHint === true &&
	byName.use_user_browser?.annotations?.openWorldHint === true, byName.use_user_browser?.annotations);
check("tools/list: the desktop class not destructive",
	byName.send_session_message?.annotations?.destructiveHint === false, byName.send_session_message?.annotations);

// a read-only call
let r = await client.callTool({ name: "maintain_sessions", arguments: { action: "guide" } });
check("read-only call: maintain_sessions answers", !r.isError && textOf(r).includes("maintain_sessions is a read-only view"),
	r);
r = await client.callTool({ name: "maintain_sessions", arguments: { action: "listSessions", agent: "external" } });
const sessions = JSON.parse(textOf(r)).sessions;
check("the run's session: agent external, titled by the client's name",
	sessions.length === 1 && sessions[0].title === "mcp-conformance" && sessions[0].agent === "external", sessions);

// --session: a run for that session, at --access (hb-mcp alone, raw;
// stdin stays open until the answer came: its end closes the run)
{
	const raw = spawn(`${build}/hb-mcp`, ["--session", sessions[0].id, "--access", "read-only"]);
	let out = "";
	raw.stdout.on("data", (d) => { out += d; });
	for (const l of [
		{ jsonrpc: "2.0", id: 1, method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
		{ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami" } },
	]) raw.stdin.write(JSON.stringify(l) + "\n");
	await until(10000, () => out.split("\n").length > 2);
	raw.stdin.end();
	let who = {};
	try { who = JSON.parse(JSON.parse(out.split("\n")[1]).result.content[0].text); } catch { /* checked below */ }
	check("--session: the call is bound to that session's external run, at --access",
		who.session === sessions[0].id && who.agent === "external" && who.access === "read-only" &&
		/^mcp-\d+-/.test(who.run) && who.callId === "mcp-1", out);
}

// approval-class calls: approved through hbctl (the elicitation offered
// too is withdrawn), approved through elicitation, declined
elicitMode = "wait";
const echoServed = () => JSON.parse(hbctl("status", "--json")).services.find((x) => x.name === "svc-echo").callsServed;
const servedBefore = echoServed();
const viaHbctl = client.callTool({ name: "use_user_browser", arguments: { action: "screenshot" } });
check("approval: a card is raised", await until(5000, () => openCards().length === 1), openCards());
const card = openCards()[0];
check("approval: the card names the tool and the run", card?.tool === "use_user_browser" && card?.kind === "tool");
check("approval: the call waits for it (svc-echo has not seen it)", echoServed() === servedBefore,
	{ servedBefore, now: echoServed() });
hbctl("approve", card.id);
r = await viaHbctl;
check("approval through hbctl: the call ran", !r.isError && textOf(r).includes("screenshot"), r);
check("image result: MCP image content",
	r.content.some((c) => c.type === "image" && c.mimeType === "image/png" && c.data.startsWith("iVBORw0KGgo")), r);
check("approval through hbctl: the client's question was offered and withdrawn",
	await until(3000, () => asked.length === 1 && withdrawn.length === 1), { asked, withdrawn });
elicitMode = "approve";
r = await client.callTool({ name: "use_user_browser", arguments: { action: "screenshot" } });
check("approval through elicitation: the call ran", !r.isError && r.content.some((c) => c.type === "image"), r);
check("approval through elicitation: the card is answered", openCards().length === 0, openCards());
elicitMode = "decline";
r = await client.callTool({ name: "use_user_browser", arguments: { action: "screenshot" } });
check("declined: the bridges' sentence, isError", r.isError === true && textOf(r) === "The user declined this tool call.", r);
// a dismissed question and an error answer are no "no": the card stays
// open, and hbctl (the desktop, the phone) answers it
for (const mode of ["cancel", "error"]) {
	elicitMode = mode;
	const said = stderr.split("it waits for hbctl").length;
	const call = client.callTool({ name: "use_user_browser", arguments: { action: "screenshot" } });
	check(`${mode} answer: hb-mcp read it and leaves the card`,
		await until(5000, () => stderr.split("it waits for hbctl").length === said + 1), stderr.slice(-600));
	const open = openCards();
	check(`${mode} answer: the card stays open`, open.length === 1, open);
	if (open.length === 1) hbctl("approve", open[0].id);
	r = await call;
	check(`${mode} answer: approved through hbctl, the call ran`, !r.isError && r.content.some((c) => c.type === "image"), r);
}
elicitMode = "wait";

// progress on a long call
const progress = [];
r = await client.callTool({ name: "progress", arguments: { text: "rendering frame 3 of 9", holdMs: 1500 } }, undefined,
	{ onprogress: (p) => progress.push(p) });
check("progress: notifications/progress with the service's text",
	!r.isError && progress.length === 1 && progress[0].message === "rendering frame 3 of 9" && progress[0].progress === 1,
	{ r, progress });

// cancel: the service sees it, and no answer comes
{
	const ac = new AbortController();
	const slow = client.callTool({ name: "sleep", arguments: { ms: 30000 } }, undefined, { signal: ac.signal });
	await until(5000, () => hbctl("status", "--json").match(/"name":"svc-echo"[^}]*"slotsBusy":1/));
	ac.abort("the test cancels");
	let rejected = false;
	try { await slow; } catch { rejected = true; }
	check("cancel: the client's call ends", rejected);
	check("cancel: the service saw it (its worker is free again)",
		await until(5000, () => hbctl("status", "--json").match(/"name":"svc-echo"[^}]*"slotsBusy":0/)));
}

// errors: unknown tool (a protocol error), an oversized argument (a tool error)
try {
	await client.callTool({ name: "no_such_tool", arguments: {} });
	check("unknown tool: a JSON-RPC error", false);
} catch (e) {
	check("unknown tool: a JSON-RPC error", e instanceof McpError && e.code === -32602 && /unknown tool/.test(e.message),
		e.message);
}
r = await client.callTool({ name: "echo", arguments: { text: "x".repeat(4200000) } });
check("oversized argument: refused before sending", r.isError === true && /at most 4194304 are accepted/.test(textOf(r)),
	textOf(r));

// a broker restart between two calls
r = await client.callTool({ name: "maintain_sessions", arguments: { action: "guide" } });
check("before the restart: a call", !r.isError);
execFileSync("sh", [`${tmp}/restart-broker.sh`], { stdio: "inherit" });
r = await client.callTool({ name: "maintain_sessions", arguments: { action: "guide" } });
check("after the restart: the next call succeeds", !r.isError && textOf(r).includes("maintain_sessions"), r);

// list_changed when a Gemini key is saved
listChanged = 0;
execFileSync(`${build}/hbctl`, ["settings", "gemini-key", "set"], { input: "a-test-key\n" });
check("list_changed: sent when the key is saved", await until(5000, () => listChanged === 1), listChanged);
const after = (await client.listTools()).tools.map((t) => t.name);
check("list_changed: the Gemini tools are listed", after.includes("synthesize_speech") && after.includes("extract_video_context"),
	after);

// idle: no wakeups while nothing comes (the settings folder is watched,
// not looked at every second); every thread's voluntary switches
const switches = (pid) => readdirSync(`/proc/${pid}/task`).reduce((sum, t) =>
	sum + Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${t}/status`, "utf8"))[1]), 0);
{
	await sleep(300);
	const before = switches(transport.pid);
	await sleep(4000);
	const woke = switches(transport.pid) - before;
	check("idle: hb-mcp did not wake in 4 s with no traffic", woke <= 2, { woke });
}

await client.close();
await sleep(500);
check("hb-mcp said nothing but protocol on stdout (the SDK read every line)", true);
// under ASan (make test-asan) a finding is written to stderr as it exits
check("hb-mcp ended clean (no sanitizer finding)", !/Sanitizer|runtime error/.test(stderr), stderr.slice(-2000));
if (failed) console.log(stderr);
process.exit(failed);
