import type { ChatMessage, ToolDefinition } from '@weft/contracts';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { RunSample } from './stats';

export interface OpenAiReply extends RunSample {
  promptTokens: number;
  cachedTokens: number;
  text: string;
}

/**
 * The OpenAI-compatible path as an editor or another agent uses it: the official `openai` SDK,
 * streamed chat completions, the whole conversation sent on every request (stateless). The
 * gateway derives the cache key from the conversation's opening, so the worker's sequence
 * still holds the previous turn and evaluates only what is new.
 */
export class OpenAiPath {
  private readonly client: OpenAI;

  constructor(gatewayBase: string, apiKey: string) {
    this.client = new OpenAI({ baseURL: `${gatewayBase}/openai/v1`, apiKey, maxRetries: 0, timeout: 600_000 });
  }

  async chat(model: string, messages: readonly ChatMessage[], maxTokens: number, tools?: readonly ToolDefinition[]): Promise<OpenAiReply> {
    const started = performance.now();
    let ttftMs = Number.NaN;
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    const stream = await this.client.chat.completions.create({
      model,
      messages: messages.map(toOpenAiMessage),
      max_tokens: maxTokens,
      stream: true,
      stream_options: { include_usage: true },
      ...(tools ? { tools: tools.map(toOpenAiTool) } : {}),
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if ((delta?.content || delta?.tool_calls) && Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
      text += delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    if (!usage) throw new Error('the stream ended without usage');
    const cachedTokens = usage.prompt_tokens_details?.cached_tokens ?? 0;
    return { ttftMs, tokens: usage.completion_tokens, evaluated: usage.prompt_tokens - cachedTokens, promptTokens: usage.prompt_tokens, cachedTokens, text };
  }
}

function toOpenAiMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toOpenAiTool(tool: ToolDefinition): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> } };
}
