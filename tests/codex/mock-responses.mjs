#!/usr/bin/env node
// mock-responses.mjs: a loopback mock of the OpenAI Responses API, enough for
// the real `codex app-server` 0.171.0 to run turns that call a dynamic tool.
//
// Node stdlib only. Listens on 127.0.0.1 (never anything else). The first
// stdout line is `PORT <n>`; nothing else goes to stdout.
//
// Usage:
//   node mock-responses.mjs [--port N] [--script FILE] [--log FILE]
//                           [--scenario NAME] [--quiet]
// Environment (used when the flag is absent):
//   MOCK_PORT, MOCK_SCRIPT (file), MOCK_SCRIPT_JSON (inline JSON),
//   MOCK_LOG (JSON-lines request log), MOCK_SCENARIO
//
// See README.md for the script format and the scenarios.

import http from "node:http";
import fs from "node:fs";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { withRefs } from "../browser/step-refs.mjs";
import { lookProblem } from "../explainer/png-look.mjs";

const { values: opt } = parseArgs({
  options: {
    port: { type: "string" },
    script: { type: "string" },
    log: { type: "string" },
    scenario: { type: "string" },
    quiet: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});

if (opt.help) {
  process.stderr.write(
    "usage: node mock-responses.mjs [--port N] [--script FILE] [--log FILE] [--scenario tool|message|slow|hang|fail|error]\n",
  );
  process.exit(0);
}

// ---------------------------------------------------------------- script --

const DEFAULT_SCRIPT = {
  // tool     : first request of a turn -> function call; request carrying
  //            its function_call_output -> final assistant message.
  // message  : every request -> final assistant message (no tool call).
  // slow     : like tool, but the final message is delayed by finalDelayMs
  //            (a window for turn/interrupt after the tool answered).
  // hang     : like tool, but the answer to the function_call_output is an
  //            SSE stream that sends response.created / response.in_progress
  //            and then only keep-alive comments, until the client goes away.
  // fail     : every request -> response.failed (model-side error).
  // error    : every request -> HTTP 500 JSON error.
  // chain    : (in a turn script) like tool, but chain[k] ({namespace,
  //            name, arguments}) is the k-th call of the turn; the answer to
  //            chain[k]'s output is chain[k+1], then finalText. Arguments
  //            may name the previous output: "{{output.agent_id}}".
  // steps    : a worker played out in one turn: steps[k] is the k-th
  //            function call ({namespace, name, arguments, expect}); each
  //            request answers the next step once it has checked the
  //            previous step's output against that step's expect
  //            ({image: true} an input_image with a PNG data URL,
  //            {contains: "text"}, {notContains: "text"}); then finalText.
  //            An argument "{{ref:NEEDLE}}" is the ref on the line of an
  //            earlier output that holds NEEDLE (../browser/step-refs.mjs).
  //            A failed check ends the turn with "PLAYER CHECK FAILED: ..."
  //            (also logged as playerFailure) so that a test sees it.
  scenario: "tool",
  tool: {
    namespace: "hbcode",
    name: "maintain_sessions",
    arguments: { action: "list", max_age_days: 7 },
    callId: "call_mock_1",
  },
  // {{output}} in finalText is replaced by the tool output text received.
  finalText: "Done: the hbcode tool returned its result.",
  // ms before the first SSE event of a tool-call response
  toolDelayMs: 0,
  // ms before the first SSE event of the final-message response
  finalDelayMs: 0,
  // ms between SSE events
  eventGapMs: 0,
  // slow scenario: finalDelayMs defaults to this
  slowMs: 3000,
  // a file whose existence every answer of the turn waits for (null: none)
  waitForFile: null,
  // number of output_text.delta chunks for the final text (0: none)
  deltaChunks: 3,
  usage: { input_tokens: 10, output_tokens: 5 },
  model: "mock-model",
  // HTTP errors answered before any scripted answer, one a request, in
  // order: [{status: 529, message, type, retryAfterMs}] (a server that
  // is overloaded or rate-limits once, then answers; null: none).
  httpErrors: null,
};

function loadScript() {
  let s = {};
  const file = opt.script ?? process.env.MOCK_SCRIPT;
  if (file) s = JSON.parse(fs.readFileSync(file, "utf8"));
  else if (process.env.MOCK_SCRIPT_JSON) s = JSON.parse(process.env.MOCK_SCRIPT_JSON);
  const merged = { ...DEFAULT_SCRIPT, ...s, tool: { ...DEFAULT_SCRIPT.tool, ...(s.tool ?? {}) } };
  const scen = opt.scenario ?? process.env.MOCK_SCENARIO;
  if (scen) merged.scenario = scen;
  if (merged.scenario === "slow" && !("finalDelayMs" in s)) merged.finalDelayMs = merged.slowMs;
  if (!Array.isArray(merged.turns)) merged.turns = [];
  return merged;
}

const script = loadScript();
const logPath = opt.log ?? process.env.MOCK_LOG ?? null;
const quiet = opt.quiet;

function note(...a) {
  if (!quiet) process.stderr.write(`[mock-responses] ${a.join(" ")}\n`);
}

// ------------------------------------------------------------------ state --

let requestSeq = 0; // every HTTP request
let responseSeq = 0; // every /responses answer
let turnSeq = 0; // every request that starts a turn (no pending tool output)
const issuedCalls = new Map(); // call_id -> { turn, tool }
const open = new Set(); // open SSE responses (for shutdown)

function logRecord(rec) {
  if (!logPath) return;
  try {
    fs.appendFileSync(logPath, JSON.stringify(rec) + "\n");
  } catch (e) {
    note("cannot write log:", e.message);
  }
}

// ---------------------------------------------------------------- helpers --

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function decodeBody(buf, encoding) {
  const enc = (encoding || "identity").toLowerCase().trim();
  if (enc === "identity" || enc === "") return buf;
  if (enc === "gzip" || enc === "x-gzip") return zlib.gunzipSync(buf);
  if (enc === "deflate") return zlib.inflateSync(buf);
  if (enc === "br") return zlib.brotliDecompressSync(buf);
  if (enc === "zstd" && typeof zlib.zstdDecompressSync === "function") return zlib.zstdDecompressSync(buf);
  throw new Error(`unsupported content-encoding ${enc}`);
}

// Text of a function_call_output's `output`: a string, or (newer wire) an
// array of content items ({type:"input_text", text}) or {content:[...]}.
function outputText(out) {
  if (out == null) return null;
  if (typeof out === "string") return out;
  const items = Array.isArray(out) ? out : Array.isArray(out.content) ? out.content : null;
  if (items) {
    return items
      .map((c) => (typeof c === "string" ? c : c && typeof c.text === "string" ? c.text : ""))
      .join("");
  }
  return JSON.stringify(out);
}

// The last function_call_output in `input` answering one of our calls, if
// it comes after the last message (i.e. this request continues a tool call).
function pendingToolOutput(input) {
  if (!Array.isArray(input)) return null;
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    if (!it || typeof it !== "object") continue;
    if (it.type === "function_call_output" || it.type === "custom_tool_call_output") {
      return { callId: it.call_id, text: outputText(it.output), raw: it.output };
    }
    if (it.type === "message" && !isSubagentNotification(it)) return null;
  }
  return null;
}

