// pages.mjs - the local web pages the browser tests drive a real Chromium
// through (svc-browser, issue 15): an HTTP server on 127.0.0.1 only, on
// port N (0 or none: one of the system's choice), that prints "PORT n"
// first and ends when its stdin closes (tests/harness/test_pages.c starts
// it through node_server).  Node's standard library only.
//
//   node pages.mjs [--port N]
//
//   /                  the same as /links
//   /links             links to every page below
//   /button            a heading, a paragraph, and a button "Show greeting"
//                      whose click writes "Hello, agent!" into #greeting and
//                      sets the title to "Greeted"
//   /form              Name (text), Email (email), a checkbox, a select and
//                      a Submit button; a GET form, so typing and submitting
//                      (Enter or a click) lands on /submitted
//   /submitted         "Thanks, NAME" (and the email) from the query
//   /long              about 200 KB of numbered paragraphs, for reading
//                      with a bound ("Paragraph 1." first, "The end." last)
//   /loop              a script that never ends (while (true) {}) in the
//                      body, after the first paragraph
//   /alert             alert("Hello from alert") on load, then "Alert
//                      answered" into #after once it returns
//   /confirm-on-click  a button "Ask" that opens confirm("Are you sure?")
//                      and writes the answer into #answer
//   /prompt-on-click   a button "Name me" that opens prompt("Your name?",
//                      "Anonymous") and writes "Got: VALUE" (or "Got
//                      nothing" for Cancel) into #answer
//   /alert-loop        a button "Nag" whose click opens alerts without end
//   /slow              headers sent, the body never ended: a page that
//                      never finishes loading
//   /no-answer         the request is held and never answered, not even
//                      with headers: a navigation that never commits
//   /download          a text file with Content-Disposition: attachment
//   /scroll            a 5000 px tall page with "Bottom marker" at its end
//   /tall              a 20000 px tall page, past what a full-page
//                      screenshot takes (16384 px)
//   /wait              "Ready now" appears 500 ms after load
//   /later?ms=N        "Later now" appears N ms after load
//   /huge-text         11 MB of text (140,000 numbered lines in a <pre>):
//                      its whole accessibility tree is past 64 MiB
//   /rows              a table of 60,000 rows
//   /popup             a link "New tab" to /button?popup=link with
//                      target=_blank, and a button "Open window" whose
//                      click opens /button?popup=open with window.open
//   /menu              a button "Menu" whose mouseover (a real mouse's,
//                      moved over it) shows a link "Settings" and writes
//                      "Menu opened by mouseover" into #state
//   /choose            a select "Colour" (Red r, Green g, Blue b) whose
//                      input and change events are written into #log, its
//                      value into #value
//   /keys              text fields First and Second (Second holds "old
//                      text"): each input writes "Second: VALUE" into #echo,
//                      each focus "Focused: ID" into #focused
//   /fetch-later       a button "Fetch" whose click fetches /delayed?ms=200
//                      and then writes its answer ("Fetched it") into #got
//   /poll              fetches /delayed?ms=0 every 50 ms, forever; a button
//                      "Mark" whose click writes "Marked" into #mark-out
//   /delayed?ms=N      the text "Fetched it", answered N ms after asked
//
// The page set of the benchmark against the peer tools (tests/bench/
// browser-peers.mjs).  Each takes ?run=R, a name the bench gives one task,
// so that it finds the task's tab; a navigation the user caused is written
// into this server's record of R (below), the rest stays in the page
// (read over CDP), so that the bench checks the page's real state, not a
// tool's answer; no page sends a request of its own, which would make a
// tool's wait for the network part of the task:
//
//   /peer-form         every input kind (text, email, password, number,
//                      date, range, colour, search, tel, url, a select,
//                      checkboxes, a radio group, a textarea) and a button
//                      "Send"; a GET form to /peer-sent, which records
//                      "sent " and its query
//   /peer-links        200 links "Link 1" to "Link 200", to /peer-landed?n=N,
//                      which records "landed N"
//   /peer-scroller     a 200 px tall div "Inner list" (#box) that scrolls
//                      120 lines, the last "Line 120" (#line120)
//   /peer-frames       two iframes of /peer-frame: the same origin
//                      (127.0.0.1) and another (localhost, the same port),
//                      each with a button "Press same" or "Press cross"
//                      whose click writes "Pressed" into its #out
//   /peer-dialog       a button "Delete" that opens confirm("Delete it?")
//                      and writes "Deleted" or "Kept" into #answer
//   /peer-table        a table of 5,000 rows: row N holds N, "Item N" and
//                      the code C-(N*37 % 9973)
//   /peer-later        a button "Load" whose click writes "Loaded at 300
//                      ms" into #late 300 ms later
//   /peer-records?run=R  this server's record of R: a JSON array of strings
//
// Anything else is 404.  Every page is small, plain HTML with no outside
// resources, so a page's load is this server's answer and nothing else.
import http from 'node:http';
import { options } from '../ws/cli.mjs';

