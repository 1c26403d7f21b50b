// server.mjs - a small WebSocket server for tests/unit/test_ws.c, on the
// hand-written RFC 6455 framing of framing.mjs (Node's standard library
// only), so that the client is checked against code that shares nothing
// with it.
//
//   node server.mjs --mode MODE [--cert FILE --key FILE] [--size N]
//
// Listens on 127.0.0.1 only, on a port of the system's choice, and prints
// "PORT n" first.  Ends when its stdin closes (the test went away).
// Modes:
//   echo    every text message comes back in three fragments; "?header
//           NAME" is answered with the request's header NAME; a ping gets
//           its pong, a close its close with the same code and reason
//   refuse  the Upgrade is answered 403
//   close   right after the 101 (in the same write): close 4001 "bye for now"
//   ping    right after the 101: a ping "are-you-there"; its pong is
//           reported back as the text "pong-seen:PAYLOAD"
//   silent  the Upgrade request is read and never answered
//   badaccept  a 101 whose Sec-WebSocket-Accept is not the key's
//   big     right after the 101: a text message of --size bytes, in 64 KiB
//           fragments
// Frames from the client must be masked: an unmasked one gets close 1002.
// With --cert and --key it speaks TLS (https), else plain http.
import { options, serve } from './cli.mjs';
import { acceptUpgrade, closeFrame, fragments, frame, OP, readFrames, sendText } from './framing.mjs';

const args = options();
const mode = args.mode || 'echo';

function upgrade(req, socket) {
	if (mode === 'silent')
		return; // the socket stays open, nothing is said
	if (mode === 'refuse') {
		socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
		return;
	}
	let first = Buffer.alloc(0);
	if (mode === 'close')
		first = closeFrame(4001, 'bye for now');
	else if (mode === 'ping')
		first = frame(OP.PING, 'are-you-there');
	else if (mode === 'big')
		first = fragments('x'.repeat(Number(args.size || 1048577)), 65536);
	if (!acceptUpgrade(req, socket, { first, badAccept: mode === 'badaccept' }))
		return;
	readFrames(socket, {
		onPong: (payload) => {
			if (mode === 'ping')
				sendText(socket, 'pong-seen:' + payload.toString());
		},
		onText: (text) => {
			if (text.startsWith('?header ')) {
				sendText(socket, req.headers[text.slice(8).toLowerCase()] || '(none)');
				return;
			}
			sendText(socket, text, Math.max(1, Math.ceil(Buffer.byteLength(text) / 3)));
		},
	});
}

serve(args, 0, upgrade);
