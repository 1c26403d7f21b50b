// browser-peers-tools.mjs - the three tools of the benchmark against the
// peers (browser-peers.mjs), each as an agent would use it: how it is
// reached (ours through the C parent's pipes, --calls-fd and stdin; each
// peer's MCP server on stdio, newline-delimited JSON-RPC 2.0), how it opens a page
// and gets the snapshot its refs come from, finds a ref in that text by
// regex, clicks, and its own way with the tasks that differ (a form, an
// inner div's scroll, a dialog, a table's cell).  A step it cannot take is
// a sentence saying why; none of these judges whether a task was done.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';

const PATIENCE_MS = 60000;

// Answers in order on a line stream: the next line (null once it ended).
function lineReader(stream) {
	const waiting = [];
	const early = [];
	let ended = false;
	readline.createInterface({ input: stream }).on('line', (line) => {
		if (waiting.length)
			waiting.shift()(line);
		else
			early.push(line);
	}).on('close', () => {
		ended = true;
		while (waiting.length)
			waiting.shift()(null);
	});
	return () => new Promise((resolve) => early.length ? resolve(early.shift())
		: ended ? resolve(null) : waiting.push(resolve));
}

// use_user_browser through the C parent: calls out on callsFd, answers in
// on stdin.
function oursClient(callsFd) {
	// a socket, not an fs stream: a pending fs read on a pipe holds the
	// process's exit
	const out = new net.Socket({ fd: callsFd, readable: false, writable: true });
	const next = lineReader(process.stdin);
	return {
		async call(_name, a) {
			out.write(JSON.stringify(a) + '\n');
			const line = await next();
			if (line === null)
				throw new Error('the bench closed the way to use_user_browser');
			const r = JSON.parse(line);
			return { ok: r.ok, text: r.text };
		},
		async stop() {
			out.end();
			process.stdin.destroy();
		},
	};
}

