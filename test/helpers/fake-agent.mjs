#!/usr/bin/env node
// A stand-in for an agent CLI: records its argv and routing environment to $FAKE_AGENT_OUT, then sends one
// model request the way the real CLI would route it (Claude Code: ANTHROPIC_BASE_URL; Codex: the
// model_providers.ficta.base_url override) and exits with $FAKE_AGENT_EXIT.
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const env = Object.fromEntries(
  [
    'ANTHROPIC_BASE_URL',
    'OPENAI_BASE_URL',
    'GOOGLE_GEMINI_BASE_URL',
    'FICTA_URL',
    'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
    'FICTA_VAULT_PASSPHRASE',
    'FICTA_TOKEN',
    'OPENCODE_CONFIG_CONTENT',
    'OPENCODE_DISABLE_MODELS_FETCH',
    'HTTPS_PROXY',
    'NO_PROXY',
    'GEMINI_TELEMETRY_ENABLED',
  ].map((k) => [k, process.env[k]]),
);
let url;
let body;
const override = args.find((a) => a.startsWith('model_providers.ficta.base_url='));
if (override !== undefined) {
  url = `${JSON.parse(override.split('=').slice(1).join('='))}/responses`;
  body = { model: 'gpt-x', input: process.env.FAKE_AGENT_PROMPT ?? 'hi' };
} else {
  url = `${process.env.ANTHROPIC_BASE_URL}/v1/messages`;
  body = { model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: process.env.FAKE_AGENT_PROMPT ?? 'hi' }] };
}
const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const reply = await res.text();
writeFileSync(process.env.FAKE_AGENT_OUT, JSON.stringify({ args, env, url, status: res.status, reply }));
process.stdout.write('agent stdout\n');
process.exit(Number(process.env.FAKE_AGENT_EXIT ?? 0));
