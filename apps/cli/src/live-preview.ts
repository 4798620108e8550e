import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';

/** What the preview needs of a terminal: to write, and its size, read at each draw (it may be resized). */
export interface TerminalOutput {
  write(text: string): unknown;
  readonly columns: number;
  readonly rows: number;
}

export function isTerminalOutput(out: { write(text: string): unknown }): out is TerminalOutput {
  const { columns, rows } = out as Partial<TerminalOutput>;
  return typeof columns === 'number' && typeof rows === 'number' && columns > 0;
}

/**
 * The Markdown block still being received, shown as it arrives (as written, dimmed) and erased
 * when the block is rendered whole: a table or a list is only drawn complete, but the reader
 * sees the words at once. Growing text is appended, never redrawn, so a long block costs what
 * its text does; a block taller than the screen stops growing on screen (the cursor cannot
 * reach rows scrolled away to erase them) until it is rendered.
 */
export class HeldTextPreview {
  private shown = '';

  constructor(
    private readonly out: TerminalOutput,
    private readonly paint: (text: string) => string,
  ) {}

  /** Shows `held`, the whole text held back now. */
  show(held: string): void {
    const text = printable(held);
    if (!text.startsWith(this.shown)) this.clear();
    if (this.rowsOf(text) >= this.out.rows - 1) return;
    const more = text.slice(this.shown.length);
    if (more) this.out.write(this.paint(more));
    this.shown = text;
  }

  /** Takes the preview off the screen, leaving the cursor where it began. */
  clear(): void {
    if (!this.shown) return;
    const up = this.rowsOf(this.shown) - 1;
    this.out.write(`\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`);
    this.shown = '';
  }

  private rowsOf(text: string): number {
    return text.split('\n').reduce((rows, line) => rows + Math.max(1, Math.ceil(stringWidth(line) / this.out.columns)), 0);
  }
}

/** The model's text as a terminal should show it raw: no escape sequences or other controls, tabs as spaces. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return stripVTControlCharacters(text).replace(/\t/g, '    ').replace(/[\x00-\x09\x0b-\x1f\x7f]/g, '');
}
