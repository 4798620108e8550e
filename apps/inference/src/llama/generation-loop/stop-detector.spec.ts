import { describe, expect, it } from 'vitest';
import { StopDetector } from './stop-detector';

/** Feeds the pieces one by one; returns what was released and whether a stop was met. */
function run(detector: StopDetector, pieces: string[]): { text: string; stopped: boolean; releases: string[] } {
  const releases: string[] = [];
  for (const piece of pieces) {
    const step = detector.push(piece);
    releases.push(step.release);
    if (step.stopped) return { text: releases.join(''), stopped: true, releases };
  }
  releases.push(detector.flush());
  return { text: releases.join(''), stopped: false, releases };
}

describe('StopDetector', () => {
  it('stops on a stop string that spans three tokens and keeps none of it', () => {
    const result = run(new StopDetector(['</end>']), ['Hello <', '/e', 'nd>', ' never']);
    expect(result).toMatchObject({ text: 'Hello ', stopped: true });
  });

  it('holds back text that may begin a stop string until the next token decides', () => {
    const result = run(new StopDetector(['</end>']), ['a </', 'b', 'c']);
    expect(result.releases).toEqual(['a ', '</b', 'c', '']);
    expect(result.stopped).toBe(false);
  });

  it('releases held text at the end of a reply that met no stop', () => {
    const result = run(new StopDetector(['STOP']), ['wait ST']);
    expect(result.releases).toEqual(['wait ', 'ST']);
  });

  it('ends at the earliest of several stop strings, and names the one met', () => {
    const result = run(new StopDetector(['bb', 'abc']), ['xabcbb']);
    expect(result.text).toBe('x');
    expect(new StopDetector(['bb', 'abc']).push('xabcbb')).toEqual({ release: 'x', stopped: true, matched: 'abc' });
  });

  it('stops within a token and drops the text after the stop string', () => {
    const result = run(new StopDetector(['\n\n']), ['one\n', '\ntwo']);
    expect(result).toMatchObject({ text: 'one', stopped: true });
  });

  it('stops on a token sequence, without its text', () => {
    const detector = new StopDetector([], [[7, 8]]);
    expect(detector.push('a', [7])).toEqual({ release: 'a', stopped: false });
    expect(detector.push('b', [8])).toEqual({ release: '', stopped: true });
  });

  it('releases everything at once when there are no stop strings', () => {
    expect(new StopDetector([]).push('abc')).toEqual({ release: 'abc', stopped: false });
  });

  describe('function call syntax', () => {
    const calls = (...texts: string[]) => ({ texts, tokenSequences: [] });

    it('ends the text where a call begins and gives the text after it in the same token', () => {
      const detector = new StopDetector(['<|im_end|>'], [], calls('||call:'));
      expect(detector.push('Let me look. |', [1])).toEqual({ release: 'Let me look. ', stopped: false });
      expect(detector.push('|call: rea', [2])).toEqual({ release: '', stopped: true, call: { rest: ' rea' } });
    });

    it('meets the shorter of two call triggers that begin at the same place', () => {
      const detector = new StopDetector([], [], calls('||call: ', '||call:'));
      expect(detector.push('x ||call: read')).toEqual({ release: 'x ', stopped: true, call: { rest: ' read' } });
    });

    it('prefers a call to a stop met in the same token', () => {
      const detector = new StopDetector(['END'], [], calls('@@'));
      expect(detector.push('a END b @@c')).toEqual({ release: 'a END b ', stopped: true, call: { rest: 'c' } });
    });

    it('meets a call that begins with special tokens as their token sequence', () => {
      const detector = new StopDetector([], [[9]], { texts: [], tokenSequences: [[5, 6]] });
      expect(detector.push('', [5])).toEqual({ release: '', stopped: false });
      expect(detector.push('', [6])).toEqual({ release: '', stopped: true, call: { rest: '' } });
    });
  });
});
