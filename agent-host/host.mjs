#!/usr/bin/env node
// The Claude agent host: the Node program the desktop (here hb-claude-bridge,
// or hbctl claude for one read) starts for one Claude run or one read.
// docs/agent-host-pipe.md describes every line of the pipe.
//
//   node host.mjs [PATH_TO_CLAUDE_EXECUTABLE]
//
// One JSON object per line on stdin (requests) and stdout (replies, events).
// A request is {"id", "method", "params"}; its reply carries the same id and
// "result" or "error".  A line without "id" is an event {"event": NAME, ...}.
// Every request is checked against a strict schema: an unknown or missing
// field is an error reply.  Diagnostics go to stderr only.
//
// This file only wires the parts together: pipe.mjs (lines and schema),
// run.mjs (the session's query), reads.mjs (the reads, with history.mjs),
// claude.mjs (how Claude Code is started).

import { createInterface } from 'node:readline';
import { reply, replyError, parseRequest, RequestError, SchemaError } from './pipe.mjs';
import { RUN_PARAMS, runMethods, openFailed, closeRun } from './run.mjs';
import { READ_PARAMS, readMethods, closeHelpers } from './reads.mjs';

const METHODS = { ...RUN_PARAMS, ...READ_PARAMS };

// Reads still being answered: close waits for them, so a one-shot host that
// gets a read and then close (or EOF) answers the read before it ends.
const reads = new Set();

async function handle({ id, method, params }) {
  try {
    if (method === 'close') {
      reply(id, {});
      return close();
    }
    const fn = runMethods[method] ?? readMethods[method];
    reply(id, await fn(params));
  } catch (e) {
    const code = e instanceof RequestError || e instanceof SchemaError ? e.code
      : method === 'open' ? 'open_failed' : 'internal';
    const message = String(e?.message ?? e);
    replyError(id, code, message);
    if (method === 'open') openFailed(code, message);
  }
}

let closing = false;
async function close() {
  if (closing) return;
  closing = true;
  await Promise.allSettled([...reads]);
  closeHelpers();
  await closeRun();
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  let req;
  try {
    req = parseRequest(line, METHODS);
  } catch (e) {
    return replyError(e.id ?? null, e.code ?? 'invalid_request', e.message);
  }
  const p = handle(req);
  if (Object.hasOwn(readMethods, req.method)) {
    reads.add(p);
    p.finally(() => reads.delete(p));
  }
});
rl.on('close', () => close());
process.on('SIGTERM', () => close());
process.stdout.on('error', () => process.exit(0));
