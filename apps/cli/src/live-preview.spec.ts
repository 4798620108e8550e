import { describe, expect, it } from 'vitest';
import { HeldTextPreview } from './live-preview';

/** A terminal's stream as the preview sees it: its size, and everything written to it. */
function terminal(columns = 20, rows = 10) {
  const writes: string[] = [];
  return { out: { columns, rows, write: (text: string) => writes.push(text) }, writes };
}

describe('the preview of a block still being received', () => {
  it('appends growing text, and erases exactly the rows it took', () => {
    const { out, writes } = terminal(20);
    const preview = new HeldTextPreview(out, (text) => text);
    preview.show('Hello');
    preview.show('Hello, world');
    preview.show('Hello, world, this wraps past twenty columns\nand a second line');
    expect(writes).toEqual(['Hello', ', world', ', this wraps past twenty columns\nand a second line']);

    preview.clear();
    // 44 columns of the first line take 3 rows, the second line 1: up 3 rows from the last.
    expect(writes.at(-1)).toBe('\r\x1b[3A\x1b[J');
  });

  it('redraws when the held text is no longer what it showed, and keeps escape sequences out', () => {
    const { out, writes } = terminal();
    const preview = new HeldTextPreview(out, (text) => text);
    preview.show('one');
    preview.show('\x1b]0;pwned\x07two\tcols');
    expect(writes).toEqual(['one', '\r\x1b[J', 'two    cols']);
  });

  it('stops growing a block taller than the screen, so that it can still be erased', () => {
    const { out, writes } = terminal(20, 4);
    const preview = new HeldTextPreview(out, (text) => text);
    preview.show('a\nb');
    preview.show('a\nb\nc\nd\ne');
    expect(writes).toEqual(['a\nb']);
  });
});
