// Request documents shaped like the providers' (model, messages, tools, metadata) with registered values
// in string content, in keys, and inside JSON text nested in strings to a chosen depth; filler that is
// hostile to a byte scanner (quotes, backslashes, brackets, escapes, big integers).

import type { Rng } from '../rng.ts';
import type { JNode } from './json-writer.ts';

const WORDS = ['the', 'key', 'is', 'token', 'deploy', 'with', 'café', 'naïve', '日本', 'über', 'x=1', 'a/b', 'C:\\path', '"quoted"', '{', '}', '[', ']', '\\n', 'line\nbreak', 'tab\there', '😀', 'https://example.com/a?b=c&d=e', '%2F', 'a+b', '12345678901234567890', '\\u0041', '~tilde', '~ficta', '<tag>', "it's"];

export interface DocPlan {
  values: readonly string[];
  /** JSON string depth of the deepest value: 1 is a plain string of the body. */
  depth: number;
  /** Chance that a value becomes (part of) an object key. */
  keyShare: number;
}

/** Prose with registered values inserted: alone, glued to words, back to back. */
export function prose(rng: Rng, values: readonly string[], valueShare: number, must = false): string {
  const n = rng.int(1, 10);
  const parts: string[] = [];
  let placed = false;
  for (let i = 0; i < n; i++) {
    if (values.length > 0 && rng.chance(valueShare)) {
      parts.push(rng.pick(values));
      placed = true;
      if (rng.chance(0.2)) parts.push(rng.pick(values));
    } else parts.push(rng.pick(WORDS));
  }
  if (must && !placed && values.length > 0) parts.splice(rng.int(0, parts.length), 0, rng.pick(values));
  const sep = (): string => rng.pick([' ', ' ', ' ', '', '\n', ', ', '"', ':']);
  return parts.map((p, i) => (i === 0 ? p : sep() + p)).join('');
}

/** A string at depth `depth` below this point (1 = this string) holding at least one value. */
function nested(rng: Rng, plan: DocPlan, depth: number): JNode {
  if (depth <= 1) return { t: 'str', s: prose(rng, plan.values, 0.3, true) };
  const entries: Array<[string, JNode]> = [[rng.pick(['content', 'args', 'input', 'text', 'data']), nested(rng, plan, depth - 1)]];
  if (rng.chance(0.5)) entries.push(['note', { t: 'str', s: prose(rng, plan.values, 0.2) }]);
  if (rng.chance(0.3)) entries.unshift(['n', { t: 'num', raw: rng.pick(['1', '-0.5e3', '12345678901234567890']) }]);
  if (rng.chance(plan.keyShare) && plan.values.length > 0) entries.push([rng.pick(plan.values), { t: 'lit', raw: 'true' }]);
  rng.shuffle(entries);
  const doc: JNode = rng.chance(0.2) ? { t: 'arr', items: entries.map(([, v]) => v) } : { t: 'obj', entries };
  return { t: 'json', doc };
}

/** A filler string, sometimes holding a value at a random depth up to the plan's. */
function filler(rng: Rng, plan: DocPlan): JNode {
  if (plan.values.length > 0 && rng.chance(0.4)) return nested(rng, plan, rng.int(1, plan.depth));
  return { t: 'str', s: prose(rng, [], 0) };
}

/** A chat-shaped request document. */
export function requestDoc(rng: Rng, plan: DocPlan): JNode {
  const messages: JNode[] = [];
  const turns = rng.int(1, 3);
  const spine = rng.int(0, turns - 1);
  for (let i = 0; i < turns; i++) {
    const content = i === spine ? nested(rng, plan, plan.depth) : filler(rng, plan);
    const block: JNode = rng.chance(0.5) ? content : { t: 'arr', items: [{ t: 'obj', entries: [['type', { t: 'str', s: 'text' }], ['text', content]] }] };
    messages.push({ t: 'obj', entries: [['role', { t: 'str', s: i % 2 === 0 ? 'user' : 'assistant' }], ['content', block]] });
  }
  const entries: Array<[string, JNode]> = [
    ['model', { t: 'str', s: rng.pick(['claude-x', 'gpt-x']) }],
    ['max_tokens', { t: 'num', raw: String(rng.int(1, 4096)) }],
    ['messages', { t: 'arr', items: messages }],
  ];
  if (rng.chance(0.5)) entries.push(['stream', { t: 'lit', raw: rng.pick(['true', 'false'] as const) }]);
  if (rng.chance(0.5)) {
    const meta: Array<[string, JNode]> = [['user_id', filler(rng, plan)], ['big', { t: 'num', raw: '12345678901234567890' }]];
    if (plan.values.length > 0 && rng.chance(plan.keyShare)) meta.push([rng.pick(plan.values), { t: 'str', s: 'v' }]);
    entries.push(['metadata', { t: 'obj', entries: meta }]);
  }
  if (rng.chance(0.4)) {
    entries.push(['tools', { t: 'arr', items: [{ t: 'obj', entries: [['name', { t: 'str', s: 'run' }], ['description', filler(rng, plan)], ['input_schema', { t: 'obj', entries: [['type', { t: 'str', s: 'object' }]] }]] }] }]);
  }
  return { t: 'obj', entries: rng.shuffle(entries) };
}
