// The timeline view of a saved transcript: what the `history` and
// `subagentHistory` reads return (docs/agent-host-pipe.md, "history").
//
// The SDK (getSessionMessages / getSubagentMessages) gives one envelope per
// saved transcript line; while a response streams, Claude Code saves one
// assistant envelope per content block, all with the same message.id.  The
// desktop draws one row per API message, so the envelopes of one message are
// joined here, and messages that would draw nothing are dropped, before the
// list is cut into pages.  Pure functions: the caller does the SDK read.

export const PAGE_MAX = 100;

const blank = (s) => typeof s !== 'string' || s.trim() === '';

// A content block that would draw nothing: empty text, empty thinking
// ("Empty thinking makes no row", page 003).
function emptyBlock(b) {
  if (typeof b === 'string') return blank(b);
  if (b === null || typeof b !== 'object') return true;
  if (b.type === 'text') return blank(b.text);
  if (b.type === 'thinking') return blank(b.thinking);
  return false;
}

// Whether a joined message has anything to show.  Meta rows (the SDK's
// is_meta: synthetic or transcript-only lines) are hidden by the desktop, so
// they are dropped too, except the compaction summary, which is a marker.
export function hasSomethingToShow(m) {
  if (m.is_meta === true && m.isCompactSummary !== true) return false;
  const msg = m.message;
  if (msg === null || typeof msg !== 'object') return false;
  const c = msg.content;
  if (typeof c === 'string') return !blank(c);
  if (!Array.isArray(c)) return false;
  return c.some((b) => !emptyBlock(b));
}

// Join the envelopes of one API message (assistant envelopes sharing
// message.id) into one message at the place of its first envelope.  Claude
// Code may run a tool while the rest of the message still streams, so an
// envelope can come after a tool_result; joining by id, not by adjacency,
// keeps every block of the message in the one row.
export function joinEnvelopes(envelopes) {
  const out = [];
  const byApiId = new Map();
  for (const e of envelopes) {
    const apiId = e.type === 'assistant' && e.message && typeof e.message.id === 'string'
      ? e.message.id : undefined;
    const group = apiId !== undefined ? byApiId.get(apiId) : undefined;
    if (group) {
      group.uuids.push(e.uuid);
      const more = Array.isArray(e.message.content) ? e.message.content : [];
      group.message.content = group.message.content.concat(more);
      // The last envelope carries the final stop_reason and usage.
      for (const k of ['stop_reason', 'stop_sequence', 'usage']) {
        if (e.message[k] !== undefined && e.message[k] !== null) group.message[k] = e.message[k];
      }
      continue;
    }
    const m = { ...e, uuids: [e.uuid] };
    if (apiId !== undefined) {
      m.message = { ...e.message, content: Array.isArray(e.message.content) ? e.message.content.slice() : [] };
      byApiId.set(apiId, m);
    }
    out.push(m);
  }
  // uuid first, uuids second: the order docs/agent-host-pipe.md shows.
  return out.map(({ uuid, uuids, ...rest }) => ({ uuid, uuids, ...rest }));
}

// Cut one page: the newest `limit` messages before the message `before`
// (matched by any of its envelope uuids), oldest first.  A boundary that is
// not there any more (the transcript was compacted or rewound) asks the
// desktop to reload.
export function page(messages, { before, limit = PAGE_MAX } = {}) {
  let end = messages.length;
  if (before !== undefined) {
    end = messages.findIndex((m) => m.uuids.includes(before));
    if (end < 0) return { reload: true };
  }
  const start = Math.max(0, end - limit);
  return { messages: messages.slice(start, end), hasMore: start > 0 };
}

// envelopes (as the SDK returns them) -> the reply of a history read.
export function historyPage(envelopes, opts) {
  return page(joinEnvelopes(envelopes).filter(hasSomethingToShow), opts);
}
