// fake-gemini - a stand-in for the Gemini REST API (generateContent for
// text to speech and for video understanding, the Files API) and for the
// public web servers of test video URLs, for the tests and the benchmark: it speaks the real wire format
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
// The first rule whose "match" is in the transcript (no match: any request),
// whose "kind" is the request's (no kind: any) and whose "times" are not
// used up applies; its fields override the
// defaults.  Rule fields: status (an error answer in Gemini's error shape;
// with "retryDelay": "1s" a 429 carries RetryInfo), reply ("text": text
// instead of audio; "empty": no parts; "blocked": promptFeedback.blockReason;
// "broken": all the audio, then the JSON breaks off unfinished),
// mimeType, delayMs, samplesPerChar.  Counters start again when the file's
// text changes.
//
// Video (svc-video), with the control file's
//   "heads": { "/video/a.mp4": { "status": 200, "contentType": "video/mp4",
//              "contentLength": 1234, "location": "/video/b.mp4" }, ... }
//                                  answers to HEAD /video/... (else 404)
//   "processingPolls": 1,          GETs of an uploaded file that still say PROCESSING
//   "fileState": "FAILED"|"STUCK", the file fails, or never becomes ACTIVE
//                                  (with "processingPolls": 0 already in the
//                                  answer to the upload's finalize)
//   "fileError": "...",            the FAILED file's error.message (null: no
//                                  error field at all)
//   "videoJson": {...},            the notes of a video generateContent (one text part)
//   "videoParts": [...],           or its parts exactly; "finishReason": "STOP"
// and rule fields "keep": true (an upload chunk that fails after its bytes
// were stored).  Request kinds: generate (speech), video, head,
// upload-start, upload, upload-query, upload-cancel, file-get, file-delete.
// The resumable upload is strict like the real one: a chunk at another
// offset than the bytes received so far is a 400.
//
// Each TCP connection writes {"event":"connection"} to the record file when
// it is accepted (before any byte is read: a TLS hello counts too).
// A speech answer's audio is built once per distinct (type, length, value)
// and kept (up to 256 MiB, oldest dropped first), so the fake's own time
// per request stays small beside what it stands in for; after such an
// answer is written, {"event":"sent","seq":N,"wroteMs","finishedMs","clockMs"}
// says when the write calls returned and when the last byte was handed to
// the kernel, and the Unix time of the record's 0 (the benchmark reads the
// fake's own time from these).
// Each request writes {"event":"start","seq":N} to the record file when it
// arrives and one JSON line with "event":"end" when it ends: seq, arrivedMs, doneMs, method, path, query, apiKey (the header),
// contentType, model, voice, text (the whole prompt), transcript, inflight
// (requests in flight when it arrived, itself included), status, samples,
// value (every audio sample of the answer has this value), aborted, kind;
// for video: command, offset, bytes, uploadId, size, sha256, fileName,
// fileUri, fileMimeType, videoFirst, temperature, responseMimeType,
// schema, displayName, uploadMime, state (of the file in a file-get's or
// a finalize's answer).
import crypto from 'node:crypto';
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
// Unix ms of t0: maps the record's times onto a benchmark's clock.
const clockMs = performance.timeOrigin + t0;
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
function behaviour(c, transcript, kind = 'generate') {
  const b = { delayMs: 0, samplesPerChar: 40, mimeType: 'audio/L16;codec=pcm;rate=24000', holdUntilInflight: 0,
    holdMaxMs: 3000, ...c };
  delete b.rules;
  (c.rules || []).some((r, i) => {
    if (r.match !== undefined && !transcript.includes(r.match)) return false;
    if (r.kind !== undefined && r.kind !== kind) return false;
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

// The base64 of the audio answers already built, by type, length and
// value: a full piece is 7.5 MB of base64, and building it for every
// request (about 100 ms on one thread) was the fake's own time, not the
// client's.  Least recently used first out beyond the cap.
const AUDIO_CACHE_MAX = 256 * 1024 * 1024;
const audioCache = new Map();
let audioCacheBytes = 0;

function audioData(pcm, samples, value) {
  const key = `${pcm}|${samples}|${value}`;
  let data = audioCache.get(key);
  if (data) {
    audioCache.delete(key); // to the young end
    audioCache.set(key, data);
    return data;
  }
  const buf = Buffer.alloc(samples * 2);
  // fill() is native: the fake's own time must not count as ours in the benchmark.
  if (pcm) buf.fill(Buffer.from([value & 0xff, value >> 8]));
  else buf.fill(Buffer.from([0xff, 0xfb, 0x90, 0x64])); // an MPEG frame header, repeated
  data = Buffer.from(buf.toString('base64'), 'latin1');
  for (const [k, v] of audioCache) {
    if (audioCacheBytes + data.length <= AUDIO_CACHE_MAX) break;
    audioCache.delete(k);
    audioCacheBytes -= v.length;
  }
  audioCache.set(key, data);
  audioCacheBytes += data.length;
  return data;
}

// 16-bit little-endian PCM (or, for another type, bytes that are not).
function audio(b, transcript) {
  const rate = Number((/rate=(\d+)/i.exec(b.mimeType) || [])[1] || 24000);
  const chars = [...transcript].length;
  const samples = Math.max(1, Math.round(chars * b.samplesPerChar * rate / 24000));
  let value = 1000;
  for (const ch of transcript) value = (value + ch.codePointAt(0)) % 20000;
  value += 1000; // never 0: silence in the file must come from the stitching
  return { samples, value, data: audioData(/^audio\/(l16|pcm)/i.test(b.mimeType), samples, value) };
}

// The answer as Buffers, the audio's shared with every answer like it.
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
  const end = b.reply === 'broken' ? '"}}]},"finishReason":' : `"}}]},"finishReason":"STOP","index":0}],${meta.slice(1)}`;
  return [Buffer.from(`{"candidates":[{"content":{"role":"model","parts":[{"inlineData":{"mimeType":${JSON.stringify(b.mimeType)},"data":"`),
    a.data, Buffer.from(end)];
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

// ---- video: test video URLs, the Files API, structured generateContent ----

const uploads = new Map(); // upload id -> { size, mime, name, parts: [Buffer], got, done, cancelled, file }
const files = new Map();   // 'files/ID' -> { name, mime, size, sha256, polls, deleted }
let nextId = 0;

function send(res, rec, answering, status, headers, body) {
  rec.status = status;
  answering();
  const text = body === undefined ? '' : (typeof body === 'string' ? body : JSON.stringify(body));
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// A FAILED file carries its reason in "error" (a google.rpc.Status).
function fileObject(f, host, state, c = {}) {
  const obj = { name: f.name, displayName: f.displayName, mimeType: f.mime, sizeBytes: String(f.size),
    createTime: '2026-11-30T10:00:00.000000Z', expirationTime: '2026-12-02T10:00:00.000000Z',
    sha256Hash: Buffer.from(f.sha256, 'hex').toString('base64'), uri: `http://${host}/v1beta/${f.name}`, state,
    source: 'UPLOADED' };
  const why = c.fileError === undefined ? 'Video processing failed: the file is not a video.' : c.fileError;
  if (state === 'FAILED' && why !== null) obj.error = { code: 400, message: why };
  return obj;
}

function fileState(c, f) {
  if (c.fileState === 'FAILED') return 'FAILED';
  if (c.fileState === 'STUCK') return 'PROCESSING';
  return f.polls < (c.processingPolls ?? 1) ? 'PROCESSING' : 'ACTIVE';
}

// HEAD (or any method) on /video/...: the test's public web server.
function head(c, res, rec, answering, path) {
  const h = (c.heads || {})[path];
  rec.kind = 'head';
  if (!h) return send(res, rec, answering, 404, { 'Content-Type': 'text/html' });
  const headers = {};
  if (h.contentType !== undefined) headers['Content-Type'] = h.contentType;
  if (h.location !== undefined) headers.Location = h.location;
  const status = h.status || 200;
  rec.status = status;
  answering();
  // A HEAD answer has no body; its Content-Length is the file's.
  if (h.contentLength !== undefined) headers['Content-Length'] = String(h.contentLength);
  res.writeHead(status, headers);
  return res.end();
}

function startUpload(req, res, rec, answering, body) {
  const h = req.headers;
  rec.kind = 'upload-start';
  rec.displayName = body?.file?.display_name;
  rec.uploadMime = h['x-goog-upload-header-content-type'];
  rec.size = Number(h['x-goog-upload-header-content-length']);
  if (h['x-goog-upload-protocol'] !== 'resumable' || h['x-goog-upload-command'] !== 'start'
    || !(rec.size > 0) || !rec.uploadMime) {
    return send(res, rec, answering, 400, { 'Content-Type': 'application/json' }, errorBody(400, 'Bad upload start.'));
  }
  const id = `up${++nextId}`;
  uploads.set(id, { size: rec.size, mime: rec.uploadMime, displayName: rec.displayName, parts: [], got: 0,
    done: false, cancelled: false });
  rec.uploadId = id;
  return send(res, rec, answering, 200, { 'X-Goog-Upload-Status': 'active',
    'X-Goog-Upload-URL': `http://${req.headers.host}/upload/v1beta/files?upload_id=${id}&upload_protocol=resumable`,
    'X-Goog-Upload-Chunk-Granularity': '262144' });
}

function finishUpload(u) {
  const all = Buffer.concat(u.parts);
  const f = { name: `files/${Math.random().toString(36).slice(2, 10)}${nextId}`, displayName: u.displayName,
    mime: u.mime, size: all.length, sha256: crypto.createHash('sha256').update(all).digest('hex'), polls: 0,
    deleted: false };
  files.set(f.name, f);
  u.done = true;
  u.file = f;
  return f;
}

// The upload session: upload, "upload, finalize", query, cancel.
function uploadCommand(req, res, rec, answering, raw, b, url, c) {
  const id = url.searchParams.get('upload_id');
  const u = uploads.get(id);
  const cmd = req.headers['x-goog-upload-command'] || '';
  const json = { 'Content-Type': 'application/json' };
  rec.uploadId = id;
  rec.command = cmd;
  rec.kind = cmd === 'query' ? 'upload-query' : cmd === 'cancel' ? 'upload-cancel' : 'upload';
  rec.offset = req.headers['x-goog-upload-offset'] === undefined ? null : Number(req.headers['x-goog-upload-offset']);
  rec.bytes = raw.length;
  if (!u || u.cancelled) return send(res, rec, answering, 404, json, errorBody(404, 'No such upload.'));
  if (cmd === 'cancel') {
    u.cancelled = true;
    return send(res, rec, answering, 200, { 'X-Goog-Upload-Status': 'cancelled' });
  }
  if (cmd === 'query') {
    if (u.done) return send(res, rec, answering, 200, { ...json, 'X-Goog-Upload-Status': 'final' }, { file: fileObject(u.file, req.headers.host, fileState(c, u.file), c) });
    return send(res, rec, answering, 200, { 'X-Goog-Upload-Status': 'active', 'X-Goog-Upload-Size-Received': String(u.got) });
  }
  if (cmd !== 'upload' && cmd !== 'upload, finalize') return send(res, rec, answering, 400, json, errorBody(400, 'Bad upload command.'));
  if (u.done || rec.offset !== u.got) return send(res, rec, answering, 400, json, errorBody(400, `Offset ${rec.offset} is not ${u.got}.`));
  const last = cmd === 'upload, finalize';
  if (!last && raw.length % 262144 !== 0) return send(res, rec, answering, 400, json, errorBody(400, 'A chunk must be a multiple of 262144 bytes.'));
  if (b.status && b.status !== 200) {
    if (b.keep) { u.parts.push(raw); u.got += raw.length; }
    return send(res, rec, answering, b.status, json, errorBody(b.status, b.message, b.retryDelay));
  }
  u.parts.push(raw);
  u.got += raw.length;
  if (!last) return send(res, rec, answering, 200, { 'X-Goog-Upload-Status': 'active' });
  if (u.got !== u.size) return send(res, rec, answering, 400, json, errorBody(400, `Received ${u.got} of ${u.size} bytes.`));
  const f = finishUpload(u);
  rec.size = f.size;
  rec.sha256 = f.sha256;
  rec.fileName = f.name;
  rec.state = c.processingPolls === 0 ? fileState(c, f) : 'PROCESSING';
  return send(res, rec, answering, 200, { ...json, 'X-Goog-Upload-Status': 'final' },
    { file: fileObject(f, req.headers.host, rec.state, c) });
}

function fileRequest(req, res, rec, answering, url, c, b) {
  const name = url.pathname.slice('/v1beta/'.length);
  const f = files.get(name);
  const json = { 'Content-Type': 'application/json' };
  rec.kind = req.method === 'DELETE' ? 'file-delete' : 'file-get';
  rec.fileName = name;
  if (!f || f.deleted) return send(res, rec, answering, 404, json, errorBody(404, `File ${name} not found.`));
  if (b.status && b.status !== 200) return send(res, rec, answering, b.status, json, errorBody(b.status, b.message, b.retryDelay));
  if (req.method === 'DELETE') {
    f.deleted = true;
    return send(res, rec, answering, 200, json, {});
  }
  if (req.method !== 'GET') return send(res, rec, answering, 404, json, errorBody(404));
  const state = fileState(c, f);
  f.polls++;
  const obj = fileObject(f, req.headers.host, state, c);
  rec.state = state;
  return send(res, rec, answering, 200, json, obj);
}

// generateContent with structured output: the notes of the control file.
function videoGenerate(req, res, rec, answering, body, b, c) {
  const parts = body?.contents?.[0]?.parts || [];
  const fd = parts[0]?.fileData || parts[0]?.file_data;
  const gc = body.generationConfig || {};
  const json = { 'Content-Type': 'application/json; charset=UTF-8' };
  rec.kind = 'video';
  rec.fileUri = fd?.fileUri;
  rec.fileMimeType = fd?.mimeType ?? null;
  rec.videoFirst = Boolean(fd) && typeof parts[1]?.text === 'string' && parts.length === 2;
  rec.text = parts[1]?.text;
  rec.temperature = gc.temperature;
  rec.responseMimeType = gc.responseMimeType;
  rec.schema = gc.responseJsonSchema;
  if (!fd || !rec.fileUri) return send(res, rec, answering, 400, json, errorBody(400, 'contents.parts.file_data is required.'));
  const m = /\/v1beta\/(files\/[a-z0-9]+)$/.exec(rec.fileUri);
  if (m) {
    const f = files.get(m[1]);
    if (!f || f.deleted) return send(res, rec, answering, 403, json, errorBody(403, `You do not have permission to access the File ${m[1]} or it may not exist.`));
    if (fileState(c, f) !== 'ACTIVE') return send(res, rec, answering, 400, json, errorBody(400, `The File ${m[1]} is not in an ACTIVE state and usage is not allowed.`));
  }
  if (b.status && b.status !== 200) return send(res, rec, answering, b.status, json, errorBody(b.status, b.message, b.retryDelay));
  if (b.reply === 'blocked') return send(res, rec, answering, 200, json, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } });
  let out = b.videoParts;
  if (!out && b.videoJson !== undefined) out = [{ text: JSON.stringify(b.videoJson) }];
  if (!out) return send(res, rec, answering, 500, json, errorBody(500, 'fake-gemini: the control file has no videoJson.'));
  return send(res, rec, answering, 200, json, { candidates: [{ content: { role: 'model', parts: out },
    finishReason: b.finishReason || 'STOP', index: 0 }], modelVersion: rec.model, responseId: `fake-${rec.seq}` });
}

// The requests of svc-video; false for the speech path.
async function video(req, res, url, raw, rec, answering) {
  let c;
  try { c = control(); } catch { c = {}; }
  const path = url.pathname;
  let body = null;
  if (path.startsWith('/video/')) {
    rec.kind = 'head';
    const b = behaviour(c, '', 'head');
    if (b.delayMs > 0) await new Promise((r) => setTimeout(r, b.delayMs));
    head(c, res, rec, answering, path);
    return true;
  }
  const filesApi = path.startsWith('/upload/v1beta/files') || path.startsWith('/v1beta/files/');
  if (!filesApi) {
    try { body = JSON.parse(raw.toString('utf8')); } catch { return false; }
    if (body?.generationConfig?.responseMimeType !== 'application/json') return false;
  }
  const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(path);
  rec.model = m ? m[1] : undefined;
  if (!rec.apiKey) { send(res, rec, answering, 403, { 'Content-Type': 'application/json' }, errorBody(403)); return true; }
  if (c.apiKey !== undefined && rec.apiKey !== c.apiKey) { send(res, rec, answering, 400, { 'Content-Type': 'application/json' }, errorBody(400, 'API key not valid. Please pass a valid API key.')); return true; }
  const kind = path.startsWith('/upload/')
    ? (url.searchParams.get('upload_id') ? ({ query: 'upload-query', cancel: 'upload-cancel' }[req.headers['x-goog-upload-command']] || 'upload') : 'upload-start')
    : path.startsWith('/v1beta/files/') ? (req.method === 'DELETE' ? 'file-delete' : 'file-get') : 'video';
  rec.kind = kind; // known before any wait, so an aborted request is recorded with it
  const b = behaviour(c, kind === 'video' ? (body?.contents?.[0]?.parts?.[1]?.text || '') : '', kind);
  await hold(b);
  if (b.delayMs > 0) await new Promise((r) => setTimeout(r, b.delayMs));
  if (res.destroyed) return true;
  if (kind === 'upload-start') {
    try { body = JSON.parse(raw.toString('utf8')); } catch { body = null; }
    if (b.status && b.status !== 200) { rec.kind = kind; send(res, rec, answering, b.status, { 'Content-Type': 'application/json' }, errorBody(b.status, b.message, b.retryDelay)); return true; }
    startUpload(req, res, rec, answering, body);
  } else if (kind.startsWith('upload')) {
    uploadCommand(req, res, rec, answering, raw, b, url, c);
  } else if (kind.startsWith('file')) {
    fileRequest(req, res, rec, answering, url, c, b);
  } else {
    if (!m) { send(res, rec, answering, 404, { 'Content-Type': 'application/json' }, errorBody(404)); return true; }
    videoGenerate(req, res, rec, answering, body, b, c);
  }
  return true;
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
    // The video paths write their record before the answer leaves, so a
    // test that got the tool's answer finds every request of it recorded.
    if (await video(req, res, url, Buffer.concat(chunks), rec, () => finish(false))) return;
    rec.kind = 'generate';
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
    const pieces = Array.isArray(answer) ? answer : [Buffer.from(JSON.stringify(answer))];
    finish(false); // recorded before the answer leaves: see the video paths
    res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8',
      'Content-Length': pieces.reduce((n, c) => n + c.length, 0) });
    let wroteMs = null;
    res.on('finish', () => record({ event: 'sent', seq: rec.seq, wroteMs, finishedMs: now(), clockMs }));
    // One write to the socket for all of it (end() uncorks); the Buffers are not copied.
    res.cork();
    pieces.forEach((c) => res.write(c));
    res.end();
    wroteMs = now();
  });
});

server.on('connection', () => record({ event: 'connection', arrivedMs: now() }));
server.keepAliveTimeout = 1000;
server.listen(opts.port, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
