// relay-logic.mjs - what the tests' fake regional relay does with each
// message of the device link (docs/relay-protocol.md), without the
// WebSocket: given a decoded text message it says what to answer and
// records what it got, so the behaviour is tested on its own
// (relay-logic.test.mjs) and any WebSocket server can carry it.  Node's
// standard library only.
//
//   const relay = createRelay({ mode, credential, dropAfter, dropReason, record,
//                               answer, answerUnknown, earlier: recordedBefore(path) });
//   const conn = relay.open();           // one per WebSocket connection
//   conn.message(text) -> actions        // for each text message
//   conn.closed()                        // the connection ended
//
// Actions, in order: { send: text } (a text message), { close: { code,
// reason } } (a close frame, then the end), { destroy: true } (the TCP
// connection cut with no close frame: a relay that drops the link).
//
// Modes:
//   accept   hello with the right credential -> ready; each event -> ack
//   refuse   every hello -> error bad-credential, then close
//   stall    hello is recorded and never answered (no ready, ever)
//   hold     as accept, but no event is ever acknowledged (no ack, no
//            dropped): the device must keep each in its spool, and send it
//            again to a relay that acknowledges
// dropAfter N (any mode that reaches ready): the Nth event of each
// connection is recorded but not acknowledged and the connection is cut,
// so the device must send it again with the same id.  dropReason R: each
// acknowledged event is followed by dropped {id, reason: R}, as a relay
// reports a push that went nowhere.
//
// The phone's answers: answer allow|deny, the decision the phone gives
// each approval card (approval-requested) once, as approval-resolve with
// the card's approvalId and runId and an id of its own (answer-<card>);
// nothing when absent (the phone does not answer).  answerUnknown: before
// each such answer, one for a card nobody has (approvalId nosuch-<card>),
// which the device must refuse.  The device's approval-result of each is
// recorded.
//
// The relay's rules: hello first and once, protocol 1, ids of 1 to 64 of
// [A-Za-z0-9._:-], title 1 to 60 and body 1 to 180 characters (code
// points), createdAt as 2026-12-01T16:15:53.123Z; anything else ->
// error bad-message, then close 1008.  A repeated id is acknowledged
// again but not broadcast: it is recorded with duplicate: true, and
// delivered() lists each id once.
//
// earlier: the records of a relay that ran before on the same record file
// (recordedBefore).  Their event ids count as seen, as the real relay
// keeps a device's ids for a day: an id sent before a restart is a
// duplicate after it.  Connections go on numbering from the last one, so
// n stays unique in the file.
//
// Records (one object each, for a JSON-lines file): { kind: "connection",
// n }, { kind: "hello", n, credentialOk } (never the credential itself),
// { kind: "event", n, id, sessionId, runId, sessionTitle, title, body,
// createdAt, duplicate }, { kind: "refused", n, code, message },
// { kind: "approval", n, approvalId, sessionId, runId, cardKind, tool,
// text, cwd, subagent, reason }, { kind: "answer", n, id, approvalId,
// runId, decision }, { kind: "result", n, id, ok, message },
// { kind: "closed", n }.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export const PROTOCOL = 1;
const ID = /^[A-Za-z0-9._:-]{1,64}$/;
const CREATED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DEVICE_TYPES = new Set(['hello', 'agent-notification-requested', 'approval-requested', 'approval-result']);
const RELAY_TYPES = new Set(['ready', 'error', 'ack', 'dropped', 'approval-resolve']);
const EVENT_STRINGS = ['id', 'sessionId', 'runId', 'sessionTitle', 'title', 'body', 'createdAt'];
const APPROVAL_STRINGS = ['approvalId', 'sessionId', 'runId', 'kind', 'tool', 'text', 'cwd', 'subagent', 'reason'];
const OPTIONAL_APPROVAL = new Set(['cwd', 'subagent', 'reason']);
const CARD_KINDS = new Set(['command', 'file', 'tool']);

// A recorder appending each record as one JSON line to path.
export function fileRecorder(path) {
	return (rec) => appendFileSync(path, JSON.stringify(rec) + '\n');
}

