// browser-peers.mjs - the driver of the benchmark of use_user_browser
// against the two tools an agent would otherwise drive a browser with,
// chrome-devtools-mcp and @playwright/mcp (pinned in tests/browser-peers/
// package-lock.json), on the same tasks in the same headless Chromium.
// tests/bench/bench-browser-peers.c starts the fixture and this driver:
//
//   node browser-peers.mjs --devtools-port P --base URL --peers DIR --calls-fd N
//
// P is the Chromium's DevTools port, URL the test pages' base
// (tests/browser/pages.mjs, its /peer-* pages), DIR the peers'
// node_modules.  Our tool is reached through the C parent: one call's JSON
// arguments as a line on fd N, its answer as a line of JSON {ok, text} on
// stdin (the parent sends it on its front-socket client: no process start
// per call).  Each peer is started in turn on the same Chromium (its
// --browserUrl or --cdp-endpoint) and spoken to over stdio, newline-
// delimited JSON-RPC 2.0 (MCP): initialize, tools/call.
//
// Each task is scripted per tool from that tool's own answers (its refs or
// uids found in its snapshot text by regex; browser-peers-tools.mjs), as
// an agent would use it, and judged done from the page's real state: the
// navigations the page server recorded (/peer-records: the form sent, the
// link landed on), or the page's DOM read over CDP (playwright-core's
// connectOverCDP: the div's last line in view, the frame's button
// pressed, the dialog's answer, and the cell and text the reading tasks
// must give), never from the tool's word.  A task a tool cannot do is
// "not done", with the reason.
//
// HB_BENCH_PEERS_ROUNDS [3] rounds per task after one of warm-up;
// HB_BENCH_PEERS_TOOLS and HB_BENCH_PEERS_TASKS (words) pick;
// HB_BENCH_PEERS_DEBUG=1 prints every call and answer on stderr.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { options } from '../ws/cli.mjs';
import { peerTools } from './browser-peers-tools.mjs';

const args = options();
const devtools = `http://127.0.0.1:${args['devtools-port']}`;
const base = args.base;
const peersDir = path.resolve(args.peers);
const rounds = Math.max(1, Number(process.env.HB_BENCH_PEERS_ROUNDS) || 3);
const debug = process.env.HB_BENCH_PEERS_DEBUG === '1';
const picked = (env, all) => (process.env[env] || '').split(/\s+/).filter(Boolean).length
	? all.filter((x) => process.env[env].split(/\s+/).includes(x)) : all;
const { chromium } = createRequire(path.join(peersDir, 'x.js'))('playwright-core');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-peers-'));

// ---- the page's real state ---------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What the page server recorded the user did in run, once want(records)
// holds or after 2 s: the records.
async function records(run, want) {
	let got = [];
	for (const end = Date.now() + 2000; ;) {
		got = await (await fetch(`${base}/peer-records?run=${encodeURIComponent(run)}`)).json();
		if (want(got) || Date.now() > end)
			return got;
		await sleep(50);
	}
}

// fn evaluated over CDP in the tab showing run, or in its frame whose
// document's title is frame (a connection made after a cross-origin
// frame loaded does not know the frame's URL): its value (undefined when
// there is no such tab or frame).
async function pageValue(run, fn, frame) {
	const browser = await chromium.connectOverCDP(devtools);
	try {
		for (const context of browser.contexts())
			for (const page of context.pages()) {
				if (!page.url().includes(`run=${run}`))
					continue;
				if (!frame)
					return await page.evaluate(fn);
				for (const f of page.frames())
					if (await f.evaluate(() => document.title) === frame)
						return await f.evaluate(fn);
				return undefined;
			}
		return undefined;
	} finally {
		await browser.close();
	}
}

// pageValue until it is want, or after 2 s: the last value.
async function pageState(run, want, fn, frame) {
	let got;
	for (const end = Date.now() + 2000; ;) {
		got = await pageValue(run, fn, frame);
		if (got === want || Date.now() > end)
			return got;
		await sleep(100);
	}
}

const tools = peerTools({ devtools, peersDir, work, callsFd: Number(args['calls-fd']) });

// ---- the tasks -----------------------------------------------------------

const FORM = { name: 'Ada Lovelace', fruit: 'Banana', note: 'Leave it at the door' };
const LATE = /Loaded at \d+ ms/;

