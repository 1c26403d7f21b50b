# browser-lib.sh - what the end-to-end tests of use_user_browser share,
# sourced after lib.sh with build and here set: the test pages
# (tests/browser/pages.mjs) on 127.0.0.1, a real headless Chromium that
# stands for the user's Chrome, started as tests/harness/chromium.c starts
# it, in $tmp/xdg/chromium, where svc-browser's search finds its
# DevToolsActivePort once XDG_CONFIG_HOME is $tmp/xdg; a broker running
# svc-sessions and svc-browser as deploy/services.conf declares it; the
# steps the mock model plays (open the /button page, then a screenshot,
# then a select and a dialog on /tour) and the checks on what the model
# received and on the page's real state.  The clean-up
# ends the browser's whole process group before lib.sh's removes $tmp.

chromium_dir=$tmp/xdg/chromium
chromium_pid=
# The snapshot line of /button's button: a ref follows.
button_line='button "Show greeting" [ref=e'
export button_line

# chromium_group_running: true while a process of the browser's group
# runs (a zombie does not count: the helpers its death reparents may be
# reaped late, and hold no file of the folder).
chromium_group_running() {
	ps -e -o pgid=,stat= | awk -v g="$chromium_pid" '$1 == g && $2 !~ /^[ZX]/ { found = 1 } END { exit !found }'
}

# chromium_stop: SIGTERM to the group, then SIGKILL to whatever is left of
# it, and wait (bounded) until none of it runs.
chromium_stop() {
	[ -n "$chromium_pid" ] || return 0
	kill -TERM -- "-$chromium_pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$chromium_pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL -- "-$chromium_pid" 2>/dev/null
	wait "$chromium_pid" 2>/dev/null
	for _ in $(seq 100); do chromium_group_running || break; sleep 0.1; done
	chromium_group_running && echo "FAIL chromium's process group $chromium_pid is still running"
	chromium_pid=
}
browser_cleanup() {
	chromium_stop
	e2e_cleanup
}
trap browser_cleanup EXIT

# start_pages: the test pages on a free port of 127.0.0.1, alive while
# this script is (pages.mjs ends when its standard input, our fd 8,
# closes).  Sets pages_port.
start_pages() {
	mkfifo "$tmp/pages.in"
	node "$here/browser/pages.mjs" <"$tmp/pages.in" >"$tmp/pages.out" 2>"$tmp/pages.err" &
	exec 8>"$tmp/pages.in"
	wait_for 10 'grep -qs "^PORT" "$tmp/pages.out"' || { echo "FAIL the test pages did not start"; cat "$tmp/pages.err"; exit 1; }
	pages_port=$(sed -n 's/^PORT //p' "$tmp/pages.out" | head -1)
}

# start_chromium: the browser, headless, in its own process group (setsid:
# a background job of this script is no group leader, so it execs in
# place and the pid is the browser's); its HOME and TMPDIR in its folder,
# nothing but 127.0.0.1 reachable.  Waits for DevToolsActivePort; sets
# cdp_port.  The flags and why: tests/harness/chromium.c.
start_chromium() {
	command -v chromium >/dev/null 2>&1 || { echo "FAIL chromium is not installed: run make deps"; exit 1; }
	mkdir -p "$chromium_dir/home" "$chromium_dir/tmp"
	env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME HOME="$chromium_dir/home" TMPDIR="$chromium_dir/tmp" \
		setsid chromium --headless=new --no-sandbox --remote-debugging-port=0 \
		--user-data-dir="$chromium_dir" --no-first-run --disable-gpu --disable-dev-shm-usage \
		--window-size=1280,800 \
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost" \
		--proxy-server=http://127.0.0.1:9 about:blank \
		</dev/null >"$chromium_dir/chromium.log" 2>&1 &
	chromium_pid=$!
	# The file has the port, then the browser's WebSocket path.
	wait_for 30 'grep -qs "^/devtools/browser/." "$chromium_dir/DevToolsActivePort"' ||
		{ echo "FAIL chromium wrote no DevToolsActivePort"; tail -20 "$chromium_dir/chromium.log"; exit 1; }
	cdp_port=$(head -1 "$chromium_dir/DevToolsActivePort")
}

