import type { ChatMessage, GenerateRequest, ToolCall, ToolChoice } from '@weft/contracts';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { checkedGenerateRequest, toolNameFor } from '../request-fields';

const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
const blockSchema = z.looseObject({ type: z.string() });
const contentSchema = z.union([z.string(), z.array(blockSchema)]);

const toolSchema = z.looseObject({
  type: z.string().optional(),
  name: z.string(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
});

/** Anthropic's Messages request: the fields Weft honours; others (metadata, thinking, cache_control) are accepted and ignored. */
export const messagesRequestSchema = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: contentSchema })).min(1),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: z
    .object({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() })
    .optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().int().optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

/** `count_tokens` takes the same prompt without `max_tokens`. */
export const countTokensRequestSchema = messagesRequestSchema.omit({ max_tokens: true, stream: true });

const PARAM_NAMES = {
  maxTokens: 'max_tokens',
  topP: 'top_p',
  topK: 'top_k',
  stop: 'stop_sequences',
  toolChoice: 'tool_choice',
} as const;

/** Translates a Messages request into the worker's generate request. */
export function fromMessagesRequest(body: Omit<MessagesRequest, 'max_tokens' | 'stream'> & { max_tokens?: number }): Omit<GenerateRequest, 'sessionId' | 'requestId'> {
  const messages = [...systemMessages(body.system), ...toMessages(body.messages)];
  if (messages.length === 0) throw badRequest('messages: at least one message is required', 'messages');
  const tools = body.tools?.map((tool, i) => {
    if (tool.type !== undefined && tool.type !== 'custom') {
      throw badRequest(`tools[${i}] is a server tool ("${tool.type}"): Weft serves client tools only`, `tools[${i}].type`);
    }
    return { name: tool.name, description: tool.description ?? '', parameters: tool.input_schema ?? { type: 'object', properties: {} } };
  });
  const useTools = tools !== undefined && tools.length > 0 && body.tool_choice?.type !== 'none';
  const request: GenerateRequest = {
    model: body.model,
    messages,
    ...(useTools ? { tools } : {}),
    ...(useTools && body.tool_choice ? { toolChoice: toToolChoice(body.tool_choice) } : {}),
    ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { topP: body.top_p } : {}),
    ...(body.top_k !== undefined ? { topK: body.top_k } : {}),
    ...(body.stop_sequences?.length ? { stop: body.stop_sequences } : {}),
  };
  return checkedGenerateRequest(request, PARAM_NAMES);
}

function systemMessages(system: MessagesRequest['system']): ChatMessage[] {
  if (system === undefined) return [];
  const text = typeof system === 'string' ? system : system.map((b) => b.text).join('\n\n');
  return text === '' ? [] : [{ role: 'system', content: text }];
}

/** One Anthropic message can become several: a user turn's tool results are tool messages, then its text. */
function toMessages(input: MessagesRequest['messages']): ChatMessage[] {
  const messages: ChatMessage[] = [];
  input.forEach((message, index) => {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    blocks.forEach((block, b) => {
      const param = `messages[${index}].content[${b}]`;
      switch (block.type) {
        case 'text':
          texts.push(stringField(block, 'text', param));
          return;
        case 'thinking':
        case 'redacted_thinking':
          return; // The model's own reasoning from an earlier turn: not part of the prompt.
        case 'tool_use':
          if (message.role !== 'assistant') throw badRequest(`${param}: tool_use blocks belong to assistant messages`, `${param}.type`);
          toolCalls.push({ id: stringField(block, 'id', param), name: stringField(block, 'name', param), arguments: inputOf(block.input, param) });
          return;
        case 'tool_result': {
          if (message.role !== 'user') throw badRequest(`${param}: tool_result blocks belong to user messages`, `${param}.type`);
          const toolCallId = stringField(block, 'tool_use_id', param);
          const name = toolNameFor(messages, toolCallId);
          if (!name) throw badRequest(`${param}.tool_use_id "${toolCallId}" answers no earlier tool_use block`, `${param}.tool_use_id`);
          const content = toolResultText(block.content, param);
          messages.push({ role: 'tool', toolCallId, name, content: block.is_error === true ? `Error: ${content}` : content });
          return;
        }
        default:
          throw badRequest(`${param} has type "${block.type}": Weft's models read text, tool_use and tool_result blocks only`, `${param}.type`);
      }
    });
    const content = texts.join('');
    if (message.role === 'assistant') messages.push({ role: 'assistant', content, ...(toolCalls.length ? { toolCalls } : {}) });
    else if (texts.length > 0) messages.push({ role: 'user', content });
  });
  return messages;
}

function toolResultText(content: unknown, param: string): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest(`${param}.content must be a string or a list of text blocks`, `${param}.content`);
  return content
    .map((block: { type?: unknown; text?: unknown }, i) => {
      if (block.type !== 'text' || typeof block.text !== 'string') {
        throw badRequest(`${param}.content[${i}] has type "${String(block.type)}": tool results are read as text only`, `${param}.content[${i}].type`);
      }
      return block.text;
    })
    .join('');
}

function stringField(block: Record<string, unknown>, field: string, param: string): string {
  const value = block[field];
  if (typeof value !== 'string') throw badRequest(`${param}.${field} must be a string`, `${param}.${field}`);
  return value;
}

function inputOf(input: unknown, param: string): Record<string, unknown> {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw badRequest(`${param}.input must be an object`, `${param}.input`);
  return input as Record<string, unknown>;
}

function toToolChoice(choice: NonNullable<MessagesRequest['tool_choice']>): ToolChoice {
  switch (choice.type) {
    case 'auto':
    case 'none':
      return choice.type;
    case 'any':
      return 'required';
    case 'tool':
      if (!choice.name) throw badRequest('tool_choice.name is required when tool_choice.type is "tool"', 'tool_choice.name');
      return { name: choice.name };
  }
}
