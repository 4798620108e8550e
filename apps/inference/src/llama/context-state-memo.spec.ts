import { describe, expect, it } from 'vitest';
import { memoizeContextState, renderContextState } from './context-state-memo';
import type { ChatWrapper } from './llama-runtime';

/** A chat wrapper that counts its renders. */
function countingWrapper() {
  const wrapper = {
    renders: 0,
    generateContextState(options: { chatHistory: unknown[] }) {
      this.renders++;
      return { contextText: `rendered ${JSON.stringify(options.chatHistory)} #${this.renders}` };
    },
  };
  return { wrapper, memo: memoizeContextState(wrapper as unknown as ChatWrapper) };
}

type Options = Parameters<ChatWrapper['generateContextState']>[0];
const history = (text: string) => [{ type: 'user', text }, { type: 'model', response: [] }] as Options['chatHistory'];

describe('memoizeContextState', () => {
  it('renders a history once for the worker and LlamaChat alike: equal content, one render, the same result', () => {
    const { wrapper, memo } = countingWrapper();
    const functions = { read_file: { description: 'Read a file' } } as unknown as Options['availableFunctions'];
    const first = memo.generateContextState({ chatHistory: history('hi'), availableFunctions: functions });
    const second = memo.generateContextState({ chatHistory: history('hi'), availableFunctions: functions });
    expect(second).toBe(first);
    expect(wrapper.renders).toBe(1);
  });

  it('renders again for another history, another functions object or documentFunctionParams', () => {
    const { wrapper, memo } = countingWrapper();
    const functions = {} as Options['availableFunctions'];
    memo.generateContextState({ chatHistory: history('hi'), availableFunctions: functions });
    memo.generateContextState({ chatHistory: history('hi!'), availableFunctions: functions });
    memo.generateContextState({ chatHistory: history('hi'), availableFunctions: {} as Options['availableFunctions'] });
    memo.generateContextState({ chatHistory: history('hi'), availableFunctions: functions, documentFunctionParams: true });
    memo.generateContextState({ chatHistory: history('hi') });
    expect(wrapper.renders).toBe(5);
  });

  it('keeps the 16 latest renders and forgets the oldest', () => {
    const { wrapper, memo } = countingWrapper();
    for (let i = 0; i <= 16; i++) memo.generateContextState({ chatHistory: history(`request ${i}`) });
    memo.generateContextState({ chatHistory: history('request 16') });
    expect(wrapper.renders).toBe(17);
    memo.generateContextState({ chatHistory: history('request 0') });
    expect(wrapper.renders).toBe(18);
  });

  it('always computes the worker\'s own render, then answers LlamaChat\'s from it', () => {
    const { wrapper, memo } = countingWrapper();
    // Someone else's request rendered this very prompt a moment ago...
    renderContextState(memo, { chatHistory: history('the same prompt') });
    memo.generateContextState({ chatHistory: history('the same prompt') });
    expect(wrapper.renders).toBe(1);
    // ...this request's own render still takes its full time: nothing tells it the prompt was seen.
    const own = renderContextState(memo, { chatHistory: history('the same prompt') });
    expect(wrapper.renders).toBe(2);
    expect(memo.generateContextState({ chatHistory: history('the same prompt') })).toBe(own);
    expect(wrapper.renders).toBe(2);
  });

  it('renders plainly for a wrapper that is not memoized', () => {
    const wrapper = { renders: 0, generateContextState: () => ({ contextText: `#${++wrapper.renders}` }) };
    renderContextState(wrapper as unknown as ChatWrapper, { chatHistory: history('hi') });
    renderContextState(wrapper as unknown as ChatWrapper, { chatHistory: history('hi') });
    expect(wrapper.renders).toBe(2);
  });
});
