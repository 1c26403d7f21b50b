// relay.mjs - the tests' fake regional relay on the wire: a WebSocket
// server (the hand-written framing of ../ws/framing.mjs) whose every
// connection is one of relay-logic.mjs's, so a test drives the project's
// own client against the behaviour relay-logic.test.mjs checks.  Node's
// standard library only.
//
//   node relay.mjs --mode accept|refuse|stall|hold [--credential C]
//       [--cut-after N] [--drop-reason R] [--answer allow|deny]
//       [--answer-unknown yes] [--record FILE] [--port N]
//       [--cert FILE --key FILE]
//
// Listens on 127.0.0.1 only, on port N (0 or none: one of the system's
// choice), and prints "PORT n" first.  Ends when its stdin closes (the
// test went away).  A relay stopped and started again with the same
// --port and --record is the real relay restarting: the same URL, and the
// ids it received before are still duplicates.
// --credential: the device credential accept mode takes (a test value;
// it is never recorded).  --cut-after N: on each connection N events are
// acknowledged and the next one is recorded and then the TCP connection
// is cut with no close frame and no ack.  --drop-reason R: each ack is
// followed by dropped {id, reason: R}.  --answer: the phone answers each
// approval card so; --answer-unknown yes: after a card nobody has first
// (relay-logic.mjs).  --record FILE: one JSON line per
// record of relay-logic (connections, hellos with only whether the
// credential matched, events, refusals, ends); when FILE exists, its
// records are read first (relay-logic's earlier) and new ones appended.
// With --cert and --key it speaks TLS (wss), else plain ws.
import { options, serve } from '../ws/cli.mjs';
import { acceptUpgrade, cut, readFrames, sendClose, sendText } from '../ws/framing.mjs';
import { createRelay, fileRecorder, recordedBefore } from './relay-logic.mjs';

const args = options();
const cutAfter = args['cut-after'] === undefined ? 0 : Number(args['cut-after']);
if (!Number.isInteger(cutAfter) || cutAfter < 0) {
	process.stderr.write('relay.mjs: --cut-after takes a whole number of events\n');
	process.exit(2);
}
const port = args.port === undefined ? 0 : Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
	process.stderr.write('relay.mjs: --port takes a port number\n');
	process.exit(2);
}

const relay = createRelay({
	mode: args.mode || 'accept',
	credential: args.credential,
	dropAfter: args['cut-after'] === undefined ? 0 : cutAfter + 1,
	dropReason: args['drop-reason'],
	answer: args.answer,
	answerUnknown: args['answer-unknown'] === 'yes',
	record: args.record ? fileRecorder(args.record) : undefined,
	earlier: args.record ? recordedBefore(args.record) : [],
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

serve(args, port, upgrade);
