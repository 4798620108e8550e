/** Word-level helpers for the command analysis: quote removal, ANSI-C strings, brace expansion. */

const MAX_BRACE_EXPANSIONS = 64;

/**
 * An unquoted word as bash sees it after quote removal: `c\url` is `curl`, `\<newline>` vanishes.
 * Pairs are read left to right, so in `\\<newline>` the backslash is escaped and the newline stays.
 */
export function unescapeUnquoted(text: string): string {
  return text.replace(/\\(.)/gs, (_pair, ch: string) => (ch === '\n' ? '' : ch));
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline. */
export function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\(.)/gs, (pair, ch: string) => (ch === '\n' ? '' : '$`"\\'.includes(ch) ? ch : pair));
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The value of `$'…'` (its inside, without `$'` and `'`), decoded as bash does. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(?:([abeEfnrtv\\'"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|c(.))/g,
    (_match, simple: string, octal: string, hex: string, u4: string, u8: string, control: string) => {
      if (simple) return SIMPLE_ESCAPES[simple] ?? simple;
      if (octal) return String.fromCharCode(parseInt(octal, 8) & 0xff);
      if (hex) return String.fromCharCode(parseInt(hex, 16));
      const code = parseInt(u4 || u8, 16);
      if (u4 || u8) return code <= 0x10ffff ? String.fromCodePoint(code) : '';
      return String.fromCharCode(control.charCodeAt(0) & 0x1f);
    },
  );
}

/** Whether an unquoted word holds a brace expansion (`{a,b}` or `{1..3}`). */
export function hasBraceExpansion(unquoted: string): boolean {
  return /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/.test(unquoted);
}

/**
 * Every word a brace expansion produces, up to a cap: `c{u,}rl` gives `curl` and `crl`. Used to
 * find a denied program that a brace expansion would assemble.
 */
export function expandBraces(word: string): string[] {
  const out: string[] = [];
  const pending = [word];
  while (pending.length > 0 && out.length < MAX_BRACE_EXPANSIONS) {
    const current = pending.shift() as string;
    const group = firstGroup(current);
    if (!group) {
      out.push(current);
      continue;
    }
    const before = current.slice(0, group.start);
    const after = current.slice(group.end + 1);
    for (const alternative of group.alternatives) pending.push(before + alternative + after);
  }
  return out;
}

function firstGroup(word: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let start = word.indexOf('{'); start >= 0; start = word.indexOf('{', start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < word.length; i++) {
      const ch = word[i];
      if (ch === '{') depth++;
      else if (ch === '}') depth--;
      else if (ch === ',' && depth === 1) commas.push(i);
      if (depth !== 0) continue;
      const inner = word.slice(start + 1, i);
      if (commas.length > 0) {
        const bounds = [start, ...commas, i];
        const alternatives = bounds.slice(1).map((end, k) => word.slice((bounds[k] as number) + 1, end));
        return { start, end: i, alternatives };
      }
      const sequence = expandSequence(inner);
      if (sequence) return { start, end: i, alternatives: sequence };
      break;
    }
  }
  return undefined;
}

function expandSequence(inner: string): string[] | undefined {
  const match = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])$/.exec(inner);
  if (!match) return undefined;
  const [from, to] = [match[1] as string, match[2] as string];
  const numeric = /\d/.test(from) && /\d/.test(to);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const step = a <= b ? 1 : -1;
  const values: string[] = [];
  for (let v = a; values.length < MAX_BRACE_EXPANSIONS; v += step) {
    values.push(numeric ? String(v) : String.fromCharCode(v));
    if (v === b) break;
  }
  return values;
}

/** The last path component: `/usr/bin/curl` is `curl`. */
export function basename(word: string): string {
  const trimmed = word.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
