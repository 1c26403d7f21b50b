// relay-logic.test.mjs - the fake relay's behaviour (relay-logic.mjs) on
// its own: each mode, the relay's rules, a repeated id acknowledged but
// delivered once, the drop after N events and the resend after it, the
// dropped report, the JSON-lines record without the credential, a
// relay restarted on the same record that still knows the ids it got, and
// the phone's answers to approval cards.
//   node tests/fake-relay/relay-logic.test.mjs
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';

import { createRelay, fileRecorder, recordedBefore } from './relay-logic.mjs';

const CRED = 'dev.cred-SECRET-1';
const hello = (credential = CRED, protocol = 1) => JSON.stringify({ type: 'hello', protocol, credential });
const event = (id, over = {}) => JSON.stringify({
	type: 'agent-notification-requested', id, sessionId: 's-1', runId: 'r-1', sessionTitle: 'Fix the build',
	title: 'Build fixed', body: 'All tests pass.', createdAt: '2026-12-01T16:15:53.123Z', ...over,
});
const sent = (actions) => actions.filter((a) => a.send).map((a) => JSON.parse(a.send));

function recorder() {
	const recs = [];
	return { recs, record: (r) => recs.push(r) };
}

test('accept: ready, then an ack by id for each event, in order', () => {
	const { recs, record } = recorder();
	const relay = createRelay({ mode: 'accept', credential: CRED, record });
	const c = relay.open();
	assert.deepEqual(sent(c.message(hello())), [{ type: 'ready', protocol: 1 }]);
	assert.deepEqual(sent(c.message(event('a1'))), [{ type: 'ack', id: 'a1' }]);
	assert.deepEqual(sent(c.message(event('a2', { title: 'é'.repeat(60), body: '🚀'.repeat(180) }))),
		[{ type: 'ack', id: 'a2' }]);
	assert.deepEqual(relay.delivered(), ['a1', 'a2']);
	const ev = recs.filter((r) => r.kind === 'event');
	assert.equal(ev.length, 2);
	assert.deepEqual(ev[0], { kind: 'event', n: 1, duplicate: false, id: 'a1', sessionId: 's-1', runId: 'r-1',
		sessionTitle: 'Fix the build', title: 'Build fixed', body: 'All tests pass.',
		createdAt: '2026-12-01T16:15:53.123Z' });
});

test('a wrong credential, and refuse mode, get bad-credential and a close', () => {
	for (const [mode, cred] of [['accept', 'other'], ['refuse', CRED]]) {
		const { recs, record } = recorder();
		const c = createRelay({ mode, credential: CRED, record }).open();
		const out = c.message(hello(cred));
		assert.equal(sent(out)[0].type, 'error');
		assert.equal(sent(out)[0].code, 'bad-credential');
		assert.deepEqual(out.at(-1), { close: { code: 1008, reason: 'bad-credential' } });
		assert.deepEqual(recs[1], { kind: 'hello', n: 1, credentialOk: false });
		assert.deepEqual(c.message(event('a1')), []); // nothing after the refusal
	}
});

test('stall: the hello is recorded and never answered', () => {
	const { recs, record } = recorder();
	const relay = createRelay({ mode: 'stall', credential: CRED, record });
	assert.deepEqual(relay.open().message(hello()), []);
	assert.deepEqual(recs[1], { kind: 'hello', n: 1, credentialOk: true });
	// Each attempt is a connection of its own: the device's retries counted.
	for (let i = 0; i < 8; i++)
		relay.open().message(hello());
	assert.equal(relay.connections, 9);
	assert.equal(recs.filter((r) => r.kind === 'connection').length, 9);
});

test('hold: ready, each event recorded, none acknowledged', () => {
	const { recs, record } = recorder();
	const relay = createRelay({ mode: 'hold', credential: CRED, record, dropReason: 'no registered phone' });
	const c = relay.open();
	assert.deepEqual(sent(c.message(hello())), [{ type: 'ready', protocol: 1 }]);
	assert.deepEqual(c.message(event('h1')), []);
	assert.deepEqual(c.message(event('h2')), []);
	assert.equal(c.state, 'ready');
	assert.deepEqual(recs.filter((r) => r.kind === 'event').map((r) => [r.id, r.duplicate]),
		[['h1', false], ['h2', false]]);
	// Its rules are the relay's all the same.
	assert.equal(sent(c.message(event('h 3')))[0].code, 'bad-message');
	// And a wrong credential is refused as in accept.
	assert.equal(sent(relay.open().message(hello('other')))[0].code, 'bad-credential');
});

