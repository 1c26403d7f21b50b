// mcp.mjs - the driver of hb-mcp's benchmark beside the MCP servers a user
// would otherwise run, chrome-devtools-mcp and @playwright/mcp (pinned in
// tests/browser-peers).  tests/bench/mcp.sh starts the broker and this:
//
//   node mcp.mjs --hb-mcp PATH --front-call PATH --hbctl PATH --broker PID
//                --peers DIR --work DIR
//
// Each server is spoken to the way an MCP client does it, but with raw
// JSON-RPC 2.0 lines over the child's stdio rather than the official SDK's
// Client: the SDK validates every answer against its schemas in the
// client's process (for a list of 25 to 32 tools, milliseconds of the
// client's own CPU), which would be counted as the server's time and
// would weigh on the peers' larger lists more.  Here a time is from the
// spawn (or the request's line written) to the answer's line read and
// parsed, nothing else; hb-mcp's conformance with the SDK is
// tests/e2e/mcp-conformance.sh's subject.
//
// Four figures, each beside what it is compared with, in one run:
//  1. start to ready: spawn -> initialize answered -> tools/list answered
//     (the client's notifications/initialized sent between), one round of
//     warm-up (the page cache) then HB_BENCH_MCP_N rounds, the servers in
//     a rotating order, medians;
//  2. a tool call's round trip: hb-mcp's maintain_sessions listSessions
//     against the same call on a front-socket client and through `hbctl
//     call` (front-call, timed there), and the peers' calls that need a
//     browser but no page (list_pages, browser_tabs list) against a
//     headless Chromium: different tools, shown as such; after two calls
//     of warm-up each, HB_BENCH_MCP_N rounds alternating every path;
//  3. PSS (and private and RSS) of each server's process tree, idle after
//     tools/list, each measured alone (PSS splits a shared page among
//     every process mapping it: with one server at a time only this
//     driver, itself Node, shares the peers' pages);
//  4. wakeups of that tree over HB_BENCH_MCP_IDLE_S (10) seconds, right
//     after: the context switches of all its threads, from /proc, looked
//     at each second (and the seconds with any: a timer ticks in each,
//     Node's garbage collector wakes its helper threads in bursts).
// The ratios printed are peer / hb-mcp.  Prints the table; exits 1 when a
// server could not be measured (its reason printed), else 0.  No figure
// is judged: timings are never asserted.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { options } from '../ws/cli.mjs';

