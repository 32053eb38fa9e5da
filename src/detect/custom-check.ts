// Refusals of `[[detect.custom]]` rules that would match too much, at load and naming the rule: a prefix
// or keyword shorter than 3 bytes, a charset-only rule (no prefix, no keyword), and a rule that finds
// anything in the built-in hard negatives.

import { createDetector } from './detector.ts';
import { customKind, MIN_KEYWORD_BYTES, MIN_PREFIX_BYTES, type CustomRule } from './custom.ts';
import { createCredentialFinder } from './find.ts';
import { hardNegatives } from './hard-negatives.ts';
import { KINDS } from './kinds.ts';

/** One refusal: the rule's index in the list, and why (the rule's name leads the message). */
export interface RuleProblem {
  index: number;
  message: string;
}

/** Every problem of the rules, in order; empty when all may be used. */
export function customRuleProblems(rules: readonly CustomRule[]): RuleProblem[] {
  const out: RuleProblem[] = [];
  const seen = new Set<string>();
  const usable: number[] = [];
  rules.forEach((rule, index) => {
    const say = (why: string): void => void out.push({ index, message: `custom detector ${rule.name} refused: ${why}` });
    const before = out.length;
    const prefixes = rule.prefix === undefined ? [] : typeof rule.prefix === 'string' ? [rule.prefix] : rule.prefix;
    if (seen.has(rule.name)) say('another custom detector has the same name');
    if (KINDS.some((k) => k.name === rule.name)) say('a built-in kind has this name');
    seen.add(rule.name);
    for (const p of prefixes) if (Buffer.byteLength(p, 'utf8') < MIN_PREFIX_BYTES) say(`a prefix shorter than ${MIN_PREFIX_BYTES} bytes would match too much ordinary text`);
    for (const k of rule.keywords ?? []) if (Buffer.byteLength(k, 'utf8') < MIN_KEYWORD_BYTES) say(`a keyword shorter than ${MIN_KEYWORD_BYTES} bytes would match too much ordinary text`);
    if (prefixes.length === 0 && (rule.keywords ?? []).length === 0) say('a rule with only a charset and a length would match too much; give it a prefix or keywords');
    if (rule.length[0] > rule.length[1]) say('length is [min, max] with min <= max');
    const shortest = Math.min(...prefixes.map((p) => Buffer.byteLength(p, 'utf8')));
    if (prefixes.length > 0 && rule.length[1] < shortest + Buffer.byteLength(rule.suffix ?? '', 'utf8')) say('length counts the whole token: its max is shorter than the prefix and suffix');
    if (out.length === before) usable.push(index);
  });
  if (usable.length === 0) return out;
  // The rules that passed the checks above, each alone against the hard negatives.
  const finder = createCredentialFinder(createDetector({ builtins: false, extra: usable.map((i) => customKind(rules[i]!)) }));
  const refused = new Set<string>();
  for (const n of hardNegatives()) {
    for (const c of finder.find(Buffer.from(n.text, 'utf8'))) {
      if (refused.has(c.kind)) continue;
      refused.add(c.kind);
      const index = rules.findIndex((r) => r.name === c.kind);
      out.push({ index, message: `custom detector ${c.kind} refused: it matches ${n.label} in the built-in hard negatives, so it would redact ordinary traffic` });
    }
  }
  return out.sort((a, b) => a.index - b.index);
}
