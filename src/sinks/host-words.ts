// Word lists that decide when a dotted word is a host name rather than a file name or a code identifier.
// A host outside these rules still withholds when a network client or code uses it (see clients.ts):
// they only decide whether the host itself is named, so it can be allowed.

/**
 * Top-level domains that count on their own: the classic generic ones, the reserved names, and every
 * two-letter country code except those in WEAK_COUNTRY_CODES. Any other TLD (a dictionary word such as
 * `.host`, `.name`, `.email`, `.store`) counts only next to a sign of a host: `user@`, `//`, `:443`, or
 * inside a network command.
 */
export const STRONG_GENERIC_TLDS: ReadonlySet<string> = new Set([
  'com', 'net', 'org', 'edu', 'gov', 'mil', 'int', 'arpa', 'info', 'biz', 'xyz', 'app', 'dev', 'cloud', 'site',
  'online', 'tech', 'club', 'mobi', 'asia', 'tel', 'travel', 'museum', 'coop', 'aero', 'onion',
  'example', 'test', 'invalid', 'localhost', 'local', 'internal', 'lan', 'home', 'corp', 'intranet', 'localdomain',
]);

/**
 * Two-letter country codes that are also common file extensions (`.py`, `.sh`, `.md`, `.rs`, `.pl`, `.tf`)
 * or code words (`obj.id`, `order.by`, `created.at`, `it.next`, `time.ms`): these need a sign of a host.
 */
export const WEAK_COUNTRY_CODES: ReadonlySet<string> = new Set([
  'id', 'at', 'by', 'is', 'in', 'it', 'do', 'to', 'as', 'so', 'no', 'be', 'my', 'ms', 'us', 'md', 'py', 'sh', 'rs',
  'pl', 'pm', 'ml', 'mk', 'am', 'pt', 'ps', 'gl', 'cc', 'tf', 'cr', 'sc', 'ma', 'mm', 'bz', 'ar', 'gs', 'gd',
]);

/**
 * First words of two-part code identifiers that end in a TLD (`self.name`, `user.email`, `config.host`,
 * `java.io`, `log.info`): a two-label word starting with one of these is code unless a sign of a host is next to it.
 */
export const CODE_RECEIVERS: ReadonlySet<string> = new Set([
  'self', 'this', 'cls', 'os', 'sys', 'std', 'java', 'javax', 'scala', 'kotlin', 'obj', 'data', 'item', 'items',
  'result', 'res', 'req', 'request', 'response', 'resp', 'ctx', 'context', 'config', 'cfg', 'conf', 'settings',
  'options', 'opts', 'args', 'argv', 'params', 'props', 'state', 'env', 'process', 'window', 'document', 'console',
  'log', 'logger', 'module', 'exports', 'event', 'err', 'error', 'el', 'elem', 'element', 'msg', 'row', 'record',
  'entry', 'db', 'conn', 'session', 'task', 'job', 'model', 'schema', 'field', 'value', 'theme', 'style', 'fs',
  'math', 'json', 'array', 'dict', 'util', 'utils', 'user', 'users', 'node', 'parent', 'child', 'target', 'source',
  'payload', 'body', 'headers', 'form', 'input', 'output', 'account',
]);

/** Two-label words ending in these are file names (`setup.py`, `README.md`, `main.rs`) unless a sign of a host is next to them. */
export const FILE_EXTENSION_TLDS: ReadonlySet<string> = new Set([
  'py', 'sh', 'md', 'rs', 'pl', 'pm', 'so', 'ml', 'mk', 'in', 'am', 'pt', 'ps', 'gl', 'cc', 'zip', 'mov', 'tf', 'cr',
  'sc', 'ma', 'mm', 'bz', 'ar', 'gs', 'gd', 'ai', 'st', 'pub', 'lol', 'sbs',
]);