const args = options();
const N = Math.max(1, Number(process.env.HB_BENCH_MCP_N) || 15);
const IDLE_S = Math.max(1, Number(process.env.HB_BENCH_MCP_IDLE_S) || 10);
const SETTLE_MS = 2000;      // after tools/list, before the idle figures
const PATIENCE_MS = 60000;   // a bound on one answer, never a measure
const work = path.resolve(args.work);
const peers = path.resolve(args.peers);
const CALL = { name: 'maintain_sessions', arguments: { action: 'listSessions' } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failed = 0;

// The peers' own switches for what they would do at start beyond stdio:
// chrome-devtools-mcp's usage statistics (a flag and its variable) and
// its check of npm for a newer version (a child process running `npm
// config get registry` and asking the registry, CHROME_DEVTOOLS_MCP_NO_
// UPDATE_CHECKS; build/src/utils/check-for-updates.js), and CrUX lookups
// of its performance tools.  @playwright/mcp starts no network at all
// (strace -e connect: none); with --cdp-endpoint it launches no browser.
// HOME is the bench's, so no cache of the user's is read or written.
const peerEnv = { ...process.env, HOME: work, CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1',
	CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1' };
const servers = [
	{ name: 'hb-mcp', cmd: path.resolve(args['hb-mcp']), argv: [], env: process.env },
	{ name: 'chrome-devtools-mcp', cmd: process.execPath, env: peerEnv,
		argv: [path.join(peers, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'),
			'--no-usage-statistics', '--no-performance-crux'],
		browser: (url) => ['--browserUrl', url],
		call: { name: 'list_pages', arguments: {} }, callLabel: 'list_pages' },
	{ name: 'playwright-mcp', cmd: process.execPath, env: peerEnv,
		argv: [path.join(peers, '@playwright/mcp/cli.js'), '--output-dir', path.join(work, 'playwright-mcp')],
		browser: (url) => ['--cdp-endpoint', url],
		call: { name: 'browser_tabs', arguments: { action: 'list' } }, callLabel: 'browser_tabs list' },
];

// ---- one server on stdio ------------------------------------------------

// Spawn s (with extra arguments): its process and rpc(); t0 the spawn's time.
function start(s, extra = []) {
	const t0 = performance.now();
	const child = spawn(s.cmd, [...s.argv, ...extra], { cwd: work, env: s.env, stdio: ['pipe', 'pipe', 'pipe'] });
	let stderr = '';
	child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
	child.on('error', (e) => { stderr += String(e); });
	const waits = new Map();
	let id = 0;
	readline.createInterface({ input: child.stdout }).on('line', (line) => {
		const at = performance.now();
		let m;
		try { m = JSON.parse(line); } catch { return; }
		if (m.id !== undefined && waits.has(m.id)) {
			waits.get(m.id)(m, at);
			waits.delete(m.id);
		}
	});
	const exited = new Promise((resolve) => child.on('exit', (code, sig) => {
		for (const w of waits.values())
			w({ error: { message: `the server ended (${sig || code}): ${stderr.trim()}` } }, performance.now());
		waits.clear();
		resolve();
	}));
	// one request: { m, ms } with ms from the line written to the answer read
	const rpc = (method, params) => new Promise((resolve) => {
		const my = ++id;
		const timer = setTimeout(() => {
			waits.delete(my);
			resolve({ m: { error: { message: `no answer to ${method} in ${PATIENCE_MS / 1000} s` } } });
		}, PATIENCE_MS);
		const sent = performance.now();
		waits.set(my, (m, at) => {
			clearTimeout(timer);
			resolve({ m, ms: at - sent, at });
		});
		child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }) + '\n');
	});
	const notify = (method) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
	async function stop() {
		child.stdin.end();
		const t = setTimeout(() => child.kill('SIGKILL'), 5000);
		await exited;
		clearTimeout(t);
	}
	return { child, t0, rpc, notify, stop };
}

// initialize, notifications/initialized, tools/list: the times from the
// spawn to each answer, and the number of tools; throws with the reason.
async function ready(srv) {
	const init = await srv.rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {},
		clientInfo: { name: 'hbcode-bench', version: '1' } });
	if (init.m.error)
		throw new Error(`initialize: ${init.m.error.message}`);
	srv.notify('notifications/initialized');
	const list = await srv.rpc('tools/list', {});
	if (list.m.error)
		throw new Error(`tools/list: ${list.m.error.message}`);
	return { init: init.at - srv.t0, list: list.at - srv.t0, tools: list.m.result.tools.length };
}

// One tools/call: its ms, or throws with the reason.
async function call(srv, c) {
	const r = await srv.rpc('tools/call', c);
	if (r.m.error)
		throw new Error(`${c.name}: ${r.m.error.message}`);
	if (r.m.result.isError)
		throw new Error(`${c.name}: ${(r.m.result.content || []).map((x) => x.text).join(' ').slice(0, 300)}`);
	return r.ms;
}

// ---- /proc ------------------------------------------------------------------

// pid and every process below it.
function tree(pid) {
	const all = [pid];
	for (const t of safeList(`/proc/${pid}/task`)) {
		const kids = safeRead(`/proc/${pid}/task/${t}/children`).trim();
		for (const k of kids ? kids.split(/\s+/) : [])
			all.push(...tree(Number(k)));
	}
	return all;
}
function safeList(dir) { try { return fs.readdirSync(dir); } catch { return []; } }
function safeRead(file) { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } }

