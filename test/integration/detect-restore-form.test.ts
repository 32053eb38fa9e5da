// A detected value comes back in the form it had where it was found, through the real proxy: a private
// key block with real line breaks, with literal `\n` escapes (a Python repr, grep output), inside JSON
// text in a message (once and twice), with CRLF, flattened onto one line; a webhook URL and a URL password
// in a body whose JSON writes every slash as `\/` (PHP's json_encode). A model that repeats the text, and calls a tool with it, gets placeholders; what
// the client receives is exactly the text it sent, in JSON and in split SSE, in the message text and in
// the tool-call arguments (JSON text, one string level deeper).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { kindByName } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { ALL_SECRET_VALUES, startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, lastUserText, render, type MockUpstream } from '../helpers/mock-upstream.ts';
import { collect } from '../helpers/sse-client.ts';

const rnd = mulberry32(0x5eed);
const sample = (kind: string, variant = 0): string => sampleOf(kindByName(kind)!, rnd, variant).secret;

const pem = sample('private-key');
const ssh = sample('openssh-private-key');
const pgp = sample('pgp-private-key');
const webhook = sampleOf(kindByName('slack-webhook-url')!, rnd, 0).text;
const urlPassword = sampleOf(kindByName('url-password')!, rnd, 0).text;
const github = sample('github-classic-pat');
const githubPercent = github.replace('_', '%5F');
const escapeNewlines = (s: string): string => s.replace(/\r/g, '\\r').replace(/\n/g, '\\n');

const webhookPath = webhook.slice(webhook.indexOf('/services/') + '/services/'.length);
const password = urlPassword.slice(urlPassword.lastIndexOf(':', urlPassword.indexOf('@')) + 1, urlPassword.indexOf('@'));

/**
 * Each form as the client's text holds it (what the user typed, pasted or a tool printed); `php`: the body
 * escapes slashes; `withheld`: the credential part of a URL, which tool-call arguments do not get back.
 */
const FORMS: ReadonlyArray<[string, string, php?: boolean, withheld?: string]> = [
  ['key block, real line breaks', pem],
  ['key block, literal \\n escapes (Python repr)', `key = '${escapeNewlines(pem)}'`],
  ['key block, grep output', `config/app.json:12:  "key": "${escapeNewlines(ssh)}",`],
  ['key block in JSON text', JSON.stringify({ key: pem })],
  ['key block in JSON text in JSON text', JSON.stringify(JSON.stringify({ key: pgp }))],
  ['key block, CRLF', pem.replace(/\n/g, '\r\n')],
  ['key block, literal \\r\\n escapes', escapeNewlines(ssh.replace(/\n/g, '\r\n'))],
  ['key block, flattened onto one line', pgp.replace(/\n/g, ' ')],
  ['webhook URL, slashes escaped in the body', `POST it to ${webhook}`, true, webhookPath],
  ['URL password, slashes escaped in the body', `DATABASE_URL=${urlPassword}`, true, password],
  ['GitHub token percent-encoded in a URL', `curl 'https://ci.example/hook?token=${githubPercent}'`, false, githubPercent],
];
for (const [, text] of FORMS) ALL_SECRET_VALUES.add(text);
for (const v of [pem, ssh, pgp, webhook, urlPassword, github, githubPercent]) ALL_SECRET_VALUES.add(v);

const TOOLS = [{ type: 'function', function: { name: 'note', description: 'keep a note', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }];

async function send(proxy: TestFicta, text: string, stream: boolean, php = false): Promise<Response> {
  const body = JSON.stringify({ model: 'gpt-x', stream, tools: TOOLS, messages: [{ role: 'user', content: text }] });
  return fetch(`${proxy.url}/openai/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: php ? body.replace(/\//g, '\\/') : body,
  });
}

/**
 * Tool-call arguments get the text back exactly, except where it names a host: a URL password or webhook
 * restored into a tool call would carry the credential to a destination nobody allowed, so sink-aware
 * restore withholds it there (the placeholder stays).
 */
function expectArguments(args: string, text: string, withheld: string | undefined): void {
  const got = JSON.parse(args).text as string;
  if (withheld === undefined) return void expect(got).toBe(text);
  const placeholder = /~ficta_[a-z0-9]{20}/.exec(got)?.[0];
  expect(placeholder).toBeDefined();
  expect(got).toBe(text.replace(withheld, placeholder!));
}

describe('detected values restore in the form they were found', () => {
  let up: MockUpstream;
  let proxy: TestFicta;
  beforeAll(async () => {
    // The text repeated as it came (no prefix: a prefix would turn JSON text into prose, which restore
    // then reads at a different depth), and passed to the offered tool.
    const script = (req: Parameters<typeof render>[0]) => {
      const text = lastUserText(req.json);
      return render(req, { text, pieceSize: 3, tool: { name: 'note', input: { text } } });
    };
    up = await createMockUpstream({ secrets: [pem, ssh, pgp, escapeNewlines(pem), escapeNewlines(ssh), escapeNewlines(pgp)], script });
    proxy = await startFicta({ upstream: up.url });
  });
  afterAll(async () => {
    await proxy.close();
    await up.close();
  });

  for (const [label, text, php, withheld] of FORMS) {
    it(`${label}: redacted upstream, restored exactly in JSON and SSE, text and tool arguments`, async () => {
      const json = await send(proxy, text, false, php);
      expect(json.status).toBe(200);
      const message = ((await json.json()) as any).choices[0].message;
      const sent = up.requests.at(-1)!;
      const upstreamText = sent.json.messages[0].content as string;
      // Nothing of the value reached the upstream: the placeholder stands where it was.
      expect(upstreamText).toContain('~ficta_');
      expect(upstreamText).not.toContain('BEGIN');
      for (const v of [pem, ssh, pgp, webhookPath, password, githubPercent]) expect(upstreamText).not.toContain(v.slice(0, 40));
      expect(message.content).toBe(text);
      expectArguments(message.tool_calls[0].function.arguments, text, withheld);

      const sse = await send(proxy, text, true, php);
      expect(sse.status).toBe(200);
      const streams = collect(await sse.text()).streams;
      expect(streams.get('c0:text')).toBe(text);
      expectArguments(streams.get('c0:tool0')!, text, withheld);
      expect(up.leaks).toEqual([]);
    });
  }
});