test('a repeated id is acknowledged again and delivered once', () => {
	const { recs, record } = recorder();
	const relay = createRelay({ credential: CRED, record });
	const c1 = relay.open();
	c1.message(hello());
	c1.message(event('a1'));
	c1.closed();
	const c2 = relay.open();
	c2.message(hello());
	assert.deepEqual(sent(c2.message(event('a1'))), [{ type: 'ack', id: 'a1' }]);
	assert.deepEqual(relay.delivered(), ['a1']);
	assert.deepEqual(recs.filter((r) => r.kind === 'event').map((r) => [r.n, r.duplicate]), [[1, false], [2, true]]);
});

test('dropAfter: the Nth event is recorded, not acknowledged, and the link is cut', () => {
	const relay = createRelay({ credential: CRED, dropAfter: 2 });
	const c = relay.open();
	c.message(hello());
	assert.deepEqual(sent(c.message(event('a1'))), [{ type: 'ack', id: 'a1' }]);
	assert.deepEqual(c.message(event('a2')), [{ destroy: true }]);
	assert.deepEqual(c.message(event('a3')), []);
	// The device comes back and sends a2 again: acknowledged, still once.
	const c2 = relay.open();
	c2.message(hello());
	assert.deepEqual(sent(c2.message(event('a2'))), [{ type: 'ack', id: 'a2' }]);
	assert.deepEqual(relay.delivered(), ['a1', 'a2']);
});

test('dropReason: each ack is followed by a dropped report', () => {
	const c = createRelay({ credential: CRED, dropReason: 'no registered phone' }).open();
	c.message(hello());
	assert.deepEqual(sent(c.message(event('a1'))),
		[{ type: 'ack', id: 'a1' }, { type: 'dropped', id: 'a1', reason: 'no registered phone' }]);
});

test('messages that break the rules: bad-message and a close', () => {
	const cases = [
		[[], 'not json', 'not JSON'],
		[[], '[1]', 'not a JSON object'],
		[[], '{"id":"a"}', 'no type'],
		[[], '{"type":"ready","protocol":1}', 'ready is sent only by the relay'],
		[[], '{"type":"pong"}', 'unknown type'],
		[[], event('a1'), 'hello must come first'],
		[[], hello(CRED, 2), 'hello: protocol must be 1'],
		[[], JSON.stringify({ type: 'hello', protocol: 1 }), 'hello: credential is missing'],
		[[hello()], hello(), 'hello: sent twice'],
		[[hello()], event('a b'), 'id must be 1 to 64'],
		[[hello()], event('x'.repeat(65)), 'id must be 1 to 64'],
		[[hello()], event('a1', { title: '' }), 'title is 0 characters; 1 to 60'],
		[[hello()], event('a1', { title: 'é'.repeat(61) }), 'title is 61 characters; 1 to 60'],
		[[hello()], event('a1', { body: '🚀'.repeat(181) }), 'body is 181 characters; 1 to 180'],
		[[hello()], event('a1', { runId: 7 }), 'runId is not a string'],
		[[hello()], event('a1', { sessionId: 'a\nb' }), 'sessionId must be 1 to 128 bytes'],
		[[hello()], event('a1', { createdAt: '2026-12-01T16:15:53Z' }), 'createdAt is not a UTC time'],
		[[hello()], event('a1', { createdAt: '2026-02-30T00:00:00.000Z' }), 'createdAt is not a UTC time'],
	];
	for (const [before, text, why] of cases) {
		const { recs, record } = recorder();
		const c = createRelay({ credential: CRED, record }).open();
		for (const b of before)
			c.message(b);
		const out = c.message(text);
		const err = sent(out)[0];
		assert.equal(err?.type, 'error', text);
		assert.equal(err.code, why.startsWith('hello: protocol') ? 'unsupported-protocol' : 'bad-message', text);
		assert.ok(err.message.includes(why), `${text}: ${err.message}`);
		assert.deepEqual(out.at(-1).close.code, 1008);
		assert.equal(recs.filter((r) => r.kind === 'event').length, 0, text);
	}
});

