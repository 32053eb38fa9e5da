// When `ficta gemini` says what to set for Gemini CLI's auth type: only for a headless run that Gemini CLI
// 0.61 would refuse, i.e. no selectedType in its system, workspace or user settings and no env override.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiAuthHint } from '../../src/cli/agent-gemini.ts';
import { testDir } from '../helpers/temp-dir.ts';

function settings(dir: string, text: string): void {
  mkdirSync(join(dir, '.gemini'), { recursive: true });
  writeFileSync(join(dir, '.gemini', 'settings.json'), text);
}

describe('geminiAuthHint', () => {
  it('speaks for headless runs without an auth type, naming the user settings file', () => {
    const home = testDir('ficta-gh-home-');
    const cwd = testDir('ficta-gh-cwd-');
    const env = { HOME: home, GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(home, 'none.json') };
    expect(geminiAuthHint(env, cwd, ['-p', 'hi'], true)).toContain(`no auth type in ${join(home, '.gemini', 'settings.json')}`);
    expect(geminiAuthHint(env, cwd, ['--prompt=hi'], true)).toBeDefined();
    expect(geminiAuthHint(env, cwd, [], false)).toBeDefined();
    // Interactive: Gemini CLI opens its own auth dialog.
    expect(geminiAuthHint(env, cwd, [], true)).toBeUndefined();
    // Types the environment selects ahead of the base URL.
    expect(geminiAuthHint({ ...env, GOOGLE_GENAI_USE_VERTEXAI: 'true' }, cwd, ['-p', 'x'], true)).toBeUndefined();
    expect(geminiAuthHint({ ...env, GOOGLE_GENAI_USE_GCA: 'true' }, cwd, ['-p', 'x'], true)).toBeUndefined();
  });

  it('is silent when any settings file selects a type (comments allowed), and honours GEMINI_CLI_HOME', () => {
    const home = testDir('ficta-gh-home-');
    const cwd = testDir('ficta-gh-cwd-');
    const env = { HOME: home, GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(home, 'none.json') };
    settings(cwd, '{ "security": { "auth": { "selectedType": "oauth-personal" } } }');
    expect(geminiAuthHint(env, cwd, ['-p', 'x'], true)).toBeUndefined();
    const bare = testDir('ficta-gh-cwd-');
    settings(home, '{\n  // mine\n  "security": { "auth": { /* chosen */ "selectedType": "gemini-api-key" } }\n}\n');
    expect(geminiAuthHint(env, bare, ['-p', 'x'], true)).toBeUndefined();
    const other = testDir('ficta-gh-other-');
    expect(geminiAuthHint({ ...env, GEMINI_CLI_HOME: other }, bare, ['-p', 'x'], true)).toContain(join(other, '.gemini', 'settings.json'));
    settings(home, '{ "security": { "auth": {} } }');
    expect(geminiAuthHint(env, bare, ['-p', 'x'], true)).toBeDefined();
  });
});