// The note codex adds to a parent's input when a sub-agent finishes: not the
// user's turn, so it does not end the tool call it follows.
function isSubagentNotification(it) {
  const c = Array.isArray(it.content) ? it.content : [];
  return it.role === "user" && c.length === 1 && /^<subagent_notification>/.test(c[0]?.text ?? "");
}

function turnScript(turnIndex) {
  // turns[i] overrides the top-level script for the i-th turn (0-based).
  const t = script.turns[turnIndex] ?? {};
  return { ...script, ...t, tool: { ...script.tool, ...(t.tool ?? {}) } };
}

function callIdFor(ts, turnIndex) {
  if (ts.tool.callId && script.turns[turnIndex]?.tool?.callId) return ts.tool.callId;
  return turnIndex === 0 ? ts.tool.callId : `${ts.tool.callId}_${turnIndex + 1}`;
}

function usage(u) {
  const input = u?.input_tokens ?? 10;
  const output = u?.output_tokens ?? 5;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

function responseObject(id, status, output, extra = {}) {
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    model: script.model,
    output,
    parallel_tool_calls: false,
    tool_choice: "auto",
    tools: [],
    usage: null,
    ...extra,
  };
}

function functionCallEvents(respId, ts, callId) {
  const args = typeof ts.tool.arguments === "string" ? ts.tool.arguments : JSON.stringify(ts.tool.arguments ?? {});
  const itemId = `fc_${responseSeq}`;
  const base = { type: "function_call", id: itemId, call_id: callId, name: ts.tool.name };
  if (ts.tool.namespace) base.namespace = ts.tool.namespace;
  const done = { ...base, arguments: args, status: "completed" };
  return [
    { type: "response.output_item.added", output_index: 0, item: { ...base, arguments: "", status: "in_progress" } },
    { type: "response.function_call_arguments.delta", item_id: itemId, output_index: 0, delta: args },
    { type: "response.function_call_arguments.done", item_id: itemId, output_index: 0, arguments: args },
    { type: "response.output_item.done", output_index: 0, item: done },
    {
      type: "response.completed",
      response: responseObject(respId, "completed", [done], { usage: usage(ts.usage) }),
    },
  ];
}

