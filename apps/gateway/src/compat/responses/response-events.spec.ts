import type { GenerateResult } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { completedResponse, ResponseEventWriter, type ResponseEvent } from './response-events';
import { responseEcho } from './response-object';
import { clientToolName, flatToolName, toResponseTools } from './response-tools';
import { responsesRequestSchema } from './responses-request';

const echo = responseEcho('resp_1', responsesRequestSchema.parse({ model: 'm', input: 'x' }));
const usage = { promptTokens: 20, completionTokens: 5, cachedTokens: 12 };
const result = (over: Partial<GenerateResult>): GenerateResult => ({ text: '', toolCalls: [], finishReason: 'stop', usage, timings: { totalMs: 1 }, ...over });

function run(deltas: string[], final: GenerateResult, namespaced = new Map()) {
  const events: ResponseEvent[] = [];
  const writer = new ResponseEventWriter(echo, namespaced, (event) => events.push(event));
  writer.started();
  for (const delta of deltas) writer.text(delta);
  const response = writer.finished(final);
  return { events, response };
}

describe('streamed Responses events', () => {
  it("come in OpenAI's order, numbered from 0, and the final response holds the streamed items", () => {
    const { events, response } = run(['Hel', 'lo'], result({ text: 'Hello' }));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const messageId = (events[2]?.item as { id: string }).id;
    expect(events.filter((e) => 'item_id' in e).every((e) => e.item_id === messageId)).toBe(true);
    expect(events[6]).toMatchObject({ text: 'Hello', output_index: 0, content_index: 0 });
    expect(response.output).toEqual([{ type: 'message', id: messageId, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }] }]);
    expect(response.usage).toEqual({ input_tokens: 20, input_tokens_details: { cached_tokens: 12 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 });
  });

  it('streams each function call as its own item after the text, with its namespace given back', () => {
    const tools = toResponseTools([{ type: 'namespace', name: 'multi_agent_v1', tools: [{ type: 'function', name: 'spawn_agent' }] }] as never);
    const call = { id: 'call_1', name: flatToolName('multi_agent_v1', 'spawn_agent'), arguments: { task: 'x' } };
    const { events, response } = run([], result({ toolCalls: [call], finishReason: 'tool_calls' }), tools.namespaced);
    expect(events.map((e) => e.type).slice(2)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]?.item).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '', status: 'in_progress' });
    expect(response.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"task":"x"}', status: 'completed' })]);
  });

  it('ends a cut reply with response.incomplete, and a failure with response.failed then error', () => {
    const cut = run(['a'], result({ text: 'a', finishReason: 'length' }));
    expect(cut.events.at(-1)?.type).toBe('response.incomplete');
    expect(cut.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const events: ResponseEvent[] = [];
    const writer = new ResponseEventWriter(echo, new Map(), (event) => events.push(event));
    writer.started();
    writer.text('partial');
    writer.failed({ code: 'INFERENCE.WORKER_LOST', message: 'gone' });
    expect(events.slice(-2).map((e) => [e.type, e.sequence_number])).toEqual([
      ['response.failed', 5],
      ['error', 6],
    ]);
    expect(events.at(-2)?.response).toMatchObject({ status: 'failed', error: { code: 'INFERENCE.WORKER_LOST', message: 'gone' } });
  });

  it('gives a non-streamed request the same response, an empty message when nothing was said', () => {
    expect(completedResponse(echo, new Map(), result({})).output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '' })] })]);
  });
});

describe('namespaced tool names', () => {
  it('are flat names the worker accepts, the same every time, and map back to namespace and name', () => {
    expect(flatToolName('multi_agent_v1', 'close_agent')).toBe('multi_agent_v1__close_agent');
    const odd = flatToolName('mcp.server with spaces', 'x'.repeat(80));
    expect(odd).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(flatToolName('mcp.server with spaces', 'x'.repeat(80))).toBe(odd);
    const tools = toResponseTools([{ type: 'function', name: 'plain' }, { type: 'namespace', name: 'mcp.server with spaces', tools: [{ type: 'function', name: 'x'.repeat(80) }] }] as never);
    expect(clientToolName(tools.namespaced, odd)).toEqual({ name: 'x'.repeat(80), namespace: 'mcp.server with spaces' });
    expect(clientToolName(tools.namespaced, 'plain')).toEqual({ name: 'plain' });
  });
});
