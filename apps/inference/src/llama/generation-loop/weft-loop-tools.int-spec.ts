import type { GenerateRequest, GenerateResult, ToolDefinition } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../../testing/worker-harness';
import { llamaModelSchema } from '../../registry/models-config.schema';
import { LlamaRuntime, type ChatWrapper, type LlamaBackend, type LlamaContext, type LlamaModel } from '../llama-runtime';
import { LoadedModel, type GenerationLoop } from '../loaded-model';
import { resolveCallTriggers, weftLoopBlocker } from './stop-triggers';

const log = createLogger('weft-loop-tools-test', 'silent');

/** The wrapper, except that every reply starts inside a function call (as the 40-sample test forces it). */
function startingInACall(wrapper: ChatWrapper): ChatWrapper {
  return new Proxy(wrapper, {
    get(target, property) {
      if (property === 'generateContextState') {
        return (options: Parameters<ChatWrapper['generateContextState']>[0]) => ({
          ...target.generateContextState(options),
          functionCall: { initiallyEngaged: true, disengageInitiallyEngaged: [] },
        });
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The wrapper with another call prefix: one the random model writes by itself. */
function callingWith(wrapper: ChatWrapper, prefix: string): ChatWrapper {
  const functions = wrapper.settings.functions;
  const settings = { ...wrapper.settings, functions: { ...functions, call: { ...functions.call, prefix, prefixAlternateMatches: [] } } };
  return new Proxy(wrapper, {
    get(target, property) {
      if (property === 'settings') return settings;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The wrapper without its start text to ignore. */
function keepingStartText(wrapper: ChatWrapper): ChatWrapper {
  return new Proxy(wrapper, {
    get(target, property) {
      if (property === 'generateContextState') {
        return (options: Parameters<ChatWrapper['generateContextState']>[0]) => ({ ...target.generateContextState(options), ignoreStartText: [] });
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The backend with a LlamaChat that fails: proves that the Weft loop made a reply, not LlamaChat behind it. */
function withoutLlamaChat(backend: LlamaBackend): LlamaBackend {
  const lib = new Proxy(backend.lib, {
    get(target, property) {
      if (property !== 'LlamaChat') return Reflect.get(target, property, target);
      return class {
        constructor() {
          throw new Error('the reply was left to LlamaChat');
        }
      };
    },
  });
  return { ...backend, lib };
}

/** Tools without strings, so that random weights finish a call in a few dozen tokens. */
const tools: ToolDefinition[] = [
  {
    name: 'seek',
    description: 'Seek to a line',
    parameters: { type: 'object', properties: { line: { type: 'integer' }, exact: { type: 'boolean' } }, required: ['line', 'exact'] },
  },
  {
    name: 'mode',
    description: 'Set the mode',
    parameters: { type: 'object', properties: { mode: { enum: ['fast', 'careful'] } }, required: ['mode'] },
  },
];

const withString: ToolDefinition[] = [
  {
    name: 'write',
    description: 'Write a note',
    parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
  },
];

interface Outcome {
  result: GenerateResult;
  deltas: string;
}

/**
 * Native tool calls made by Weft's loop against LlamaChat's on the random-weight test model, through
 * the worker's LoadedModel: one per loop, each on a context of its own over the same weights, with
 * the same chat template. For the same request and seed they must give the same text, the same
 * calls and the same finish, and leave sequences that serve the next turn the same.
 */
describe('Weft generation loop: native tool calls against LlamaChat', () => {
  let dir: string;
  let runtime: LlamaRuntime;
  let backend: LlamaBackend;
  let model: LlamaModel;
  const contexts: LlamaContext[] = [];
  let wrapper: ChatWrapper;

  beforeAll(async () => {
    dir = await makeTempDir('weft-loop-tools-');
    const path = await makeTestModel(dir);
    runtime = new LlamaRuntime(log);
    backend = await runtime.get();
    model = await backend.llama.loadModel({ modelPath: path, gpuLayers: 0 });
    wrapper = backend.lib.resolveChatWrapper(model)!;
  });

  afterAll(async () => {
    for (const context of contexts) await context.dispose();
    await model?.dispose();
    await runtime?.dispose();
    await removeDir(dir);
  });

  async function pair(chatWrapper: ChatWrapper): Promise<Record<GenerationLoop, LoadedModel>> {
    const config = { ...llamaModelSchema.parse({ id: 'tiny', provider: 'llama', path: 'tiny.gguf', sequences: 1 }), path: 'tiny.gguf' };
    const loaded = async (loop: GenerationLoop) => {
      const context = await model.createContext({ contextSize: 2048, sequences: 1, threads: 1 });
      contexts.push(context);
      return new LoadedModel(loop === 'weft' ? withoutLlamaChat(backend) : backend, model, context, chatWrapper, config, log, undefined, undefined, loop);
    };
    return { llamachat: await loaded('llamachat'), weft: await loaded('weft') };
  }

  async function run(loaded: LoadedModel, request: GenerateRequest, signal = new AbortController().signal): Promise<Outcome> {
    const deltas: string[] = [];
    const result = await loaded.generate({ request, onDelta: (text) => deltas.push(text), signal });
    return { result, deltas: deltas.join('') };
  }

  /** What must agree between the loops (timings differ, and the prompt's cache depends on the order of tests). */
  function comparable({ result, deltas }: Outcome) {
    // Call ids are random.
    const toolCalls = result.toolCalls.map(({ id: _id, ...call }) => call);
    return { text: result.text, deltas, toolCalls, finishReason: result.finishReason, completionTokens: result.usage.completionTokens };
  }

  async function expectSame(models: Record<GenerationLoop, LoadedModel>, request: GenerateRequest): Promise<Outcome> {
    const expected = await run(models.llamachat, request);
    const actual = await run(models.weft, request);
    expect(comparable(actual)).toEqual(comparable(expected));
    expect(actual.deltas).toBe(actual.result.text);
    return actual;
  }

  function ask(seed: number, extra: Partial<GenerateRequest> = {}): GenerateRequest {
    return {
      model: 'tiny',
      sessionId: 'tools',
      messages: [
        { role: 'system', content: 'You are a coding agent. Use the tools.' },
        { role: 'user', content: `Find the failing test and open it. Take ${seed}.` },
      ],
      tools,
      maxTokens: 400,
      temperature: 1,
      seed,
      repeatPenalty: 1,
      ...extra,
    };
  }

  it('serves the test model’s template with tools (no reason to leave the reply to LlamaChat)', () => {
    const state = wrapper.generateContextState({ chatHistory: [{ type: 'user', text: 'hi' }, { type: 'model', response: [] }] });
    expect(weftLoopBlocker(state, wrapper, false, true)).toBeUndefined();
  });

  it('makes the same single call as LlamaChat when the reply starts in a call', async () => {
    const models = await pair(startingInACall(wrapper));
    const names = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { result } = await expectSame(models, ask(seed));
      expect(result.finishReason).toBe('tool_calls');
      expect(result.toolCalls).toHaveLength(1);
      names.add(result.toolCalls[0]!.name);
    }
    expect(names.size).toBe(2);
  });

  it('samples the same call with the repeat penalty on and greedily', async () => {
    const models = await pair(startingInACall(wrapper));
    await expectSame(models, ask(7, { repeatPenalty: 1.1 }));
    await expectSame(models, ask(8, { temperature: 0, seed: undefined }));
  });

  it('makes the same parallel calls as LlamaChat with a template that allows them', async () => {
    const mistral = new backend.lib.MistralChatWrapper();
    expect(mistral.settings.functions.parallelism).toBeDefined();
    const models = await pair(startingInACall(mistral));
    let most = 0;
    for (const seed of [1, 2, 3, 4]) {
      const { result } = await expectSame(models, ask(seed, { maxTokens: 120 }));
      most = Math.max(most, result.toolCalls.length);
    }
    expect(most).toBeGreaterThan(1);
  });

  it('ends the call section where the model closes it, as LlamaChat does', async () => {
    // The random model writes "9" after its first call for this seed: as the section's suffix,
    // it closes the section there, before the budget runs out.
    const mistral = new backend.lib.MistralChatWrapper();
    const functions = mistral.settings.functions;
    const parallelism = { ...functions.parallelism!, call: { ...functions.parallelism!.call, sectionSuffix: '9' } };
    const closing = new Proxy(mistral, {
      get(target, property) {
        if (property === 'settings') return { ...target.settings, functions: { ...functions, parallelism } };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const models = await pair(startingInACall(closing));
    const { result } = await expectSame(models, ask(2, { tools: [tools[1]!], maxTokens: 60 }));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.usage.completionTokens).toBeLessThan(60);
  });

  it('writes text, then the call when the model writes the call syntax, as LlamaChat does', async () => {
    // A call prefix made of what the model writes anyway: four letters of its greedy reply, some
    // way in, after a whole character (random weights write stray bytes; before a call, LlamaChat
    // drops a character left incomplete, which a real model does not write).
    const plain = await pair(wrapper);
    const request = ask(1, { temperature: 0, seed: undefined });
    const { result: free } = await expectSame(plain, { ...request, sessionId: 'free' });
    const prefix = /[\x20-\x7e]([a-z]{4})/.exec(free.text.slice(4))?.[1] ?? '';
    expect(prefix).toHaveLength(4);
    const models = await pair(callingWith(wrapper, prefix));
    const { result } = await expectSame(models, request);
    expect(result.text).toBe(free.text.slice(0, free.text.indexOf(prefix)));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toHaveLength(1);
  });

  it('forces a tool as LlamaChat does', async () => {
    const models = await pair(wrapper);
    for (const seed of [1, 2]) {
      const { result } = await expectSame(models, ask(seed, { toolChoice: 'required' }));
      expect(result.toolCalls).toHaveLength(1);
    }
    const { result } = await expectSame(models, ask(3, { toolChoice: { name: 'mode' } }));
    expect(result.toolCalls.map((call) => call.name)).toEqual(['mode']);
  });

  it('caps a string argument and cuts a call at maxTokens as LlamaChat does', async () => {
    const models = await pair(startingInACall(wrapper));
    // The budget sets the string's cap (grammarLimits: 2 characters a token, 32 at least).
    for (const maxTokens of [16, 120]) await expectSame(models, ask(2, { tools: withString, maxTokens }));
    const cut = await expectSame(models, ask(3, { maxTokens: 6 }));
    expect(cut.result).toMatchObject({ finishReason: 'length', toolCalls: [] });
  });

  it('serves the next turn from the same cached tokens after a call', async () => {
    const models = await pair(startingInACall(wrapper));
    const first = await expectSame(models, ask(4));
    const call = first.result.toolCalls[0]!;
    const next = ask(4, {
      messages: [
        ...ask(4).messages,
        { role: 'assistant', content: first.result.text, toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, name: call.name, content: 'line 12: expect(1).toBe(2)' },
      ],
      tools: [],
      maxTokens: 12,
    });
    const expected = await run(models.llamachat, next);
    const actual = await run(models.weft, next);
    expect(comparable(actual)).toEqual(comparable(expected));
    expect(actual.result.usage.cachedTokens).toBe(expected.result.usage.cachedTokens);
    expect(actual.result.usage.cachedTokens).toBeGreaterThan(0);
  });

  it('stops inside a call at an abort and throws its reason', async () => {
    const models = await pair(startingInACall(wrapper));
    const controller = new AbortController();
    const reason = new Error('cancelled by the caller');
    setImmediate(() => controller.abort(reason));
    await expect(run(models.weft, ask(5), controller.signal)).rejects.toBe(reason);
  });

  it('leaves out the start text a Jinja template ignores, as LlamaChat does', async () => {
    const template = model.fileInfo.metadata.tokenizer.chat_template as string;
    const jinja = new backend.lib.JinjaTemplateChatWrapper({ template });
    const state = jinja.generateContextState({ chatHistory: [{ type: 'user', text: 'hi' }, { type: 'model', response: [] }] });
    expect(state.ignoreStartText?.length).toBeGreaterThan(0);
    const models = await pair(jinja);
    // The same template with nothing to ignore: the raw replies, to see that some lost a space.
    const raw = (await pair(keepingStartText(jinja))).weft;
    let stripped = 0;
    // Seeds 9 and 37 begin the reply with a space on the test model; 1 and 2 do not.
    for (const seed of [1, 2, 9, 37]) {
      const request = ask(seed, { tools: [], maxTokens: 2 });
      const { result } = await expectSame(models, request);
      const { result: unfiltered } = await run(raw, request);
      if (unfiltered.text !== result.text) {
        expect(unfiltered.text).toMatch(/^[ \t]/);
        expect(result.text).toBe(unfiltered.text.slice(1));
        stripped++;
      }
    }
    expect(stripped).toBe(2);
    // With tools, the text before a call is the one LlamaChat keeps too.
    await expectSame(models, ask(1, { maxTokens: 40 }));
  });

  it('leaves a template whose call syntax mixes special tokens and text to LlamaChat', () => {
    const triggers = resolveCallTriggers(
      wrapper.settings.functions,
      () => ['[', 1 as never],
      (values) => backend.lib.LlamaText(values as never),
    );
    expect(triggers).toEqual({ unsupported: "the chat template's call syntax mixes special tokens and text" });
  });
});
