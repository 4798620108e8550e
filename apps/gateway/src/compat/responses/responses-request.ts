import type { ChatMessage, GenerateRequest } from '@weft/contracts';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { checkedGenerateRequest } from '../request-fields';
import { inputItemSchema, toChatMessages } from './response-input';
import { responseToolChoiceSchema, toResponseTools, toToolChoice, type ResponseTools } from './response-tools';

const textFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

/** OpenAI's smallest reply bound: below it, OpenAI answers 400. */
export const MIN_OUTPUT_TOKENS = 16;

/** The `include` values OpenAI knows; Weft has none of their data to add, but an unknown one is a 400 as there. */
const INCLUDABLE = [
  'code_interpreter_call.outputs',
  'computer_call_output.output.image_url',
  'file_search_call.results',
  'message.input_image.image_url',
  'message.output_text.logprobs',
  'reasoning.encrypted_content',
  'web_search_call.action.sources',
  'web_search_call.results',
] as const;

/** What `POST /responses/input_tokens` reads: the create body less what only a generation needs. */
export const inputTokensRequestSchema = z.object({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(inputItemSchema)]).nullish(),
  instructions: z.string().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: responseToolChoiceSchema.nullish(),
  text: z.object({ format: textFormatSchema.nullish() }).nullish(),
  // Accepted and ignored (docs/api.md): they change nothing Weft's models do.
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z.looseObject({}).nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  conversation: z.unknown().optional(),
});

/** OpenAI's Responses create body: the fields Weft honours; others are accepted and ignored. */
export const responsesRequestSchema = inputTokensRequestSchema.extend({
  input: z.union([z.string(), z.array(inputItemSchema)]),
  max_output_tokens: z.number().int().min(MIN_OUTPUT_TOKENS).nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  background: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  prompt_cache_key: z.string().nullish(),
  top_logprobs: z.number().int().nullish(),
  prompt: z.unknown().optional(),
  user: z.string().nullish(),
  include: z.array(z.enum(INCLUDABLE)).nullish(),
  service_tier: z.string().nullish(),
});
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
export type InputTokensRequest = z.infer<typeof inputTokensRequestSchema>;
/** Either body: input_tokens reads the same fields less the generation's own. */
type Translatable = InputTokensRequest & Partial<Pick<ResponsesRequest, 'max_output_tokens' | 'temperature' | 'top_p' | 'background' | 'prompt' | 'top_logprobs'>>;

const PARAM_NAMES = {
  maxTokens: 'max_output_tokens',
  topP: 'top_p',
  jsonSchema: 'text.format',
  toolChoice: 'tool_choice',
  tools: 'tools',
  messages: 'input',
} as const;

/** A request translated: what goes to the worker, and what the reply and the store need. */
export interface TranslatedRequest {
  generate: Omit<GenerateRequest, 'sessionId' | 'requestId'>;
  tools: ResponseTools;
  /** The conversation without `instructions`, which a follow-up by `previous_response_id` does not inherit. */
  conversation: ChatMessage[];
}

/**
 * Translates a Responses request into the worker's generate request, after `history` (the stored
 * conversation of `previous_response_id`). `instructions` is the system prompt, first.
 */
export function fromResponsesRequest(body: Translatable, history: readonly ChatMessage[] = []): TranslatedRequest {
  refuseUnsupported(body);
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []);
  const conversation = [...history, ...toChatMessages(input, history)];
  const messages: ChatMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }, ...conversation] : conversation;
  if (messages.length === 0) throw badRequest('input is empty: send at least one message', 'input');
  const tools = toResponseTools(body.tools);
  const choice = body.tool_choice ?? 'auto';
  const withTools = tools.tools.length > 0 && choice !== 'none';
  const jsonSchema = toJsonSchema(body.text?.format);
  if (jsonSchema && withTools) throw badRequest('text.format json_object/json_schema cannot be combined with tools; send one or the other', 'text.format');
  const generate = checkedGenerateRequest(
    {
      model: body.model,
      messages,
      ...(withTools ? { tools: tools.tools } : {}),
      ...(withTools && body.tool_choice ? { toolChoice: toToolChoice(body.tool_choice) } : {}),
      ...(jsonSchema ? { jsonSchema } : {}),
      ...(body.max_output_tokens != null ? { maxTokens: body.max_output_tokens } : {}),
      ...(body.temperature != null ? { temperature: body.temperature } : {}),
      ...(body.top_p != null ? { topP: body.top_p } : {}),
    },
    PARAM_NAMES,
  );
  return { generate, tools, conversation };
}

function refuseUnsupported(body: Translatable): void {
  if (body.conversation != null) throw badRequest('conversation is not supported: chain responses with previous_response_id', 'conversation');
  if (body.background) throw badRequest('background responses are not supported: stream the response instead', 'background');
  if (body.prompt != null) throw badRequest('prompt templates are not supported: send instructions and input', 'prompt');
  if (body.top_logprobs) throw badRequest('top_logprobs are not supported', 'top_logprobs');
}

function toJsonSchema(format: z.infer<typeof textFormatSchema> | null | undefined): Record<string, unknown> | undefined {
  if (!format || format.type === 'text') return undefined;
  return format.type === 'json_object' ? { type: 'object' } : format.schema;
}
