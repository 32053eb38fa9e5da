// What runs the network in a command or a one-liner: network clients (curl, ssh, git push, gh), shells and
// interpreters with their code options, wrappers that run another command (sudo, xargs, timeout), and the
// modules and calls that open connections from code (requests, fetch(, Net::HTTP, IO::Socket).

/** A program that sends what its command line gives it to a network peer. */
export interface ClientSpec {
  /** Counts only as the command itself: the word is common in paths, prose and code (`host`, `ssh`, `git`). */
  commandOnly: boolean;
  /** A network client only with one of these arguments (`git push`, `npm publish`, `openssl s_client`). */
  when?: ReadonlySet<string>;
  /** Where it sends data when its command line names no host (`gh` → api.github.com): that host can be allowed. */
  implicitHost?: string;
}

const always: ClientSpec = { commandOnly: false };
const command: ClientSpec = { commandOnly: true };
const sub = (...words: string[]): ClientSpec => ({ commandOnly: true, when: new Set(words) });
const api = (host: string): ClientSpec => ({ commandOnly: true, implicitHost: host });

/** Network clients by command name (lowercase, without directory or `.exe`). */
export const CLIENTS: ReadonlyMap<string, ClientSpec> = new Map<string, ClientSpec>([
  // Anywhere in a command (an alias, `xargs curl`, `find -exec wget`, `sh -c "nc …"`, `$(echo curl)`).
  ...['curl', 'curlie', 'wget', 'wget2', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'sftp', 'tftp', 'lftp', 'ncftp', 'scp',
    'rsync', 'httpie', 'xh', 'xhs', 'hurl', 'aria2c', 'axel', 'lynx', 'w3m', 'elinks', 'websocat', 'wscat', 'grpcurl',
    'nslookup', 'smbclient', 'swaks', 'sendmail', 'mutt', 'mailx', 'msmtp', 'ssh-copy-id', 'invoke-webrequest',
    'invoke-restmethod', 'bitsadmin', 'nmap'].map((n) => [n, always] as const),
  // Only as the command.
  ...['ssh', 'http', 'https', 'ftp', 'host', 'dig', 'drill', 'ping', 'ping6', 'traceroute', 'tracepath', 'mtr', 'whois',
    'mail', 'links', 'iwr', 'irm'].map((n) => [n, command] as const),
  ['git', sub('push', 'pull', 'fetch', 'clone', 'ls-remote', 'remote', 'submodule', 'archive', 'send-email', 'request-pull')],
  ['svn', sub('commit', 'ci', 'checkout', 'co', 'update', 'up', 'import', 'export', 'ls', 'list', 'cat', 'info')],
  ['hg', sub('push', 'pull', 'clone', 'incoming', 'outgoing')],
  ['docker', sub('login', 'push', 'pull')],
  ['podman', sub('login', 'push', 'pull')],
  ['npm', sub('publish', 'login', 'adduser', 'token')],
  ['pnpm', sub('publish', 'login', 'adduser')],
  ['yarn', sub('publish', 'login', 'npm')],
  ['twine', { commandOnly: true, when: new Set(['upload']), implicitHost: 'upload.pypi.org' }],
  ['cargo', { commandOnly: true, when: new Set(['publish', 'login', 'owner', 'yank']), implicitHost: 'crates.io' }],
  ['gem', { commandOnly: true, when: new Set(['push', 'signin', 'owner', 'yank']), implicitHost: 'rubygems.org' }],
  ['kubectl', sub('exec', 'apply', 'create', 'run', 'cp', 'set', 'patch', 'replace', 'edit', 'port-forward', 'proxy')],
  ['oc', sub('exec', 'apply', 'create', 'run', 'cp', 'set', 'patch', 'replace', 'edit', 'login')],
  ['helm', sub('install', 'upgrade', 'push', 'registry', 'repo')],
  ['openssl', sub('s_client')],
  ['certutil', sub('-urlcache', '-verifyctl')],
  ['gh', api('api.github.com')],
  ['glab', api('gitlab.com')],
  ['aws', api('amazonaws.com')],
  ['gcloud', api('googleapis.com')],
  ['gsutil', api('googleapis.com')],
  ['bq', api('googleapis.com')],
  ['az', api('management.azure.com')],
  ['doctl', api('api.digitalocean.com')],
  ['heroku', api('api.heroku.com')],
  ['vercel', api('api.vercel.com')],
  ['netlify', api('api.netlify.com')],
  ['fly', api('api.fly.io')],
  ['flyctl', api('api.fly.io')],
]);

