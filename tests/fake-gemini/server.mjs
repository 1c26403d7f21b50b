// fake-gemini - a stand-in for the Gemini REST API (generateContent, text
// to speech) for the tests and the benchmark: it speaks the real wire format
// (../../../shared/reference/gemini.md) on 127.0.0.1 only, records every
// request, counts the requests in flight, and answers as a control file says.
//
//   node server.mjs --record FILE [--control FILE] [--port N]
//
// Prints "listening PORT" once it accepts connections.  It exits when its
// stdin closes (the test that started it is gone) or on SIGTERM.  Only
// Node's built-in modules: no npm packages.
//
// The control file (JSON, read again for every request; write it to a
// temporary name and rename it) sets defaults and per-request rules:
//   { "delayMs": 0,                  answer after this long
//     "samplesPerChar": 40,          audio length per character of transcript
//     "mimeType": "audio/L16;codec=pcm;rate=24000",
//     "holdUntilInflight": 0,        hold answers until this many are in flight
//     "holdMaxMs": 3000,             ... or this long has passed
//     "apiKey": "K",                 the only key accepted (else any key)
//     "rules": [ { "match": "Bravo", "times": 2, "status": 503 }, ... ] }
// The first rule whose "match" is in the transcript (no match: any request)
// and whose "times" are not used up applies; its fields override the
// defaults.  Rule fields: status (an error answer in Gemini's error shape;
// with "retryDelay": "1s" a 429 carries RetryInfo), reply ("text": text
// instead of audio; "empty": no parts; "blocked": promptFeedback.blockReason),
// mimeType, delayMs, samplesPerChar.  Counters start again when the file's
// text changes.
//
// Each request writes {"event":"start","seq":N} to the record file when it
// arrives and one JSON line with "event":"end" when it ends: seq, arrivedMs, doneMs, method, path, query, apiKey (the header),
// contentType, model, voice, text (the whole prompt), transcript, inflight
// (requests in flight when it arrived, itself included), status, samples,
// value (every audio sample of the answer has this value), aborted.
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const VOICES = new Set(['Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe',
  'Autonoe', 'Enceladus', 'Iapetus', 'Umbriel', 'Algieba', 'Despina', 'Erinome', 'Algenib', 'Rasalgethi',
  'Laomedeia', 'Achernar', 'Alnilam', 'Schedar', 'Gacrux', 'Pulcherrima', 'Achird', 'Zubenelgenubi',
  'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat']);
const TRANSCRIPT = '### TRANSCRIPT\n';

// The bodies Gemini sends for each status (gemini.md, "Errors").
const ERRORS = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  403: ['PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.'],
  404: ['NOT_FOUND', 'models/unknown is not found for API version v1beta, or is not supported for generateContent.'],
  429: ['RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.'],
  500: ['INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'The request timed out. Please try again.'],
};

function args() {
  const out = { port: 0 };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) {
    if (a[i] === '--record') out.record = a[i + 1];
    else if (a[i] === '--control') out.control = a[i + 1];
    else if (a[i] === '--port') out.port = Number(a[i + 1]);
    else throw new Error(`unknown argument ${a[i]}`);
  }
  if (!out.record) throw new Error('usage: server.mjs --record FILE [--control FILE] [--port N]');
  return out;
}

const opts = args();
const t0 = performance.now();
let seq = 0;
let inflight = 0;
let held = [];           // resolvers of answers waiting for holdUntilInflight
let controlText = null;  // the control file's text the counters belong to
let used = [];           // per rule: how many requests it answered

function now() { return Math.round((performance.now() - t0) * 1000) / 1000; }

function control() {
  let text = '{}';
  if (opts.control) {
    try { text = fs.readFileSync(opts.control, 'utf8'); } catch { text = '{}'; }
  }
  if (text !== controlText) { controlText = text; used = []; }
  return JSON.parse(text);
}

// The behaviour for one request: defaults, then the first rule that applies.
function behaviour(c, transcript) {
  const b = { delayMs: 0, samplesPerChar: 40, mimeType: 'audio/L16;codec=pcm;rate=24000', holdUntilInflight: 0,
    holdMaxMs: 3000, ...c };
  delete b.rules;
  (c.rules || []).some((r, i) => {
    if (r.match !== undefined && !transcript.includes(r.match)) return false;
    if (r.times !== undefined && (used[i] || 0) >= r.times) return false;
    used[i] = (used[i] || 0) + 1;
    Object.assign(b, r);
    return true;
  });
  return b;
}

