// Detection settings (the `detect` table of the main config): what a detected credential does, what is
// left alone, the organisation's own formats, opt-in PII, and how many detected values the process keeps
// for restoring.

import { z } from '../config/zod.ts';
import { customRuleProblems } from './custom-check.ts';
import { DEFAULT_KEYWORD_DISTANCE } from './custom.ts';
import { PII_KINDS } from './pii/names.ts';
import { parseTerms, termProblem } from './terms.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES } from './store.ts';

/** One `[[detect.custom]]` rule (see custom.ts). */
const CustomRuleSchema = z
  .object({
    /** Counted and reported as `detected:<name>`; lower case, digits and `-`. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'must be 1 to 64 characters of a-z 0-9 -, starting with a letter or digit' }),
    /** The literal start of every token (or a list of them); at least 3 bytes. */
    prefix: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    /** Bytes of the body, as ranges and single bytes (`A-Za-z0-9_`; a trailing `-` is literal). */
    charset: z.string().min(1),
    /** [min, max] characters of the whole token, prefix and suffix included. */
    length: z.tuple([z.number().int().positive(), z.number().int().positive().max(4096)]),
    /** The literal end of every token. */
    suffix: z.string().min(1).optional(),
    /** A value that fails it is not a match: `crc32-base62` as GitHub's tokens, `luhn` over the body's digits. */
    checksum: z.enum(['none', 'crc32-base62', 'luhn']).default('none'),
    /** Only a token with one of these (case-insensitive) within keywordDistance bytes before it. */
    keywords: z.array(z.string().min(1)).optional(),
    keywordDistance: z.number().int().min(0).max(1024).default(DEFAULT_KEYWORD_DISTANCE),
  })
  .strict();

/** `secrets.terms`: each `NAME=word` or a bare word; refused when too short, too long or holding quotes. */
export const TermsSchema = z
  .array(z.string().min(1))
  .max(100_000)
  .superRefine((list, ctx) => {
    parseTerms(list).forEach((t, i) => {
      const problem = termProblem(t);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [i], message: `term ${t.name} refused: ${problem}` });
    });
  });

export const DetectConfigSchema = z
  .object({
    mode: z.enum(['redact', 'block', 'off']).default('redact').describe('`redact`: placeholder, restored in responses; `block`: 403 naming the kind (checksum-verified values and kinds without a checksum; `unverified` ones are redacted); `off`: no detection.'),
    allow: z.array(z.string().min(1)).default([]).describe('Kind names (`stripe-test-key`) or exact values to leave alone; `local@` and `@domain` entries for emails.'),
    maxEntries: z.number().int().positive().default(DEFAULT_MAX_ENTRIES).describe('Detected values kept for restoring (least recently used dropped first).'),
    maxBytes: z.number().int().positive().default(DEFAULT_MAX_BYTES).describe('Bytes of detected values kept for restoring.'),
    custom: z
      .array(CustomRuleSchema)
      // Each rule is a kind, and a detected value's index keeps its kind in one of 512 slots.
      .max(300)
      .default([])
      .superRefine((rules, ctx) => {
        for (const p of customRuleProblems(rules)) ctx.addIssue({ code: 'custom', path: [p.index], message: p.message });
      })
      .describe('The organisation\'s own formats (`[[detect.custom]]`): each joins the one automaton; see docs/detection.md.'),
    pii: z.array(z.enum(PII_KINDS)).default([]).describe('Personal data to redact, each confirmed exactly (off by default): `payment-card`, `iban`, `email`.'),
  })
  .strict();

export type DetectConfig = z.infer<typeof DetectConfigSchema>;
