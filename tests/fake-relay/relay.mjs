// relay.mjs - the tests' fake regional relay on the wire: a WebSocket
// server (the hand-written framing of ../ws/framing.mjs) whose every
// connection is one of relay-logic.mjs's, so a test drives the project's
// own client against the behaviour relay-logic.test.mjs checks.  Node's
// standard library only.
//
//   node relay.mjs --mode accept|refuse|stall [--credential C]
//       [--cut-after N] [--drop-reason R] [--record FILE]
//       [--cert FILE --key FILE]
//
// Listens on 127.0.0.1 only, on a port of the system's choice, and prints
// "PORT n" first.  Ends when its stdin closes (the test went away).
// --credential: the device credential accept mode takes (a test value;
// it is never recorded).  --cut-after N: on each connection N events are
// acknowledged and the next one is recorded and then the TCP connection
// is cut with no close frame and no ack.  --drop-reason R: each ack is
// followed by dropped {id, reason: R}.  --record FILE: one JSON line per
// record of relay-logic (connections, hellos with only whether the
// credential matched, events, refusals, ends).  With --cert and --key it
// speaks TLS (wss), else plain ws.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

import { acceptUpgrade, cut, readFrames, sendClose, sendText } from '../ws/framing.mjs';
import { createRelay, fileRecorder } from './relay-logic.mjs';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2)
	args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const cutAfter = args['cut-after'] === undefined ? 0 : Number(args['cut-after']);
if (!Number.isInteger(cutAfter) || cutAfter < 0) {
	process.stderr.write('relay.mjs: --cut-after takes a whole number of events\n');
	process.exit(2);
}

const relay = createRelay({
	mode: args.mode || 'accept',
	credential: args.credential,
	dropAfter: args['cut-after'] === undefined ? 0 : cutAfter + 1,
	dropReason: args['drop-reason'],
	record: args.record ? fileRecorder(args.record) : undefined,
});

function upgrade(req, socket) {
	if (!acceptUpgrade(req, socket))
		return;
	const conn = relay.open();
	let over = false;
	socket.on('close', () => conn.closed());

	// Carries out relay-logic's actions in order; nothing after a close or
	// a cut.
	function act(actions) {
		for (const a of actions) {
			if (over)
				return;
			if (a.send !== undefined) {
				sendText(socket, a.send);
			} else if (a.close) {
				over = true;
				sendClose(socket, a.close.code, a.close.reason);
			} else if (a.destroy) {
				over = true;
				cut(socket);
			}
		}
	}

	readFrames(socket, {
		onText: (text) => act(conn.message(text)),
		onBinary: () => {
			over = true;
			sendClose(socket, 1003, 'text messages only');
		},
	});
}

const server = args.cert
	? https.createServer({ cert: readFileSync(args.cert), key: readFileSync(args.key) })
	: http.createServer();
server.on('request', (req, res) => {
	res.writeHead(426, { 'Content-Type': 'text/plain' });
	res.end('a WebSocket server\n');
});
server.on('upgrade', upgrade);
server.on('tlsClientError', () => {});
server.listen(0, '127.0.0.1', () => {
	process.stdout.write(`PORT ${server.address().port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
