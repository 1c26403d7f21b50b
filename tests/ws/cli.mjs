// cli.mjs - the command-line side the tests' WebSocket servers share
// (server.mjs for tests/unit/test_ws.c, ../fake-relay/relay.mjs): their
// "--name value" options, an http or https server (TLS with --cert and
// --key) on 127.0.0.1 that answers plain requests 426 and hands each
// Upgrade to the caller, the "PORT n" line a C test reads
// (tests/harness/node_server.c), and the end when stdin closes: a test
// that goes away, even killed, takes its server with it.  Node's
// standard library only.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

// process.argv's "--name value" pairs as { name: value }.
export function options() {
	const args = {};
	for (let i = 2; i + 1 < process.argv.length; i += 2)
		args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
	return args;
}

// Serves upgrade(req, socket) on 127.0.0.1, on port (0: one of the
// system's choice), prints "PORT n" once listening, and exits when stdin
// ends.  Node sets SO_REUSEADDR, so a restarted server takes the port of
// one just stopped.
export function serve(args, port, upgrade) {
	const server = args.cert
		? https.createServer({ cert: readFileSync(args.cert), key: readFileSync(args.key) })
		: http.createServer();
	server.on('request', (req, res) => {
		res.writeHead(426, { 'Content-Type': 'text/plain' });
		res.end('a WebSocket server\n');
	});
	server.on('upgrade', upgrade);
	server.on('tlsClientError', () => {});
	server.on('error', (e) => {
		process.stderr.write(`cannot listen on 127.0.0.1 port ${port}: ${e.message}\n`);
		process.exit(1);
	});
	server.listen(port, '127.0.0.1', () => {
		process.stdout.write(`PORT ${server.address().port}\n`);
	});
	process.stdin.on('end', () => process.exit(0));
	process.stdin.on('error', () => process.exit(0));
	process.stdin.resume();
	return server;
}