// A peer MCP server on stdio.  chrome-devtools-mcp's usage statistics
// and its check of npm for a newer version (a child running `npm config
// get registry` and asking the registry at each start with a fresh HOME)
// are turned off: nothing but 127.0.0.1.
async function mcpClient(work, command, argv) {
	const child = spawn(process.execPath, [command, ...argv], {
		cwd: work, stdio: ['pipe', 'pipe', 'pipe'],
		env: { ...process.env, HOME: work, CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1',
			CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1' },
	});
	let stderr = '';
	child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
	const waits = new Map();
	let id = 0;
	readline.createInterface({ input: child.stdout }).on('line', (line) => {
		let m;
		try { m = JSON.parse(line); } catch { return; }
		if (m.id !== undefined && waits.has(m.id)) {
			waits.get(m.id)(m);
			waits.delete(m.id);
		}
	});
	child.on('exit', (code) => {
		for (const w of waits.values())
			w({ error: { message: `the server ended (${code}): ${stderr}` } });
		waits.clear();
	});
	// a bound on one answer, so that a stuck peer fails its task instead
	// of holding make bench; never a measure
	const rpc = (method, params) => new Promise((resolve) => {
		const my = ++id;
		const timer = setTimeout(() => {
			waits.delete(my);
			resolve({ error: { message: `no answer to ${method} within ${PATIENCE_MS / 1000} s` } });
		}, PATIENCE_MS);
		waits.set(my, (m) => {
			clearTimeout(timer);
			resolve(m);
		});
		child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }) + '\n');
	});
	const init = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {},
		clientInfo: { name: 'hbcode-bench', version: '1' } });
	if (init.error)
		throw new Error(`${path.basename(command)}: ${init.error.message}`);
	child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
	return {
		async call(name, a) {
			const r = await rpc('tools/call', { name, arguments: a });
			if (r.error)
				return { ok: false, text: r.error.message };
			const text = (r.result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
			return { ok: !r.result.isError, text };
		},
		async stop() {
			child.stdin.end();
			await new Promise((resolve) => {
				const t = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 5000);
				child.on('exit', () => { clearTimeout(t); resolve(); });
			});
		},
	};
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Each tool: how it starts, opens a page (and gets the snapshot its refs
// come from), finds a ref, clicks, and its own way with each task.
export function peerTools({ devtools, peersDir, work, callsFd }) {
	const tools = {
		ours: {
			async start(t) {
				t.client = oursClient(callsFd);
				t.tab = null;
			},
			async open(t, url) {
				const a = { action: 'open', url };
				if (t.tab)
					a.tab = t.tab;
				const r = await t.call('open', a);
				const m = /in tab (t\d+)/.exec(r.text);
				if (!t.tab && m)
					t.tab = m[1];
				return r.text;
			},
			snapshot: (t) => t.call('snapshot', { action: 'snapshot', tab: t.tab }).then((r) => r.text),
			// the ref on a line "- ROLE "NAME" ... [ref=eN]", through the
			// snapshot's next parts while it is cut
			async ref(t, text, role, name) {
				const re = new RegExp(`${role} "${esc(name)}"[^\\n]*\\[ref=((?:f\\d+)?e\\d+)\\]`);
				for (let i = 0; i < 20; i++) {
					const m = re.exec(text);
					if (m)
						return m[1];
					const next = /action snapshot with offset (\d+)/.exec(text);
					if (!next)
						return null;
					text = await t.call('snapshot', { action: 'snapshot', tab: t.tab, offset: Number(next[1]) })
						.then((r) => r.text);
				}
				return null;
			},
			click: (t, ref) => t.call('click', { action: 'click', tab: t.tab, ref }),
			// no form tool: a call per field, then the button
			async fill(t, text, f) {
				const steps = [['textbox', 'Full name', 'type', { text: f.name }],
					['combobox', 'Fruit', 'select', { option: f.fruit }], ['checkbox', 'Gift wrap', 'click', {}],
					['radio', 'Medium', 'click', {}], ['textbox', 'Note', 'type', { text: f.note }],
					['button', 'Send', 'click', {}]];
				for (const [role, name, action, more] of steps) {
					const ref = await tools.ours.ref(t, text, role, name);
					if (!ref)
						return `no ${role} "${name}" in the snapshot`;
					const r = await t.call(action, { action, tab: t.tab, ref, ...more });
					if (!r.ok)
						return `${action} "${name}": ${r.text.slice(0, 160)}`;
				}
				return null;
			},
			async scrollInner(t, text) {
				const r = await tools.ours.ref(t, text, 'region', 'Inner list');
				if (!r)
					return 'the snapshot gives no ref inside or on the inner div; scroll moves the page or brings a ref into view';
				const answer = await t.call('scroll', { action: 'scroll', tab: t.tab, ref: r, direction: 'down', amount: 100000 });
				return answer.ok ? null : `scroll: ${answer.text.slice(0, 160)}`;
			},
			async acceptDialog(t) {
				return t.call('dialog', { action: 'dialog', tab: t.tab, accept: true });
			},
			// the text after the table's row: the page's text, in parts of 100,000
			async readTable(t, _text, re) {
				let offset = 0;
				for (let i = 0; i < 10; i++) {
					const r = await t.call('read', { action: 'read', tab: t.tab, maxChars: 100000, offset });
					const m = re.exec(r.text);
					if (m)
						return m[1];
					const next = /offset (\d+)/.exec(r.text.slice(-400));
					if (!r.ok || !next || Number(next[1]) <= offset)
						return null;
					offset = Number(next[1]);
				}
				return null;
			},
			again: (t) => tools.ours.snapshot(t),
			async stop(t) {
				if (t.tab)
					await t.client.call('close', { action: 'close', tab: t.tab });
				await t.client.stop();
			},
		},
		'chrome-devtools-mcp': {
			async start(t) {
				t.client = await mcpClient(work, path.join(peersDir, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'),
					['--browserUrl', devtools, '--no-usage-statistics', '--no-performance-crux']);
				const r = await t.client.call('new_page', { url: 'about:blank' });
				const m = /^(\d+): .*\[selected\]/m.exec(r.text);
				if (!m)
					throw new Error(`chrome-devtools-mcp: no selected page in ${r.text}`);
				t.page = Number(m[1]);
			},
			async open(t, url) {
				await t.call('navigate_page', { pageId: t.page, type: 'url', url });
				return tools['chrome-devtools-mcp'].snapshot(t);
			},
			snapshot: (t) => t.call('take_snapshot', { pageId: t.page }).then((r) => r.text),
			async ref(_t, text, role, name) {
				const m = new RegExp(`uid=(\\S+) ${role} "${esc(name)}"`).exec(text);
				return m ? m[1] : null;
			},
			click: (t, uid) => t.call('click', { pageId: t.page, uid }),
			async fill(t, text, f) {
				const me = tools['chrome-devtools-mcp'];
				const want = [['textbox', 'Full name', f.name], ['combobox', 'Fruit', f.fruit],
					['checkbox', 'Gift wrap', 'true'], ['radio', 'Medium', 'true'], ['textbox', 'Note', f.note]];
				const elements = [];
				for (const [role, name, value] of want) {
					const uid = await me.ref(t, text, role, name);
					if (!uid)
						return `no ${role} "${name}" in the snapshot`;
					elements.push({ uid, value });
				}
				const r = await t.call('fill_form', { pageId: t.page, elements });
				if (!r.ok)
					return `fill_form: ${r.text.slice(0, 160)}`;
				const send = await me.ref(t, text, 'button', 'Send');
				const c = await me.click(t, send);
				return c.ok ? null : `click: ${c.text.slice(0, 160)}`;
			},
			// no scroll tool: hovering the last line scrolls it into view
			async scrollInner(t, text) {
				const m = /uid=(\S+) "Line 120"/.exec(text);
				if (!m)
					return 'no "Line 120" in the snapshot';
				const uid = m[1];
				const r = await t.call('hover', { pageId: t.page, uid });
				return r.ok ? null : `hover: ${r.text.slice(0, 160)}`;
			},
			acceptDialog: (t) => t.call('handle_dialog', { pageId: t.page, action: 'accept' }),
			async readTable(_t, text, re) {
				const m = re.exec(text);
				return m ? m[1] : null;
			},
			again: (t) => tools['chrome-devtools-mcp'].snapshot(t),
			async stop(t) {
				if (t.page !== undefined)
					await t.client.call('close_page', { pageId: t.page });
				await t.client.stop();
			},
		},
		'playwright-mcp': {
			async start(t) {
				t.client = await mcpClient(work, path.join(peersDir, '@playwright/mcp/cli.js'),
					['--cdp-endpoint', devtools, '--output-dir', path.join(work, 'playwright-mcp')]);
			},
			// the navigation's answer links the snapshot as a file; the
			// snapshot's own call gives it
			async open(t, url) {
				await t.call('browser_navigate', { url });
				return tools['playwright-mcp'].snapshot(t);
			},
			snapshot: (t) => t.call('browser_snapshot', {}).then((r) => r.text),
			async ref(_t, text, role, name) {
				const m = new RegExp(`- ${role} "${esc(name)}"[^\\n]*\\[ref=(\\w+)\\]`).exec(text);
				return m ? m[1] : null;
			},
			click: (t, ref) => t.call('browser_click', { element: 'the element', target: ref }),
			async fill(t, text, f) {
				const me = tools['playwright-mcp'];
				const want = [['textbox', 'Full name', f.name], ['combobox', 'Fruit', f.fruit],
					['checkbox', 'Gift wrap', 'true'], ['radio', 'Medium', 'true'], ['textbox', 'Note', f.note]];
				const fields = [];
				for (const [role, name, value] of want) {
					const ref = await me.ref(t, text, role, name);
					if (!ref)
						return `no ${role} "${name}" in the snapshot`;
					fields.push({ name, type: role, target: ref, value });
				}
				const r = await t.call('browser_fill_form', { fields });
				if (!r.ok)
					return `browser_fill_form: ${r.text.slice(0, 160)}`;
				const c = await me.click(t, await me.ref(t, text, 'button', 'Send'));
				return c.ok ? null : `browser_click: ${c.text.slice(0, 160)}`;
			},
			// no scroll tool: hovering the last line scrolls it into view
			async scrollInner(t, text) {
				const m = /- paragraph \[ref=(\w+)\]: Line 120\b/.exec(text);
				if (!m)
					return 'no "Line 120" in the snapshot';
				const r = await t.call('browser_hover', { element: 'Line 120', target: m[1] });
				return r.ok ? null : `browser_hover: ${r.text.slice(0, 160)}`;
			},
			acceptDialog: (t) => t.call('browser_handle_dialog', { accept: true }),
			async readTable(_t, text, re) {
				const m = re.exec(text);
				return m ? m[1] : null;
			},
			again: (t) => tools['playwright-mcp'].snapshot(t),
			async stop(t) {
				await t.client.stop();
			},
		},
	};
	return tools;
}
