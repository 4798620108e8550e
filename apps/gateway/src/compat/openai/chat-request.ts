import type { ChatMessage, GenerateRequest, ToolChoice } from '@weft/contracts';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { checkedGenerateRequest, parseArguments, toolNameFor } from '../request-fields';

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });
const contentSchema = z.union([z.string(), z.array(contentPartSchema)]).nullish();

const toolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: contentSchema }),
  z.object({ role: z.literal('user'), content: contentSchema }),
  z.object({ role: z.literal('assistant'), content: contentSchema, tool_calls: z.array(toolCallSchema).nullish() }),
  z.object({ role: z.literal('tool'), content: contentSchema, tool_call_id: z.string().min(1) }),
]);

const functionToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** OpenAI's Chat Completions request: the fields Weft honours; others are accepted and ignored. */
export const chatCompletionRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  tools: z.array(functionToolSchema).optional(),
  tool_choice: z
    .union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) })])
    .optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z.object({ name: z.string(), schema: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullish() }),
      }),
    ])
    .optional(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  max_tokens: z.number().int().nullish(),
  max_completion_tokens: z.number().int().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  seed: z.number().int().nullish(),
  n: z.number().int().nullish(),
  logprobs: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

const PARAM_NAMES = {
  maxTokens: 'max_tokens',
  topP: 'top_p',
  jsonSchema: 'response_format',
  toolChoice: 'tool_choice',
} as const;

/** Translates a Chat Completions request into the worker's generate request. */
export function fromChatCompletionRequest(body: ChatCompletionRequest): Omit<GenerateRequest, 'sessionId' | 'requestId'> {
  if (body.n != null && body.n !== 1) throw badRequest(`n=${body.n} is not supported: Weft returns exactly one choice`, 'n');
  if (body.logprobs) throw badRequest('logprobs are not supported', 'logprobs');
  const messages = toMessages(body.messages);
  const tools = body.tools?.map((t) => ({ name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters ?? { type: 'object', properties: {} } }));
  const jsonSchema = toJsonSchema(body.response_format);
  if (jsonSchema && tools?.length && body.tool_choice !== 'none') {
    throw badRequest('response_format json_object/json_schema cannot be combined with tools; send one or the other', 'response_format');
  }
  const request: GenerateRequest = {
    model: body.model,
    messages,
    ...(tools?.length && body.tool_choice !== 'none' ? { tools } : {}),
    ...(tools?.length && body.tool_choice ? { toolChoice: toToolChoice(body.tool_choice) } : {}),
    ...(jsonSchema ? { jsonSchema } : {}),
    ...optional('maxTokens', body.max_completion_tokens ?? body.max_tokens),
    ...optional('temperature', body.temperature),
    ...optional('topP', body.top_p),
    ...optional('seed', body.seed),
    ...(body.stop != null ? { stop: typeof body.stop === 'string' ? [body.stop] : body.stop } : {}),
  };
  const checked = checkedGenerateRequest(request, PARAM_NAMES);
  if (checked.stop?.length === 0) delete checked.stop;
  return checked;
}

function toMessages(input: ChatCompletionRequest['messages']): ChatMessage[] {
  const messages: ChatMessage[] = [];
  input.forEach((message, index) => {
    const param = `messages[${index}].content`;
    switch (message.role) {
      case 'system':
      case 'developer':
        messages.push({ role: 'system', content: textOf(message.content, param) });
        return;
      case 'user':
        messages.push({ role: 'user', content: textOf(message.content, param) });
        return;
      case 'assistant': {
        const toolCalls = (message.tool_calls ?? []).map((call, i) => ({
          id: call.id,
          name: call.function.name,
          arguments: parseArguments(call.function.arguments, `messages[${index}].tool_calls[${i}].function.arguments`),
        }));
        messages.push({ role: 'assistant', content: textOf(message.content, param), ...(toolCalls.length ? { toolCalls } : {}) });
        return;
      }
      case 'tool': {
        const name = toolNameFor(messages, message.tool_call_id);
        if (!name) throw badRequest(`messages[${index}].tool_call_id "${message.tool_call_id}" answers no earlier assistant tool call`, `messages[${index}].tool_call_id`);
        messages.push({ role: 'tool', toolCallId: message.tool_call_id, name, content: textOf(message.content, param) });
        return;
      }
    }
  });
  return messages;
}

/** Text content, or text parts joined; any other part (images, audio, files) is refused. */
function textOf(content: z.infer<typeof contentSchema>, param: string): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        throw badRequest(`${param}[${i}] has type "${part.type}": Weft's models read text parts only`, `${param}[${i}].type`);
      }
      return part.text;
    })
    .join('');
}

function toJsonSchema(format: ChatCompletionRequest['response_format']): Record<string, unknown> | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'object' };
  return format.json_schema.schema ?? { type: 'object' };
}

function toToolChoice(choice: NonNullable<ChatCompletionRequest['tool_choice']>): ToolChoice {
  return typeof choice === 'string' ? choice : { name: choice.function.name };
}

function optional<K extends string, V>(key: K, value: V | null | undefined): Partial<Record<K, V>> {
  return value == null ? {} : ({ [key]: value } as Record<K, V>);
}