# start_browser_broker: svc-sessions and svc-browser; svc-browser
# inherits the broker's environment, so it searches $tmp/xdg for Chrome
# and reaches 127.0.0.1 without a proxy.
start_browser_broker() {
	local conf
	conf=$(sessions_conf && deployed_conf svc-browser) || exit 1
	export XDG_CONFIG_HOME=$tmp/xdg
	export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
	unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
	printf '%s\n' "$conf" | start_broker
}

# new_browser_session AGENT: a full-auto session in $tmp/project; its id.
new_browser_session() {
	mkdir -p "$tmp/project"
	"$build/hbctl" call manage_sessions \
		"{\"action\":\"create\",\"title\":\"Browser\",\"agent\":\"$1\",\"projectPath\":\"$tmp/project\",\"accessLevel\":\"full-auto\"}" |
		json_field id
}

# The page the model opens.
button_url() { printf 'http://127.0.0.1:%s/button' "$pages_port"; }

# The page of the tour: a select and a button that asks with confirm().
tour_url() { printf 'http://127.0.0.1:%s/tour' "$pages_port"; }

# browser_steps NAMESPACE: the mock model's script (scenario "steps", which
# both mocks play): open the /button page, then a screenshot; then the
# tour: open /tour, choose Green in its select, click Ask (a confirm
# opens), accept the dialog, click the button in its iframe by the ref
# the snapshot showed.  Each step's expect is the player's own
# check, reported as PLAYER CHECK FAILED.
browser_steps() {
	js_args '
		const [ns, url, tour, button_line] = argv;
		const call = (args, expect) => ({ ...(ns ? { namespace: ns } : {}), name: "use_user_browser", arguments: args, expect });
		print(JSON.stringify({
			scenario: "steps",
			steps: [call({ action: "open", url }, { contains: button_line }),
				call({ action: "screenshot" }, { image: true }),
				call({ action: "open", url: tour }, { contains: "combobox \"Colour\"" }),
				call({ action: "select", selector: "#color", option: "Green" }, { contains: "Green" }),
				call({ action: "click", selector: "#ask" }, { contains: "opened a JavaScript confirm" }),
				call({ action: "dialog", accept: true }, { contains: "with OK" }),
				call({ action: "click", ref: "{{ref:button \"Press Tour\"}}" }, { contains: "Clicked " })],
			finalText: "I opened the page and looked at it.",
			deltaChunks: 0,
		}));' "$1" "$(button_url)" "$(tour_url)" "$button_line"
}

# tour_state: the /tour page's real state, read over DevTools from
# Chromium itself (not from any answer of the tool): "VALUE|ANSWER|FRAME"
# (FRAME: the iframe's own #state).
tour_state() {
	node --no-warnings --experimental-websocket -e '
		const [port, url] = process.argv.slice(1);
		(async () => {
			const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
			const t = list.find((p) => p.type === "page" && p.url === url);
			if (!t) { console.log("no tab at " + url); process.exit(1); }
			const ws = new WebSocket(t.webSocketDebuggerUrl);
			await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
			ws.onmessage = (m) => {
				const d = JSON.parse(m.data);
				if (d.id === 1) { console.log(d.result?.result?.value ?? "no value"); ws.close(); process.exit(0); }
			};
			ws.send(JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { returnByValue: true,
				expression: "document.getElementById(\"value\").textContent + \"|\" + document.getElementById(\"answer\").textContent" +
					" + \"|\" + document.getElementById(\"frame\").contentDocument.getElementById(\"state\").textContent" } }));
			setTimeout(() => { console.log("no answer"); process.exit(1); }, 10000);
		})().catch((e) => { console.log(String(e)); process.exit(1); });' "$cdp_port" "$(tour_url)"
}

# tab_listed: Chromium's own list of its pages has the /button page.
tab_listed() {
	curl -s --noproxy '*' --max-time 10 "http://127.0.0.1:$cdp_port/json/list" |
		js '
			const s = input;
			let l; try { l = JSON.parse(s); } catch { exit(1); }
			exit(l.some((t) => t.type === "page" && t.url === argv[0]) ? 0 : 1);' "$(button_url)"
}

