import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../../testing/worker-harness';
import { LlamaRuntime, type ChatWrapper, type LlamaBackend, type LlamaContext, type LlamaContextSequence, type LlamaModel, type NodeLlamaCpp } from '../llama-runtime';
import { resolveSampling } from '../sampling';
import { resolveStopTriggers, weftLoopBlocker } from './stop-triggers';
import { runWeftLoop, type WeftLoopResult } from './weft-loop';

type History = Parameters<InstanceType<NodeLlamaCpp['LlamaChat']>['generateResponse']>[0];
type Grammar = InstanceType<NodeLlamaCpp['LlamaGrammar']>;

interface Ask {
  user: string;
  maxTokens: number;
  temperature?: number;
  seed?: number;
  repeatPenalty?: number;
  stop?: string[];
  grammar?: Grammar;
}

/**
 * Weft's loop against node-llama-cpp's LlamaChat on the random-weight test model, each on a
 * sequence of its own in one context: for the same prompt and sampling settings they must make
 * the same reply, with the same stop and the same tokens left in the sequence.
 */
describe('Weft generation loop on a real model', () => {
  let dir: string;
  let runtime: LlamaRuntime;
  let backend: LlamaBackend;
  let model: LlamaModel;
  let context: LlamaContext;
  let wrapper: ChatWrapper;
  let chatSequence: LlamaContextSequence;
  let loopSequence: LlamaContextSequence;

  beforeAll(async () => {
    dir = await makeTempDir('weft-loop-');
    const path = await makeTestModel(dir);
    runtime = new LlamaRuntime(createLogger('test', 'silent'));
    backend = await runtime.get();
    model = await backend.llama.loadModel({ modelPath: path, gpuLayers: 0 });
    context = await model.createContext({ contextSize: 2048, sequences: 2, threads: 1 });
    wrapper = backend.lib.resolveChatWrapper(model)!;
    [chatSequence, loopSequence] = [context.getSequence(), context.getSequence()];
  });

  afterAll(async () => {
    await context?.dispose();
    await model?.dispose();
    await runtime?.dispose();
    await removeDir(dir);
  });

  const historyOf = (user: string): History => [
    { type: 'system', text: 'You are a careful coding agent.' },
    { type: 'user', text: user },
  ];

  function render(user: string) {
    const state = wrapper.generateContextState({ chatHistory: [...historyOf(user), { type: 'model', response: [] }] });
    return { state, tokens: state.contextText.tokenize(model.tokenizer) };
  }

  function sampling(ask: Ask) {
    return resolveSampling({ model: 'tiny', messages: [], temperature: ask.temperature ?? 0, seed: ask.seed, repeatPenalty: ask.repeatPenalty, stop: ask.stop }, {});
  }

  async function withLlamaChat(ask: Ask): Promise<WeftLoopResult> {
    const chat = new backend.lib.LlamaChat({ contextSequence: chatSequence, chatWrapper: wrapper });
    try {
      const reply = await chat.generateResponse(historyOf(ask.user), { ...sampling(ask), maxTokens: ask.maxTokens, ...(ask.grammar ? { grammar: ask.grammar } : {}) });
      const stop = reply.metadata.stopReason === 'customStopTrigger' ? 'stopGenerationTrigger' : reply.metadata.stopReason;
      const trigger = reply.metadata.stopReason === 'customStopTrigger' ? reply.metadata.customStopTrigger.join('') : undefined;
      return { text: reply.response, stopReason: stop as WeftLoopResult['stopReason'], ...(trigger !== undefined ? { stopText: trigger } : {}) };
    } finally {
      chat.dispose({ disposeSequence: false });
    }
  }

  async function withWeftLoop(ask: Ask, signal = new AbortController().signal, onText: (text: string) => void = () => undefined): Promise<WeftLoopResult> {
    const { state, tokens } = render(ask.user);
    const { customStopTriggers, ...rest } = sampling(ask);
    const stops = resolveStopTriggers(model, [...state.stopGenerationTriggers, ...(ask.grammar?.stopGenerationTriggers ?? [])], customStopTriggers);
    return runWeftLoop({ lib: backend.lib, model, sequence: loopSequence, prompt: tokens, sampling: rest, stops, grammar: ask.grammar, maxTokens: ask.maxTokens, signal, onToken: () => undefined, onText });
  }

  it('serves the test model’s chat template (no reason to leave it to LlamaChat)', () => {
    expect(weftLoopBlocker(render('hello').state, wrapper, loopSequence.needsCheckpoints)).toBeUndefined();
  });

  it('makes the same greedy reply as LlamaChat, and leaves the same tokens in the sequence', async () => {
    const ask = { user: 'List the files in the workspace.', maxTokens: 24 };
    const expected = await withLlamaChat(ask);
    const streamed: string[] = [];
    const actual = await withWeftLoop(ask, undefined, (text) => streamed.push(text));
    expect(actual).toEqual(expected);
    expect(streamed.join('')).toBe(actual.text);
    expect(loopSequence.contextTokens).toEqual(chatSequence.contextTokens);
  });

  it('samples the same tokens as LlamaChat for a seed at temperature 1', async () => {
    for (const seed of [1, 2, 3]) {
      const ask = { user: `Tell a story, take ${seed}.`, maxTokens: 32, temperature: 1, seed, repeatPenalty: 1 };
      expect(await withWeftLoop(ask)).toEqual(await withLlamaChat(ask));
    }
  });

  it('applies the repeat penalty, reproducibly for a seed', async () => {
    // Not compared with LlamaChat: it penalizes only tokens it has streamed, not those it holds
    // back (a character's first bytes, a possible stop string); this loop penalizes every
    // generated token, as llama-server does, so the two part after the first held token.
    const ask = { user: 'Tell a story.', maxTokens: 48, temperature: 1, seed: 5 };
    const penalized = await withWeftLoop({ ...ask, repeatPenalty: 2 });
    expect(await withWeftLoop({ ...ask, repeatPenalty: 2 })).toEqual(penalized);
    expect((await withWeftLoop({ ...ask, repeatPenalty: 1 })).text).not.toBe(penalized.text);
  });

  it('ends before a stop string that spans tokens and names it, as LlamaChat does', async () => {
    const ask = { user: 'Describe the repository layout.', maxTokens: 40, temperature: 1, seed: 7 };
    const { text } = await withWeftLoop(ask);
    // A stop string made of the reply's own characters 10-15: it crosses token boundaries.
    const stop = text.slice(10, 16);
    expect(stop.length).toBe(6);
    const stopped = { ...ask, stop: [stop] };
    const actual = await withWeftLoop(stopped);
    expect(actual).toEqual({ text: text.slice(0, text.indexOf(stop)), stopReason: 'stopGenerationTrigger', stopText: stop });
    expect(actual).toEqual(await withLlamaChat(stopped));
  });

  it('follows a JSON schema grammar to a reply that parses, as LlamaChat does', async () => {
    const grammar: Grammar = await backend.llama.createGrammarForJsonSchema({
      type: 'object',
      properties: { path: { type: 'string', maxLength: 12 }, line: { type: 'integer' } },
      required: ['path', 'line'],
      additionalProperties: false,
    });
    for (const seed of [1, 2]) {
      const ask = { user: `Where is the bug? Take ${seed}.`, maxTokens: 200, temperature: 1, seed, grammar };
      const actual = await withWeftLoop(ask);
      // The loop names the grammar's own stop string too (LlamaChat names only custom ones); a reply's `stopSequence` is only ever one of the request's.
      expect({ text: actual.text, stopReason: actual.stopReason }).toEqual(await withLlamaChat(ask));
      expect(Object.keys(JSON.parse(actual.text) as object).sort()).toEqual(['line', 'path']);
    }
  });

  it('reuses the tokens the sequence already holds and evaluates only the rest', async () => {
    await withWeftLoop({ user: 'First question.', maxTokens: 4 });
    const before = loopSequence.tokenMeter.getState();
    const { tokens } = render('First question.');
    await withWeftLoop({ user: 'First question.', maxTokens: 4 });
    // The same prompt again: only its last token is evaluated (for its logits), plus the reply.
    expect(loopSequence.tokenMeter.diff(before).usedInputTokens).toBeLessThanOrEqual(1 + 4);
    expect(loopSequence.contextTokens.slice(0, tokens.length)).toEqual(tokens);
  });

  it('stops at an abort and throws its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the caller');
    let pieces = 0;
    const outcome = withWeftLoop({ user: 'Go on forever.', maxTokens: 0, temperature: 1, seed: 3 }, controller.signal, () => {
      if (++pieces === 3) controller.abort(reason);
    });
    await expect(outcome).rejects.toBe(reason);
    expect(pieces).toBe(3);
  });
});
