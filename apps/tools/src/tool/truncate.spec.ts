import { describe, expect, it } from 'vitest';
import { truncateOutput } from './truncate';

describe('truncateOutput', () => {
  it('leaves short output alone', () => {
    expect(truncateOutput('hello', 5)).toBe('hello');
  });

  it('cuts long output and says how much was shown', () => {
    expect(truncateOutput('abcdefghij', 4)).toBe('abcd\n\n[output truncated: showed 4 of 10 bytes]');
  });

  it('never splits a multi-byte character', () => {
    const out = truncateOutput('ééé', 3);
    expect(out.startsWith('é\n')).toBe(true);
    expect(out).not.toContain('\uFFFD');
  });
});