function messageEvents(respId, ts, text) {
  const itemId = `msg-${responseSeq}`;
  // deltaChunks: 0 sends no response.output_text.delta at all (as in the
  // reference recording: codex then emits no item/agentMessage/delta).
  const chunks = [];
  const want = Number(ts.deltaChunks ?? 1);
  if (want > 0) {
    const n = Math.max(1, Math.min(want, text.length || 1));
    const size = Math.ceil(text.length / n) || 1;
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    if (chunks.length === 0) chunks.push("");
  }
  const part = { type: "output_text", text, annotations: [] };
  const item = { type: "message", id: itemId, role: "assistant", status: "completed", content: [part] };
  const ev = [
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "message", id: itemId, role: "assistant", status: "in_progress", content: [] },
    },
    {
      type: "response.content_part.added",
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
  ];
  for (const d of chunks) {
    ev.push({ type: "response.output_text.delta", item_id: itemId, output_index: 0, content_index: 0, delta: d });
  }
  ev.push(
    { type: "response.output_text.done", item_id: itemId, output_index: 0, content_index: 0, text },
    { type: "response.content_part.done", item_id: itemId, output_index: 0, content_index: 0, part },
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: responseObject(respId, "completed", [item], { usage: usage(ts.usage) }) },
  );
  return ev;
}

function failedEvents(respId, ts) {
  return [
    {
      type: "response.failed",
      response: responseObject(respId, "failed", [], {
        error: { code: ts.failCode ?? "server_error", message: ts.failMessage ?? "mock model failure (scripted)" },
      }),
    },
  ];
}

async function streamSse(req, res, events, { delayMs = 0, gapMs = 0, hang = false, respId, seq: reqSeq }) {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-request-id": `req_mock_${reqSeq}`,
    "openai-model": script.model,
    // The plan's rate limits as the Responses API reports them in its
    // headers (x-codex-primary-used-percent ...): codex passes them on in
    // account/rateLimits/updated.
    ...(script.rateLimitHeaders ?? {}),
  });
  res.flushHeaders();
  open.add(res);
  let closed = false;
  let ended = false;
  res.on("close", () => {
    closed = true;
    open.delete(res);
    if (!ended) {
      // The client (codex) dropped the stream before response.completed,
      // e.g. after turn/interrupt.
      logRecord({ seq: reqSeq, t: Date.now(), event: "client-closed-stream", responseId: respId });
      note(`#${reqSeq} client closed the stream before it ended`);
    }
  });
  if (delayMs > 0) await sleep(delayMs);
  let n = 0;
  const send = (e) => {
    if (closed) return;
    const ev = { ...e, sequence_number: n++ };
    res.write(`event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`);
  };
  send({ type: "response.created", response: responseObject(respId, "in_progress", []) });
  send({ type: "response.in_progress", response: responseObject(respId, "in_progress", []) });
  if (hang) {
    // Keep the stream open (SSE comments as keep-alives) and never send any
    // output or response.completed, until the client goes away.
    while (!closed) {
      await sleep(500);
      if (!closed) res.write(": keep-alive\n\n");
    }
    return;
  }
  for (const e of events) {
    if (closed) break;
    if (gapMs > 0) await sleep(gapMs);
    send(e);
  }
  if (!closed) {
    ended = true;
    res.end();
  }
}


