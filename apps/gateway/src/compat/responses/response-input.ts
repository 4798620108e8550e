import type { ChatMessage, ToolCall } from '@weft/contracts';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { parseArguments, parseAt, toolNameFor } from '../request-fields';
import { workerToolName } from './response-tools';

const partSchema = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });

const messageItemSchema = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(partSchema)]),
});

const functionCallItemSchema = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().nullish(),
  arguments: z.string(),
});

const functionCallOutputItemSchema = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(partSchema)]),
});

/** One `input` item as it comes: checked field by field when translated, so a 400 names `input[i].…`. */
export const inputItemSchema = z.looseObject({ type: z.string().optional(), role: z.string().optional() });
export type InputItem = z.infer<typeof inputItemSchema>;

/**
 * `input` items as chat messages, after `history` (a stored conversation). An assistant message
 * and the function calls after it are one reply, so they become ONE assistant message with its
 * tool calls (templates and scripted models count replies); `reasoning` items are accepted and
 * not shown to the model again.
 */
export function toChatMessages(items: readonly InputItem[], history: readonly ChatMessage[] = []): ChatMessage[] {
  const messages: ChatMessage[] = [];
  /** The reply being built from consecutive assistant items, if the last message is one. */
  const openReply = (): Extract<ChatMessage, { role: 'assistant' }> => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const reply: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: '' };
    messages.push(reply);
    return reply;
  };
  items.forEach((raw, i) => {
    const param = `input[${i}]`;
    const type = raw.type ?? (raw.role !== undefined ? 'message' : 'none');
    switch (type) {
      case 'message': {
        const item = parseAt(messageItemSchema, raw, param);
        const content = textOf(item.content, `${param}.content`);
        if (item.role === 'assistant') openReply().content += content;
        else messages.push({ role: item.role === 'user' ? 'user' : 'system', content });
        return;
      }
      case 'function_call': {
        const item = parseAt(functionCallItemSchema, raw, param);
        const call: ToolCall = { id: item.call_id, name: workerToolName(item.name, item.namespace), arguments: parseArguments(item.arguments, `${param}.arguments`) };
        (openReply().toolCalls ??= []).push(call);
        return;
      }
      case 'function_call_output': {
        const item = parseAt(functionCallOutputItemSchema, raw, param);
        // The latest call first, as over history and messages joined (no copy per item: that was quadratic).
        const name = toolNameFor(messages, item.call_id) ?? toolNameFor(history, item.call_id);
        if (!name) throw badRequest(`${param}.call_id "${item.call_id}" answers no earlier function_call`, `${param}.call_id`);
        messages.push({ role: 'tool', toolCallId: item.call_id, name, content: textOf(item.output, `${param}.output`) });
        return;
      }
      case 'reasoning':
        return;
      default:
        throw badRequest(`${param}.type "${String(type)}" is not supported: send message, function_call, function_call_output or reasoning items`, `${param}.type`);
    }
  });
  return messages;
}

/** Text and refusal parts joined; images, files and audio → 400 naming the part. */
function textOf(content: string | ReadonlyArray<z.infer<typeof partSchema>>, param: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') return part.text;
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
      throw badRequest(`${param}[${j}] has type "${part.type}": Weft's models read text parts only`, `${param}[${j}].type`);
    })
    .join('');
}