const args = options();
const port = args.port === undefined ? 0 : Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
	process.stderr.write('pages.mjs: --port takes a port number\n');
	process.exit(2);
}

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// A whole HTML document with title and body.
const page = (title, body) =>
	`<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>\n` +
	`<body>\n${body}\n</body></html>\n`;

const longText = (() => {
	const parts = [];
	for (let i = 1, size = 0; size < 200 * 1024; i++) {
		const p = `<p>Paragraph ${i}. The quick brown fox jumps over the lazy dog, again and again.</p>\n`;
		parts.push(p);
		size += p.length;
	}
	return parts.join('') + '<p>The end.</p>';
})();

const hugeText = (() => {
	const lines = [];
	for (let i = 1; i <= 140000; i++)
		lines.push(`Line ${String(i).padStart(6, '0')}: the quick brown fox jumps over the lazy dog, again.`);
	return lines.join('\n');
})();

const rows = (() => {
	const out = [];
	for (let i = 1; i <= 60000; i++)
		out.push(`<tr><td>${i}</td><td><a href="#r${i}">Row ${i}</a></td><td>Cell ${i}</td></tr>`);
	return out.join('\n');
})();

const pages = {
	'/links': () => page('Links', '<h1>Test pages</h1>\n<ul>\n' +
		['button', 'form', 'long', 'loop', 'alert', 'confirm-on-click', 'slow', 'download', 'scroll', 'wait']
			.map((p) => `<li><a href="/${p}">${p}</a></li>`).join('\n') + '\n</ul>'),
	'/button': () => page('Button', `<h1>Button page</h1>
<p>Press the button to see a greeting.</p>
<button id="show" type="button">Show greeting</button>
<p id="greeting"></p>
<script>
document.getElementById('show').addEventListener('click', () => {
	document.getElementById('greeting').textContent = 'Hello, agent!';
	document.title = 'Greeted';
});
</script>`),
	'/form': () => page('Form', `<h1>Sign up</h1>
<form action="/submitted" method="get">
<p><label for="name">Name</label> <input id="name" name="name" type="text"></p>
<p><label for="email">Email</label> <input id="email" name="email" type="email"></p>
<p><label><input id="news" name="news" type="checkbox" value="yes"> Send me news</label></p>
<p><label for="color">Colour</label> <select id="color" name="color">
<option value="red">Red</option><option value="green">Green</option><option value="blue">Blue</option>
</select></p>
<p><button type="submit">Submit</button></p>
</form>`),
	'/submitted': (url) => page('Submitted', `<h1>Thanks, ${escape(url.searchParams.get('name') || '')}</h1>
<p id="email">Email: ${escape(url.searchParams.get('email') || '')}</p>`),
	'/long': () => page('Long', `<h1>A long page</h1>\n${longText}`),
	'/loop': () => page('Loop', `<h1>Loop</h1>
<p>This page runs a script that never ends.</p>
<script>while (true) {}</script>`),
	'/alert': () => page('Alert', `<h1>Alert</h1>
<p id="after"></p>
<script>window.addEventListener('load', () => {
	alert('Hello from alert');
	document.getElementById('after').textContent = 'Alert answered';
});</script>`),
	'/confirm-on-click': () => page('Confirm', `<h1>Confirm</h1>
<button id="ask" type="button">Ask</button>
<p id="answer"></p>
<script>
document.getElementById('ask').addEventListener('click', () => {
	document.getElementById('answer').textContent = confirm('Are you sure?') ? 'Yes' : 'No';
});
</script>`),
	'/prompt-on-click': () => page('Prompt', `<h1>Prompt</h1>
<button id="ask" type="button">Name me</button>
<p id="answer"></p>
<script>
document.getElementById('ask').addEventListener('click', () => {
	const v = prompt('Your name?', 'Anonymous');
	document.getElementById('answer').textContent = v === null ? 'Got nothing' : 'Got: ' + v;
});
</script>`),
	'/alert-loop': () => page('Nag', `<h1>Nag</h1>
<button id="nag" type="button">Nag</button>
<script>
document.getElementById('nag').addEventListener('click', () => {
	for (let n = 1; ; n++)
		alert('Nag ' + n);
});
</script>`),
	'/scroll': () => page('Scroll', `<h1>A tall page</h1>
<div style="height: 5000px">Top of the page.</div>
<p id="bottom">Bottom marker</p>`),
	'/tall': () => page('Tall', `<h1>A very tall page</h1>
<div style="height: 20000px">Top of the page.</div>
<p>Far below</p>`),
	'/later': (url) => page('Later', `<h1>Later</h1>
<p id="status">Not yet</p>
<script>
window.addEventListener('load', () => setTimeout(() => {
	document.getElementById('status').textContent = 'Later now';
}, ${Number(url.searchParams.get('ms')) || 0}));
</script>`),
	'/popup': () => page('Popup', `<h1>Popup</h1>
<p><a href="/button?popup=link" target="_blank">New tab</a></p>
<button id="open" type="button">Open window</button>
<script>
document.getElementById('open').addEventListener('click', () => window.open('/button?popup=open'));
</script>`),
	'/menu': () => page('Menu', `<h1>Menu</h1>
<button id="menu" type="button">Menu</button>
<ul id="items" hidden><li><a href="/links">Settings</a></li></ul>
<p id="state">Menu closed</p>
<script>
document.getElementById('menu').addEventListener('mouseover', () => {
	document.getElementById('items').hidden = false;
	document.getElementById('state').textContent = 'Menu opened by mouseover';
});
</script>`),
	'/choose': () => page('Choose', `<h1>Choose</h1>
<p><label for="color">Colour</label> <select id="color">
<option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option>
</select></p>
<button id="plain" type="button">Plain button</button>
<p id="log">Events:</p>
<p id="value">Value: r</p>
<script>
const color = document.getElementById('color');
for (const type of ['input', 'change'])
	color.addEventListener(type, () => {
		document.getElementById('log').textContent += ' ' + type + ':' + color.value;
		document.getElementById('value').textContent = 'Value: ' + color.value;
	});
</script>`),
	'/keys': () => page('Keys', `<h1>Keys</h1>
<p><label for="first">First</label> <input id="first" type="text"></p>
<p><label for="second">Second</label> <input id="second" type="text" value="old text"></p>
<p id="echo">Second: old text</p>
<p id="focused">Focused: none</p>
<script>
const second = document.getElementById('second');
second.addEventListener('input', () => {
	document.getElementById('echo').textContent = 'Second: ' + second.value;
});
document.addEventListener('focusin', (e) => {
	document.getElementById('focused').textContent = 'Focused: ' + e.target.id;
});
</script>`),
	'/fetch-later': () => page('Fetch later', `<h1>Fetch later</h1>
<button id="fetch" type="button">Fetch</button>
<p id="got">Nothing yet</p>
<script>
document.getElementById('fetch').addEventListener('click', async () => {
	const answer = await fetch('/delayed?ms=200');
	document.getElementById('got').textContent = await answer.text();
});
</script>`),
	'/poll': () => page('Poll', `<h1>Poll</h1>
<button id="mark" type="button">Mark</button>
<p id="mark-out">Not marked</p>
<script>
setInterval(() => fetch('/delayed?ms=0').catch(() => {}), 50);
document.getElementById('mark').addEventListener('click', () => {
	document.getElementById('mark-out').textContent = 'Marked';
});
</script>`),
	'/huge-text': () => page('Huge text', `<h1>Huge text</h1>\n<pre>${hugeText}</pre>\n<p>The end.</p>`),
	'/rows': () => page('Rows', `<h1>Rows</h1>\n<table>\n${rows}\n</table>\n<p>The end.</p>`),
	'/wait': () => page('Wait', `<h1>Wait</h1>
<p id="status">Loading…</p>
<script>
window.addEventListener('load', () => setTimeout(() => {
	document.getElementById('status').textContent = 'Ready now';
}, 500));
</script>`),
};
pages['/'] = pages['/links'];

