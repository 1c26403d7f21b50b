// step-refs.mjs - what the mock models' step players share (tests/codex/
// mock-responses.mjs, tests/agent-host/mock-messages.mjs): a step's
// arguments may name an element as a model does once it has read a
// snapshot.  A string "{{ref:NEEDLE}}" is replaced by the ref on the
// line that holds NEEDLE in the newest earlier output that has one
// ("- button \"Press\" [ref=f9e14]" gives f9e14); not found, it stays as
// it is, and the tool answers that it is no ref.
export function withRefs(args, texts) {
  const refOf = (needle) => {
    for (let i = texts.length - 1; i >= 0; i--)
      for (const line of String(texts[i] ?? '').split('\n'))
        if (line.includes(needle)) {
          const m = /\[ref=([a-z0-9]+)\]/.exec(line);
          if (m) return m[1];
        }
    return null;
  };
  const fill = (v) => {
    if (typeof v === 'string') {
      const m = /^\{\{ref:(.+)\}\}$/s.exec(v);
      return m ? refOf(m[1]) ?? v : v;
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(args);
}
