// How the host starts Claude Code, for the run's query and for the short
// helper query that the catalog and usage reads need: the executable and
// the environment, decided once so both see the same Claude.

// The only argument is the Claude Code executable (the desktop passes its
// packaged one).  Without it the SDK runs the native binary of its platform
// package (@anthropic-ai/claude-agent-sdk-linux-x64 etc.), which npm installs
// with the SDK, so the host works offline after `npm ci`.
export const claudePath = process.argv[2] && process.argv[2].length > 0 ? process.argv[2] : undefined;

export function claudeOptions() {
  return {
    stderr: (d) => process.stderr.write(`claude: ${d}`),
    ...(claudePath ? { pathToClaudeCodeExecutable: claudePath } : {}),
  };
}
