import { describe, expect, it } from 'vitest';
import { characterCount, validateJson } from './validate-json';

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 8 },
    line: { type: 'integer', minimum: 1 },
    mode: { enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    kind: { $ref: '#/$defs/kind' },
  },
  required: ['path'],
  additionalProperties: false,
  $defs: { kind: { anyOf: [{ const: 'file' }, { const: 'dir' }] } },
};

describe('validateJson', () => {
  it('accepts a value that matches', () => {
    expect(validateJson({ path: 'a.ts', line: 3, mode: 'a', tags: ['x'], kind: 'dir' }, schema)).toEqual([]);
  });

  it('rejects integers that are not safe integers, as a grammar with exponents produces them', () => {
    expect(validateJson({ path: 'a', line: 5e-3 }, schema)).toEqual([expect.stringMatching(/\$\.line: must be integer/)]);
    expect(validateJson({ path: 'a', line: JSON.parse('6030e8373743436042497') as number }, schema)).toEqual([
      expect.stringMatching(/\$\.line: must be integer, got a non-finite number/),
    ]);
    expect(validateJson({ path: 'a', line: 1e300 }, schema)).toHaveLength(1);
    expect(validateJson({ path: 'a', line: 1e3 }, schema)).toEqual([]);
  });

  it('lists every problem with its path', () => {
    const problems = validateJson({ line: 0, mode: 'c', tags: ['1', '2', 3], kind: 'link', extra: true }, schema);
    expect(problems).toEqual(
      expect.arrayContaining([
        '$.path: required',
        '$.line: below 1',
        expect.stringMatching(/^\$\.mode: must be one of/),
        '$.tags: more than 2 items',
        '$.tags[2]: must be string, got number',
        expect.stringMatching(/^\$\.kind: must match at least one/),
        '$.extra: not allowed',
      ]),
    );
  });

  it('counts characters as the grammar does: invalid UTF-8 replacement characters do not count', () => {
    expect(characterCount('añb')).toBe(3);
    expect(characterCount('a\uFFFD\uFFFDb')).toBe(2);
    expect(validateJson({ path: '12345678\uFFFD' }, schema)).toEqual([]);
    expect(validateJson({ path: '123456789' }, schema)).toEqual(['$.path: longer than 8']);
  });
});
