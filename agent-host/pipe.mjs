// The JSON-lines pipe of the agent host and its strict request schema
// (docs/agent-host-pipe.md, "Line kinds").
//
// Every line the host writes goes through here, so the one rule that
// "closed" is the last line holds however the host ends.  Every request is
// checked field by field against its method's table before anything acts
// on it: an unknown or missing field, or a value of the wrong type, is an
// invalid_request, because a desktop that sends a field the host would
// silently ignore must hear about it.

// ---------------------------------------------------------------- output

export function write(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}
export function reply(id, result) {
  write({ id, result: result ?? {} });
}
export function replyError(id, code, message) {
  write({ id, error: { code, message } });
}
let closedSent = false;
export function emit(event, fields) {
  if (closedSent) return; // "closed" is always the last line
  if (event === 'closed') closedSent = true;
  write({ event, ...fields });
}
export function log(...a) {
  process.stderr.write(`host: ${a.join(' ')}\n`);
}

// ---------------------------------------------------------------- errors

export class SchemaError extends Error {
  constructor(message) { super(message); this.code = 'invalid_request'; }
}
export class RequestError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

// ---------------------------------------------------------------- schema

export const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

// spec: {field: [required, check(value) -> error text or null]}
export function checkFields(where, value, spec) {
  if (!isObj(value)) throw new SchemaError(`${where}: must be an object`);
  for (const k of Object.keys(value)) {
    if (!Object.hasOwn(spec, k)) throw new SchemaError(`${where}: unknown field "${k}"`);
  }
  for (const [k, [required, check]] of Object.entries(spec)) {
    if (!(k in value)) {
      if (required) throw new SchemaError(`${where}: missing field "${k}"`);
      continue;
    }
    const err = check(value[k]);
    if (err) throw new SchemaError(`${where}.${k}: ${err}`);
  }
  return value;
}

export const str = (v) => (typeof v === 'string' ? null : 'must be a string');
export const nonEmpty = (v) => (typeof v === 'string' && v.length > 0 ? null : 'must be a non-empty string');
export const oneOf = (list) => (v) => (list.includes(v) ? null : `must be one of ${list.join(', ')}`);
export const bool = (v) => (typeof v === 'boolean' ? null : 'must be a boolean');
export const strArray = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? null : 'must be an array of strings';
export const uuid = (v) =>
  typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)
    ? null : 'must be a UUID';
export const object = (v) => (isObj(v) ? null : 'must be an object');
export const absPath = (v) => (typeof v === 'string' && v.startsWith('/') ? null : 'must be an absolute path');
export const intIn = (lo, hi) => (v) =>
  Number.isInteger(v) && v >= lo && v <= hi ? null : `must be an integer from ${lo} to ${hi}`;

// line -> {id, method, params}, or throws SchemaError/RequestError with .id
// set when the line had a usable id (the reply must echo it).
export function parseRequest(line, methods) {
  let msg;
  try { msg = JSON.parse(line); } catch { throw new SchemaError('line is not JSON'); }
  if (!isObj(msg)) throw new SchemaError('line is not a JSON object');
  const id = msg.id;
  if (!((typeof id === 'number' && Number.isSafeInteger(id)) || (typeof id === 'string' && id.length > 0))) {
    throw new SchemaError('missing or invalid "id" (a non-empty string or an integer)');
  }
  try {
    checkFields('request', msg, { id: [true, () => null], method: [true, str], params: [false, object] });
    if (!Object.hasOwn(methods, msg.method)) throw new RequestError('unknown_method', `unknown method "${msg.method}"`);
    const params = msg.params ?? {};
    checkFields('params', params, methods[msg.method]);
    return { id, method: msg.method, params };
  } catch (e) {
    e.id = id;
    throw e;
  }
}
