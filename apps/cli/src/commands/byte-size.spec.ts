import { describe, expect, it } from 'vitest';
import { parseByteSize } from './byte-size';

describe('parseByteSize', () => {
  it('reads bytes and sizes in powers of 1024', () => {
    expect(parseByteSize('1048576')).toBe(1_048_576);
    expect(parseByteSize('8G')).toBe(8 * 1024 ** 3);
    expect(parseByteSize('500MiB')).toBe(500 * 1024 ** 2);
    expect(parseByteSize('1.5g')).toBe(1.5 * 1024 ** 3);
  });

  it('refuses what is not a positive size', () => {
    for (const bad of ['', '0', '-1', '8X', 'lots', '1e3']) expect(() => parseByteSize(bad)).toThrow(/is not a size/);
  });
});
