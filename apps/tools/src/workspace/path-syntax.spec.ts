import { describe, expect, it } from 'vitest';
import { displayName } from './display-name';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, describePathProblem, findPathProblem } from './path-syntax';

describe('findPathProblem', () => {
  it('accepts names up to 255 bytes and paths up to 4095 bytes', () => {
    expect(findPathProblem(`src/${'a'.repeat(MAX_NAME_BYTES)}`)).toBeNull();
    const names = Array.from({ length: 16 }, () => 'b'.repeat(255));
    expect(findPathProblem(names.join('/'))).toBeNull(); // 16 × 255 + 15 = 4095 bytes
  });

  it('names the component longer than 255 bytes, counting bytes rather than characters', () => {
    const long = 'é'.repeat(128); // 256 bytes in UTF-8
    expect(findPathProblem(`src/${long}/x.ts`)).toEqual({ kind: 'name-too-long', name: long, bytes: 256 });
  });

  it('refuses a whole path over 4095 bytes and a NUL byte', () => {
    const names = Array.from({ length: 17 }, () => 'c'.repeat(240));
    expect(findPathProblem(names.join('/'))).toEqual({ kind: 'path-too-long', bytes: 17 * 240 + 16 });
    expect(findPathProblem('a.txt\0.png')).toEqual({ kind: 'nul-byte' });
  });

  it('describes each problem in words, with a long name shortened', () => {
    expect(findPathProblem('x'.repeat(10_000))).toMatchObject({ kind: 'name-too-long', bytes: 10_000 });
    expect(describePathProblem({ kind: 'name-too-long', name: 'y'.repeat(300), bytes: 300 })).toMatch(
      /^the name 'y{60}… \(300 characters\)' is 300 bytes long; a file or folder name can be at most 255 bytes$/,
    );
    expect(describePathProblem({ kind: 'path-too-long', bytes: 5000 })).toContain(`at most ${MAX_PATH_BYTES} bytes`);
    expect(describePathProblem({ kind: 'nul-byte' })).toBe('it contains a NUL byte');
  });
});

describe('displayName', () => {
  it('escapes control characters so nothing is hidden, and cuts at 200 characters', () => {
    expect(displayName('a\0b\n\x1b[31m')).toBe('a\\0b\\n\\x1b[31m');
    expect(displayName('z'.repeat(10_000))).toBe(`${'z'.repeat(200)}… (10000 characters)`);
  });
});
