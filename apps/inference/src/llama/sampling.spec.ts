import { describe, expect, it } from 'vitest';
import { resolveSampling } from './sampling';

const base = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };

describe('resolveSampling', () => {
  it('lets the request override the model defaults, and leaves out what neither sets', () => {
    expect(resolveSampling({ ...base, temperature: 0.7, topK: 20 }, { temperature: 0.2, topP: 0.9, seed: 1 })).toEqual({
      temperature: 0.7,
      topK: 20,
      topP: 0.9,
      seed: 1,
      repeatPenalty: false,
    });
  });

  it('has no repeat penalty unless the request or the model asks for one (as llama.cpp and the OpenAI API)', () => {
    expect(resolveSampling(base, {})).toEqual({ repeatPenalty: false });
    expect(resolveSampling(base, { repeatPenalty: 1.1 })).toEqual({ repeatPenalty: { penalty: 1.1 } });
    expect(resolveSampling({ ...base, repeatPenalty: 1 }, { repeatPenalty: 1.1 })).toEqual({ repeatPenalty: false });
  });

  it('maps the repeat penalty (1 turns it off) and stop sequences', () => {
    expect(resolveSampling({ ...base, repeatPenalty: 1.15, stop: ['\n\n'] }, {})).toEqual({
      repeatPenalty: { penalty: 1.15 },
      customStopTriggers: ['\n\n'],
    });
    expect(resolveSampling(base, { repeatPenalty: 1 })).toEqual({ repeatPenalty: false });
  });
});
