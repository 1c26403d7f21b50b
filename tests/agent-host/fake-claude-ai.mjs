#!/usr/bin/env node
// fake-claude-ai - a stand-in for the claude.ai account endpoints Claude Code
// asks on api.anthropic.com when it runs on a subscription sign-in: the
// profile and the plan usage (/api/oauth/usage), which the SDK's usage read
// turns into rateLimits.  It serves HTTPS on 127.0.0.1:443 and [::1]:443
// with a certificate of a test CA, so it is only for a test that maps
// api.anthropic.com to loopback in a mount namespace of its own and gives
// Claude Code the CA in NODE_EXTRA_CA_CERTS (tests/e2e/usage-claude.sh).
// Node stdlib only; nothing else answers anything.
//
//   node fake-claude-ai.mjs --key LEAF.key --cert LEAF.pem --plans PLANS.json --log LOG.jsonl
//
// PLANS.json: {"<access token>": {"plan": "max", "usage": <the usage body>}};
// a token it does not know gets 401.  Prints READY when it listens.

import https from 'node:https';
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: { key: { type: 'string' }, cert: { type: 'string' }, plans: { type: 'string' }, log: { type: 'string' } },
  strict: true,
});
const plans = JSON.parse(fs.readFileSync(opt.plans, 'utf8'));

function answer(req, res) {
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const path = (req.url ?? '/').split('?')[0];
  fs.appendFileSync(opt.log, JSON.stringify({ t: Date.now(), method: req.method, path, token }) + '\n');
  const plan = plans[token];
  const json = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (path === '/api/oauth/profile' || path === '/api/oauth/usage') {
    if (!plan) return json(401, { type: 'error', error: { type: 'authentication_error', message: 'fake: unknown token' } });
    if (path === '/api/oauth/usage') return json(200, plan.usage);
    return json(200, {
      account: { uuid: plan.account, email: `${plan.account}@example.test`, email_address: `${plan.account}@example.test`,
        full_name: plan.account, display_name: plan.account, has_claude_max: plan.plan === 'max',
        has_claude_pro: plan.plan === 'pro', created_at: '2026-01-01T00:00:00Z' },
      organization: { uuid: plan.organization, name: 'Test', organization_type: `claude_${plan.plan}`,
        billing_type: 'stripe_subscription', rate_limit_tier: `default_claude_${plan.plan}`, has_extra_usage_enabled: false },
    });
  }
  json(404, { type: 'error', error: { type: 'not_found_error', message: `fake: ${path} is not served` } });
}

const tls = { key: fs.readFileSync(opt.key), cert: fs.readFileSync(opt.cert) };
let up = 0;
for (const host of ['127.0.0.1', '::1']) {
  https.createServer(tls, answer).listen(443, host, () => { if (++up === 2) process.stdout.write('READY\n'); });
}