// The records of the JSON-lines file at path, [] when there is none.
export function recordedBefore(path) {
	if (!existsSync(path))
		return [];
	return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

const chars = (s) => [...s].length;

// A real UTC time of that exact form, or false.
function validTime(s) {
	if (!CREATED.test(s))
		return false;
	const t = new Date(s);
	return !Number.isNaN(t.getTime()) && t.toISOString() === s && t.getUTCFullYear() >= 1970;
}

// The sentence of what is wrong with an event, or null.
function eventProblem(m) {
	for (const k of EVENT_STRINGS)
		if (typeof m[k] !== 'string')
			return `${k} is ${k in m ? 'not a string' : 'missing'}`;
	if (!ID.test(m.id))
		return 'id must be 1 to 64 of letters, digits and . _ : -';
	for (const k of ['sessionId', 'runId'])
		if (m[k].length === 0 || Buffer.byteLength(m[k]) > 128 || /[\x00-\x1f\x7f]/.test(m[k]))
			return `${k} must be 1 to 128 bytes without control characters`;
	if (chars(m.sessionTitle) > 200)
		return 'sessionTitle is over 200 characters';
	if (chars(m.title) < 1 || chars(m.title) > 60)
		return `title is ${chars(m.title)} characters; 1 to 60`;
	if (chars(m.body) < 1 || chars(m.body) > 180)
		return `body is ${chars(m.body)} characters; 1 to 180`;
	if (!validTime(m.createdAt))
		return 'createdAt is not a UTC time like 2026-12-01T16:15:53.123Z';
	return null;
}

// The sentence of what is wrong with an approval card, or null.
function approvalProblem(m) {
	for (const k of APPROVAL_STRINGS) {
		if (!(k in m) && OPTIONAL_APPROVAL.has(k))
			continue;
		if (typeof m[k] !== 'string')
			return `${k} is ${k in m ? 'not a string' : 'missing'}`;
	}
	if (!ID.test(m.approvalId))
		return 'approvalId must be 1 to 64 of letters, digits and . _ : -';
	if (!CARD_KINDS.has(m.kind))
		return 'kind must be command, file or tool';
	if (chars(m.text) > 500)
		return 'text is over 500 characters';
	return null;
}

export function createRelay(opts = {}) {
	const mode = opts.mode || 'accept';
	const record = opts.record || (() => {});
	const dropAfter = opts.dropAfter || 0;
	if (!['accept', 'refuse', 'stall', 'hold'].includes(mode))
		throw new Error(`unknown mode ${mode}`);
	if (opts.answer !== undefined && !['allow', 'deny'].includes(opts.answer))
		throw new Error(`unknown answer ${opts.answer}`);
	const answered = new Set(); // approvalIds the phone answered, across connections
	const seen = new Map(); // id -> the event first received, across connections
	let connections = 0;
	for (const r of opts.earlier || []) {
		if (r.kind === 'event' && !seen.has(r.id))
			seen.set(r.id, r);
		if (Number.isInteger(r.n))
			connections = Math.max(connections, r.n);
	}

	function open() {
		const n = ++connections;
		let state = 'new'; // new -> waiting (stall) | ready | closed
		let events = 0;
		record({ kind: 'connection', n });

		const refuse = (code, message) => {
			state = 'closed';
			record({ kind: 'refused', n, code, message });
			return [{ send: JSON.stringify({ type: 'error', code, message }) },
				{ close: { code: 1008, reason: code } }];
		};

		function hello(m) {
			if (state !== 'new')
				return refuse('bad-message', 'hello: sent twice');
			if (m.protocol !== PROTOCOL)
				return refuse('unsupported-protocol', `hello: protocol must be ${PROTOCOL}`);
			if (typeof m.credential !== 'string' || m.credential.length === 0)
				return refuse('bad-message', 'hello: credential is missing');
			const credentialOk = mode !== 'refuse' && m.credential === opts.credential;
			record({ kind: 'hello', n, credentialOk });
			if (!credentialOk)
				return refuse('bad-credential', 'The device credential is not valid: sign in again.');
			if (mode === 'stall') {
				state = 'waiting';
				return [];
			}
			state = 'ready';
			return [{ send: JSON.stringify({ type: 'ready', protocol: PROTOCOL }) }];
		}

		function event(m) {
			if (state !== 'ready')
				return refuse('bad-message', 'agent-notification-requested before ready');
			const problem = eventProblem(m);
			if (problem)
				return refuse('bad-message', `agent-notification-requested: ${problem}`);
			const duplicate = seen.has(m.id);
			if (!duplicate)
				seen.set(m.id, m);
			const rec = { kind: 'event', n, duplicate };
			for (const k of EVENT_STRINGS)
				rec[k] = m[k];
			record(rec);
			if (dropAfter && ++events >= dropAfter) {
				state = 'closed';
				return [{ destroy: true }];
			}
			if (mode === 'hold')
				return [];
			const out = [{ send: JSON.stringify({ type: 'ack', id: m.id }) }];
			if (opts.dropReason)
				out.push({ send: JSON.stringify({ type: 'dropped', id: m.id, reason: opts.dropReason }) });
			return out;
		}

		function approval(m) {
			if (state !== 'ready')
				return refuse('bad-message', 'approval-requested before ready');
			const problem = approvalProblem(m);
			if (problem)
				return refuse('bad-message', `approval-requested: ${problem}`);
			const rec = { kind: 'approval', n, cardKind: m.kind };
			for (const k of APPROVAL_STRINGS)
				if (k !== 'kind')
					rec[k] = m[k] ?? '';
			record(rec);
			if (!opts.answer || answered.has(m.approvalId))
				return [];
			answered.add(m.approvalId);
			const out = [];
			const answer = (id, approvalId) => {
				const a = { type: 'approval-resolve', id, approvalId, runId: m.runId, decision: opts.answer };
				record({ kind: 'answer', n, id, approvalId, runId: m.runId, decision: opts.answer });
				out.push({ send: JSON.stringify(a) });
			};
			if (opts.answerUnknown)
				answer(`unknown-${m.approvalId}`, `nosuch-${m.approvalId}`);
			answer(`answer-${m.approvalId}`, m.approvalId);
			return out;
		}

		function result(m) {
			if (state !== 'ready')
				return refuse('bad-message', 'approval-result before ready');
			if (typeof m.id !== 'string' || !ID.test(m.id) || typeof m.ok !== 'boolean' ||
			    (m.message !== undefined && typeof m.message !== 'string'))
				return refuse('bad-message', 'approval-result: id, ok (a boolean) and message (a string)');
			record({ kind: 'result', n, id: m.id, ok: m.ok, message: m.message ?? '' });
			return [];
		}

		function message(text) {
			if (state === 'closed')
				return [];
			let m;
			try {
				m = JSON.parse(text);
			} catch {
				return refuse('bad-message', 'not JSON');
			}
			if (m === null || typeof m !== 'object' || Array.isArray(m))
				return refuse('bad-message', 'not a JSON object');
			if (typeof m.type !== 'string')
				return refuse('bad-message', 'no type');
			if (RELAY_TYPES.has(m.type))
				return refuse('bad-message', `${m.type} is sent only by the relay`);
			if (!DEVICE_TYPES.has(m.type))
				return refuse('bad-message', 'unknown type');
			if (state === 'new' && m.type !== 'hello')
				return refuse('bad-message', 'hello must come first');
			if (m.type === 'hello')
				return hello(m);
			if (m.type === 'approval-requested')
				return approval(m);
			if (m.type === 'approval-result')
				return result(m);
			return event(m);
		}

		function closed() {
			if (state !== 'gone')
				record({ kind: 'closed', n });
			state = 'gone';
		}

		return { message, closed, get state() { return state; } };
	}

	return {
		open,
		get connections() { return connections; },
		// Each distinct id received, in the order first received (the
		// earlier relay's first).
		delivered: () => [...seen.keys()],
	};
}
