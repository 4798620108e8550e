import { randomBytes } from 'node:crypto';
import type { GenerateResult, ToolCall } from '@weft/contracts';
import type { ResponsesRequest } from './responses-request';
import type { ClientToolName } from './response-tools';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

export const responseId = () => `resp_${randomBytes(16).toString('hex')}`;
export const itemId = (prefix: 'msg' | 'fc') => `${prefix}_${randomBytes(16).toString('hex')}`;

export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: Array<{ type: 'output_text'; text: string; annotations: []; logprobs: [] }>;
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** Set for a tool of a `namespace` tool: Codex finds the tool by namespace and name. */
  namespace?: string;
  arguments: string;
  status: 'in_progress' | 'completed';
}

export type OutputItem = MessageItem | FunctionCallItem;

export function outputText(text: string) {
  return { type: 'output_text' as const, text, annotations: [] as [], logprobs: [] as [] };
}

export function messageItem(id: string, text: string | undefined, status: MessageItem['status']): MessageItem {
  return { type: 'message', id, status, role: 'assistant', content: text === undefined ? [] : [outputText(text)] };
}

export function functionCallItem(id: string, call: ToolCall, name: ClientToolName, status: FunctionCallItem['status']): FunctionCallItem {
  const args = status === 'completed' ? JSON.stringify(call.arguments) : '';
  return { type: 'function_call', id, call_id: call.id, name: name.name, ...(name.namespace ? { namespace: name.namespace } : {}), arguments: args, status };
}

/** OpenAI's usage: every prompt token is an input token; the cached ones are said apart. */
export function responsesUsage(usage: GenerateResult['usage']) {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** The request fields a response object repeats, fixed when the response is created. */
export interface ResponseEcho {
  id: string;
  created_at: number;
  model: string;
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: null; summary: null };
  store: boolean;
  temperature: number | null;
  text: { format: unknown };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: 'auto' | 'disabled';
  user: string | null;
}

export function responseEcho(id: string, body: ResponsesRequest): ResponseEcho {
  return {
    id,
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    // Weft's models do not reason apart from their reply: nothing to summarise.
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? null,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: body.truncation ?? 'disabled',
    user: body.user ?? null,
  };
}

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  usage?: GenerateResult['usage'];
  error?: { code: string; message: string };
}

/** The `response` object, as returned, streamed in lifecycle events, and stored. */
export function responseObject(echo: ResponseEcho, state: ResponseState) {
  return {
    ...echo,
    object: 'response' as const,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' as const } : null,
    output: state.output,
    usage: state.usage ? responsesUsage(state.usage) : null,
  };
}
export type ResponseObject = ReturnType<typeof responseObject>;
