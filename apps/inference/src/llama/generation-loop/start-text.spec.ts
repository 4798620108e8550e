import { describe, expect, it } from 'vitest';
import { loopInternals } from './loop-internals';
import { StartText } from './start-text';

/** A StartText over node-llama-cpp's own stop detector, as the worker builds it. */
async function startText(...triggers: string[]): Promise<StartText> {
  const { StopGenerationDetector } = await loopInternals();
  const detector = new StopGenerationDetector();
  for (const trigger of triggers) detector.addStopTrigger([trigger]);
  return new StartText(detector);
}

describe('StartText', () => {
  it('leaves out one leading space, as a Jinja template’s triggers come to in LlamaChat’s detector', async () => {
    const start = await startText(' ', '  ', '   ', '\t');
    expect(start.take('  hello')).toBe(' hello');
    expect(start.take(' world')).toBe(' world');
    expect(start.ignored).toBe(' ');
  });

  it('holds text that may still become the start text, then lets it go when it does not', async () => {
    const start = await startText('<ok>');
    expect(start.take('<o')).toBe('');
    expect(start.take('x')).toBe('<ox');
    expect(start.take('<ok>')).toBe('<ok>');
  });

  it('drops start text split over tokens, and gives held text back at the end of a reply', async () => {
    const split = await startText('<ok>');
    expect(split.take('<o')).toBe('');
    expect(split.take('k>hi')).toBe('hi');
    const short = await startText('<ok>');
    expect(short.take('<o')).toBe('');
    expect(short.flush()).toBe('<o');
  });

  it('passes everything without start text to ignore', () => {
    const none = new StartText(undefined);
    expect(none.take(' a')).toBe(' a');
    expect(none.flush()).toBe('');
  });
});
