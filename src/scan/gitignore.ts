// `.gitignore` rules as git applies them to a walk (gitignore(5)): per-directory files, `!` negation,
// `/`-anchored and directory-only patterns, `*`, `?`, `[…]` and `**`; the last matching rule wins, and an
// ignored directory is not entered (so nothing inside it can be re-included, as in git).

interface Rule {
  /** Directory of the .gitignore, relative to the walk root ('' for the root), with a trailing '/'. */
  base: string;
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

/** Rules collected during a walk. */
export interface IgnoreRules {
  /** Adds the rules of a .gitignore found in directory `dir` (relative to the root, '' for the root). */
  add(dir: string, text: string): void;
  /** True when `path` (relative to the root, '/'-separated) is ignored. */
  ignores(path: string, isDir: boolean): boolean;
}

/** An empty rule set. */
export function createIgnoreRules(): IgnoreRules {
  const rules: Rule[] = [];
  return {
    add(dir, text) {
      const base = dir === '' ? '' : `${dir}/`;
      for (let line of text.split(/\r?\n/)) {
        if (line === '' || line.startsWith('#')) continue;
        line = line.replace(/(?<!\\)\s+$/, '');
        let negate = false;
        if (line.startsWith('!')) {
          negate = true;
          line = line.slice(1);
        } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
        const dirOnly = line.endsWith('/');
        if (dirOnly) line = line.slice(0, -1);
        if (line === '') continue;
        // A slash anywhere but at the end anchors the pattern to the .gitignore's directory.
        const anchored = line.includes('/');
        if (line.startsWith('/')) line = line.slice(1);
        rules.push({ base, re: new RegExp(`^${anchored ? '' : '(?:.*/)?'}${globToRegex(line)}$`), negate, dirOnly });
      }
    },
    ignores(path, isDir) {
      let ignored = false;
      for (const r of rules) {
        if (r.dirOnly && !isDir) continue;
        if (!path.startsWith(r.base)) continue;
        if (r.re.test(path.slice(r.base.length))) ignored = !r.negate;
      }
      return ignored;
    },
  };
}

/** A glob (one gitignore pattern, without its anchoring slash) as a regular expression source. */
function globToRegex(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // "**/" matches any number of directories, "/**" everything inside, "**" alone anything.
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) re += '\\[';
      else {
        let cls = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = `^${cls.slice(1)}`;
        re += `[${cls}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      re += escapeRe(glob[++i]!);
    } else re += escapeRe(c);
  }
  return re;
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
