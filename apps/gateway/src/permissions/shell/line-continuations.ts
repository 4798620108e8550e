/**
 * Backslash-newline removal, done the way bash does it before it cuts a line into words, so that
 * the parser reads what bash runs: `cu\<newline>rl` is `curl`, and `test\<newline>#` is one word,
 * not a word and a comment.
 *
 * Bash removes the pair everywhere except inside single quotes, `$'…'`, comments and the body of
 * a here-document whose delimiter is quoted. In the body of one whose delimiter is unquoted it
 * removes the pair too, before it compares the line with the delimiter: `EO\<newline>F` ends the
 * document. A backslash escapes the next character, so `\\<newline>` keeps its newline.
 */

type Context =
  | { kind: 'code'; close: ')' | null; depth: number }
  | { kind: 'arithmetic'; depth: number }
  | { kind: 'double' }
  | { kind: 'backtick' }
  | { kind: 'parameter'; depth: number; inDouble: boolean };

interface HereDoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
  /** Opened inside `$(…)`, where bash also ends the body at a line starting with the delimiter and `)`. */
  inSubstitution: boolean;
}

/** Characters that end an unquoted word. */
const WORD_END = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

export function joinContinuationLines(source: string): string {
  if (!source.includes('\\\n')) return source;
  return new Joiner(source).run();
}

class Joiner {
  private out = '';
  private i = 0;
  private readonly stack: Context[] = [{ kind: 'code', close: null, depth: 0 }];
  private readonly pending: HereDoc[] = [];
  /** After `<<`: where the delimiter word starts in `out` (null until its first character). */
  private delimiter: { start: number | null; level: number; stripTabs: boolean } | null = null;
  /** Where the last `$(…)` or `$((…))` ended: a `)` there is inside a word, not an operator. */
  private substitutionEnd = -1;

  constructor(private src: string) {}

  run(): string {
    while (this.i < this.src.length) {
      const context = this.stack[this.stack.length - 1] as Context;
      if (this.delimiter && this.delimiter.level === this.stack.length) this.trackDelimiter();
      if (this.src[this.i] === '\\') this.escape();
      else if (context.kind === 'code') this.code(context);
      else if (context.kind === 'arithmetic') this.arithmetic(context);
      else if (context.kind === 'double') this.double();
      else if (context.kind === 'backtick') this.backtick();
      else this.parameter(context);
    }
    if (this.delimiter) this.endDelimiter();
    return this.out;
  }

  /** A backslash escapes the next character; with a newline, both vanish. */
  private escape(): void {
    if (this.src[this.i + 1] !== '\n') this.out += this.src.slice(this.i, this.i + 2);
    this.i += 2;
  }

  /** The character `ahead` places further on in the joined text: `$\<newline>(` reads as `$(`. */
  private peek(ahead: number): string | undefined {
    let j = this.i;
    for (let k = 0; ; k++) {
      while (this.src[j] === '\\' && this.src[j + 1] === '\n') j += 2;
      if (k === ahead || j >= this.src.length) return this.src[j];
      j++;
    }
  }

  private code(context: Extract<Context, { kind: 'code' }>): void {
    const ch = this.src[this.i] as string;
    const next = this.peek(1);
    if (ch === "'") return this.copyQuoted(1);
    if (ch === '$' && next === "'") return this.copyQuoted(2);
    if (ch === '#' && this.atWordStart()) return this.copyComment();
    if (ch === '$' && next === '(' && this.peek(2) === '(') return this.push({ kind: 'arithmetic', depth: 0 }, 3);
    if (ch === '(' && next === '(' && this.atWordStart()) return this.push({ kind: 'arithmetic', depth: 0 }, 2);
    if (ch === '$' && next === '(') return this.push({ kind: 'code', close: ')', depth: 0 }, 2);
    if (ch === '$' && next === '{') return this.push({ kind: 'parameter', depth: 0, inDouble: false }, 2);
    if (ch === '"') return this.push({ kind: 'double' }, 1);
    if (ch === '`') return this.push({ kind: 'backtick' }, 1);
    if (ch === '<' && next === '<' && this.peek(2) === '<') return this.copy(3); // a here-string
    if (ch === '<' && next === '<') return this.hereDocOperator();
    if (ch === '(') context.depth++;
    const closes = ch === ')' && context.close !== null && context.depth === 0;
    if (ch === ')' && context.close !== null) {
      if (closes) this.stack.pop();
      else context.depth--;
    }
    this.copy(1);
    if (closes) this.substitutionEnd = this.out.length;
    if (ch === '\n' && this.pending.length > 0) this.hereDocBodies();
  }

  private arithmetic(context: Extract<Context, { kind: 'arithmetic' }>): void {
    const ch = this.src[this.i];
    if (ch === '(') context.depth++;
    if (ch === ')' && context.depth === 0 && this.peek(1) === ')') {
      this.stack.pop();
      this.copy(2);
      this.substitutionEnd = this.out.length;
      return;
    }
    if (ch === ')') context.depth--;
    this.copy(1);
  }

  private double(): void {
    const ch = this.src[this.i];
    const next = this.peek(1);
    if (ch === '"') {
      this.stack.pop();
      return this.copy(1);
    }
    if (ch === '$' && next === '(') return this.push({ kind: 'code', close: ')', depth: 0 }, 2);
    if (ch === '$' && next === '{') return this.push({ kind: 'parameter', depth: 0, inDouble: true }, 2);
    if (ch === '`') return this.push({ kind: 'backtick' }, 1);
    this.copy(1);
  }