// ------------------------------------------------------------ steps player --

// The outputs of our calls in this turn's input, in order: {callId, text, raw}.
function stepOutputs(input) {
  const outs = [];
  if (!Array.isArray(input)) return outs;
  for (const it of input) {
    if (!it || typeof it !== "object") continue;
    if (it.type === "message" && it.role === "user") outs.length = 0; // a new turn starts here
    if (it.type === "function_call_output" && issuedCalls.has(it.call_id))
      outs.push({ callId: it.call_id, text: outputText(it.output), raw: it.output });
  }
  return outs;
}

// The first PNG image of a tool output (an input_image data URL), or null.
function pngImage(raw) {
  const items = Array.isArray(raw) ? raw : Array.isArray(raw?.content) ? raw.content : [];
  for (const c of items) {
    const m = /^data:image\/png;base64,(.*)$/.exec(c?.image_url || "");
    const bytes = c?.type === "input_image" && m ? Buffer.from(m[1], "base64") : null;
    if (bytes && bytes.subarray(0, 8).equals(Buffer.from("89504e470d0a1a0a", "hex"))) return bytes;
  }
  return null;
}

// Why output out does not meet expect, or null.
function stepProblem(expect, out) {
  if (!expect) return null;
  if (expect.image && !pngImage(out.raw)) return "no PNG image came back";
  if (expect.look) {
    const png = pngImage(out.raw);
    const why = png ? lookProblem(png, expect.look) : "no PNG image came back";
    if (why) return `the image is not what the scene draws: ${why}`;
  }
  if (expect.contains && !(out.text ?? "").includes(expect.contains))
    return `the output lacks ${JSON.stringify(expect.contains)}: ${JSON.stringify((out.text ?? "").slice(0, 300))}`;
  if (expect.notContains && (out.text ?? "").includes(expect.notContains))
    return `the output has ${JSON.stringify(expect.notContains)}: ${JSON.stringify((out.text ?? "").slice(0, 300))}`;
  return null;
}

async function playStep(req, res, body, rec, respId) {
  const steps = Array.isArray(script.steps) ? script.steps : [];
  const outs = stepOutputs(body.input);
  const k = outs.length;
  let events;
  rec.turn = 0;
  if (k > 0) rec.toolOutput = { callId: outs[k - 1].callId, text: outs[k - 1].text, raw: outs[k - 1].raw, step: k - 1 };
  const problem = k > 0 ? stepProblem(steps[k - 1]?.expect, outs[k - 1]) : null;
  if (problem) {
    rec.playerFailure = `step ${k} (${steps[k - 1].name}): ${problem}`;
    const text = `PLAYER CHECK FAILED: ${rec.playerFailure}`;
    events = messageEvents(respId, script, text);
    rec.answer = { kind: "message", text };
  } else if (k < steps.length) {
    const st = { ...steps[k], arguments: withRefs(steps[k].arguments, outs.map((o) => o.text)) };
    const callId = `call_step_${k + 1}`;
    issuedCalls.set(callId, { turn: 0, tool: st });
    events = functionCallEvents(respId, { ...script, tool: st }, callId);
    rec.answer = { kind: "function_call", callId, namespace: st.namespace ?? null, name: st.name, step: k };
  } else {
    events = messageEvents(respId, script, String(script.finalText));
    rec.answer = { kind: "message", text: script.finalText };
  }
  rec.responseId = respId;
  logRecord(rec);
  note(`#${rec.seq} step ${k} -> ${rec.answer.kind} ${rec.answer.name ?? ""}${rec.playerFailure ? " FAILED " + rec.playerFailure : ""}`);
  if (script.waitForFile && k === (script.waitAtStep ?? k)) {
    while (!fs.existsSync(script.waitForFile)) await sleep(50);
  }
  await streamSse(req, res, events, { delayMs: 0, gapMs: 0, hang: k === script.hangAtStep, respId, seq: rec.seq });
}