# received FILE: what the model received from the two calls, out of the
# mock's request log, as the model saw it (Codex: the function_call_output
# items of the Responses request; Claude: the tool_result blocks of the
# Messages request): writes $tmp/received.json {snapshot, shotText,
# images: [{mediaType, png (base64)}]}, from the last request, which
# carries both answers.
received() {
	js_args '
		const fs = require("fs");
		let last = null;
		for (const l of fs.readFileSync(argv[0], "utf8").split("\n")) {
			if (!l) continue;
			const r = JSON.parse(l);
			const b = r.body;
			if (!b) continue;
			const outs = [];
			if (Array.isArray(b.input)) {
				// Codex: a string, or content items input_text / input_image.
				for (const it of b.input) {
					if (it?.type !== "function_call_output" || !/^call_step_/.test(it.call_id ?? "")) continue;
					const items = typeof it.output === "string" ? [{ type: "input_text", text: it.output }] :
						Array.isArray(it.output) ? it.output : it.output?.content ?? [];
					const o = { text: "", images: [] };
					for (const c of items) {
						if (c.type === "input_text") o.text += c.text;
						const m = c.type === "input_image" && /^data:([^;]+);base64,(.*)$/.exec(c.image_url ?? "");
						if (m) o.images.push({ mediaType: m[1], png: m[2] });
					}
					outs.push(o);
				}
			} else if (Array.isArray(b.messages)) {
				// Claude: the tool_result blocks of our tool_use ids.
				for (const m of b.messages)
					for (const blk of Array.isArray(m.content) ? m.content : []) {
						if (blk?.type !== "tool_result" || !/^toolu_step_/.test(blk.tool_use_id ?? "")) continue;
						const items = typeof blk.content === "string" ? [{ type: "text", text: blk.content }] : blk.content ?? [];
						const o = { text: "", images: [] };
						for (const c of items) {
							if (c.type === "text") o.text += c.text;
							if (c.type === "image" && c.source?.type === "base64")
								o.images.push({ mediaType: c.source.media_type, png: c.source.data });
						}
						outs.push(o);
					}
			}
			if (outs.length) last = outs;
		}
		const out = { snapshot: last?.[0]?.text ?? "", shotText: last?.[1]?.text ?? "", images: last?.[1]?.images ?? [],
			snapshotImages: last?.[0]?.images?.length ?? 0, results: last?.length ?? 0 };
		fs.writeFileSync(argv[1], JSON.stringify(out));' "$1" "$tmp/received.json"
}

# png_check: the one image the model got is a PNG, 1280 pixels wide (the
# window), as its own header says; prints WIDTHxHEIGHT.
png_check() {
	js_args '
		const r = JSON.parse(require("fs").readFileSync(argv[0], "utf8"));
		if (r.images.length !== 1) { print(r.images.length + " images"); exit(1); }
		const im = r.images[0], b = Buffer.from(im.png, "base64");
		if (im.mediaType !== "image/png" || !b.subarray(0, 8).equals(Buffer.from("89504e470d0a1a0a", "hex")) ||
		    b.toString("latin1", 12, 16) !== "IHDR") { print("not a PNG: " + im.mediaType); exit(1); }
		const w = b.readUInt32BE(16), h = b.readUInt32BE(20);
		print(w + "x" + h);
		exit(w === 1280 && h > 0 ? 0 : 1);' "$tmp/received.json"
}

# saved_same: the screenshot's answer names where it saved the PNG, under
# the cache's browser/SESSION/, and that file has the very bytes the
# model got.
saved_same() {
	js_args '
		const fs = require("fs");
		const r = JSON.parse(fs.readFileSync(argv[0], "utf8"));
		const m = /saved as (\/\S+\.png)\./.exec(r.shotText);
		if (!m || !m[1].startsWith(argv[1] + "/")) { print("no saved path: " + r.shotText); exit(1); }
		exit(r.images.length === 1 && fs.readFileSync(m[1]).equals(Buffer.from(r.images[0].png, "base64")) ? 0 : 1);
	' "$tmp/received.json" "$1"
}

rfield() { json_field "$1" <"$tmp/received.json"; }
