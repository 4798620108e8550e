import { AppError, ErrorCode, type ChatMessage, type GenerateResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { GenerateCall } from '../drivers/inference-driver';
import type { OpenAiModelConfig } from '../registry/models-config.schema';
import { toToolCalls, type RawToolCall } from '../tool-calls/to-tool-calls';
import { parseEventData, postForEvents } from './http-stream';
import { RemoteDriver } from './remote-driver';
import { estimatePromptTokens, replyBudget } from './remote-prompt';
import { ToolCallTextFilter, parseToolCallText, renderToolCall, toolCallInstructions } from './tool-call-text';

interface ChunkDelta {
  content?: string | null;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface Chunk {
  choices?: { delta?: ChunkDelta; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | null;
  error?: { message?: string };
}

/**
 * OpenAI-compatible chat completions, streamed (llama-server, Ollama, LM Studio, vLLM, OpenAI).
 * Native tool calls when the endpoint has them; otherwise the `<tool_call>` text format, taught
 * in the system prompt and parsed from the reply. Either way calls come back in Weft's one form.
 */
export class OpenAiDriver extends RemoteDriver<OpenAiModelConfig> {
  constructor(models: readonly OpenAiModelConfig[], apiKeys: Readonly<Record<string, string>>, log: Logger) {
    super('openai', /context_length_exceeded|maximum context length|exceeds the context/i, models, apiKeys, log);
  }

  async generate(modelId: string, { request, onDelta, signal }: GenerateCall): Promise<GenerateResult> {
    const model = this.modelFor(modelId, request);
    const started = performance.now();
    const tools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
    const native = model.nativeTools;
    const messages = native || tools.length === 0 ? request.messages : withTextToolFormat(request.messages, tools);
    const maxTokens = replyBudget(model.id, model.contextSize, estimatePromptTokens(messages, native ? tools : undefined), request.maxTokens);
    const sampling = { ...model.sampling };
    const body = {
      model: model.remoteModel ?? model.id,
      stream: true,
      stream_options: { include_usage: true },
      messages: messages.map((m) => toOpenAiMessage(m, native)),
      max_tokens: maxTokens,
      temperature: request.temperature ?? sampling.temperature,
      top_p: request.topP ?? sampling.topP,
      seed: request.seed ?? sampling.seed,
      stop: request.stop,
      ...(native && tools.length > 0
        ? {
            tools: tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
            tool_choice: typeof request.toolChoice === 'object' ? { type: 'function', function: { name: request.toolChoice.name } } : request.toolChoice,
          }
        : {}),
      ...(request.jsonSchema ? { response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: request.jsonSchema, strict: true } } } : {}),
    };
    const key = model.apiKeyEnv ? this.apiKeys[model.apiKeyEnv] : undefined;
    if (model.apiKeyEnv && !key) this.log.warn({ model: model.id, env: model.apiKeyEnv }, 'API key variable is not set; calling without a key');

    let text = '';
    let firstTokenAt: number | undefined;
    let finish: string | undefined;
    let usage: Chunk['usage'];
    const calls = new Map<number, { id?: string; name: string; args: string }>();
    const filter = new ToolCallTextFilter(onDelta);
    for await (const event of postForEvents(
      {
        url: `${model.baseUrl.replace(/\/$/, '')}/chat/completions`,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        body,
        signal,
        timeoutMs: model.timeoutMs,
        provider: 'openai',
        model: model.id,
      },
      this.contextError(model),
    )) {
      if (event.data === '[DONE]') break;
      const chunk = parseEventData<Chunk>(event, 'openai');
      if (chunk.error) throw new AppError(ErrorCode.ProviderFailed, `openai stream error: ${chunk.error.message ?? 'unknown'}`, { model: model.id }, true);
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.finish_reason) finish = choice.finish_reason;
      const delta = choice.delta ?? {};
      if (delta.content) {
        firstTokenAt ??= performance.now();
        text += delta.content;
        if (native || tools.length === 0) onDelta(delta.content);
        else filter.push(delta.content);
      }
      for (const part of delta.tool_calls ?? []) {
        firstTokenAt ??= performance.now();
        const call = calls.get(part.index) ?? { name: '', args: '' };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.args += part.function.arguments;
        calls.set(part.index, call);
      }
    }
    filter.end();

    let raw: RawToolCall[] = [...calls.values()].map((c) => ({ name: c.name, arguments: parseArguments(c.args) }));
    if (!native && tools.length > 0) {
      const parsed = parseToolCallText(text);
      text = parsed.text;
      raw = parsed.calls;
    }
    const toolCalls = toToolCalls(raw, tools);
    const promptTokens = usage?.prompt_tokens ?? estimatePromptTokens(messages, tools);
    const cachedTokens = usage?.prompt_tokens_details?.cached_tokens ?? 0;
    return {
      text,
      toolCalls,
      finishReason: toolCalls.length > 0 ? 'tool_calls' : finish === 'length' ? 'length' : 'stop',
      usage: { promptTokens, completionTokens: usage?.completion_tokens ?? 0, cachedTokens, evaluatedTokens: promptTokens - cachedTokens },
      timings: { timeToFirstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - started, totalMs: performance.now() - started },
    };
  }
}

function parseArguments(args: string): unknown {
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    // Not an object: toToolCalls reports it as invalid arguments.
    return args;
  }
}

/** The conversation with tools described in the system prompt and past calls written as text. */
function withTextToolFormat(messages: readonly ChatMessage[], tools: Parameters<typeof toolCallInstructions>[0]): ChatMessage[] {
  const instructions = toolCallInstructions(tools);
  const out: ChatMessage[] = [];
  const system = messages.findIndex((m) => m.role === 'system');
  if (system < 0) out.push({ role: 'system', content: instructions });
  messages.forEach((m, i) => {
    if (i === system) out.push({ role: 'system', content: `${m.content}\n\n${instructions}` });
    else if (m.role === 'assistant' && m.toolCalls?.length) {
      out.push({ role: 'assistant', content: [m.content, ...m.toolCalls.map((c) => renderToolCall(c.name, c.arguments))].filter(Boolean).join('\n') });
    } else if (m.role === 'tool') out.push({ role: 'user', content: `Result of ${m.name} (${m.toolCallId}):\n${m.content}` });
    else out.push(m);
  });
  return out;
}

function toOpenAiMessage(message: ChatMessage, native: boolean): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return native && message.toolCalls?.length
        ? {
            role: 'assistant',
            content: message.content || null,
            tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
          }
        : { role: 'assistant', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}
