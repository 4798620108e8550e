import { AppError, type GenerateRequest, type ToolChoice } from '@weft/contracts';
import { checkedGenerateRequest } from '../request-fields';
import { extraInput, invalidField } from './anthropic-errors';
import { offeredTools } from './deferred-tools';
import { toChatMessages } from './message-content';
import type { CountTokensRequest } from './messages-schema';
import { systemMessages } from './system-prompt';

export { countTokensRequestSchema, messagesRequestSchema, parseMessagesBody, type MessagesRequest } from './messages-schema';

const PARAM_NAMES = {
  maxTokens: 'max_tokens',
  topP: 'top_p',
  topK: 'top_k',
  stop: 'stop_sequences',
  toolChoice: 'tool_choice',
  jsonSchema: 'output_config.format',
} as const;

/**
 * Translates a Messages request into the worker's generate request. Not read: `thinking` (the
 * worker has no reasoning mode to drive), `output_config.effort`, `context_management`,
 * `metadata`, `service_tier`, `cache_control` (Weft reuses a conversation's prefix by itself).
 */
export function fromMessagesRequest(body: CountTokensRequest): Omit<GenerateRequest, 'sessionId' | 'requestId'> {
  // A `thinking.budget_tokens` at or past `max_tokens` is accepted, though Anthropic refuses it:
  // Weft reads no thinking, and Qwen Code sends such requests (its e2e run failed on the refusal).
  refuseServerSide(body);
  const { messages: conversation, toolReferences } = toChatMessages(body.messages);
  const messages = [...systemMessages(body.system), ...conversation];
  if (messages.length === 0) throw invalidField(['messages'], 'at least one message with content is required');
  const tools = offeredTools(body.tools, toolReferences);
  const useTools = tools !== undefined && tools.length > 0 && body.tool_choice?.type !== 'none';
  const format = body.output_config?.format ?? undefined;
  if (format && useTools) {
    throw extraInput(['output_config', 'format'], 'Weft cannot hold a reply to a JSON schema while tools are offered; send tool_choice none or no tools');
  }
  const request: GenerateRequest = {
    model: body.model,
    messages,
    ...(useTools ? { tools } : {}),
    ...(useTools && body.tool_choice ? { toolChoice: toToolChoice(body.tool_choice) } : {}),
    ...(format ? { jsonSchema: format.schema } : {}),
    ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { topP: body.top_p } : {}),
    ...(body.top_k !== undefined ? { topK: body.top_k } : {}),
    ...(body.stop_sequences?.length ? { stop: body.stop_sequences } : {}),
  };
  return checked(request);
}

/** The worker's limits (`temperature` 0–2, at most 16 stop sequences…), refused in Anthropic's words. */
function checked(request: GenerateRequest): GenerateRequest {
  try {
    return checkedGenerateRequest(request, PARAM_NAMES);
  } catch (error) {
    const param = error instanceof AppError ? error.details?.param : undefined;
    if (!(error instanceof AppError) || typeof param !== 'string') throw error;
    throw invalidField(param.split('.'), error.message.replace(/^Invalid [^:]*: /, ''));
  }
}

/** Code execution containers and MCP connectors run on Anthropic's servers; Weft has neither. */
function refuseServerSide(body: CountTokensRequest): void {
  if (body.container !== undefined && body.container !== null) throw extraInput(['container'], 'Weft runs no code execution containers');
  if (body.mcp_servers?.length) throw extraInput(['mcp_servers'], 'Weft does not connect to MCP servers: run them in the client and declare their tools');
}

function toToolChoice(choice: NonNullable<CountTokensRequest['tool_choice']>): ToolChoice {
  switch (choice.type) {
    case 'auto':
    case 'none':
      return choice.type;
    case 'any':
      return 'required';
    case 'tool':
      if (!choice.name) throw invalidField(['tool_choice', 'tool', 'name'], 'Field required');
      return { name: choice.name };
  }
}
