// Which tools write or edit files, and how each string of a call is read. Names and argument shapes come
// from the agents' own definitions (sources in fixtures/sinks/tool-calls.json): Claude Code (Write, Edit,
// MultiEdit, NotebookEdit, Bash, WebFetch), Codex (apply_patch, shell, shell_command, exec_command), Gemini CLI
// (write_file, replace, run_shell_command, web_fetch), opencode (write, edit, bash, webfetch) and Anthropic's
// text editor tool. A write tool counts as one only when its arguments have that tool's shape; anything else
// is a tool that runs or fetches.

import type { TextRole } from './analyse.ts';
import type { ParsedArguments } from './json-args.ts';

/** `write`: the same-line rule applies; `run`: a destination anywhere in the call counts. */
export type ToolClass = 'write' | 'run';

interface WriteShape {
  /** String properties it may have; any other property must be a number, boolean or null. */
  strings: ReadonlySet<string>;
  required: readonly string[];
  /** Array properties and the string keys of their object elements (MultiEdit `edits`), or number arrays. */
  arrays?: ReadonlyMap<string, ReadonlySet<string> | 'numbers'>;
}

const shape = (strings: string[], required: string[], arrays?: Array<[string, string[] | 'numbers']>): WriteShape => ({
  strings: new Set(strings),
  required,
  ...(arrays === undefined ? {} : { arrays: new Map(arrays.map(([k, v]) => [k, v === 'numbers' ? 'numbers' : new Set(v)])) }),
});

/** File-writing tools by name, with the shape of their JSON arguments. */
const WRITE_TOOLS: ReadonlyMap<string, WriteShape> = new Map([
  ['Write', shape(['file_path', 'content'], ['file_path', 'content'])],
  ['Edit', shape(['file_path', 'old_string', 'new_string'], ['file_path', 'new_string'])],
  ['MultiEdit', shape(['file_path'], ['file_path', 'edits'], [['edits', ['old_string', 'new_string']]])],
  ['NotebookEdit', shape(['notebook_path', 'cell_id', 'new_source', 'cell_type', 'edit_mode'], ['notebook_path', 'new_source'])],
  ['write_file', shape(['file_path', 'content'], ['file_path', 'content'])],
  ['replace', shape(['file_path', 'instruction', 'old_string', 'new_string'], ['file_path', 'new_string'])],
  // Codex's function form of apply_patch ({"input": "*** Begin Patch…"}); the custom form is plain text.
  ['apply_patch', shape(['input'], ['input'])],
  ['str_replace_based_edit_tool', shape(['command', 'path', 'file_text', 'old_str', 'new_str'], ['command', 'path'], [['view_range', 'numbers']])],
  ['str_replace_editor', shape(['command', 'path', 'file_text', 'old_str', 'new_str'], ['command', 'path'], [['view_range', 'numbers']])],
  // opencode.
  ['write', shape(['filePath', 'content'], ['filePath', 'content'])],
  ['edit', shape(['filePath', 'oldString', 'newString'], ['filePath', 'newString'])],
]);

const PATCH_START = '*** Begin Patch';

/** Whether a custom (free-text) tool call writes files: Codex apply_patch with a patch body. */
export function classifyTextTool(name: string, input: string): ToolClass {
  return name === 'apply_patch' && input.trimStart().startsWith(PATCH_START) ? 'write' : 'run';
}

/** Whether a JSON tool call writes files: a known write tool whose arguments have its shape. */
export function classifyJsonTool(name: string, args: ParsedArguments): ToolClass {
  const spec = WRITE_TOOLS.get(name);
  if (spec === undefined || !args.rootIsObject) return 'run';
  for (const key of spec.required) if (!args.topTypes.has(key)) return 'run';
  for (const [key, type] of args.topTypes) {
    if (spec.strings.has(key)) {
      if (type !== 'string') return 'run';
    } else if (spec.arrays?.has(key) === true) {
      if (type !== 'array') return 'run';
    } else if (type === 'string' || type === 'object' || type === 'array') return 'run';
  }
  // Every string must sit where the shape allows one: nested strings only in declared arrays' elements.
  for (const s of args.strings) {
    const arr = spec.arrays?.get(s.top);
    if (arr === undefined) {
      if (!s.isKey && !spec.strings.has(s.top)) return 'run';
      continue;
    }
    if (arr === 'numbers') {
      if (!s.isKey) return 'run';
      continue;
    }
    if (s.isKey ? !arr.has(s.text) && s.text !== 'replace_all' && s.top !== s.text : !arr.has(s.parent)) return 'run';
  }
  if (name === 'apply_patch') {
    const input = args.strings.find((s) => !s.isKey && s.top === 'input');
    if (input === undefined || !input.text.trimStart().startsWith(PATCH_START)) return 'run';
  }
  return 'write';
}

/**
 * Computer-use tools (Anthropic's `computer`, OpenAI's `computer_call` items, read as `computer`): they type
 * into whatever window has focus, a web page as likely as a terminal, so no destination can be read from the call.
 */
const SCREEN_TOOLS: ReadonlySet<string> = new Set(['computer']);

export function typesIntoScreen(name: string): boolean {
  return SCREEN_TOOLS.has(name);
}

/** Known commands-running tools: the property holding the command; their other strings are read as prose. */
const COMMAND_PROPERTIES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['Bash', new Set(['command'])],
  ['run_shell_command', new Set(['command'])],
  ['shell', new Set(['command'])],
  ['container.exec', new Set(['command'])],
  ['shell_command', new Set(['command'])],
  ['exec_command', new Set(['cmd'])],
  ['write_stdin', new Set(['chars'])],
  ['local_shell', new Set(['command'])],
  ['bash', new Set(['command'])],
]);

/** Properties of known tools that are free text (descriptions, paths, prompts, queries). */
const PROSE_PROPERTIES: ReadonlySet<string> = new Set([
  'description', 'justification', 'workdir', 'dir_path', 'directory', 'prompt', 'query', 'file_path', 'path', 'pattern', 'glob',
]);

/** Properties that name where a fetch-like tool connects (also inside MCP tools' arguments). */
const FETCH_PROPERTIES: ReadonlySet<string> = new Set([
  'url', 'uri', 'urls', 'uris', 'href', 'endpoint', 'base_url', 'baseurl', 'webhook', 'webhook_url', 'webhookurl', 'host',
  'hostname', 'server_url', 'serverurl', 'domain', 'target_url', 'targeturl', 'api_url', 'apiurl',
]);

/**
 * How a string of a run-or-fetch tool is read: URL-like properties as destinations, the command property
 * of a known shell tool as a command, its descriptions as prose, and everything of an unknown tool as a
 * command (it may run anything).
 */
export function roleOf(tool: string, parent: string, isKey: boolean): TextRole {
  if (isKey) return 'prose';
  const p = parent.toLowerCase();
  if (FETCH_PROPERTIES.has(p)) return 'fetch-url';
  const commands = COMMAND_PROPERTIES.get(tool);
  if (commands === undefined) return 'command';
  if (commands.has(parent)) return 'command';
  return PROSE_PROPERTIES.has(p) ? 'prose' : 'command';
}
