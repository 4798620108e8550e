import { describe, expect, it } from 'vitest';
import { TokenText, type Detokenize } from './token-text';

/** A byte-level vocabulary: token n is the byte n, decoded as UTF-8 the way llama.cpp does (U+FFFD for incomplete bytes). */
const bytes: Detokenize = (tokens) => new TextDecoder().decode(Uint8Array.from(tokens));
const tokensOf = (text: string) => [...new TextEncoder().encode(text)];

function stream(text: string): string[] {
  const out = new TokenText(bytes);
  return [...tokensOf(text).map((token) => out.push(token)), out.flush()];
}

describe('TokenText', () => {
  it('holds the bytes of a character split over tokens until its last byte', () => {
    // "é" is 2 bytes, "€" 3, "😀" 4.
    expect(stream('aé€😀b')).toEqual(['a', '', 'é', '', '', '€', '', '', '', '😀', 'b', '']);
  });

  it('never emits a U+FFFD for a character that arrives whole in the end', () => {
    const pieces = stream('日本語');
    expect(pieces.join('')).toBe('日本語');
    expect(pieces.some((piece) => piece.includes('\uFFFD'))).toBe(false);
  });

  it('lets an invalid byte go as U+FFFD instead of holding the reply forever', () => {
    const out = new TokenText(bytes);
    const pieces = [0xff, 0xfe, 0xfd, 0xfc, 0x61].map((token) => out.push(token));
    expect(pieces.join('') + out.flush()).toBe('\uFFFD'.repeat(4) + 'a');
    expect(pieces[3]).not.toBe('');
  });

  it('renders held bytes at the end of the reply', () => {
    const out = new TokenText(bytes);
    expect(out.push(0xe2)).toBe('');
    expect(out.flush()).toBe('\uFFFD');
  });

  it('does not hold a token marked complete (a special token)', () => {
    const out = new TokenText(bytes);
    expect(out.push(0xe2, true)).toBe('\uFFFD');
  });

  it('passes the tokens before to the detokenizer (leading spaces depend on them)', () => {
    const seen: number[][] = [];
    const out = new TokenText((tokens, previous) => {
      seen.push([...previous]);
      return String(tokens.length);
    }, [1, 2, 3, 4]);
    out.push(5);
    out.push(6);
    expect(seen).toEqual([
      [2, 3, 4],
      [3, 4, 5],
    ]);
  });
});