// Pss, private (Private_Clean + Private_Dirty) and Rss of the tree (or of
// pid alone), in KiB.
function memory(pid, alone = false) {
	const sum = { pss: 0, priv: 0, rss: 0 };
	for (const p of alone ? [pid] : tree(pid)) {
		const t = safeRead(`/proc/${p}/smaps_rollup`);
		const kib = (k) => Number((t.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) || [0, 0])[1]);
		sum.pss += kib('Pss');
		sum.priv += kib('Private_Clean') + kib('Private_Dirty');
		sum.rss += kib('Rss');
	}
	return sum;
}

// "pid:tid" -> voluntary + nonvoluntary context switches, every thread of the tree.
function switches(pid) {
	const m = new Map();
	for (const p of tree(pid))
		for (const t of safeList(`/proc/${p}/task`)) {
			const s = safeRead(`/proc/${p}/task/${t}/status`);
			let n = 0;
			for (const x of s.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm))
				n += Number(x[1]);
			m.set(`${p}:${t}`, n);
		}
	return m;
}
// Switches between two looks; a thread first seen in the second counts whole.
function switched(before, after) {
	let d = 0;
	for (const [k, v] of after)
		d += Math.max(0, v - (before.get(k) || 0));
	return d;
}

// ---- a headless Chromium for the peers' calls -------------------------------

// The flags of tests/harness/chromium.c (the reason of each there): a
// profile of the bench's, nothing but 127.0.0.1.  { url, stop }.
async function chromium() {
	const dir = path.join(work, 'chromium');
	fs.mkdirSync(dir, { recursive: true });
	const child = spawn('chromium', ['--headless=new', '--no-sandbox', '--remote-debugging-port=0',
		`--user-data-dir=${dir}`, '--no-first-run', '--disable-gpu', '--disable-dev-shm-usage',
		'--window-size=1280,800', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
		'--proxy-server=http://127.0.0.1:9', 'about:blank'],
	{ stdio: ['ignore', 'ignore', 'ignore'], detached: true,
		env: { ...process.env, HOME: work, XDG_CONFIG_HOME: '', XDG_CACHE_HOME: '' } });
	const stop = () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ } };
	process.on('exit', stop);
	for (const end = Date.now() + 30000; Date.now() < end; await sleep(50)) {
		const port = safeRead(path.join(dir, 'DevToolsActivePort')).split('\n')[0];
		if (port)
			return { url: `http://127.0.0.1:${port}`, stop };
		if (child.exitCode !== null)
			break;
	}
	stop();
	throw new Error('chromium did not start (no DevToolsActivePort)');
}

// ---- the figures ----------------------------------------------------------------