/** Shells: `-c CODE` is more shell code; reading the program from a pipe is code nobody can see. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'su', 'runuser', 'busybox']);

/** Interpreters and the options that take inline code. */
export const INTERPRETERS: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ['python', new Set(['-c'])],
  ['pypy', new Set(['-c'])],
  ['node', new Set(['-e', '--eval', '-p', '--print'])],
  ['nodejs', new Set(['-e', '--eval', '-p', '--print'])],
  ['deno', new Set(['eval'])],
  ['bun', new Set(['-e', '--eval', '-p', '--print'])],
  ['ruby', new Set(['-e'])],
  ['perl', new Set(['-e', '-E'])],
  ['php', new Set(['-r'])],
  ['lua', new Set(['-e'])],
  ['luajit', new Set(['-e'])],
  ['rscript', new Set(['-e'])],
  ['julia', new Set(['-e'])],
  ['groovy', new Set(['-e'])],
  ['osascript', new Set(['-e'])],
  ['pwsh', new Set(['-c', '-command'])],
  ['powershell', new Set(['-c', '-command'])],
  ['awk', new Set()],
  ['gawk', new Set()],
  ['mawk', new Set()],
  ['nawk', new Set()],
]);

/** PowerShell options whose value is base64-encoded code. */
export const ENCODED_COMMAND_OPTIONS: ReadonlySet<string> = new Set(['-e', '-ec', '-en', '-enc', '-encodedcommand', '-encoded']);

/** The interpreter a command name denotes (`python3.12` → python), or undefined. */
export function interpreterName(name: string): string | undefined {
  if (INTERPRETERS.has(name)) return name;
  // Only `python3`, `python3.12`, `perl5.36`…; a long word must not reach the regular expression (it would backtrack).
  const last = name.charCodeAt(name.length - 1);
  if (name.length > 32 || !((last >= 0x30 && last <= 0x39) || last === 0x2e)) return undefined;
  const base = name.replace(/[0-9.]+$/, '');
  return base !== name && INTERPRETERS.has(base) ? base : undefined;
}

/** Commands that run the next word as a command, with their options that take a value. */
export const WRAPPERS: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ['sudo', new Set(['-u', '-g', '-h', '-p', '-c', '-d', '-r', '-t', '-U', '-D', '-C'])],
  ['doas', new Set(['-u', '-C'])],
  ['env', new Set(['-u', '-C', '--unset', '--chdir'])],
  ['exec', new Set(['-a'])],
  ['command', new Set()],
  ['builtin', new Set()],
  ['nohup', new Set()],
  ['time', new Set(['-f', '-o'])],
  ['nice', new Set(['-n'])],
  ['ionice', new Set(['-c', '-n', '-p'])],
  ['timeout', new Set(['-s', '-k', '--signal', '--kill-after'])],
  ['stdbuf', new Set(['-i', '-o', '-e'])],
  ['xargs', new Set(['-I', '-n', '-P', '-d', '-a', '-L', '-s', '-E', '-e'])],
  ['watch', new Set(['-n', '-d'])],
  ['strace', new Set(['-e', '-o', '-p', '-s'])],
  ['ltrace', new Set(['-e', '-o', '-p', '-s'])],
  ['chronic', new Set()],
  ['unbuffer', new Set()],
  ['setsid', new Set()],
  ['sshpass', new Set(['-p', '-f', '-d'])],
  ['proxychains', new Set(['-f'])],
  ['proxychains4', new Set(['-f'])],
  ['torsocks', new Set()],
  ['tsocks', new Set()],
  ['flock', new Set(['-w', '-E'])],
  ['caffeinate', new Set()],
]);

/** Shell words that come before a command (`if curl …`, `! ping …`, `{ wget …; }`). */
export const KEYWORDS: ReadonlySet<string> = new Set(['if', 'then', 'else', 'elif', 'while', 'until', 'do', '!', '{', '}', 'time', 'coproc', 'function']);

