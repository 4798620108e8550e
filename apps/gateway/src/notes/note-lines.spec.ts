import { describe, expect, it } from 'vitest';
import { noteLines } from './note-lines';

describe('noteLines', () => {
  it('takes "Remember:" and "Note for Junior:" lines from an answer, keeping who a note is for', () => {
    const answer = [
      'I fixed the parser.',
      'Remember: the tests run with `npm run test:unit`.',
      '- Note for Junior: never edit generated files under dist/',
      '**Note to senior:** I could not run the e2e tests',
      'This is not a note: the word appears mid-sentence.',
    ].join('\n');
    expect(noteLines(answer)).toEqual([
      'the tests run with `npm run test:unit`.',
      'Note for Junior: never edit generated files under dist/',
      'Note to senior: I could not run the e2e tests',
    ]);
  });

  it('ignores empty notes and text without any', () => {
    expect(noteLines('Remember:   \nAll done.')).toEqual([]);
    expect(noteLines('')).toEqual([]);
  });
});