// The peer bench's record: run name -> what the user did there, in order.
const records = new Map();
const record = (url, what) => {
	const run = url.searchParams.get('run') || '';
	if (!records.has(run))
		records.set(run, []);
	records.get(run).push(what);
};
const runOf = (url) => escape(url.searchParams.get('run') || '');

const peerRows = (() => {
	const out = [];
	for (let i = 1; i <= 5000; i++)
		out.push(`<tr><td>${i}</td><td>Item ${i}</td><td>C-${(i * 37) % 9973}</td></tr>`);
	return out.join('\n');
})();

Object.assign(pages, {
	'/peer-form': (url) => page('Peer form', `<h1>Order</h1>
<form action="/peer-sent" method="get">
<input type="hidden" name="run" value="${runOf(url)}">
<p><label for="fullname">Full name</label> <input id="fullname" name="fullname" type="text"></p>
<p><label for="mail">Mail</label> <input id="mail" name="mail" type="email"></p>
<p><label for="secret">Secret</label> <input id="secret" name="secret" type="password"></p>
<p><label for="count">Count</label> <input id="count" name="count" type="number" min="0" max="99"></p>
<p><label for="day">Day</label> <input id="day" name="day" type="date"></p>
<p><label for="level">Level</label> <input id="level" name="level" type="range" min="0" max="10"></p>
<p><label for="tint">Tint</label> <input id="tint" name="tint" type="color"></p>
<p><label for="query">Query</label> <input id="query" name="query" type="search"></p>
<p><label for="phone">Phone</label> <input id="phone" name="phone" type="tel"></p>
<p><label for="site">Site</label> <input id="site" name="site" type="url"></p>
<p><label for="fruit">Fruit</label> <select id="fruit" name="fruit">
<option value="ap">Apple</option><option value="ba">Banana</option><option value="ch">Cherry</option>
</select></p>
<p><label><input id="gift" name="gift" type="checkbox" value="yes"> Gift wrap</label>
<label><input id="rush" name="rush" type="checkbox" value="yes"> Rush</label></p>
<fieldset><legend>Size</legend>
<label><input name="size" type="radio" value="s"> Small</label>
<label><input name="size" type="radio" value="m"> Medium</label>
<label><input name="size" type="radio" value="l"> Large</label>
</fieldset>
<p><label for="note">Note</label> <textarea id="note" name="note" rows="3"></textarea></p>
<p><button type="submit">Send</button></p>
</form>`),
	'/peer-sent': (url) => {
		const q = new URLSearchParams(url.searchParams);
		q.delete('run');
		record(url, `sent ${q}`);
		return page('Sent', '<h1>Sent</h1>\n<p>Thank you.</p>');
	},
	'/peer-links': (url) => page('Peer links', '<h1>Links</h1>\n<ul>\n' +
		Array.from({ length: 200 }, (_, i) =>
			`<li><a href="/peer-landed?run=${runOf(url)}&amp;n=${i + 1}">Link ${i + 1}</a></li>`).join('\n') +
		'\n</ul>'),
	'/peer-landed': (url) => {
		record(url, `landed ${url.searchParams.get('n')}`);
		return page('Landed', `<h1>Landed on ${escape(url.searchParams.get('n') || '')}</h1>`);
	},
	'/peer-scroller': () => page('Peer scroller', `<h1>Scroller</h1>
<div id="box" role="region" aria-label="Inner list" style="height: 200px; overflow: auto; border: 1px solid">
${Array.from({ length: 120 }, (_, i) => `<p id="line${i + 1}">Line ${i + 1}</p>`).join('\n')}
</div>
<p>After the list.</p>`),
	'/peer-frames': (url, req) => {
		const port = (req.headers.host || '').split(':')[1];
		const run = runOf(url);
		return page('Peer frames', `<h1>Frames</h1>
<iframe title="Same frame" src="/peer-frame?run=${run}&amp;which=same" width="300" height="120"></iframe>
<iframe title="Cross frame" src="http://localhost:${escape(port)}/peer-frame?run=${run}&amp;which=cross" width="300" height="120"></iframe>`);
	},
	'/peer-frame': (url) => {
		const which = url.searchParams.get('which') === 'cross' ? 'cross' : 'same';
		return page(`Frame ${which}`, `<button id="press" type="button">Press ${which}</button>
<p id="out"></p>
<script>
document.getElementById('press').addEventListener('click', () => {
	document.getElementById('out').textContent = 'Pressed';
});
</script>`);
	},
	'/peer-dialog': () => page('Peer dialog', `<h1>Dialog</h1>
<button id="del" type="button">Delete</button>
<p id="answer"></p>
<script>
document.getElementById('del').addEventListener('click', () => {
	document.getElementById('answer').textContent = confirm('Delete it?') ? 'Deleted' : 'Kept';
});
</script>`),
	'/peer-table': () => page('Peer table', `<h1>Table</h1>
<table>\n<thead><tr><th>N</th><th>Name</th><th>Code</th></tr></thead>\n<tbody>\n${peerRows}\n</tbody>\n</table>`),
	'/peer-later': () => page('Peer later', `<h1>Later</h1>
<button id="load" type="button">Load</button>
<p id="late"></p>
<script>
document.getElementById('load').addEventListener('click', () => setTimeout(() => {
	document.getElementById('late').textContent = 'Loaded at 300 ms';
}, 300));
</script>`),
});

