# alerts-lib.sh - what the end-to-end tests of send_mobile_notification
# share, sourced after lib.sh with build and here set: a throwaway CA and a
# server certificate for localhost and 127.0.0.1 (as tests/harness/
# tls_fixture.c makes them), the fake relay (tests/fake-relay/relay.mjs)
# in accept mode on 127.0.0.1 recording what it got, the settings that let
# the device link come up, a broker running svc-sessions and svc-alerts as
# deploy/services.conf declares it, and the checks on what reached the
# relay.  The agent side (Codex or Claude) is the script's.

# A test value, but treated as the secret it stands for: it goes to hbctl
# on standard input and to the fake on its command line, and the checks
# look for it in every file the test leaves.
credential=e2e-device-credential-$$-$RANDOM
# Multibyte on purpose: the limits are in characters, and the relay must
# get the very bytes the model wrote.  The body has a newline and quotes.
alert_title='Build fixé 🚀 at last'
alert_body='All 212 tests pass — the "flaky" one was a race.
Next: ça marche ✓'
session_title='Réparer le build ✈'
export alert_title alert_body session_title

# make_certs: $tmp/tls/{ca.pem,server.pem,server.key}.  EC P-256 keys, as
# they are quick to make; 2 days, as a test's folder never lives longer.
make_certs() {
	local d=$tmp/tls ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
	mkdir -p "$d"
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$d/ext.cnf"
	# shellcheck disable=SC2086
	(
		cd "$d" &&
			openssl req -x509 $ec -keyout ca.key -out ca.pem -days 2 -subj /CN=hbcode-e2e-ca &&
			openssl req $ec -keyout server.key -out server.csr -subj /CN=localhost &&
			openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
				-extfile ext.cnf -out server.pem
	) >"$d/openssl.log" 2>&1 || { echo "FAIL openssl could not make the test certificates"; cat "$d/openssl.log"; exit 1; }
}

# start_relay [OPTIONS]: the fake relay on a free port of 127.0.0.1, alive
# while this script is (it ends when its standard input, our fd 9,
# closes), with relay.mjs's OPTIONS too (--answer allow: the phone
# answers each approval card).  Sets relay_port; its record is
# $tmp/relay.jsonl.
start_relay() {
	mkfifo "$tmp/relay.in"
	node "$here/fake-relay/relay.mjs" --mode accept --credential "$credential" --record "$tmp/relay.jsonl" \
		--cert "$tmp/tls/server.pem" --key "$tmp/tls/server.key" --port 0 "$@" \
		<"$tmp/relay.in" >"$tmp/relay.out" 2>"$tmp/relay.err" &
	exec 9>"$tmp/relay.in"
	wait_for 10 'grep -qs "^PORT" "$tmp/relay.out"' || { echo "FAIL the fake relay did not start"; cat "$tmp/relay.err"; exit 1; }
	relay_port=$(sed -n 's/^PORT //p' "$tmp/relay.out" | head -1)
}

# alerts_settings: notifications on (the catalog lists the tool only then),
# Allow Remote Access on, the fake's URL, and the credential as signing in
# stores it.
alerts_settings() {
	"$build/hbctl" settings notifications on >/dev/null &&
		"$build/hbctl" settings remote-access on >/dev/null &&
		"$build/hbctl" settings relay-url set "wss://localhost:$relay_port/device" >/dev/null &&
		printf %s "$credential" | "$build/hbctl" settings device-credential set >/dev/null ||
		{ echo "FAIL hbctl settings refused the link's settings"; exit 1; }
}

# start_alerts_broker [SECTIONS]: svc-sessions and svc-alerts, and the
# config SECTIONS given (another service's), trusting the test's CA
# (svc-alerts inherits the broker's environment).
start_alerts_broker() {
	local conf
	conf=$(sessions_conf && deployed_conf svc-alerts && printf '%s\n' "${1:-}") || exit 1
	# in the config folder: the one folder svc-alerts reads settings from
	mkdir -p -m 700 "$HB_HOME/config"
	cp "$tmp/tls/ca.pem" "$HB_HOME/config/relay-ca.pem"
	export HB_RELAY_CA_FILE=$HB_HOME/config/relay-ca.pem
	export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
	unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
	printf '%s\n' "$conf" | start_broker
}

