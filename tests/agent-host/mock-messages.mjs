#!/usr/bin/env node
// Mock Anthropic Messages API for end-to-end tests of the Claude agent host.
//
// Listens on 127.0.0.1 only (port 0 = any free port) and prints "PORT <n>" as
// its first line on stdout.  Node standard library only.
//
// Usage: node mock-messages.mjs [--port N] [--log FILE] [--script FILE]
//
// Wire format: what Claude Code 2.1.332 (inside @anthropic-ai/claude-agent-sdk
// 0.3.332) sends and expects, as recorded in
// shared/reference/claude/frames-sdk-0.3.332.jsonl: POST /v1/messages?beta=true
// with "stream": true, answered with server-sent events message_start,
// content_block_start / content_block_delta / content_block_stop per block,
// message_delta (stop_reason, usage) and message_stop.
//
// How a request is answered (first match wins):
//   1. The conversation's last user message carries tool_result blocks: the
//      turn is finished with the text "Done. Tool said: <JSON of the result
//      content>" (stop_reason end_turn), as in the recording.
//   2. The last user text contains a directive  @tool NAME {JSON input}  and
//      the request offers the tool mcp__hbcode__NAME (or NAME): answer with a
//      text block and a tool_use block (stop_reason tool_use).
//   3. The next step of the script (--script FILE or POST /_mock/script) is
//      {"tool": NAME, "input": {...}, "text"?: "..."} and the request offers
//      that tool: same as 2.  A step {"text": "..."} answers with plain text,
//      a step {"blocks": [...]} with exactly those text and thinking blocks
//      ({"type":"thinking","thinking":"..."} streams with a mock signature).
//   4. Otherwise a plain text answer "OK." (also used for side requests such as
//      title generation, which offer no hbcode tool).
// Before all of these: when the next step of the script is {"hang": true}
// and the request offers an hbcode tool, the step is taken and the answer
// stalls: message_start, then only pings, never a message_stop, until the
// client goes away (a turn to interrupt); the log gets a line
// {"seq", "kind": "hang"} once the stall has begun.  Likewise a step
// {"apiError": {"status": 401, "type": "authentication_error", "message":
// "invalid x-api-key"}} answers that request as the real API refuses one:
// that HTTP status, the headers request-id and x-should-retry: false, and
// the body {"type":"error","error":{type,message},"request_id"}; the log
// gets {"seq", "kind": "apiError", "status"}.  With "retry": true the
// answer says x-should-retry: true instead (an overloaded or rate-limited
// API that Claude Code retries: its api_retry message, then the next step).
//
// Side endpoints: POST /v1/messages/count_tokens -> {"input_tokens": n};
// GET /v1/models -> a one-model list; anything else -> 404 in the API's error
// format.  Control endpoints for tests (never used by Claude Code):
//   GET  /_mock/requests   every logged request, as a JSON array
//   POST /_mock/script     replace the script queue: {"steps":[...]}
//   POST /_mock/reset      clear the log and the script
//
// Every request is logged as one JSON line {"seq","method","url","headers",
// "body"} (x-api-key / authorization redacted) to --log FILE, so a test can
// assert exactly what the model saw (tool results, denial texts, ...).

import http from 'node:http';
import fs from 'node:fs';
import { withRefs } from '../browser/step-refs.mjs';
import { lookProblem } from '../explainer/png-look.mjs';

const args = process.argv.slice(2);
function opt(name) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : undefined;
}
const port = Number(opt('--port') ?? 0);
const logPath = opt('--log');
const scriptPath = opt('--script');
const MODEL_DEFAULT = 'claude-opus-5-5';

let script = [];
// A worker player (tests/explainer/worker-steps.mjs's script, with
// "scenario": "steps"): see playStep.
let player = null;
if (scriptPath) {
  const s = JSON.parse(fs.readFileSync(scriptPath, 'utf8'));
  if (!Array.isArray(s) && s.scenario === 'steps') player = s;
  else script = Array.isArray(s) ? s : (s.steps ?? []);
}
const requests = [];
let seq = 0;
let msgSeq = 0;

