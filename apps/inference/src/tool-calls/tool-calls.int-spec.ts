import { join } from 'node:path';
import { inferenceConfigSchema } from '@weft/config';
import type { GenerateRequest, ToolCall, ToolDefinition } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';
import { resolveWrapper } from '../llama/llama.driver';
import { LlamaRuntime, type ChatWrapper } from '../llama/llama-runtime';
import { LoadedModel } from '../llama/loaded-model';
import { llamaModelSchema } from '../registry/models-config.schema';
import { validateJson } from './validate-json';

const log = createLogger('tool-calls-test', 'silent');

/**
 * The chat wrapper as resolved for the model, except that every reply starts inside a function
 * call (the mode node-llama-cpp offers wrappers whose format opens replies with one): the model
 * writes a function name and its arguments under the same grammar as a call it chose to make.
 */
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

const SAMPLES = 40;
/** Random weights write junk at about one character a token: room for capped strings to close. */
const FORCED_MAX_TOKENS = 1500;

const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read part of a file',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        offset: { type: 'integer' },
        limit: { type: 'integer' },
      },
      required: ['path', 'offset', 'limit'],
      additionalProperties: false,
    },
  },
  {
    name: 'search',
    description: 'Search the workspace',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        mode: { enum: ['literal', 'regex'] },
        caseSensitive: { type: 'boolean' },
        score: { type: 'number' },
        globs: { type: 'array', items: { type: 'string' }, maxItems: 4 },
        window: { type: 'object', properties: { before: { type: 'integer' }, after: { type: 'integer' } } },
      },
      required: ['query', 'mode', 'caseSensitive', 'score', 'globs', 'window'],
    },
  },
];

describe('tool calls from a local model', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-tools-');
    await makeTestModel(dir);
    nats = await startNats();
    worker = await startWorker(nats.url, dir, {
      models: [{ id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 4096, threads: 1, gpuLayers: 0, sequences: 4 }],
    });
    client = await connectClient(nats.url);
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  function expectWellFormed(call: ToolCall) {
    const tool = tools.find((t) => t.name === call.name);
    expect(tool, `unknown tool ${call.name}`).toBeDefined();
    expect(call.argumentsError, JSON.stringify(call)).toBeUndefined();
    expect(validateJson(call.arguments, tool?.parameters)).toEqual([]);
    // What crossed NATS is what was validated: no Infinity turned into null on the way.
    expect(JSON.parse(JSON.stringify(call.arguments))).toEqual(call.arguments);
  }

  function request(seed: number, toolChoice?: 'required'): GenerateRequest {
    return {
      model: 'tiny',
      sessionId: `tools-${toolChoice ?? 'auto'}-${seed % 4}`,
      messages: [
        { role: 'system', content: 'You are a coding agent. Use the tools.' },
        { role: 'user', content: 'Find where the tests are configured and read that file.' },
      ],
      tools,
      toolChoice,
      maxTokens: FORCED_MAX_TOKENS,
      temperature: 1,
      seed,
    };
  }

  function sample(seed: number, toolChoice: 'required') {
    return client.collect(request(seed, toolChoice));
  }

  it('native function calling, a call forced at every reply: every call parses and matches its schema', async () => {
    // The path the agent loop uses (toolChoice auto: the chat format's own call syntax, each
    // call's arguments held to the grammar node-llama-cpp builds from toChatFunctions), with the
    // reply started inside a call, since random weights seldom write the call syntax by themselves.
    const runtime = new LlamaRuntime(log);
    const backend = await runtime.get();
    const model = await backend.llama.loadModel({ modelPath: join(dir, 'tiny.gguf'), gpuLayers: 0 });
    const context = await model.createContext({ contextSize: 4096, sequences: 4, threads: 1 });
    const config = { ...llamaModelSchema.parse({ id: 'tiny', provider: 'llama', path: 'tiny.gguf', sequences: 4 }), path: 'tiny.gguf' };
    // The generation loop the worker under test runs (INFERENCE_GENERATION_LOOP, or its default).
    const loop = inferenceConfigSchema.parse({ NATS_URL: nats.url, INFERENCE_GENERATION_LOOP: process.env.INFERENCE_GENERATION_LOOP }).INFERENCE_GENERATION_LOOP;
    const wrapper = startingInACall(resolveWrapper(backend, model, 'auto'));
    const loaded = new LoadedModel(backend, model, context, wrapper, config, log, undefined, undefined, loop);
    try {
      const names = new Set<string>();
      for (let seed = 1; seed <= SAMPLES; seed += 4) {
        const batch = await Promise.all(
          [0, 1, 2, 3].map((i) =>
            loaded.generate({ request: request(seed + i), onDelta: () => undefined, signal: new AbortController().signal }),
          ),
        );
        for (const result of batch) {
          expect(result.finishReason, JSON.stringify(result)).toBe('tool_calls');
          expect(result.toolCalls.length).toBeGreaterThan(0);
          result.toolCalls.forEach(expectWellFormed);
          result.toolCalls.forEach((call) => names.add(call.name));
        }
      }
      expect(names.size).toBe(2);
    } finally {
      await context.dispose();
      // The binding is left to the process: the worker under test holds it too.
      await model.dispose();
    }
  });

  it('forces a call with toolChoice "required": every sampled call parses and matches its schema', async () => {
    const names = new Set<string>();
    for (let seed = 1; seed <= SAMPLES; seed += 4) {
      const batch = await Promise.all([0, 1, 2, 3].map((i) => sample(seed + i, 'required')));
      for (const { result, deltas } of batch) {
        expect(result.finishReason).toBe('tool_calls');
        expect(result.toolCalls).toHaveLength(1);
        expect(deltas.join('')).toBe('');
        const call = result.toolCalls[0] as ToolCall;
        expectWellFormed(call);
        names.add(call.name);
      }
    }
    expect(names.size).toBe(2);
  });

  it('flags arguments the grammar cannot express (minimum) with a typed argumentsError, never passes them on', async () => {
    const bounded: ToolDefinition[] = [
      {
        name: 'seek',
        description: 'Seek to a line',
        parameters: { type: 'object', properties: { line: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['line'] },
      },
    ];
    let flagged = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const { result } = await client.collect({
        model: 'tiny',
        messages: [{ role: 'user', content: 'seek' }],
        tools: bounded,
        toolChoice: 'required',
        maxTokens: 200,
        temperature: 1,
        seed,
      });
      const call = result.toolCalls[0] as ToolCall;
      const problems = validateJson(call.arguments, bounded[0]?.parameters);
      if (problems.length === 0) {
        expect(call.argumentsError).toBeUndefined();
      } else {
        flagged++;
        expect(call.argumentsError).toMatchObject({ code: 'INFERENCE.TOOL_ARGUMENTS_INVALID', message: expect.stringMatching(/\$\.line: (below 1|above 9)/) });
      }
    }
    expect(flagged).toBeGreaterThan(0);
  });

  it('forces a named tool, and reports a call cut off by maxTokens as length without a call', async () => {
    const named = await client.collect({
      model: 'tiny',
      messages: [{ role: 'user', content: 'search' }],
      tools,
      toolChoice: { name: 'search' },
      maxTokens: FORCED_MAX_TOKENS,
      temperature: 1,
      seed: 3,
    });
    expect(named.result.toolCalls.map((c) => c.name)).toEqual(['search']);

    const cut = await client.collect({ model: 'tiny', messages: [{ role: 'user', content: 'read' }], tools, toolChoice: 'required', maxTokens: 5 });
    expect(cut.result).toMatchObject({ finishReason: 'length', toolCalls: [] });
  });
});
