import { createRequire } from 'node:module';
import { stripVTControlCharacters } from 'node:util';

/**
 * marked and marked-terminal (with highlight.js) take half a second to load: they are loaded at
 * the first answer rendered, so no other command (and no `--raw` or piped run) pays for them.
 */
const load = createRequire(__filename);

/** Turns a finished piece of Markdown into terminal text: tables drawn, code blocks shown without fences. */
export type MarkdownToTerminal = (markdown: string) => string;

/** Text this wide at most, even on a wider terminal: long lines are hard to read. */
const MAX_WIDTH = 120;

/**
 * GitHub-flavoured Markdown for a terminal `columns` wide (marked with marked-terminal). Without
 * `colors` (NO_COLOR) its styling is taken off again: marked-terminal's chalk does not read NO_COLOR.
 */
export function terminalMarkdown(columns: number | undefined, colors: boolean): MarkdownToTerminal {
  const width = Math.min(columns ?? 80, MAX_WIDTH);
  let marked: import('marked').Marked | undefined;
  return (markdown) => {
    if (!marked) {
      const { Marked } = load('marked') as typeof import('marked');
      const { markedTerminal } = load('marked-terminal') as typeof import('marked-terminal');
      marked = new Marked({ gfm: true, async: false }, markedTerminal({ width, reflowText: true, emoji: false, showSectionPrefix: false, tab: 2 }), {
        // A tight list item's text carries inline tokens (code, bold) that marked-terminal's text
        // renderer prints raw, backticks and all: render them as marked's own renderer does.
        renderer: {
          text(token) {
            return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
          },
        },
      });
    }
    const text = marked.parse(markdown, { async: false });
    return colors ? text : stripVTControlCharacters(text);
  };
}

/**
 * Renders streamed Markdown a block at a time: text is held until a blank line outside a code
 * fence ends a block (a table, a list, a fence is only drawn whole), then that much is rendered.
 */
export class MarkdownStream {
  private pending = '';

  constructor(private readonly render: MarkdownToTerminal) {}

  /** Takes more text; returns the rendering of the blocks it completed ('' while a block is open). */
  push(text: string): string {
    this.pending += text;
    const end = lastBlockEnd(this.pending);
    if (end === 0) return '';
    const done = this.pending.slice(0, end);
    this.pending = this.pending.slice(end);
    return this.render(done);
  }

  /** The text of the block still open. */
  get held(): string {
    return this.pending;
  }

  /** Renders what is held (the message ended): '' when nothing is. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest.trim() ? this.render(rest) : '';
  }
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Where the last complete block ends: just after the last blank line outside a fence (0: none yet). */
function lastBlockEnd(text: string): number {
  let end = 0;
  let fence: string | undefined;
  let offset = 0;
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const complete = index < lines.length - 1; // the last piece has no newline yet
    const next = offset + line.length + 1;
    const marker = FENCE.exec(line)?.[1];
    if (complete && marker) {
      if (!fence) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    } else if (complete && !fence && line.trim() === '' && index > 0) end = next;
    offset = next;
  });
  return end;
}