// A chain step's tool with "{{output.KEY}}" strings in its arguments (at any
// depth) replaced by KEY of the previous call's output, read as JSON: e.g.
// wait_agent's targets from spawn_agent's {"agent_id": ...}.
function fillArgs(tool, prevText) {
  let prev = {};
  try {
    prev = JSON.parse(prevText ?? "{}") ?? {};
  } catch {
    prev = {};
  }
  const fill = (v) => {
    if (typeof v === "string") {
      const m = /^\{\{output\.([A-Za-z0-9_]+)\}\}$/.exec(v);
      return m ? String(prev[m[1]] ?? "") : v;
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return { ...tool, arguments: fill(tool.arguments ?? {}) };
}

// ------------------------------------------------------------------ server --

// The next of the script's httpErrors, answered instead of the request
// (not counted as a turn); false when none is left.
let httpErrorsSent = 0;
function answerHttpError(res, rec) {
  const errs = Array.isArray(script.httpErrors) ? script.httpErrors : [];
  if (httpErrorsSent >= errs.length) return false;
  const e = errs[httpErrorsSent++];
  const status = e.status ?? 529;
  rec.answer = { kind: `http${status}` };
  logRecord(rec);
  note(`#${rec.seq} -> scripted HTTP ${status}`);
  const headers = { "content-type": "application/json" };
  if (e.retryAfterMs != null) headers["retry-after-ms"] = String(e.retryAfterMs);
  res.writeHead(status, headers);
  res.end(JSON.stringify({
    type: "error",
    error: { message: e.message ?? "Overloaded", type: e.type ?? (status === 429 ? "rate_limit_error" : "overloaded_error"), code: null },
  }));
  return true;
}

async function handleResponses(req, res, body, rec) {
  if (answerHttpError(res, rec)) return;
  responseSeq++;
  const respId = `resp_mock_${responseSeq}`;
  const pending = pendingToolOutput(body.input);
  let ts;
  let kind;
  if (pending && issuedCalls.has(pending.callId)) {
    const call = issuedCalls.get(pending.callId);
    ts = turnScript(call.turn);
    kind = "final";
    rec.toolOutput = { callId: pending.callId, text: pending.text, raw: pending.raw };
    rec.turn = call.turn;
    if (Array.isArray(ts.chain) && call.step + 1 < ts.chain.length) {
      kind = "tool";
      rec.step = call.step + 1;
      ts = { ...ts, tool: fillArgs(ts.chain[rec.step], pending.text) };
    }
  } else {
    const turn = turnSeq++;
    ts = turnScript(turn);
    rec.turn = turn;
    if (pending) rec.toolOutput = { callId: pending.callId, text: pending.text, raw: pending.raw, unknownCall: true };
    kind = ts.scenario === "message" ? "final" : "tool";
    if (kind === "tool" && Array.isArray(ts.chain)) {
      rec.step = 0;
      ts = { ...ts, tool: ts.chain[0] };
    }
  }
  if (ts.scenario === "steps") {
    await playStep(req, res, body, rec, respId);
    return;
  }
  if (ts.scenario === "error") {
    rec.answer = { kind: "http500" };
    logRecord(rec);
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "mock server error (scripted)", type: "server_error", code: null } }));
    return;
  }
  let events;
  let delayMs = 0;
  let hang = false;
  if (ts.scenario === "fail") {
    events = failedEvents(respId, ts);
    rec.answer = { kind: "failed" };
  } else if (kind === "tool") {
    const callId =
      rec.step === undefined ? callIdFor(ts, rec.turn) : (ts.tool.callId ?? `call_chain_${rec.turn + 1}_${rec.step + 1}`);
    issuedCalls.set(callId, { turn: rec.turn, tool: ts.tool, step: rec.step ?? 0 });
    events = functionCallEvents(respId, ts, callId);
    delayMs = ts.toolDelayMs ?? 0;
    rec.answer = { kind: "function_call", callId, namespace: ts.tool.namespace ?? null, name: ts.tool.name };
  } else {
    const out = rec.toolOutput?.text ?? "";
    const text = String(ts.finalText).split("{{output}}").join(out);
    events = messageEvents(respId, ts, text);
    delayMs = ts.finalDelayMs ?? 0;
    hang = ts.scenario === "hang" && !!rec.toolOutput;
    rec.answer = { kind: hang ? "hang" : "message", text };
  }
  rec.responseId = respId;
  logRecord(rec);
  note(`#${rec.seq} turn=${rec.turn} -> ${rec.answer.kind}${rec.toolOutput ? ` (tool output ${JSON.stringify(rec.toolOutput.text)?.slice(0, 120)})` : ""}`);
  // waitForFile: answer only once that file exists (a test decides when
  // this turn may go on: a window that does not depend on timing).
  if (ts.waitForFile) {
    note(`#${rec.seq} waiting for ${ts.waitForFile}`);
    while (!fs.existsSync(ts.waitForFile)) await sleep(50);
  }
  await streamSse(req, res, events, { delayMs, gapMs: ts.eventGapMs ?? 0, hang, respId, seq: rec.seq });
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const seq = ++requestSeq;
    const raw = Buffer.concat(chunks);
    const rec = {
      seq,
      t: Date.now(),
      method: req.method,
      path: req.url,
      headers: redactHeaders(req.headers),
    };
    let text = "";
    try {
      text = decodeBody(raw, req.headers["content-encoding"]).toString("utf8");
    } catch (e) {
      rec.bodyError = e.message;
    }
    let body = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        rec.bodyText = text.slice(0, 4096);
      }
    }
    rec.body = body;
    try {
      const path = (req.url || "").split("?")[0];
      if (req.method === "POST" && /\/responses$/.test(path)) {
        if (!body || typeof body !== "object") {
          rec.answer = { kind: "http400" };
          logRecord(rec);
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "mock: body is not JSON", type: "invalid_request_error" } }));
          return;
        }
        await handleResponses(req, res, body, rec);
        return;
      }
      if (req.method === "GET" && /\/models$/.test(path)) {
        rec.answer = { kind: "models" };
        logRecord(rec);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [], models: [] }));
        return;
      }
      rec.answer = { kind: "http404" };
      logRecord(rec);
      note(`#${seq} ${req.method} ${req.url} -> 404`);
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `mock: no route for ${req.method} ${path}`, type: "not_found" } }));
    } catch (e) {
      note(`#${seq} handler error: ${e.stack || e}`);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(e.message), type: "mock_error" } }));
      } else res.end();
    }
  });
});

function redactHeaders(h) {
  const out = { ...h };
  if (out.authorization) out.authorization = out.authorization.replace(/^(Bearer\s+).*/i, "$1<redacted>");
  return out;
}

server.keepAliveTimeout = 5000;
const port = Number(opt.port ?? process.env.MOCK_PORT ?? 0);
server.listen(port, "127.0.0.1", () => {
  const a = server.address();
  process.stdout.write(`PORT ${a.port}\n`);
  note(`listening on http://127.0.0.1:${a.port}/v1 scenario=${script.scenario} log=${logPath ?? "-"}`);
});

function shutdown(sig) {
  note(`${sig}: shutting down`);
  for (const r of open) r.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
// Exit when the parent closes our stdin (if it gave us a pipe).
if (process.env.MOCK_EXIT_ON_STDIN_EOF === "1") {
  process.stdin.on("end", () => shutdown("stdin EOF"));
  process.stdin.resume();
}
