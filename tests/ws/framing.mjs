// framing.mjs - the server side of RFC 6455 written out by hand (Node's
// standard library only): the Upgrade answer, reading the client's frames
// and writing the server's.  Shared by the tests' WebSocket servers
// (server.mjs for tests/unit/test_ws.c, ../fake-relay/relay.mjs), so the
// project's client is checked against code that shares nothing with it.
//
//   acceptUpgrade(req, socket, { first, badAccept }) -> true, or false
//       after a 400 for a request that is no WebSocket Upgrade
//   readFrames(socket, { onText, onBinary, onPing, onPong, onClose })
//   sendText(socket, text[, fragmentSize]), sendPing(socket, payload),
//   sendClose(socket, code, reason), cut(socket)
//
// Frames from the client must be masked: an unmasked one gets close 1002.
import { createHash } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
export const OP = { CONT: 0x0, TEXT: 0x1, BINARY: 0x2, CLOSE: 0x8, PING: 0x9, PONG: 0xa };

export function frame(opcode, payload, fin = true) {
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

// A text message as fragments of at most size bytes each (one frame when
// size is not given).
export function fragments(text, size) {
	const body = Buffer.from(text);
	if (!size)
		return frame(OP.TEXT, body);
	const out = [];
	for (let off = 0; off < body.length || off === 0; off += size) {
		const part = body.subarray(off, off + size);
		const last = off + size >= body.length;
		out.push(frame(off === 0 ? OP.TEXT : OP.CONT, part, last));
		if (last)
			break;
	}
	return Buffer.concat(out);
}

export function closeFrame(code, reason) {
	const r = Buffer.from(reason || '');
	const p = Buffer.alloc(2 + r.length);
	p.writeUInt16BE(code, 0);
	r.copy(p, 2);
	return frame(OP.CLOSE, p);
}

// Answers an http(s) server's 'upgrade' with 101, and first (frames sent
// in the same write, may be empty).  badAccept: a Sec-WebSocket-Accept
// that is not the key's, for a test of the client's check.
export function acceptUpgrade(req, socket, opts = {}) {
	const key = req.headers['sec-websocket-key'];
	socket.on('error', () => {});
	if (!key || req.headers['sec-websocket-version'] !== '13' || !/upgrade/i.test(req.headers.connection || '')) {
		socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
		return false;
	}
	const accept = createHash('sha1').update((opts.badAccept ? 'x' : '') + key + GUID).digest('base64');
	socket.write(Buffer.concat([Buffer.from('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n' +
		'Connection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n'), opts.first || Buffer.alloc(0)]));
	return true;
}

// Reads the client's frames from socket and calls, per message or control
// frame: onText(text), onBinary(buffer) (fragments joined), onPing(payload),
// onPong(payload), onClose(payload).  A handler not given: a ping gets its
// pong, a close its close with the same code and reason and the end,
// anything else is ignored.  Stops reading after a close or a cut.
export function readFrames(socket, on = {}) {
	let buf = Buffer.alloc(0);
	let parts = [];
	let opcode0 = OP.TEXT;
	const over = () => socket.destroyed || socket.writableEnded;

	function handle(fin, opcode, payload) {
		if (opcode === OP.PING) {
			if (on.onPing)
				on.onPing(payload);
			else
				socket.write(frame(OP.PONG, payload));
		} else if (opcode === OP.PONG) {
			if (on.onPong)
				on.onPong(payload);
		} else if (opcode === OP.CLOSE) {
			if (on.onClose)
				on.onClose(payload);
			else
				socket.end(frame(OP.CLOSE, payload.length >= 2 ? payload : Buffer.alloc(0)));
		} else if (opcode === OP.TEXT || opcode === OP.BINARY || opcode === OP.CONT) {
			if (opcode !== OP.CONT)
				opcode0 = opcode;
			parts.push(payload);
			if (!fin)
				return;
			const whole = Buffer.concat(parts);
			parts = [];
			if (opcode0 === OP.TEXT && on.onText)
				on.onText(whole.toString());
			else if (opcode0 === OP.BINARY && on.onBinary)
				on.onBinary(whole);
		}
	}

	socket.on('error', () => {});
	socket.on('data', (chunk) => {
		buf = Buffer.concat([buf, chunk]);
		while (!over()) {
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
			handle(fin, opcode, payload);
		}
	});
}

export function sendText(socket, text, fragmentSize) {
	socket.write(fragments(text, fragmentSize));
}

export function sendPing(socket, payload) {
	socket.write(frame(OP.PING, payload || ''));
}

// A close frame, then the end of the connection (the client's answering
// close is not awaited).
export function sendClose(socket, code, reason) {
	socket.end(closeFrame(code, reason));
}

// The connection dropped with no close frame, as a relay that goes away.
export function cut(socket) {
	socket.destroy();
}