// Each: its page, what the tool does (a reason when it could not, else
// null; or { got } for a task that reads), and the check of the page's
// real state (a reason it is not done, or null).
const tasks = [
	{
		name: 'form', page: '/peer-form', what: 'fill text, select by label, checkbox, radio, textarea; submit',
		run: (tool, t, text) => tool.fill(t, text, FORM),
		async check(run) {
			const r = await records(run, (x) => x.some((s) => s.startsWith('sent ')));
			const sent = r.find((s) => s.startsWith('sent '));
			if (!sent)
				return 'nothing was sent';
			const q = new URLSearchParams(sent.slice(5));
			const want = { fullname: FORM.name, fruit: 'ba', gift: 'yes', size: 'm', note: FORM.note };
			const wrong = Object.entries(want).filter(([k, v]) => q.get(k) !== v).map(([k]) => k);
			return wrong.length ? `sent with wrong ${wrong.join(', ')}` : null;
		},
	},
	{
		name: 'link150', page: '/peer-links', what: 'click the 150th of 200 links',
		async run(tool, t, text) {
			const ref = await tool.ref(t, text, 'link', 'Link 150');
			if (!ref)
				return 'no link "Link 150" in the snapshot';
			const r = await tool.click(t, ref);
			return r.ok ? null : `click: ${r.text.slice(0, 160)}`;
		},
		check: async (run) => (await records(run, (x) => x.includes('landed 150'))).includes('landed 150')
			? null : 'did not land on link 150',
	},
	{
		name: 'inner-scroll', page: '/peer-scroller', what: 'scroll an inner div until its last line shows',
		run: (tool, t, text) => tool.scrollInner(t, text),
		check: async (run) => await pageState(run, true, () => {
			const b = document.getElementById('box').getBoundingClientRect();
			const l = document.getElementById('line120').getBoundingClientRect();
			return l.top >= b.top && l.bottom <= b.bottom;
		}) ? null : 'the last line of the div is not in view',
	},
	...['same', 'cross'].map((which) => ({
		name: `iframe-${which}`, page: '/peer-frames',
		what: `click a button in the ${which === 'same' ? 'same' : 'cross'}-origin iframe`,
		async run(tool, t, text) {
			const ref = await tool.ref(t, text, 'button', `Press ${which}`);
			if (!ref)
				return `no button "Press ${which}" (inside the iframe) in the snapshot`;
			const r = await tool.click(t, ref);
			return r.ok ? null : `click: ${r.text.slice(0, 160)}`;
		},
		check: async (run) => await pageState(run, 'Pressed', () => document.getElementById('out').textContent,
			`Frame ${which}`) === 'Pressed' ? null : 'the button was not pressed',
	})),
	{
		name: 'dialog', page: '/peer-dialog', what: 'click, accept the confirm dialog it opens',
		async run(tool, t, text) {
			const ref = await tool.ref(t, text, 'button', 'Delete');
			if (!ref)
				return 'no button "Delete" in the snapshot';
			await tool.click(t, ref);
			const r = await tool.acceptDialog(t);
			return r.ok ? null : `accept: ${r.text.slice(0, 160)}`;
		},
		async check(run) {
			const got = await pageState(run, 'Deleted', () => document.getElementById('answer').textContent);
			return got === 'Deleted' ? null : `the page says "${got}", not "Deleted"`;
		},
	},
	{
		name: 'table-cell', page: '/peer-table', what: 'read the code of row 4,000 of 5,000',
		async run(tool, t, text) {
			const got = await tool.readTable(t, text, /Item 4000\b[^C]{0,200}(C-\d+)/);
			return got ? { got } : 'row 4000 was not found in what the tool gave';
		},
		async check(run, got) {
			const real = await pageValue(run, () => document.querySelectorAll('tbody tr')[3999].cells[2].textContent);
			return got === real ? null : `gave ${got}, the page holds ${real}`;
		},
	},
	{
		name: 'late-text', page: '/peer-later', what: 'click, get the text that shows 300 ms later',
		async run(tool, t, text) {
			const ref = await tool.ref(t, text, 'button', 'Load');
			if (!ref)
				return 'no button "Load" in the snapshot';
			// the click's answer, then the tool's snapshot, 100 ms apart
			// (an agent's pause, not timed), for 5 s at most
			let r = (await tool.click(t, ref)).text;
			for (const end = performance.now() + 5000; performance.now() < end;) {
				const m = LATE.exec(r);
				if (m)
					return { got: m[0] };
				await sleep(100);
				r = await tool.again(t);
			}
			return 'the text never showed in the tool\'s answers within 5 s';
		},
		async check(run, got) {
			const real = await pageValue(run, () => document.getElementById('late').textContent);
			return got === real ? null : `gave "${got}", the page holds "${real}"`;
		},
	},
];