const server = http.createServer((req, res) => {
	// req.url is the path and query; "//x" alone would read as a host.
	const url = new URL(`http://127.0.0.1${req.url}`);
	if (url.pathname === '/slow') {
		// Headers and a first chunk, then nothing: the load never ends
		// (until the browser gives up or the server stops).
		res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
		res.write('<!doctype html>\n<html><head><title>Slow</title></head><body><h1>Slow</h1>\n');
		return;
	}
	if (url.pathname === '/no-answer')
		return; // nothing is ever sent; the browser's stop, or this server's end, drops it
	if (url.pathname === '/delayed') {
		setTimeout(() => {
			res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
			res.end('Fetched it');
		}, Number(url.searchParams.get('ms')) || 0);
		return;
	}
	if (url.pathname === '/peer-records') {
		res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
		res.end(JSON.stringify(records.get(url.searchParams.get('run') || '') || []));
		return;
	}
	if (url.pathname === '/download') {
		res.writeHead(200, {
			'Content-Type': 'text/plain; charset=utf-8',
			'Content-Disposition': 'attachment; filename="report.txt"',
		});
		res.end('A downloaded file.\n');
		return;
	}
	const make = pages[url.pathname];
	if (!make) {
		res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8' });
		res.end(page('Not found', '<h1>Not found</h1>'));
		return;
	}
	res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
	res.end(make(url, req));
});
server.on('error', (e) => {
	process.stderr.write(`pages.mjs: cannot listen on 127.0.0.1 port ${port}: ${e.message}\n`);
	process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
	process.stdout.write(`PORT ${server.address().port}\n`);
});
// The test went away (even killed): so does the server, /slow's
// never-ending answers with it.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
