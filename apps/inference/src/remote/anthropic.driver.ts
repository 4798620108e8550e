import { AppError, ErrorCode, type ChatMessage, type GenerateResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { GenerateCall } from '../drivers/inference-driver';
import type { AnthropicModelConfig } from '../registry/models-config.schema';
import { toToolCalls } from '../tool-calls/to-tool-calls';
import { parseEventData, postForEvents } from './http-stream';
import { RemoteDriver } from './remote-driver';
import { estimatePromptTokens, replyBudget } from './remote-prompt';

const ANTHROPIC_VERSION = '2023-06-01';

interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
}

type Event =
  | { type: 'message_start'; message: { usage?: Usage } }
  | { type: 'content_block_start'; index: number; content_block: { type: string; id?: string; name?: string; text?: string } }
  | { type: 'content_block_delta'; index: number; delta: { type: string; text?: string; partial_json?: string } }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason?: string | null }; usage?: Usage }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error: { type?: string; message?: string } };

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

/** Anthropic's Messages API, streamed, with native tool use. */
export class AnthropicDriver extends RemoteDriver<AnthropicModelConfig> {
  constructor(models: readonly AnthropicModelConfig[], apiKeys: Readonly<Record<string, string>>, log: Logger) {
    super('anthropic', /prompt is too long|context window|too many tokens/i, models, apiKeys, log);
  }

  async generate(modelId: string, { request, onDelta, signal }: GenerateCall): Promise<GenerateResult> {
    const model = this.modelFor(modelId, request);
    const key = this.apiKeys[model.apiKeyEnv];
    if (!key) throw new AppError(ErrorCode.ProviderFailed, `Model "${model.id}" needs ${model.apiKeyEnv}, which is not set`, { model: model.id });
    const started = performance.now();
    const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
    const maxTokens = replyBudget(model.id, model.contextSize, estimatePromptTokens(request.messages, tools), request.maxTokens, model.maxOutputTokens);
    const system = openingSystem(request.messages);
    const body = {
      model: model.remoteModel ?? model.id,
      stream: true,
      max_tokens: maxTokens,
      ...(system ? { system } : {}),
      messages: toAnthropicMessages(request.messages),
      temperature: request.temperature ?? model.sampling.temperature,
      top_p: request.topP ?? model.sampling.topP,
      top_k: request.topK ?? model.sampling.topK,
      stop_sequences: request.stop,
      ...(tools.length > 0
        ? {
            tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
            ...(request.toolChoice && request.toolChoice !== 'auto'
              ? { tool_choice: typeof request.toolChoice === 'object' ? { type: 'tool', name: request.toolChoice.name } : { type: 'any' } }
              : {}),
          }
        : {}),
    };

    const blocks = new Map<number, Block & { json?: string }>();
    const usage: Usage = {};
    let stopReason: string | undefined;
    let firstTokenAt: number | undefined;
    for await (const message of postForEvents({
      url: `${model.baseUrl.replace(/\/$/, '')}/v1/messages`,
      headers: { 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION },
      body,
      signal,
      timeoutMs: model.timeoutMs,
      provider: 'anthropic',
      model: model.id,
    }, this.contextError(model))) {
      const event = parseEventData<Event>(message, 'anthropic');
      switch (event.type) {
        case 'message_start':
          Object.assign(usage, event.message.usage);
          break;
        case 'content_block_start': {
          const { content_block: block } = event;
          if (block.type === 'tool_use') blocks.set(event.index, { type: 'tool_use', id: block.id ?? '', name: block.name ?? '', input: {}, json: '' });
          else if (block.type === 'text') blocks.set(event.index, { type: 'text', text: block.text ?? '' });
          break;
        }
        case 'content_block_delta': {
          const block = blocks.get(event.index);
          firstTokenAt ??= performance.now();
          if (block?.type === 'text' && event.delta.text) {
            block.text += event.delta.text;
            onDelta(event.delta.text);
          } else if (block?.type === 'tool_use' && event.delta.partial_json) {
            block.json = (block.json ?? '') + event.delta.partial_json;
          }
          break;
        }
        case 'message_delta':
          stopReason = event.delta.stop_reason ?? stopReason;
          Object.assign(usage, event.usage);
          break;
        case 'error':
          throw new AppError(ErrorCode.ProviderFailed, `anthropic stream error: ${event.error.message ?? event.error.type ?? 'unknown'}`, { model: model.id }, event.error.type === 'overloaded_error');
        case 'content_block_stop':
        case 'message_stop':
        case 'ping':
          break;
      }
    }
    const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    const text = ordered.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const toolCalls = toToolCalls(
      ordered.flatMap((b) => (b.type === 'tool_use' ? [{ name: b.name, arguments: parseJson(b.json ?? '') }] : [])),
      tools,
    );
    const cachedTokens = usage.cache_read_input_tokens ?? 0;
    const evaluatedTokens = usage.input_tokens ?? 0;
    return {
      text,
      toolCalls,
      finishReason: toolCalls.length > 0 ? 'tool_calls' : stopReason === 'max_tokens' ? 'length' : 'stop',
      usage: { promptTokens: evaluatedTokens + cachedTokens, completionTokens: usage.output_tokens ?? 0, cachedTokens, evaluatedTokens },
      timings: { timeToFirstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - started, totalMs: performance.now() - started },
    };
  }
}

function parseJson(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    // Reported by toToolCalls as arguments that are not an object.
    return json;
  }
}

/** The system messages that open the conversation, as Anthropic's top-level `system`. */
function openingSystem(messages: readonly ChatMessage[]): string {
  const opening = messages.findIndex((m) => m.role !== 'system');
  return (opening < 0 ? messages : messages.slice(0, opening)).map((m) => m.content).join('\n\n');
}

/**
 * Weft messages as Anthropic turns: tool calls are `tool_use` blocks, results `tool_result` blocks
 * in a user turn. A system message later in the conversation is a text block of the user turn
 * where it stands: hoisted into `system` it would change the prompt's cached opening.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): { role: 'user' | 'assistant'; content: unknown[] }[] {
  const out: { role: 'user' | 'assistant'; content: unknown[] }[] = [];
  const push = (role: 'user' | 'assistant', block: unknown) => {
    const last = out.at(-1);
    if (last?.role === role) last.content.push(block);
    else out.push({ role, content: [block] });
  };
  const opening = messages.findIndex((m) => m.role !== 'system');
  for (const m of opening < 0 ? [] : messages.slice(opening)) {
    switch (m.role) {
      case 'system':
        push('user', { type: 'text', text: `### System message\n\n${m.content}\n\n----` });
        break;
      case 'user':
        push('user', { type: 'text', text: m.content });
        break;
      case 'assistant':
        if (m.content) push('assistant', { type: 'text', text: m.content });
        for (const call of m.toolCalls ?? []) push('assistant', { type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
        break;
      case 'tool':
        push('user', { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content });
        break;
    }
  }
  return out;
}