function logRequest(rec) {
  requests.push(rec);
  if (logPath) fs.appendFileSync(logPath, JSON.stringify(rec) + '\n');
}

function redact(headers) {
  const h = { ...headers };
  for (const k of ['x-api-key', 'authorization']) {
    if (h[k] !== undefined) h[k] = `<redacted len=${String(h[k]).length}>`;
  }
  return h;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => b && b.type === 'text').map((b) => b.text).join('\n');
}

function lastUser(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].role === 'user') return messages[i];
  }
  return undefined;
}

function toolNames(body) {
  return new Set((body.tools ?? []).map((t) => t && t.name).filter(Boolean));
}

function resolveTool(body, name) {
  const names = toolNames(body);
  if (names.has(name)) return name;
  if (names.has(`mcp__hbcode__${name}`)) return `mcp__hbcode__${name}`;
  return undefined;
}

// Find "@tool NAME {json}" in a text; the JSON is the balanced {...} after NAME.
function parseDirective(text) {
  const m = /@tool\s+([A-Za-z0-9_\-]+)\s*/.exec(text);
  if (!m) return undefined;
  let i = m.index + m[0].length;
  if (text[i] !== '{') return { tool: m[1], input: {} };
  let depth = 0, inStr = false, esc = false;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (inStr) {
      if (esc) esc = false;
      else if (c === '\\') esc = true;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      try {
        return { tool: m[1], input: JSON.parse(text.slice(i, j + 1)) };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

// ---- the worker player ----------------------------------------------------
// With a "steps" script, a request that offers the first step's tool plays
// one step of a worker in one turn: the results of our earlier tool_use
// blocks (ids toolu_step_K) in the conversation say how far it is; the last
// one is checked against its step's expect ({image: true}: an image block
// with PNG bytes; {contains}, {notContains}: the result's text), then the
// next step's tool_use goes out, or after the last step the final text.  A
// failed check ends the turn with "PLAYER CHECK FAILED: ..."; both ends are
// logged ({"playerFailure"} / {"playerDone", "text"}) for the test to read.
// An argument "{{ref:NEEDLE}}" is the ref on the line of an earlier result
// that holds NEEDLE, as a model reads it off a snapshot (../browser/
// step-refs.mjs).  waitForFile + waitAtStep hold the answer that makes that step until the
// file exists; hangAtStep never answers that one (a stalled model).
function stepResults(messages) {
  const outs = [];
  for (const m of messages) {
    if (!m || m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content)
      if (b && b.type === 'tool_result' && /^toolu_step_/.test(b.tool_use_id ?? '')) outs.push(b);
  }
  return outs;
}

function resultText(r) {
  return typeof r.content === 'string' ? r.content : textOf(r.content);
}

// The first PNG image block of a tool result, as bytes, or null.
function resultPng(r) {
  for (const b of Array.isArray(r.content) ? r.content : []) {
    if (!b || b.type !== 'image' || !b.source || b.source.media_type !== 'image/png') continue;
    const bytes = Buffer.from(b.source.data ?? '', 'base64');
    if (bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return bytes;
  }
  return null;
}

function stepProblem(expect, r) {
  if (!expect) return null;
  const text = resultText(r);
  if (expect.image && !resultPng(r)) return 'no PNG image came back';
  if (expect.look) {
    const png = resultPng(r);
    const why = png ? lookProblem(png, expect.look) : 'no PNG image came back';
    if (why) return `the image is not what the scene draws: ${why}`;
  }
  if (expect.contains && !text.includes(expect.contains))
    return `the result lacks ${JSON.stringify(expect.contains)}: ${JSON.stringify(text.slice(0, 300))}`;
  if (expect.notContains && text.includes(expect.notContains))
    return `the result has ${JSON.stringify(expect.notContains)}: ${JSON.stringify(text.slice(0, 300))}`;
  return null;
}

function playerOffered(body) {
  return player && player.steps.length > 0 && resolveTool(body, player.steps[0].name);
}

function playStep(body) {
  const steps = player.steps;
  const outs = stepResults(body.messages);
  const k = outs.length;
  const problem = k > 0 ? stepProblem(steps[k - 1]?.expect, outs[k - 1]) : null;
  if (problem) {
    const why = `step ${k} (${steps[k - 1].name}): ${problem}`;
    if (logPath) fs.appendFileSync(logPath, JSON.stringify({ playerFailure: why }) + '\n');
    return { step: k, blocks: [{ type: 'text', text: `PLAYER CHECK FAILED: ${why}` }], stop: 'end_turn' };
  }
  if (k < steps.length) {
    const st = steps[k];
    return {
      step: k,
      blocks: [{ type: 'tool_use', id: `toolu_step_${k + 1}`, name: resolveTool(body, st.name) ?? st.name,
                 input: withRefs(st.arguments ?? {}, outs.map(resultText)) }],
      stop: 'tool_use',
    };
  }
  if (logPath) fs.appendFileSync(logPath, JSON.stringify({ playerDone: true, text: player.finalText }) + '\n');
  return { step: k, blocks: [{ type: 'text', text: String(player.finalText) }], stop: 'end_turn' };
}

// Decide the assistant message for one /v1/messages request.
function decide(body) {
  if (playerOffered(body)) return playStep(body);
  if (script.length > 0 && script[0].hang &&
      [...toolNames(body)].some((n) => n.startsWith('mcp__hbcode__'))) {
    script.shift();
    return { hang: true };
  }
  if (script.length > 0 && script[0].apiError &&
      [...toolNames(body)].some((n) => n.startsWith('mcp__hbcode__')))
    return { apiError: script.shift().apiError };
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const user = lastUser(messages);
  const content = user ? user.content : undefined;
  const results = Array.isArray(content) ? content.filter((b) => b && b.type === 'tool_result') : [];
  if (results.length > 0) {
    const r = results[results.length - 1];
    return {
      blocks: [{ type: 'text', text: `Done. Tool said: ${JSON.stringify(r.content ?? '')}` }],
      stop: 'end_turn',
    };
  }
  const d = parseDirective(textOf(content));
  if (d) {
    const name = resolveTool(body, d.tool);
    if (name) {
      return {
        blocks: [
          { type: 'text', text: `I will call ${d.tool}.` },
          { type: 'tool_use', id: `toolu_mock_${msgSeq + 1}`, name, input: d.input },
        ],
        stop: 'tool_use',
      };
    }
  }
  if (script.length > 0 && toolNames(body).size > 0) {
    const step = script[0];
    if (step.tool) {
      const name = resolveTool(body, step.tool);
      if (name) {
        script.shift();
        return {
          blocks: [
            { type: 'text', text: step.text ?? `I will call ${step.tool}.` },
            { type: 'tool_use', id: `toolu_mock_${msgSeq + 1}`, name, input: step.input ?? {} },
          ],
          stop: 'tool_use',
        };
      }
    } else if (typeof step.text === 'string') {
      script.shift();
      return { blocks: [{ type: 'text', text: step.text }], stop: 'end_turn' };
    } else if (Array.isArray(step.blocks)) {
      script.shift();
      return { blocks: step.blocks, stop: 'end_turn' };
    }
  }
  return { blocks: [{ type: 'text', text: 'OK.' }], stop: 'end_turn' };
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

// A stream that never ends: pings until the client goes away.
function hang(res, reqSeq, model) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_mock_${msgSeq}`, type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  const timer = setInterval(() => sse(res, 'ping', { type: 'ping' }), 1000);
  res.on('close', () => clearInterval(timer));
  logRequest({ seq: reqSeq, t: Date.now(), kind: 'hang' });
}

async function answerMessages(req, res, body, reqSeq) {
  const decided = decide(body);
  const { blocks, stop, step } = decided;
  if (player && step !== undefined) {
    if (logPath) fs.appendFileSync(logPath, JSON.stringify({ seq: reqSeq, step }) + '\n');
    if (player.waitForFile && step === player.waitAtStep)
      while (!fs.existsSync(player.waitForFile)) await new Promise((r) => setTimeout(r, 50));
    if (step === player.hangAtStep) decided.hang = true; // the stalled model
  }
  msgSeq += 1;
  if (decided.hang) return hang(res, reqSeq, typeof body.model === 'string' ? body.model : MODEL_DEFAULT);
  if (decided.apiError) return refuse(res, reqSeq, decided.apiError);
  const id = `msg_mock_${msgSeq}`;
  const reqId = `req_mock_${msgSeq}`;
  const model = typeof body.model === 'string' ? body.model : MODEL_DEFAULT;
  const inTok = 100, outTok = stop === 'tool_use' ? 20 : 10;
  const message = {
    id, type: 'message', role: 'assistant', model,
    content: blocks, stop_reason: stop, stop_sequence: null,
    usage: { input_tokens: inTok, output_tokens: outTok },
  };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': reqId });
    res.end(JSON.stringify(message));
    return message;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': reqId,
  });
  sse(res, 'message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { input_tokens: inTok, output_tokens: 1 } },
  });
  sse(res, 'ping', { type: 'ping' });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else if (b.type === 'thinking') {
      sse(res, 'content_block_start', {
        type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'mock-signature' } });
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start', index,
        content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta', index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: outTok },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
  return message;
}

// An error answer in the real API's shape (status, headers, body).
function refuse(res, reqSeq, e) {
  const status = Number(e.status) || 500;
  const reqId = `req_mock_err_${msgSeq}`;
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': reqId,
                          'x-should-retry': e.retry ? 'true' : 'false' });
  res.end(JSON.stringify({ type: 'error', error: { type: e.type ?? 'api_error', message: e.message ?? 'error' },
                           request_id: reqId }));
  logRequest({ seq: reqSeq, t: Date.now(), kind: 'apiError', status });
}

function apiError(res, status, type, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('error', () => {});
  res.on('error', () => {});
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = null;
    if (raw.length > 0) {
      try { body = JSON.parse(raw); } catch { body = { _unparsed: raw }; }
    }
    const path = (req.url ?? '/').split('?')[0];

    if (path.startsWith('/_mock/')) {
      if (req.method === 'GET' && path === '/_mock/requests') return json(res, 200, requests);
      if (req.method === 'POST' && path === '/_mock/script') {
        const steps = Array.isArray(body) ? body : (body?.steps ?? []);
        script = steps.slice();
        return json(res, 200, { ok: true, steps: script.length });
      }
      if (req.method === 'POST' && path === '/_mock/reset') {
        requests.length = 0; script = [];
        return json(res, 200, { ok: true });
      }
      return apiError(res, 404, 'not_found_error', `mock: no control endpoint ${req.method} ${path}`);
    }

    seq += 1;
    logRequest({ seq, t: Date.now(), method: req.method, url: req.url, headers: redact(req.headers), body });

    if (req.method === 'POST' && path === '/v1/messages') {
      if (!body || !Array.isArray(body.messages)) {
        return apiError(res, 400, 'invalid_request_error', 'messages: field required');
      }
      return answerMessages(req, res, body, seq);
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      const n = Math.max(1, Math.ceil(raw.length / 4));
      return json(res, 200, { input_tokens: n });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(res, 200, {
        data: [{ type: 'model', id: MODEL_DEFAULT, display_name: 'Mock model', created_at: '2026-01-01T00:00:00Z' }],
        has_more: false, first_id: MODEL_DEFAULT, last_id: MODEL_DEFAULT,
      });
    }
    if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
      res.writeHead(200); return res.end();
    }
    return apiError(res, 404, 'not_found_error', `mock: ${req.method} ${path} is not served`);
  });
});

server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});

function stop() { server.close(); server.closeAllConnections?.(); process.exit(0); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