test('the record file: JSON lines, and the credential in none of them', () => {
	const dir = mkdtempSync(join(tmpdir(), 'fake-relay-'));
	try {
		const path = join(dir, 'relay.jsonl');
		const relay = createRelay({ credential: CRED, record: fileRecorder(path) });
		const c = relay.open();
		c.message(hello());
		c.message(event('a1'));
		c.closed();
		relay.open().message(hello('wrong-SECRET'));
		const text = readFileSync(path, 'utf8');
		assert.ok(!text.includes('SECRET'), text);
		const kinds = text.trim().split('\n').map((l) => JSON.parse(l).kind);
		assert.deepEqual(kinds, ['connection', 'hello', 'event', 'closed', 'connection', 'hello', 'refused']);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('a relay on an earlier record: its ids are duplicates, its connections go on', () => {
	const dir = mkdtempSync(join(tmpdir(), 'fake-relay-'));
	try {
		const path = join(dir, 'relay.jsonl');
		assert.deepEqual(recordedBefore(path), []);
		const first = createRelay({ mode: 'hold', credential: CRED, record: fileRecorder(path) });
		const c1 = first.open();
		c1.message(hello());
		c1.message(event('a1'));
		c1.closed();
		// Restarted in accept mode on the same file.
		const second = createRelay({ credential: CRED, record: fileRecorder(path), earlier: recordedBefore(path) });
		assert.deepEqual(second.delivered(), ['a1']);
		const c2 = second.open();
		c2.message(hello());
		assert.deepEqual(sent(c2.message(event('a1'))), [{ type: 'ack', id: 'a1' }]);
		assert.deepEqual(sent(c2.message(event('a2'))), [{ type: 'ack', id: 'a2' }]);
		assert.equal(second.connections, 2);
		const ev = recordedBefore(path).filter((r) => r.kind === 'event').map((r) => [r.n, r.id, r.duplicate]);
		assert.deepEqual(ev, [[1, 'a1', false], [2, 'a1', true], [2, 'a2', false]]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('an unknown mode is an error of the test, not a relay', () => {
	assert.throws(() => createRelay({ mode: 'flaky' }), /unknown mode flaky/);
});

const card = (approvalId, over = {}) => JSON.stringify({
	type: 'approval-requested', approvalId, sessionId: 's-1', runId: 'r-1', kind: 'command', tool: 'Bash',
	text: 'ls -la', cwd: '/w', subagent: '', reason: '', ...over,
});

test('approval cards: recorded, answered once each, an unknown one first when asked', () => {
	const { recs, record } = recorder();
	const relay = createRelay({ mode: 'accept', credential: CRED, record, answer: 'deny', answerUnknown: true });
	const c = relay.open();
	c.message(hello());
	assert.deepEqual(sent(c.message(card('a1'))), [
		{ type: 'approval-resolve', id: 'unknown-a1', approvalId: 'nosuch-a1', runId: 'r-1', decision: 'deny' },
		{ type: 'approval-resolve', id: 'answer-a1', approvalId: 'a1', runId: 'r-1', decision: 'deny' },
	]);
	assert.deepEqual(sent(c.message(card('a1'))), []); // shown again on a new link: answered already
	assert.deepEqual(c.message(JSON.stringify({ type: 'approval-result', id: 'answer-a1', ok: true, message: '' })), []);
	const a = recs.find((r) => r.kind === 'approval');
	assert.deepEqual(a, { kind: 'approval', n: 1, cardKind: 'command', approvalId: 'a1', sessionId: 's-1', runId: 'r-1',
		tool: 'Bash', text: 'ls -la', cwd: '/w', subagent: '', reason: '' });
	assert.deepEqual(recs.filter((r) => r.kind === 'answer').map((r) => r.id), ['unknown-a1', 'answer-a1']);
	assert.deepEqual(recs.find((r) => r.kind === 'result'), { kind: 'result', n: 1, id: 'answer-a1', ok: true, message: '' });
});

test('approval cards: no answer without one; a bad card and a resolve from the device are refused', () => {
	const quiet = createRelay({ mode: 'accept', credential: CRED }).open();
	quiet.message(hello());
	assert.deepEqual(quiet.message(card('a1')), []);
	const bad = createRelay({ mode: 'accept', credential: CRED }).open();
	bad.message(hello());
	assert.equal(sent(bad.message(card('a1', { kind: 'shell' })))[0].code, 'bad-message');
	const wrong = createRelay({ mode: 'accept', credential: CRED }).open();
	wrong.message(hello());
	assert.equal(sent(wrong.message(JSON.stringify({ type: 'approval-resolve', id: 'x', approvalId: 'a1', runId: 'r',
		decision: 'allow' })))[0].code, 'bad-message');
});