const median = (v) => {
	const s = [...v].sort((a, b) => a - b);
	return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const mib = (kib) => kib / 1024;
const row = (cols, widths) => console.log(cols.map((c, i) => (i ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' '));

// 1. start to ready, and the idle figures of one more start of each.
async function startFigures() {
	const times = new Map(servers.map((s) => [s.name, { init: [], list: [], tools: 0 }]));
	for (let round = 0; round <= N; round++)
		for (let i = 0; i < servers.length; i++) {
			const s = servers[(i + round) % servers.length];
			if (s.broken)
				continue;
			const srv = start(s);
			try {
				const r = await ready(srv);
				const t = times.get(s.name);
				t.tools = r.tools;
				if (round > 0) {
					t.init.push(r.init);
					t.list.push(r.list);
				}
			} catch (e) {
				s.broken = e.message;
			}
			await srv.stop();
		}
	for (const s of servers) {
		if (s.broken)
			continue;
		const srv = start(s);
		try {
			await ready(srv);
			await sleep(SETTLE_MS);
			const mem = memory(srv.child.pid);
			// looked at each second: a steady tick and a burst of the
			// same count are told apart by the seconds with any switch
			let woke = 0, awake = 0, before = switches(srv.child.pid);
			for (let i = 0; i < IDLE_S; i++) {
				await sleep(1000);
				const now = switches(srv.child.pid);
				const d = switched(before, now);
				woke += d;
				awake += d > 0;
				before = now;
			}
			times.get(s.name).idle = { mem, woke, awake, procs: tree(srv.child.pid).length, threads: before.size };
		} catch (e) {
			s.broken = e.message;
		}
		await srv.stop();
	}
	return times;
}

// 2. the round trips: hb-mcp's call, its baselines, the peers' own calls.
async function callFigures() {
	const lanes = [];
	const stops = [];
	const ours = servers[0];
	if (!ours.broken) {
		const srv = start(ours);
		stops.push(() => srv.stop());
		await ready(srv);
		lanes.push({ name: 'hb-mcp', server: ours, run: () => call(srv, CALL) });
		const fc = spawn(path.resolve(args['front-call']), [path.resolve(args.hbctl), CALL.name,
			JSON.stringify(CALL.arguments)], { stdio: ['pipe', 'pipe', 'inherit'] });
		const answers = readline.createInterface({ input: fc.stdout })[Symbol.asyncIterator]();
		stops.push(async () => { fc.stdin.end(); await new Promise((r) => (fc.exitCode !== null ? r() : fc.on('exit', r))); });
		for (const p of ['front', 'hbctl'])
			lanes.push({ name: p, server: ours, async run() {
				fc.stdin.write(`${p}\n`);
				const { value, done } = await answers.next();
				if (done)
					throw new Error(`front-call ended (${p})`);
				const [us, ok] = value.split(' ').map(Number);
				if (!ok)
					throw new Error(`${p}: the call was not answered ok`);
				return us / 1000;
			} });
	}
	let browser = null;
	const peersUp = servers.slice(1).filter((s) => !s.broken);
	if (peersUp.length) {
		try {
			browser = await chromium();
		} catch (e) {
			console.log(`mcp.mjs: ${e.message}; no peer calls`);
			failed = 1;
		}
	}
	for (const s of browser ? peersUp : []) {
		const srv = start(s, s.browser(browser.url));
		stops.push(() => srv.stop());
		try {
			await ready(srv);
			lanes.push({ name: s.name, server: s, run: () => call(srv, s.call) });
		} catch (e) {
			s.callBroken = e.message;
		}
	}
	const times = new Map(lanes.map((l) => [l.name, []]));
	// two rounds of warm-up: the run opened and svc-sessions started for
	// hb-mcp, the peers' connection to the browser
	for (let round = 0; round < N + 2; round++)
		for (let i = 0; i < lanes.length; i++) {
			const l = lanes[(i + round) % lanes.length];
			if (l.broken)
				continue;
			try {
				const ms = await l.run();
				if (round >= 2)
					times.get(l.name).push(ms);
			} catch (e) {
				l.broken = e.message;
			}
		}
	for (const l of lanes)
		if (l.broken)
			l.server.callBroken = `${l.name}: ${l.broken}`;
	for (const stop of stops)
		await stop();
	if (browser)
		browser.stop();
	return times;
}

// The PSS of the broker behind hb-mcp (shared by every client of it):
// the process alone, and its tree (svc-messages and svc-alerts run in the
// first minute after its start, then stop while they hold no work).
function brokerPss() {
	return { alone: mib(memory(Number(args.broker), true).pss), tree: mib(memory(Number(args.broker)).pss),
		procs: tree(Number(args.broker)).length };
}

const startT = await startFigures();
const brokerIdle = brokerPss();
const callT = await callFigures();

const ours = startT.get('hb-mcp');
const peerNames = servers.slice(1).map((s) => s.name);
const ratio = (peer, mine) => (Number.isFinite(peer) && mine > 0 ? `${(peer / mine).toFixed(1)}x` : '-');

console.log(`\nhb-mcp beside the MCP servers a user would otherwise run (chrome-devtools-mcp ${version('chrome-devtools-mcp')}, `
	+ `@playwright/mcp ${version('@playwright/mcp')}; node ${process.version}); ratio = the peer's figure / hb-mcp's`);
console.log(`\n1. start to ready, ms, median of ${N} starts (spawn -> initialize answered -> tools/list answered)`);
let w = [24, 11, 11, 6, 18];
row(['server', 'initialize', 'tools/list', 'tools', 'ratio (tools/list)'], w);
for (const s of servers) {
	const t = startT.get(s.name);
	if (s.broken) {
		row([s.name, 'failed:', s.broken.slice(0, 200), '', ''], w);
		continue;
	}
	row([s.name, f1(median(t.init)), f1(median(t.list)), t.tools,
		s.name === 'hb-mcp' ? '' : ratio(median(t.list), median(ours.list))], w);
}

console.log(`\n2. one tool call's round trip, ms, median of ${N} (request line written -> answer line read), `
	+ 'every path alternating');
w = [66, 8, 22];
const callOurs = median(callT.get('hb-mcp') || []);
row(['path', 'median', 'compared'], w);
row(['hb-mcp: maintain_sessions listSessions over MCP stdio', f1(callOurs), ''], w);
const front = median(callT.get('front') || []);
const hbctl = median(callT.get('hbctl') || []);
row(['  the same call on a front-socket client (the broker alone)', f1(front),
	`hb-mcp adds ${f2(callOurs - front)}`], w);
row(['  the same call through `hbctl call` (a process per call)', f1(hbctl), `${ratio(hbctl, callOurs)} hb-mcp's`], w);
for (const s of servers.slice(1)) {
	const label = `${s.name}: ${s.callLabel} (another tool; needs a browser)`;
	if (s.broken || s.callBroken || !callT.has(s.name)) {
		row([label, 'failed', (s.callBroken || s.broken || 'no browser').slice(0, 200)], w);
		continue;
	}
	row([label, f1(median(callT.get(s.name))), `${ratio(median(callT.get(s.name)), callOurs)} hb-mcp's`], w);
}
if (servers[0].callBroken)
	console.log(`  hb-mcp's calls failed: ${servers[0].callBroken}`);

console.log(`\n3. and 4. idle after tools/list (${SETTLE_MS / 1000} s later, each server alone): memory of its process tree `
	+ `in MiB, wakeups (context switches of all its threads) over ${IDLE_S} s`);
w = [24, 8, 8, 8, 12, 10, 10, 14, 14];
row(['server', 'PSS', 'private', 'RSS', 'PSS ratio', 'wakeups', 'a second', 'seconds awake', 'procs/threads'], w);
for (const s of servers) {
	const t = startT.get(s.name);
	if (!t.idle) {
		row([s.name, 'failed', '', '', '', '', '', '', ''], w);
		continue;
	}
	const { mem, woke } = t.idle;
	row([s.name, f1(mib(mem.pss)), f1(mib(mem.priv)), f1(mib(mem.rss)),
		s.name === 'hb-mcp' ? '' : ratio(mem.pss, ours.idle ? ours.idle.mem.pss : NaN), woke, f2(woke / IDLE_S),
		`${t.idle.awake} of ${IDLE_S}`, `${t.idle.procs}/${t.idle.threads}`], w);
}
console.log(`  behind hb-mcp, shared by every client: hb-broker, PSS ${f1(brokerIdle.alone)} MiB`
	+ (brokerIdle.procs > 1 ? ` (${f1(brokerIdle.tree)} MiB with the ${brokerIdle.procs - 1} services up then, which stop `
		+ 'after a minute with no work: docs/benchmarks.md, "Idle")' : ''));
for (const p of peerNames) {
	const t = startT.get(p);
	if (t.idle && ours.idle)
		console.log(`  ${p}: wakeups ${ours.idle.woke ? `${(t.idle.woke / ours.idle.woke).toFixed(1)}x` : `${t.idle.woke} against 0`} hb-mcp's`);
}
for (const s of servers)
	if (s.broken || s.callBroken)
		failed = 1;
process.exitCode = failed;

// The version in a peer's package.json.
function version(name) {
	try {
		return JSON.parse(fs.readFileSync(path.join(peers, name, 'package.json'), 'utf8')).version;
	} catch {
		return '?';
	}
}
