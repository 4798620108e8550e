import { describe, expect, it } from 'vitest';
import { inputsFromWords, parseInputs } from './chain-inputs';

describe('chain inputs', () => {
  it('splits key=value words as a shell would, quotes keeping spaces', () => {
    expect(parseInputs(`issue="the login page crashes" branch=main note='a = b'`)).toEqual({
      issue: 'the login page crashes',
      branch: 'main',
      note: 'a = b',
    });
    expect(parseInputs('')).toEqual({});
  });

  it('keeps a word without = so the gateway can name it', () => {
    expect(inputsFromWords(['issue=x=y', 'stray'])).toEqual({ issue: 'x=y', stray: '' });
  });
});