function errorBody(status, message, retryDelay) {
  const [code, text] = ERRORS[status] || ['UNKNOWN', 'Unknown error.'];
  const error = { code: status, message: message || text, status: code };
  if (status === 429 && retryDelay) {
    error.details = [
      { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
    ];
  }
  return { error };
}

// 16-bit little-endian PCM (or, for another type, bytes that are not).
function audio(b, transcript) {
  const rate = Number((/rate=(\d+)/i.exec(b.mimeType) || [])[1] || 24000);
  const chars = [...transcript].length;
  const samples = Math.max(1, Math.round(chars * b.samplesPerChar * rate / 24000));
  let value = 1000;
  for (const ch of transcript) value = (value + ch.codePointAt(0)) % 20000;
  value += 1000; // never 0: silence in the file must come from the stitching
  const buf = Buffer.alloc(samples * 2);
  // fill() is native: the fake's own time must not count as ours in the benchmark.
  if (/^audio\/(l16|pcm)/i.test(b.mimeType)) buf.fill(Buffer.from([value & 0xff, value >> 8]));
  else buf.fill(Buffer.from([0xff, 0xfb, 0x90, 0x64])); // an MPEG frame header, repeated
  return { samples, value, data: buf.toString('base64') };
}

function successBody(b, transcript, rec) {
  if (b.reply === 'text') {
    return { candidates: [{ content: { role: 'model', parts: [{ text: 'Here is the text you asked me to read.' }] }, finishReason: 'STOP', index: 0 }] };
  }
  if (b.reply === 'empty') return { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'OTHER', index: 0 }] };
  if (b.reply === 'blocked') return { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } };
  const a = audio(b, transcript);
  rec.samples = a.samples;
  rec.value = a.value;
  // Written by hand around the base64: JSON.stringify would scan megabytes.
  const meta = JSON.stringify({ usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 48, totalTokenCount: 56 },
    modelVersion: rec.model, responseId: `fake-${rec.seq}` });
  return `{"candidates":[{"content":{"role":"model","parts":[{"inlineData":{"mimeType":${JSON.stringify(b.mimeType)},`
    + `"data":"${a.data}"}}]},"finishReason":"STOP","index":0}],${meta.slice(1)}`;
}

// What the real API refuses before it synthesizes anything.
function refuse(req, c, body, rec) {
  const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(rec.path);
  if (req.method !== 'POST' || !m) return [404, errorBody(404)];
  rec.model = m[1];
  if (!rec.apiKey) return [403, errorBody(403)];
  if (c.apiKey !== undefined && rec.apiKey !== c.apiKey) return [400, errorBody(400, 'API key not valid. Please pass a valid API key.')];
  if (!body) return [400, errorBody(400, 'Invalid JSON payload received.')];
  const gc = body.generationConfig || {};
  if (!(gc.responseModalities || []).includes('AUDIO')) return [400, errorBody(400, 'The requested combination of response modalities is not supported by the model.')];
  if (rec.voice !== undefined && !VOICES.has(rec.voice)) return [400, errorBody(400, `Voice ${rec.voice} is not supported.`)];
  if (typeof rec.text !== 'string') return [400, errorBody(400, 'contents.parts.text is required.')];
  return null;
}

function hold(b) {
  if (!(b.holdUntilInflight > 0)) return Promise.resolve();
  if (inflight >= b.holdUntilInflight) {
    const waiting = held;
    held = [];
    waiting.forEach((release) => release());
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    held.push(resolve);
    setTimeout(resolve, b.holdMaxMs);
  });
}

function record(rec) {
  fs.appendFileSync(opts.record, `${JSON.stringify(rec)}\n`);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  inflight++;
  const url = new URL(req.url, 'http://127.0.0.1');
  const rec = { seq: ++seq, arrivedMs: now(), method: req.method, path: url.pathname, query: url.search,
    apiKey: req.headers['x-goog-api-key'] || '', contentType: req.headers['content-type'] || '', inflight,
    aborted: false, event: 'end' };
  record({ event: 'start', seq: rec.seq, arrivedMs: rec.arrivedMs });
  let ended = false;
  let answered = false;
  // In flight until answered: the client can only send its next request
  // after it read this answer, so the count never runs ahead of the truth.
  const answering = () => { if (!answered) { answered = true; inflight--; } };
  const finish = (aborted) => {
    if (ended) return;
    ended = true;
    answering();
    rec.doneMs = now();
    rec.aborted = aborted;
    record(rec);
  };
  res.on('close', () => finish(!res.writableFinished));
  req.on('data', (d) => chunks.push(d));
  req.on('end', async () => {
    let body = null;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { body = null; }
    rec.text = body?.contents?.[0]?.parts?.[0]?.text;
    rec.voice = body?.generationConfig?.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName;
    const text = typeof rec.text === 'string' ? rec.text : '';
    rec.transcript = text.includes(TRANSCRIPT) ? text.slice(text.indexOf(TRANSCRIPT) + TRANSCRIPT.length) : text;
    let c;
    try { c = control(); } catch (e) { c = {}; process.stderr.write(`fake-gemini: bad control file: ${e.message}\n`); }
    const refused = refuse(req, c, body, rec);
    const b = behaviour(c, rec.transcript);
    await hold(b);
    if (b.delayMs > 0) await new Promise((r) => setTimeout(r, b.delayMs));
    if (res.destroyed) return;
    let status = 200;
    let answer;
    if (refused) [status, answer] = refused;
    else if (b.status && b.status !== 200) { status = b.status; answer = errorBody(status, b.message, b.retryDelay); }
    else answer = successBody(b, rec.transcript, rec);
    rec.status = status;
    const text2 = typeof answer === 'string' ? answer : JSON.stringify(answer);
    answering();
    res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': Buffer.byteLength(text2) });
    res.end(text2);
  });
});

server.keepAliveTimeout = 1000;
server.listen(opts.port, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