// ---- the run -------------------------------------------------------------

const median = (v) => {
	if (!v.length)
		return NaN;
	const s = [...v].sort((a, b) => a - b);
	return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};

// One task once with tool: { done, reason, calls, times, total }.
async function once(name, tool, t, task, round) {
	const run = `${name}-${task.name}-${round}-${Math.random().toString(36).slice(2, 8)}`;
	t.times = [];
	const text = await tool.open(t, `${base}${task.page}?run=${run}`);
	let outcome;
	try {
		outcome = await task.run(tool, t, text);
	} catch (e) {
		outcome = `${e.message}`;
	}
	const result = { calls: t.times.length, times: t.times, total: t.times.reduce((a, b) => a + b, 0) };
	if (typeof outcome === 'string')
		return { ...result, done: false, reason: outcome };
	const wrong = await task.check(run, outcome?.got);
	return { ...result, done: !wrong, reason: wrong };
}

// The tool's snapshot of each page just opened: its characters.
async function snapshotSizes(tool, t, pages) {
	const sizes = {};
	for (const p of pages) {
		await tool.open(t, `${base}${p}?run=size`);
		const text = await tool.snapshot(t);
		sizes[p] = `${text.length}${/action snapshot with offset \d+/.test(text) ? '*' : ''}`;
	}
	return sizes;
}

async function phase(name, chosen) {
	const tool = tools[name];
	const t = { times: [] };
	t.call = async (label, a) => {
		const t0 = performance.now();
		const r = await t.client.call(label, a);
		t.times.push(performance.now() - t0);
		if (debug)
			process.stderr.write(`[${name}] ${label} ${JSON.stringify(a)} -> ${r.ok} ${r.text.length} chars ${t.times.at(-1).toFixed(1)} ms\n${r.text.slice(0, 1500)}\n`);
		return r;
	};
	await tool.start(t);
	const out = { tasks: {}, sizes: {} };
	try {
		out.sizes = await snapshotSizes(tool, t, [...new Set(chosen.map((x) => x.page))]);
		for (const task of chosen) {
			await once(name, tool, t, task, 'warm');
			const runs = [];
			for (let r = 0; r < rounds; r++)
				runs.push(await once(name, tool, t, task, r));
			out.tasks[task.name] = runs;
		}
	} finally {
		await tool.stop(t);
	}
	return out;
}

const fmt = (x) => Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1);
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

