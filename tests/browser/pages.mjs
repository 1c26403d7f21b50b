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
//   /long-lists        a list "Items" of 1500 buttons "Item N", then a list
//                      "Later items" of 20 buttons "Later N": a page
//                      Chrome's tree takes whole, whose snapshot is cut
//                      inside the first list; a click on a button writes
//                      "Clicked: NAME" into #clicked
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
//   /drag              an HTML5 draggable "Card" and a drop zone "Done"
//                      (its drop writes "Dropped: DATA" into #dropped), and
//                      a "Handle" moved by pointer events (mousedown, moves,
//                      mouseup) onto a "Slot": "Handle in slot" into #slotted
//   /tour              what the agents' e2e rigs drive: a select "Colour"
//                      (Red r, Green g, Blue b) whose change writes
//                      "Value: V" into #value, a button "Ask" whose
//                      confirm("Go on?") answer goes into #answer (Yes/No),
//                      and an iframe "Tour frame" of /frame-inner?name=Tour
//   /devtools          on load writes to its console (console.log with a
//                      string, a number and an object; console.error) and
//                      throws an uncaught Error, fetches /devtools-data?n=7
//                      (its text into #got as "Fetched: TEXT") and
//                      /devtools-bytes ("Bytes: N" into #bytes)
//   /devtools-data?n=N {"items":["alpha","beta","gamma"],"n":N}, JSON, with a
//                      Set-Cookie (devtools-secret=abc123) and an
//                      X-Test-Header: devtools header
//   /devtools-bytes    the 256 bytes 0 to 255, application/octet-stream
//   /frames            "Main text" and two iframes, each /frame-inner: "Same
//                      frame" (this server, same origin, in the page's own
//                      process) and, 300 px lower, "Cross frame" (the same
//                      server as http://localhost:PORT: another site, so
//                      Chromium puts it in a process of its own)
//                      (below the first screen: a click there scrolls first)
//   /frame-inner?name=X  a button "Press X" whose click writes "X frame
//                      pressed" into #state and whose mouseover writes "X
//                      hovered" into #hovered, a text field "X field" whose
//                      input writes "X typed: VALUE" into #echo, and a
//                      select "X colour" (Red r, Green g) whose change
//                      writes "X chose: VALUE" into #chose
//   /inner-scroll      a list "Rows" that scrolls inside itself (a 500 px
//                      tall div, overflow auto, over the viewport's middle)
//                      of 100 buttons "Row N", 30 px each, drawn only where
//                      they show (a virtual list); each scroll writes
//                      "Inner at TOP of MOST" into #pos, each trusted wheel
//                      event counts in #wheels, a click on a row writes
//                      "Clicked: Row N" into #clicked
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
	'/drag': () => page('Drag', `<h1>Drag</h1>
<div id="card" draggable="true" role="button" tabindex="0" style="width:120px;height:40px;background:#cde">Card</div>
<div id="done" role="region" aria-label="Done" style="width:200px;height:80px;margin-top:40px;border:2px dashed #888">Done</div>
<p id="dropped">Nothing dropped</p>
<div id="handle" role="button" tabindex="0" style="width:80px;height:30px;background:#edc;margin-top:20px">Handle</div>
<div id="slot" role="region" aria-label="Slot" style="width:200px;height:60px;margin-top:40px;border:2px solid #888">Slot</div>
<p id="slotted">Handle outside</p>
<script>
const card = document.getElementById('card'), done = document.getElementById('done');
card.addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', 'card-1'));
done.addEventListener('dragover', (e) => e.preventDefault());
done.addEventListener('drop', (e) => {
	e.preventDefault();
	document.getElementById('dropped').textContent = 'Dropped: ' + e.dataTransfer.getData('text/plain');
});
const handle = document.getElementById('handle'), slot = document.getElementById('slot');
let held = false;
handle.addEventListener('mousedown', () => { held = true; });
document.addEventListener('mouseup', (e) => {
	if (!held) return;
	held = false;
	const r = slot.getBoundingClientRect();
	if (e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom)
		document.getElementById('slotted').textContent = 'Handle in slot';
});
</script>`),
	'/tour': () => page('Tour', `<h1>Tour</h1>
<p><label for="color">Colour</label> <select id="color">
<option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option>
</select></p>
<p id="value">Value: r</p>
<button id="ask" type="button">Ask</button>
<p id="answer">Not asked</p>
<iframe id="frame" title="Tour frame" src="/frame-inner?name=Tour" width="500" height="260"></iframe>
<script>
const color = document.getElementById('color');
color.addEventListener('change', () => { document.getElementById('value').textContent = 'Value: ' + color.value; });
document.getElementById('ask').addEventListener('click', () => {
	document.getElementById('answer').textContent = confirm('Go on?') ? 'Yes' : 'No';
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
	'/devtools': () => page('Devtools', `<h1>Devtools</h1>
<p id="got">Nothing fetched</p>
<p id="bytes">No bytes</p>
<script>
console.log('Hello from the console', 42, { answer: 42, name: 'page' });
console.error('Something failed on purpose');
setTimeout(() => { throw new Error('Thrown on purpose'); }, 0);
fetch('/devtools-data?n=7').then((r) => r.text()).then((t) => {
	document.getElementById('got').textContent = 'Fetched: ' + t;
});
fetch('/devtools-bytes').then((r) => r.arrayBuffer()).then((b) => {
	document.getElementById('bytes').textContent = 'Bytes: ' + b.byteLength;
});
</script>`),
	'/frames': () => page('Frames', `<h1>Frames page</h1>
<p>Main text</p>
<iframe id="same" title="Same frame" src="/frame-inner?name=Same" width="500" height="200"
 style="border: 7px solid gray; padding: 5px"></iframe>
<div style="height: 300px"></div>
<iframe id="cross" title="Cross frame" src="http://localhost:${server.address().port}/frame-inner?name=Cross"
 width="500" height="200" style="border: 11px solid gray; padding: 3px; margin-left: 40px"></iframe>`),
	'/frame-inner': (url) => {
		const name = escape(url.searchParams.get('name') || 'Unnamed');
		return page(`${name} inner`, `<p id="state">${name} frame waiting</p>
<div style="height: 60px"></div>
<button id="press" type="button" style="margin-left: 120px">Press ${name}</button>
<p><input id="field" type="text" aria-label="${name} field"></p>
<p id="echo">${name} typed nothing</p>
<p><select id="colour" aria-label="${name} colour"><option value="r">Red</option><option value="g">Green</option></select></p>
<p id="hovered">${name} not hovered</p>
<p id="chose">${name} chose nothing</p>
<script>
const press = document.getElementById('press');
press.addEventListener('click', () => {
	document.getElementById('state').textContent = '${name} frame pressed';
});
press.addEventListener('mouseover', () => {
	document.getElementById('hovered').textContent = '${name} hovered';
});
const colour = document.getElementById('colour');
colour.addEventListener('change', () => {
	document.getElementById('chose').textContent = '${name} chose: ' + colour.value;
});
const field = document.getElementById('field');
field.addEventListener('input', () => {
	document.getElementById('echo').textContent = '${name} typed: ' + field.value;
});
</script>`);
	},
	// Compact, so the page itself fits the 800 px window whatever the
	// fonts' line heights (Noto's are taller than DejaVu's): only the list
	// scrolls, and scrolling it at its end moves nothing.
	'/inner-scroll': () => page('Inner scroll', `<style>body { margin: 0 } h1 { margin: 0; font-size: 24px }
p { margin: 4px 0 }</style>
<h1>Inner scroll</h1>
<div id="list" role="list" aria-label="Rows" style="height: 500px; overflow: auto">
<div id="space" style="position: relative; height: 3000px"></div>
</div>
<p id="pos">Inner at 0 of 2500</p>
<p id="wheels">Wheels: 0 trusted</p>
<p id="clicked">Clicked: none</p>
<script>
const list = document.getElementById('list'), space = document.getElementById('space');
let wheels = 0;
const draw = () => {
	const first = Math.floor(list.scrollTop / 30), last = Math.min(100, first + Math.ceil(list.clientHeight / 30) + 1);
	const rows = [];
	for (let i = first + 1; i <= last; i++) {
		const b = document.createElement('button');
		b.type = 'button';
		b.textContent = 'Row ' + i;
		b.style.cssText = 'position: absolute; left: 0; height: 28px; top: ' + (i - 1) * 30 + 'px';
		b.addEventListener('click', () => { document.getElementById('clicked').textContent = 'Clicked: Row ' + i; });
		rows.push(b);
	}
	space.replaceChildren(...rows);
	document.getElementById('pos').textContent =
		'Inner at ' + Math.round(list.scrollTop) + ' of ' + (list.scrollHeight - list.clientHeight);
};
list.addEventListener('scroll', draw);
list.addEventListener('wheel', (e) => {
	if (e.isTrusted) document.getElementById('wheels').textContent = 'Wheels: ' + ++wheels + ' trusted';
});
draw();
</script>`),
	'/long-lists': () => {
		const items = (name, n) => Array.from({ length: n }, (_, k) =>
			`<li><button type="button">${name} ${k + 1}</button></li>`).join('\n');
		return page('Long lists', `<h1>Long lists</h1>
<p id="clicked">Clicked: none</p>
<ul aria-label="Items">
${items('Item', 1500)}
</ul>
<h2>Later</h2>
<ul aria-label="Later items">
${items('Later', 20)}
</ul>
<script>
document.addEventListener('click', (e) => {
	if (e.target.tagName === 'BUTTON') document.getElementById('clicked').textContent = 'Clicked: ' + e.target.textContent;
});
</script>`);
	},
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
	if (url.pathname === '/devtools-data') {
		res.writeHead(200, {
			'Content-Type': 'application/json',
			'Cache-Control': 'no-store',
			'Set-Cookie': 'devtools-secret=abc123; Path=/',
			'X-Test-Header': 'devtools',
		});
		res.end(JSON.stringify({ items: ['alpha', 'beta', 'gamma'], n: Number(url.searchParams.get('n')) }));
		return;
	}
	if (url.pathname === '/devtools-bytes') {
		res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
		res.end(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
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
