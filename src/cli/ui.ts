// `ficta ui [--pid PID | --url URL] [--print]`: opens the dashboard of a running proxy (the ones `ficta
// status` lists) in the browser. It reads the proxy's dashboard key from FICTA_HOME/run/<pid>.ui-key (0600,
// so only this user can), asks the proxy for a one-time link with it, and opens or prints that link.

import { spawn } from 'node:child_process';
import { resolveHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import { formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import { listInstances, readUiKey, type InstanceEntry } from './instances.ts';
import type { CliIo } from './io.ts';
import { reportError } from './report-error.ts';

export const spec = {
  name: 'ui',
  usage: 'ui [--pid PID | --url URL] [--print]',
  summary: 'open the dashboard of a running proxy',
  description: `Opens the dashboard (/_ficta/) of a running ficta proxy in the browser: the one proxy ficta status
lists, or the one chosen with --pid or --url. Entry is by a one-time link (valid for a minute, opens
once); the browser then holds a session cookie for that proxy. Without a browser to open, the link is
printed. The link is asked of the proxy with its dashboard key, a file only this user can read
(FICTA_HOME/run/PID.ui-key).`,
  options: {
    pid: { type: 'string', value: 'PID', help: 'the proxy with this process id (see ficta status)' },
    url: { type: 'string', value: 'URL', help: 'the proxy listening at this URL (http://127.0.0.1:8787)' },
    print: { type: 'boolean', help: 'print only the one-time URL on stdout (one line) and open nothing' },
  },
} satisfies CommandSpec;

/** How long to wait for the proxy's answer. */
const LINK_TIMEOUT_MS = 5000;

export async function run(argv: string[], io: CliIo): Promise<number> {
  try {
    return await openDashboard(argv, io);
  } catch (error) {
    return reportError(error, io.stderr);
  }
}

async function openDashboard(argv: string[], io: CliIo): Promise<number> {
  const { help, values } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  if (values.pid !== undefined && values.url !== undefined) throw usageError(spec, 'give --pid or --url, not both');
  const home = resolveHome(io.env);
  const entry = choose(listInstances(home), values.pid, values.url, home);
  const key = readUiKey(home, entry.pid);
  if (key === undefined) {
    throw new FictaError('FICTA_UI_UNAVAILABLE', `ui: the proxy ${entry.pid} serves no dashboard (ui.enabled = false, or a ficta without one)`);
  }
  const origin = `http://${loopbackFor(entry.host)}:${entry.port}`;
  const url = `${origin}${await askLink(origin, key)}`;
  if (values.print === true) {
    io.stdout.write(`${url}\n`);
    return EXIT_OK;
  }
  const opened = await openBrowser(url, io.env);
  if (opened) io.stderr.write(`ficta: opened the dashboard of ${entry.mode} (pid ${entry.pid}) in the browser\n`);
  else io.stdout.write(`Open the dashboard of ${entry.mode} (pid ${entry.pid}) with this one-time link (valid for a minute, opens once):\n${url}\n`);
  return EXIT_OK;
}

function choose(entries: InstanceEntry[], pid: string | undefined, url: string | undefined, home: string): InstanceEntry {
  if (pid !== undefined) {
    const hit = entries.find((e) => String(e.pid) === pid);
    if (hit === undefined) throw new FictaError('FICTA_UI_NO_PROXY', `ui: no running ficta proxy with pid ${pid} (ficta status lists them)`);
    return hit;
  }
  if (url !== undefined) {
    let want: URL;
    try {
      want = new URL(url);
    } catch {
      throw usageError(spec, `--url: not a URL: ${url.slice(0, 80)}`);
    }
    const port = Number(want.port === '' ? 80 : want.port);
    const hit = entries.find((e) => e.port === port && (sameHost(e.host, want.hostname) || new URL(e.url).hostname === want.hostname));
    if (hit === undefined) throw new FictaError('FICTA_UI_NO_PROXY', `ui: no running ficta proxy at ${want.origin} (ficta status lists them)`);
    return hit;
  }
  if (entries.length === 0) throw new FictaError('FICTA_UI_NO_PROXY', `ui: no ficta proxy is running (FICTA_HOME ${home}); start one (ficta serve, ficta claude, ficta run -- CMD) and run ficta ui again`);
  if (entries.length > 1) {
    const list = entries.map((e) => `${e.pid} (${e.mode}, port ${e.port})`).join(', ');
    throw usageError(spec, `${entries.length} proxies are running: ${list}; choose one with --pid PID`);
  }
  return entries[0] as InstanceEntry;
}

function sameHost(a: string, b: string): boolean {
  const norm = (h: string): string => h.replace(/^\[|\]$/g, '').toLowerCase();
  return norm(a) === norm(b) || (isAnyAddress(a) && (norm(b) === '127.0.0.1' || norm(b) === 'localhost'));
}

function isAnyAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::';
}

/** The address to reach a proxy on this machine (a wildcard bind is reached on loopback). */
function loopbackFor(host: string): string {
  if (isAnyAddress(host) || host === 'localhost') return '127.0.0.1';
  const h = host.replace(/^\[|\]$/g, '');
  return h.includes(':') ? `[${h}]` : h;
}

async function askLink(origin: string, key: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${origin}/_ficta/link`, { method: 'POST', headers: { 'x-ficta-ui-key': key }, signal: AbortSignal.timeout(LINK_TIMEOUT_MS) });
  } catch (cause) {
    throw new FictaError('FICTA_UI_UNREACHABLE', `ui: the proxy at ${origin} did not answer`, { cause });
  }
  const body = (await response.json().catch(() => ({}))) as { path?: unknown };
  if (!response.ok || typeof body.path !== 'string' || !body.path.startsWith('/_ficta/login?')) {
    throw new FictaError('FICTA_UI_REFUSED', `ui: the proxy at ${origin} refused a link (HTTP ${response.status}); is it a ficta with a dashboard?`);
  }
  return body.path;
}

/** Opens `url` with $BROWSER or the platform's opener; false when there is none (then the link is printed). */
async function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  let command: string;
  let args: string[];
  if (env.BROWSER !== undefined && env.BROWSER !== '') {
    command = env.BROWSER;
    args = [url];
  } else if (process.platform === 'darwin') {
    command = 'open';
    args = [url];
  } else if (process.platform === 'win32') {
    command = 'cmd';
    args = ['/c', 'start', '""', url];
  } else {
    if ((env.DISPLAY ?? '') === '' && (env.WAYLAND_DISPLAY ?? '') === '') return false;
    command = 'xdg-open';
    args = [url];
  }
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