  /** Bash reads backquoted text as a flat run: quotes inside do not protect a backslash-newline. */
  private backtick(): void {
    if (this.src[this.i] === '`') this.stack.pop();
    this.copy(1);
  }

  /** `${…}`: single quotes quote here unless the expansion is itself inside double quotes. */
  private parameter(context: Extract<Context, { kind: 'parameter' }>): void {
    const ch = this.src[this.i];
    const next = this.peek(1);
    if (ch === "'" && !context.inDouble) return this.copyQuoted(1);
    if (ch === '"') return this.push({ kind: 'double' }, 1);
    if (ch === '`') return this.push({ kind: 'backtick' }, 1);
    if (ch === '$' && next === '(') return this.push({ kind: 'code', close: ')', depth: 0 }, 2);
    if (ch === '$' && next === '{') return this.push({ kind: 'parameter', depth: 0, inDouble: context.inDouble }, 2);
    if (ch === '{') context.depth++;
    if (ch === '}') {
      if (context.depth === 0) this.stack.pop();
      else context.depth--;
    }
    this.copy(1);
  }

  private push(context: Context, length: number): void {
    this.copy(length);
    this.stack.push(context);
  }

  /** Copies `length` characters of the joined text (operators such as `$(` may be split). */
  private copy(length: number): void {
    for (let k = 0; k < length && this.i < this.src.length; k++) {
      while (this.src[this.i] === '\\' && this.src[this.i + 1] === '\n') this.i += 2;
      this.out += this.src[this.i] ?? '';
      this.i++;
    }
  }

  /** `'…'` (after `opening` characters) verbatim; in `$'…'` a backslash escapes a quote. */
  private copyQuoted(opening: number): void {
    const ansiC = opening === 2;
    this.copy(opening);
    let end = this.i;
    while (end < this.src.length && this.src[end] !== "'") end += ansiC && this.src[end] === '\\' ? 2 : 1;
    this.copyRaw(end + 1);
  }

  private copyRaw(end: number): void {
    this.out += this.src.slice(this.i, end);
    this.i = end;
  }

  private copyComment(): void {
    const end = this.src.indexOf('\n', this.i);
    this.copyRaw(end < 0 ? this.src.length : end);
  }

  /** `#` starts a comment only as the first character of a word (judged on the joined text). */
  private atWordStart(): boolean {
    if (this.substitutionEnd === this.out.length) return false;
    return this.out === '' || WORD_END.has(this.out[this.out.length - 1] as string);
  }

  private hereDocOperator(): void {
    const stripTabs = this.peek(2) === '-';
    this.copy(stripTabs ? 3 : 2);
    this.delimiter = { start: null, level: this.stack.length, stripTabs };
  }

  /** The delimiter word after `<<` starts at its first non-blank character and ends with the word. */
  private trackDelimiter(): void {
    const delimiter = this.delimiter as NonNullable<Joiner['delimiter']>;
    const ch = this.src[this.i] as string;
    if (ch === '\\' && this.src[this.i + 1] === '\n') return;
    if (delimiter.start === null && (ch === ' ' || ch === '\t')) return;
    if (WORD_END.has(ch)) this.endDelimiter();
    else delimiter.start ??= this.out.length;
  }

  private endDelimiter(): void {
    const { start, stripTabs } = this.delimiter as NonNullable<Joiner['delimiter']>;
    this.delimiter = null;
    if (start === null) return;
    const raw = this.out.slice(start);
    const delimiter = raw.replace(/\\(.)/gs, '$1').replace(/['"]/g, '');
    const inSubstitution = this.stack.some((context) => context.kind === 'code' && context.close !== null);
    this.pending.push({ delimiter, quoted: /['"\\]/.test(raw), stripTabs, inSubstitution });
  }

  /** The bodies of the here-documents opened on the line that just ended, in order. */
  private hereDocBodies(): void {
    for (const doc of this.pending.splice(0)) {
      while (this.i < this.src.length) {
        const start = this.i;
        const line = doc.quoted ? this.rawLine() : this.joinedLine();
        const text = line.replace(/\n$/, '');
        const tabs = doc.stripTabs ? (/^\t*/.exec(text)?.[0].length ?? 0) : 0;
        if (text.slice(tabs) === doc.delimiter) {
          this.out += line;
          break;
        }
        if (doc.inSubstitution && text.slice(tabs).startsWith(`${doc.delimiter})`)) {
          // The delimiter ends the document and bash reads the rest of the line, as read (joined), from `)`.
          const end = start + tabs + doc.delimiter.length;
          this.src = this.src.slice(0, start) + line + this.src.slice(this.i);
          this.i = start;
          this.copyRaw(end);
          break;
        }
        this.out += line;
      }
    }
  }

  private rawLine(): string {
    const end = this.src.indexOf('\n', this.i);
    const stop = end < 0 ? this.src.length : end + 1;
    const line = this.src.slice(this.i, stop);
    this.i = stop;
    return line;
  }

  private joinedLine(): string {
    let line = '';
    while (this.i < this.src.length) {
      const ch = this.src[this.i] as string;
      if (ch === '\\' && this.src[this.i + 1] === '\n') {
        this.i += 2;
        continue;
      }
      const length = ch === '\\' ? 2 : 1;
      line += this.src.slice(this.i, this.i + length);
      this.i += length;
      if (ch === '\n') break;
    }
    return line;
  }
}
