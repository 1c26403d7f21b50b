// mcp-claude.mjs - one turn of the real Claude Code (through the Claude
// Agent SDK of agent-host/) with an MCP server of the command given as its
// only stdio MCP server "hbcode", the way a user's own Claude Code runs
// hb-mcp: tests/e2e/mcp-claude.sh drives it against the mock Messages API
// (ANTHROPIC_BASE_URL in the environment).  Node stdlib and the SDK only.
//
//   node mcp-claude.mjs --cwd DIR --prompt TEXT [--allow TOOL]... [--server-env K=V]...
//        [--drop-env K]... [--elicitation accept|wait] [--timeout S] -- COMMAND ARGS...
//
// --allow TOOL        an allowedTools entry (e.g. mcp__hbcode__maintain_sessions):
//                     without one the SDK's default mode denies the call
// --server-env K=V    the MCP server's env (its config's "env"), repeatable
// --drop-env K        not in the environment Claude Code gets (so the
//                     server can have it only through --server-env)
// --elicitation A     what the SDK consumer answers a server's elicitation:
//                     accept (with {approve: true}) or wait (no answer until
//                     the server withdraws it); without it the SDK declines
//                     at once, as it does for any consumer without a handler
//
// Prints one JSON summary: the init message's MCP servers and hbcode tools,
// the tool_use names the model sent, the tool results Claude Code made of
// the server's answers, the permission denials, the result's subtype and
// text, errors.  Exit 0 once the turn ended with a result, 1 otherwise.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkPath = path.join(here, '../../agent-host/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs');
const { query } = await import(pathToFileURL(sdkPath).href);

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
if (sep < 1 || sep === argv.length - 1) {
  console.error('usage: node mcp-claude.mjs --cwd DIR --prompt TEXT [--allow TOOL]... [--server-env K=V]... ' +
                '[--drop-env K]... [--timeout S] -- COMMAND ARGS...');
  process.exit(2);
}
const opts = { allow: [], 'server-env': [], 'drop-env': [] };
for (let i = 0; i < sep; i++) {
  const k = argv[i].replace(/^--/, '');
  if (Array.isArray(opts[k])) opts[k].push(argv[++i]);
  else opts[k] = argv[++i];
}
const [command, ...args] = argv.slice(sep + 1);
const serverEnv = Object.fromEntries(opts['server-env'].map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const env = { ...process.env };
for (const k of opts['drop-env']) delete env[k];

const summary = { mcpServers: null, hbcodeTools: [], toolUses: [], toolResults: [], permissionDenials: [],
                  elicitations: [], result: null, resultText: null, errors: [] };
// An elicitation's message is what Claude Code shows a person in its
// dialog; the answer is what this driver gives in that person's place.
const onElicitation = opts.elicitation === undefined ? undefined : (request, { signal }) => {
  const seen = { serverName: request.serverName, message: request.message, withdrawn: false };
  summary.elicitations.push(seen);
  if (opts.elicitation === 'accept') return Promise.resolve({ action: 'accept', content: { approve: true } });
  return new Promise((resolve) => signal.addEventListener('abort', () => {
    seen.withdrawn = true;
    resolve({ action: 'cancel' });
  }));
};
const abort = new AbortController();
const timer = setTimeout(() => { summary.errors.push('timeout'); abort.abort(); }, 1000 * (Number(opts.timeout) || 90));

try {
  const q = query({
    prompt: opts.prompt,
    options: {
      cwd: opts.cwd,
      env,
      abortController: abort,
      permissionMode: 'default',
      allowedTools: opts.allow,
      // alwaysLoad: the tools in every request, not deferred behind
      // ToolSearch (Claude Code's default for MCP tools), so that the
      // mock's first answer can call one.
      mcpServers: { hbcode: { type: 'stdio', command, args, env: serverEnv, alwaysLoad: true } },
      // No user or project settings: only what this driver says.
      settingSources: [],
      ...(onElicitation ? { onElicitation } : {}),
      persistSession: false,
    },
  });
  for await (const m of q) {
    if (m.type === 'system' && m.subtype === 'init') {
      summary.mcpServers = m.mcp_servers;
      summary.hbcodeTools = (m.tools ?? []).filter((t) => t.startsWith('mcp__hbcode__'));
    }
    if (m.type === 'assistant')
      for (const c of m.message?.content ?? []) if (c.type === 'tool_use') summary.toolUses.push(c.name);
    if (m.type === 'user' && Array.isArray(m.message?.content))
      for (const c of m.message.content)
        if (c.type === 'tool_result') summary.toolResults.push({ isError: c.is_error === true, content: c.content });
    if (m.type === 'result') {
      summary.result = m.subtype;
      summary.resultText = m.result ?? null;
      summary.permissionDenials = (m.permission_denials ?? []).map((d) => d.tool_name);
    }
  }
} catch (e) {
  summary.errors.push(String(e?.message ?? e));
}
clearTimeout(timer);
console.log(JSON.stringify(summary));
process.exit(summary.result !== null && summary.errors.length === 0 ? 0 : 1);
