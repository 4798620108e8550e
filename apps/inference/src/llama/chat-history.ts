import type { ChatMessage, ToolDefinition } from '@weft/contracts';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions, ChatModelResponse } from 'node-llama-cpp';
import { toGrammarSchema, type GrammarSchemaOptions } from '../tool-calls/grammar-schema';

/**
 * Maps Weft messages to node-llama-cpp's chat history. An assistant turn that called tools, the
 * tool results and the assistant's continuation form one model response, as node-llama-cpp's
 * own function-calling loop builds it, so the chat wrapper renders them the way it trained on.
 */
export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const pendingCalls = new Map<string, ChatModelFunctionCall>();
  let continuing: ChatModelResponse | undefined;

  for (const message of messages) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: message.content });
        continuing = undefined;
        break;
      case 'user':
        history.push({ type: 'user', text: message.content });
        continuing = undefined;
        break;
      case 'assistant': {
        const response: ChatModelResponse = continuing ?? { type: 'model', response: [] };
        if (!continuing) history.push(response);
        if (message.content) response.response.push(message.content);
        (message.toolCalls ?? []).forEach((call, index) => {
          const item: ChatModelFunctionCall = {
            type: 'functionCall',
            name: call.name,
            params: call.arguments,
            result: undefined,
            startsNewChunk: index === 0,
          };
          pendingCalls.set(call.id, item);
          response.response.push(item);
        });
        continuing = message.toolCalls?.length ? response : undefined;
        break;
      }
      case 'tool': {
        const call = pendingCalls.get(message.toolCallId);
        if (call) {
          call.result = message.content;
          pendingCalls.delete(message.toolCallId);
        } else {
          // A result whose call is not in the window (trimmed history): keep it as context.
          history.push({ type: 'user', text: `Result of tool ${message.name}:\n${message.content}` });
          continuing = undefined;
        }
        break;
      }
    }
  }
  return history;
}

/**
 * Tool definitions as node-llama-cpp functions. Their JSON Schema, reduced to what the grammar
 * can express and with every string capped, constrains the arguments.
 */
export function toChatFunctions(
  tools: readonly ToolDefinition[] | undefined,
  limits: GrammarSchemaOptions,
): ChatModelFunctions | undefined {
  if (!tools?.length) return undefined;
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        description: tool.description,
        params: toGrammarSchema(tool.parameters, limits) as ChatModelFunctions[string]['params'],
      },
    ]),
  );
}