/** Calls and modules that open network connections from code, with the label a withheld reason shows. */
const CODE_NETWORK_TOKENS: ReadonlyArray<readonly [string, string]> = [
  ['urllib', 'python-urllib'], ['requests.', 'python-requests'], ['import requests', 'python-requests'], ['httpx', 'python-httpx'],
  ['aiohttp', 'python-aiohttp'], ['http.client', 'python-http-client'], ['import socket', 'socket'], ['socket.', 'socket'],
  ['smtplib', 'python-smtplib'], ['ftplib', 'python-ftplib'], ['telnetlib', 'python-telnetlib'], ['paramiko', 'python-paramiko'],
  ['pycurl', 'python-pycurl'], ['urlopen', 'urlopen'], ['xmlrpc', 'xmlrpc'], ['websocket', 'websocket'], ['WebSocket', 'websocket'],
  ['fetch(', 'fetch'], ['axios', 'node-axios'], ['http.request', 'node-http'], ['https.request', 'node-http'], ['http.get(', 'node-http'],
  ['https.get(', 'node-http'], ["require('http", 'node-http'], ['require("http', 'node-http'], ["require('net'", 'node-net'],
  ['require("net"', 'node-net'], ['node:http', 'node-http'], ['node:net', 'node-net'], ['node:dgram', 'node-dgram'], ['node:tls', 'node-tls'],
  ['net.connect', 'node-net'], ['net.createConnection', 'node-net'], ['tls.connect', 'node-tls'], ['dgram', 'node-dgram'],
  ['undici', 'node-undici'], ['XMLHttpRequest', 'xhr'], ['node-fetch', 'node-fetch'], ['sendBeacon', 'beacon'],
  ['Net::HTTP', 'ruby-net-http'], ['net/http', 'net-http'], ['open-uri', 'ruby-open-uri'], ['URI.open', 'ruby-open-uri'],
  ['TCPSocket', 'socket'], ['UDPSocket', 'socket'], ['HTTParty', 'ruby-httparty'], ['Faraday', 'ruby-faraday'], ['RestClient', 'rest-client'],
  ['LWP', 'perl-lwp'], ['HTTP::Tiny', 'perl-http-tiny'], ['IO::Socket', 'socket'], ['Net::', 'perl-net'], ['Mojo::UserAgent', 'perl-mojo'],
  ['WWW::Mechanize', 'perl-mechanize'], ['curl_init', 'php-curl'], ['curl_exec', 'php-curl'], ['fsockopen', 'socket'],
  ['stream_socket_client', 'socket'], ['file_get_contents', 'php-file-get-contents'], ['GuzzleHttp', 'php-guzzle'],
  ['http.Post', 'go-net-http'], ['http.Get', 'go-net-http'], ['net.Dial', 'socket'], ['HttpURLConnection', 'java-http'],
  ['HttpClient', 'http-client'], ['java.net', 'java-net'], ['Invoke-WebRequest', 'powershell-web'], ['Invoke-RestMethod', 'powershell-web'],
  ['WebClient', 'dotnet-webclient'], ['System.Net', 'dotnet-net'], ['DownloadString', 'dotnet-webclient'], ['UploadString', 'dotnet-webclient'],
  ['gethostbyname', 'dns'], ['getaddrinfo', 'dns'], ['dns.resolve', 'dns'], ['dns.lookup', 'dns'], ['Resolv', 'dns'],
];

/** Calls that run code built at run time (decoded, concatenated, imported by a computed name). */
const DYNAMIC_CODE_TOKENS: readonly string[] = [
  'exec(', 'eval(', 'compile(', '__import__', 'importlib', 'b64decode', 'base64', 'Base64', 'fromhex', 'unhexlify', 'codecs.decode',
  'rot13', 'rot_13', 'fromCharCode', 'atob(', 'Buffer.from(', 'Function(', 'getattr(', 'pack(', 'decode_base64', 'MIME::Base64',
  'Invoke-Expression', 'iex ', 'FromBase64String', 'chr(', 'instance_eval', 'class_eval', 'send(', 'const_get', 'reflect',
];

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// A plain alternation of literals: each position tries each literal once, so no backtracking blow-up.
const NETWORK_TOKEN_RE = new RegExp(CODE_NETWORK_TOKENS.map(([t]) => escapeRegExp(t)).join('|'));
const NETWORK_TOKEN_LABEL = new Map(CODE_NETWORK_TOKENS.map(([t, l]) => [t, l]));
const DYNAMIC_CODE_RE = new RegExp(DYNAMIC_CODE_TOKENS.map(escapeRegExp).join('|'));

/** The label of the first network call or module named in `code`, or undefined. */
export function findNetworkCode(code: string): string | undefined {
  const m = NETWORK_TOKEN_RE.exec(code);
  return m === null ? undefined : NETWORK_TOKEN_LABEL.get(m[0]);
}

/** True when `code` builds or decodes code at run time. */
export function hasDynamicCode(code: string): boolean {
  return DYNAMIC_CODE_RE.test(code);
}

/** A command word's name: the last path part, lowercased, without `.exe`. */
export function commandName(word: string): string {
  let s = word;
  const slash = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
  if (slash !== -1) s = s.slice(slash + 1);
  s = s.toLowerCase();
  return s.endsWith('.exe') ? s.slice(0, -4) : s;
}

/**
 * The first client named anywhere in `value` as a separate word (`alias c=curl`, `xargs -I{} wget {}`,
 * `"$(echo curl)"`), for clients that are not command-only.
 */
export function findClientWord(value: string): string | undefined {
  const n = value.length;
  let i = 0;
  while (i < n) {
    while (i < n && !isClientWordChar(value.charCodeAt(i))) i++;
    const s = i;
    while (i < n && isClientWordChar(value.charCodeAt(i))) i++;
    if (i - s < 2 || i - s > 24) continue;
    let w = value.slice(s, i).toLowerCase();
    if (w.endsWith('.exe')) w = w.slice(0, -4);
    const spec = CLIENTS.get(w);
    if (spec !== undefined && !spec.commandOnly) return w;
  }
  return undefined;
}

function isClientWordChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f;
}
