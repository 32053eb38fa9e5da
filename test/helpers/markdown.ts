// Just enough Markdown reading for the docs tests: headings → GitHub anchors, and relative links.

/** GitHub's heading anchor: rendered text lower-cased, punctuation dropped (letters, digits, `-`, `_` kept), spaces → `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\- _]/gu, '').replace(/ /g, '-');
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let fence = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fence = !fence;
    else if (!fence) out.push([i + 1, line]);
  });
  return out;
}

/** Every anchor a page's headings define (a repeated heading gets `-1`, `-2`, … as on GitHub). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, line] of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const slug = githubSlug(m[1] as string);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

export interface Link {
  line: number;
  target: string;
}

/** Links that are neither absolute URLs nor mail: `[text](target)`, outside code blocks and code spans. */
export function relativeLinks(text: string): Link[] {
  const out: Link[] = [];
  for (const [n, raw] of proseLines(text)) {
    const line = raw.replace(/`[^`]*`/g, '``');
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ line: n, target });
    }
  }
  return out;
}
