// server.mjs - a small WebSocket server for tests/unit/test_ws.c, with
// RFC 6455 framing written out by hand (Node's standard library only), so
// that the client is checked against code that shares nothing with it.
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
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2)
	args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const mode = args.mode || 'echo';
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frame(opcode, payload, fin = true) {
	const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
	let head;
	if (body.length < 126) {
		head = Buffer.from([(fin ? 0x80 : 0) | opcode, body.length]);
	} else if (body.length < 65536) {
		head = Buffer.alloc(4);
		head[0] = (fin ? 0x80 : 0) | opcode;
		head[1] = 126;
		head.writeUInt16BE(body.length, 2);
	} else {
		head = Buffer.alloc(10);
		head[0] = (fin ? 0x80 : 0) | opcode;
		head[1] = 127;
		head.writeBigUInt64BE(BigInt(body.length), 2);
	}
	return Buffer.concat([head, body]);
}

// A text message as fragments of at most size bytes each.
function fragments(text, size) {
	const body = Buffer.from(text);
	const out = [];
	for (let off = 0; off < body.length || off === 0; off += size) {
		const part = body.subarray(off, off + size);
		const last = off + size >= body.length;
		out.push(frame(off === 0 ? 0x1 : 0x0, part, last));
		if (last)
			break;
	}
	return Buffer.concat(out);
}

function closeFrame(code, reason) {
	const r = Buffer.from(reason || '');
	const p = Buffer.alloc(2 + r.length);
	p.writeUInt16BE(code, 0);
	r.copy(p, 2);
	return frame(0x8, p);
}

function upgrade(req, socket) {
	if (mode === 'silent')
		return; // the socket stays open, nothing is said
	if (mode === 'refuse') {
		socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
		return;
	}
	const key = req.headers['sec-websocket-key'];
	if (!key || req.headers['sec-websocket-version'] !== '13' || !/upgrade/i.test(req.headers.connection || '')) {
		socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
		return;
	}
	const accept = createHash('sha1').update((mode === 'badaccept' ? 'x' : '') + key + GUID).digest('base64');
	let first = Buffer.alloc(0);
	if (mode === 'close')
		first = closeFrame(4001, 'bye for now');
	else if (mode === 'ping')
		first = frame(0x9, 'are-you-there');
	else if (mode === 'big')
		first = fragments('x'.repeat(Number(args.size || 1048577)), 65536);
	socket.write(Buffer.concat([Buffer.from('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n' +
		'Connection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n'), first]));
	talk(req, socket);
}

function talk(req, socket) {
	let buf = Buffer.alloc(0);
	let parts = [];
	socket.on('error', () => {});
	socket.on('data', (chunk) => {
		buf = Buffer.concat([buf, chunk]);
		for (;;) {
			if (buf.length < 2)
				return;
			const fin = (buf[0] & 0x80) !== 0, opcode = buf[0] & 0x0f, masked = (buf[1] & 0x80) !== 0;
			let len = buf[1] & 0x7f, off = 2;
			if (len === 126) {
				if (buf.length < 4)
					return;
				len = buf.readUInt16BE(2);
				off = 4;
			} else if (len === 127) {
				if (buf.length < 10)
					return;
				len = Number(buf.readBigUInt64BE(2));
				off = 10;
			}
			if (!masked) {
				socket.end(closeFrame(1002, 'frames from a client must be masked'));
				return;
			}
			if (buf.length < off + 4 + len)
				return;
			const mask = buf.subarray(off, off + 4);
			const payload = Buffer.from(buf.subarray(off + 4, off + 4 + len));
			for (let i = 0; i < payload.length; i++)
				payload[i] ^= mask[i % 4];
			buf = buf.subarray(off + 4 + len);
			handle(req, socket, fin, opcode, payload, parts);
			if (fin && opcode <= 0x2)
				parts = [];
		}
	});
}

function handle(req, socket, fin, opcode, payload, parts) {
	if (opcode === 0x9) {
		socket.write(frame(0xa, payload));
	} else if (opcode === 0xa) {
		if (mode === 'ping')
			socket.write(frame(0x1, 'pong-seen:' + payload.toString()));
	} else if (opcode === 0x8) {
		socket.end(payload.length >= 2 ? frame(0x8, payload) : frame(0x8, Buffer.alloc(0)));
	} else if (opcode === 0x1 || opcode === 0x0) {
		parts.push(payload);
		if (!fin)
			return;
		const text = Buffer.concat(parts).toString();
		if (text.startsWith('?header ')) {
			socket.write(frame(0x1, req.headers[text.slice(8).toLowerCase()] || '(none)'));
			return;
		}
		const third = Math.max(1, Math.ceil(Buffer.byteLength(text) / 3));
		socket.write(fragments(text, third));
	}
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