# new_alert_session AGENT: a full-auto session titled $session_title in
# $tmp/project; its id.
new_alert_session() {
	mkdir -p "$tmp/project"
	"$build/hbctl" call manage_sessions "$(js_args 'print(JSON.stringify({action: "create",
		title: argv[2], agent: argv[0], projectPath: argv[1],
		accessLevel: "full-auto"}))' "$1" "$tmp/project" "$session_title")" | json_field id
}

# The tool's arguments, as JSON.
alert_args() { js_args 'print(JSON.stringify({title: argv[0], body: argv[1]}))' "$alert_title" "$alert_body"; }

# link_ready: true once svc-alerts reports its link ready in hbctl status.
link_ready() {
	"$build/hbctl" status --json 2>/dev/null | js '
		const s = input;
		let st; try { st = JSON.parse(s); } catch { exit(1); }
		const svc = (st.services || []).find((x) => x.name === "svc-alerts");
		exit(svc && svc.report && svc.report.link === "ready" ? 0 : 1);'
}

# relay_check WHAT SESSION RUN: one of the relay's records, checked in
# node: "one-event" (exactly one event, not a duplicate, with the title and
# body byte for byte, the session's id, the run, the session's title) or
# "hello" (every hello had the right credential, and there was one).
relay_check() {
	js_args '
		const fs = require("fs");
		const [what, session, run] = argv;
		const recs = fs.readFileSync(argv[3], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
		const same = (a, b) => typeof a === "string" && Buffer.from(a, "utf8").equals(Buffer.from(b, "utf8"));
		const bad = (why) => { print("  relay record: " + why); exit(1); };
		if (what === "hello") {
			const h = recs.filter((r) => r.kind === "hello");
			if (!h.length) bad("no hello");
			if (!h.every((r) => r.credentialOk === true)) bad(JSON.stringify(h));
			exit(0);
		}
		const ev = recs.filter((r) => r.kind === "event");
		if (ev.length !== 1) bad(ev.length + " events: " + JSON.stringify(ev));
		const e = ev[0], env = { alert_title: argv[4], alert_body: argv[5], session_title: argv[6] };
		if (e.duplicate !== false) bad("duplicate " + e.duplicate);
		if (!same(e.title, env.alert_title)) bad("title " + JSON.stringify(e.title));
		if (!same(e.body, env.alert_body)) bad("body " + JSON.stringify(e.body));
		if (e.sessionId !== session) bad("sessionId " + e.sessionId + ", not " + session);
		if (!run || e.runId !== run) bad("runId " + e.runId + ", not " + run);
		if (!same(e.sessionTitle, env.session_title)) bad("sessionTitle " + JSON.stringify(e.sessionTitle));
	' "$1" "${2:-}" "${3:-}" "$tmp/relay.jsonl" "$alert_title" "$alert_body" "$session_title"
}

# The run the broker bound the tool call to, from its call.start event.
call_run() {
	js_args '
		for (const l of require("fs").readFileSync(argv[0], "utf8").split("\n")) {
			let e; try { e = JSON.parse(l); } catch { continue; }
			if (e.event === "call.start" && e.tool === "send_mobile_notification") { print(e.run || ""); break; }
		}' "$tmp/events.jsonl"
}

# The id of the relay's (one) event.
relay_event_id() { sed -n 's/.*"kind":"event".*"id":"\([^"]*\)".*/\1/p' "$tmp/relay.jsonl" | head -1; }

# receipt_ok TEXT: the receipt the page asks for.
receipt_ok() { case $1 in *"queued for the relay"*"not confirmed"* | *"not confirmed"*"queued for the relay"*) true ;; *) false ;; esac; }

# credential_files: the files under $tmp holding the credential, but for
# the one file where signing in keeps it (the logs of the broker, its
# services, the bridges and agents, the events, the relay's record, a
# status snapshot).
credential_files() {
	"$build/hbctl" status --json >"$tmp/status.json" 2>&1
	"$build/hbctl" status >"$tmp/status.txt" 2>&1
	grep -rlF -- "$credential" "$tmp" | grep -v '/device-credential$'
}
