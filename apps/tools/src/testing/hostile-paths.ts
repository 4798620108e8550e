import fc from 'fast-check';

/** Names a model, a client or an archive might send to reach outside the workspace or trip a parser. */
const TRICKY_NAMES = [
  '..',
  '.',
  '',
  '...',
  '%2e%2e',
  '%2e',
  '..%2f..',
  '%00',
  '..\\..',
  '\\',
  'C:',
  'C:\\Windows',
  '~',
  '$HOME',
  'a\0b',
  '\0',
  '\u202e..',
  '．．',
  '..\u200b',
  ' ',
  '\n',
];

/** Any code point, lone surrogates included (fast-check's own `binary` unit takes seconds to set up). */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

/**
 * One path component: tricky names, `extra` (names of fixtures the test made), arbitrary unicode
 * and raw code points (lone surrogates included), and lengths around the 255-byte name limit,
 * in one- and two-byte characters.
 */
export function pathComponent(extra: readonly string[] = []): fc.Arbitrary<string> {
  const fixtures = extra.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...extra) }] : [];
  return fc.oneof(
    ...fixtures,
    { weight: 4, arbitrary: fc.constantFrom(...TRICKY_NAMES) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: anyCodePoint, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.oneof(fc.integer({ min: 250, max: 260 }).map((n) => 'n'.repeat(n)), fc.integer({ min: 120, max: 135 }).map((n) => 'é'.repeat(n))) },
  );
}

const separator = fc.oneof({ weight: 6, arbitrary: fc.constant('/') }, fc.constant('//'), fc.constant('\\'), fc.constant('/./'));

/** A whole path built from `pathComponent`s: relative or absolute, `/` or `\` separated, maybe ending in a slash. */
export function hostilePath(extra: readonly string[] = [], maxComponents = 8): fc.Arbitrary<string> {
  const prefix = fc.oneof({ weight: 6, arbitrary: fc.constant('') }, fc.constantFrom('/', '//', './', '\\', 'C:/', 'c:\\'));
  const components = fc.array(fc.tuple(pathComponent(extra), separator), { maxLength: maxComponents });
  return fc
    .tuple(prefix, components, fc.constantFrom('', '', '', '/'))
    .map(([head, parts, tail]) => head + parts.map(([name, sep], i) => (i === 0 ? name : sep + name)).join('') + tail);
}
