import { describe, expect, it } from 'vitest';
import { unescapeDoubleQuoted, unescapeUnquoted } from './words';

describe('quote removal', () => {
  it('removes a backslash before any character of an unquoted word, and a backslash-newline whole', () => {
    expect(unescapeUnquoted('c\\url')).toBe('curl');
    expect(unescapeUnquoted('cu\\\nrl')).toBe('curl');
    expect(unescapeUnquoted('a\\\\b')).toBe('a\\b');
  });

  it('keeps only the escapes bash honours inside double quotes', () => {
    expect(unescapeDoubleQuoted('\\$x \\" \\` \\\\ \\n')).toBe('$x " ` \\ \\n');
    expect(unescapeDoubleQuoted('cu\\\nrl')).toBe('curl');
  });

  it('reads backslash pairs left to right, so an escaped backslash keeps the newline after it', () => {
    expect(unescapeDoubleQuoted('a\\\\\nb')).toBe('a\\\nb');
    expect(unescapeDoubleQuoted('a\\\\\\\nb')).toBe('a\\b');
  });
});