function report(names, chosen, results) {
	const peers = names.filter((n) => n !== 'ours');
	console.log(`\nPer task, per tool: done in how many of ${rounds} rounds, tool calls per task (opening the page and the`);
	console.log('snapshot the refs come from included), median latency per call and median task time, ms:');
	console.log(`  ${pad('task', 13)}` + names.map((n) => lpad(n === 'ours' ? 'ours' : n.replace('-mcp', ''), 30)).join(''));
	console.log(`  ${pad('', 13)}` + names.map(() => lpad('done calls call-p50 task-p50', 30)).join(''));
	const stat = {};
	for (const task of chosen) {
		let line = `  ${pad(task.name, 13)}`;
		for (const n of names) {
			const runs = results[n].tasks[task.name];
			const done = runs.filter((r) => r.done).length;
			const s = {
				all: done === runs.length, done, calls: median(runs.map((r) => r.calls)),
				call: median(runs.flatMap((r) => r.times)), task: median(runs.map((r) => r.total)),
				reason: runs.find((r) => !r.done)?.reason,
			};
			(stat[task.name] ??= {})[n] = s;
			line += lpad(`${done}/${runs.length} ${lpad(fmt(s.calls), 5)} ${lpad(fmt(s.call), 8)} ${lpad(fmt(s.task), 8)}`, 30);
		}
		console.log(line);
	}
	console.log('\nWhy not done (the first failed round of each):');
	let any = false;
	for (const task of chosen)
		for (const n of names)
			if (stat[task.name][n].reason) {
				any = true;
				console.log(`  ${task.name}, ${n}: ${stat[task.name][n].reason}`);
			}
	if (!any)
		console.log('  (every task done by every tool)');
	const pages = [...new Set(chosen.map((x) => x.page))];
	console.log('\nSnapshot characters of each page just opened, its own snapshot call (*: cut, the first part):');
	console.log(`  ${pad('page', 16)}` + names.map((n) => lpad(n === 'ours' ? 'ours' : n.replace('-mcp', ''), 18)).join('') +
		(peers.length && names.includes('ours') ? lpad('ours/smaller', 14) : ''));
	const sizeRatio = {};
	for (const p of pages) {
		let line = `  ${pad(p, 16)}` + names.map((n) => lpad(results[n].sizes[p], 18)).join('');
		if (peers.length && names.includes('ours')) {
			sizeRatio[p] = parseInt(results.ours.sizes[p], 10) /
				Math.min(...peers.map((n) => parseInt(results[n].sizes[p], 10)));
			line += lpad(sizeRatio[p].toFixed(2), 14);
		}
		console.log(line);
	}
	if (!peers.length || !names.includes('ours'))
		return;
	const unlike = pages.filter((p) => String(results.ours.sizes[p]).endsWith('*') ||
		chosen.some((x) => x.page === p && !stat[x.name].ours.all));
	if (unlike.length)
		console.log(`  not like for like: ${unlike.join(', ')} (ours cut, or missing what a task it did not do needed)`);
	console.log('\nTargets (against the peers measured in this run):');
	const missed = chosen.filter((x) => peers.some((n) => stat[x.name][n].all) && !stat[x.name].ours.all);
	console.log(`  every task a peer does, done:             ${missed.length ? 'FAIL' : 'pass'}` +
		(missed.length ? `  (not done: ${missed.map((x) => x.name).join(', ')})` : ''));
	const slower = [];
	const ratios = [];
	for (const x of chosen) {
		const doers = peers.filter((n) => stat[x.name][n].all);
		if (!stat[x.name].ours.all || !doers.length)
			continue;
		const faster = Math.min(...doers.map((n) => stat[x.name][n].call));
		const ratio = stat[x.name].ours.call / faster;
		ratios.push(`${x.name} ${ratio.toFixed(3)}`);
		if (ratio > 1)
			slower.push(x.name);
	}
	console.log(`  median latency per call <= faster peer's: ${slower.length ? `FAIL (slower: ${slower.join(', ')})` : 'pass'}` +
		`  (ours/faster, tasks both did: ${ratios.join(', ') || 'none'})`);
	const taskRatios = chosen.filter((x) => stat[x.name].ours.all && peers.some((n) => stat[x.name][n].all))
		.map((x) => `${x.name} ${(stat[x.name].ours.task /
			Math.min(...peers.filter((n) => stat[x.name][n].all).map((n) => stat[x.name][n].task))).toFixed(2)}`);
	console.log(`    (for the record, task time ours/faster peer: ${taskRatios.join(', ') || 'none'})`);
	const big = pages.filter((p) => sizeRatio[p] > 0.8);
	console.log(`  snapshot chars <= 0.8x the smaller peer's: ${big.length ? 'FAIL' : 'pass'}` +
		(big.length ? `  (over on ${big.join(', ')})` : ''));
}

async function main() {
	const names = picked('HB_BENCH_PEERS_TOOLS', Object.keys(tools));
	const chosen = picked('HB_BENCH_PEERS_TASKS', tasks.map((x) => x.name)).map((n) => tasks.find((x) => x.name === n));
	console.log(`use_user_browser beside chrome-devtools-mcp 1.11.0 and @playwright/mcp 0.0.83, each connected in turn`);
	console.log(`to the same headless Chromium, ${rounds} rounds per task after one of warm-up.  Ours: each call on the`);
	console.log('bench\'s one front-socket client (client -> hb-broker -> svc-browser -> Chromium), handed on by the');
	console.log('bench over a pipe, no process start per call; the peers: their own MCP server over stdio.  Each');
	console.log('latency is one call, request written to answer read, as the agent\'s side sees it.');
	const results = {};
	for (const n of names) {
		const t0 = performance.now();
		results[n] = await phase(n, chosen);
		console.log(`  ${n}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
	}
	report(names, chosen, results);
}

main().then(() => {
	fs.rmSync(work, { recursive: true, force: true });
	process.exit(0);
}, (e) => {
	process.stderr.write(`browser-peers: ${e.stack || e}\n`);
	fs.rmSync(work, { recursive: true, force: true });
	process.exit(1);
});
