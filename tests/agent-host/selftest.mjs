#!/usr/bin/env node
// Self-test of host.mjs against the real Claude Agent SDK 0.3.332 (and the
// Claude Code binary it ships) talking to mock-messages.mjs on 127.0.0.1.
// It plays the desktop side of the pipe described in docs/agent-host-pipe.md.
//
//   node selftest.mjs [--keep] [--only A,B,...] [--claude PATH]
//
// Prints one "ok"/"FAIL" line per scenario and ends with "N passed, N failed".
//
// The scenarios: selftest-pipe.mjs (A to H, O, P) and selftest-reads.mjs (I to N); what
// they share: selftest-rig.mjs.

import fs from 'node:fs';
import path from 'node:path';
import { KEEP, ONLY, SCENARIO_MS, root, deadline, startMock } from './selftest-rig.mjs';
import { scenarios as pipeScenarios } from './selftest-pipe.mjs';
import { scenarios as readScenarios } from './selftest-reads.mjs';

const scenarios = { ...pipeScenarios, ...readScenarios };

// ------------------------------------------------------------------ main

const { child: mock, port } = await startMock();
let passed = 0, failed = 0;
for (const [name, fn] of Object.entries(scenarios)) {
  if (ONLY && !ONLY.has(name)) continue;
  const t0 = Date.now();
  const d = deadline(SCENARIO_MS, `scenario ${name}`);
  try {
    await Promise.race([fn(port), d.p]);
    const ms = Date.now() - t0;
    passed++;
    console.log(`ok   ${name} (${ms} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
    const dir = path.join(root, name);
    for (const f of ['pipe.jsonl', 'host.stderr']) {
      const p = path.join(dir, f);
      if (fs.existsSync(p)) {
        const text = fs.readFileSync(p, 'utf8');
        console.log(`--- ${name}/${f} (last 4000 chars)\n${text.slice(-4000)}`);
      }
    }
  } finally { d.clear(); }
}
mock.kill('SIGTERM');
if (failed === 0 && !KEEP) fs.rmSync(root, { recursive: true, force: true });
else console.log(`artifacts kept in ${root}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
