import type { ChatMessage, ToolCall } from '@weft/contracts';
import { toolNameFor } from '../request-fields';
import { type FieldPath, invalidField, unexpectedTag } from './anthropic-errors';
import type { MessagesRequest } from './messages-schema';

/** A `tool_reference` block in a tool result: the tool it names is loaded from then on. */
export interface ToolReference {
  name: string;
  /** The block's place, to name it in an error. */
  path: FieldPath;
}

type Block = { type: string } & Record<string, unknown>;

const USER_BLOCKS = ['text', 'tool_result'] as const;
const ASSISTANT_BLOCKS = ['text', 'tool_use', 'thinking', 'redacted_thinking'] as const;
const TOOL_RESULT_BLOCKS = ['text', 'tool_reference'] as const;

/**
 * Anthropic's messages as Weft's. One message can become several: a user turn's tool results
 * are tool messages, then its text. A `system` entry stays where it stands in the conversation.
 */
export function toChatMessages(input: MessagesRequest['messages']): { messages: ChatMessage[]; toolReferences: ToolReference[] } {
  const messages: ChatMessage[] = [];
  const toolReferences: ToolReference[] = [];
  input.forEach((message, index) => {
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    blocks.forEach((block, b) => {
      const path = ['messages', index, 'content', b];
      if (message.role === 'system') {
        texts.push(systemBlockText(block, path));
        return;
      }
      switch (block.type) {
        case 'text':
          texts.push(stringField(block, 'text', path));
          return;
        case 'thinking':
        case 'redacted_thinking':
          if (message.role !== 'assistant') throw unexpectedTag(path, block.type, USER_BLOCKS, 'thinking blocks belong to assistant messages');
          return; // The model's own reasoning from an earlier turn: not part of the prompt.
        case 'tool_use':
          if (message.role !== 'assistant') throw unexpectedTag(path, block.type, USER_BLOCKS, 'tool_use blocks belong to assistant messages');
          toolCalls.push({ id: stringField(block, 'id', path), name: stringField(block, 'name', path), arguments: inputOf(block.input, path) });
          return;
        case 'tool_result': {
          if (message.role !== 'user') throw unexpectedTag(path, block.type, ASSISTANT_BLOCKS, 'tool_result blocks belong to user messages');
          const toolCallId = stringField(block, 'tool_use_id', path);
          const name = toolNameFor(messages, toolCallId);
          if (!name) throw invalidField(path, `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${toolCallId}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
          const content = toolResultText(block.content, path, toolReferences);
          messages.push({ role: 'tool', toolCallId, name, content: block.is_error === true ? `Error: ${content}` : content });
          return;
        }
        default:
          throw unexpectedTag(path, block.type, message.role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS, "Weft's models read text, tool_use and tool_result blocks only");
      }
    });
    if (message.role === 'system') {
      const content = texts.join('\n\n');
      if (content !== '') messages.push({ role: 'system', content });
      return;
    }
    const content = texts.join('');
    if (message.role === 'assistant') messages.push({ role: 'assistant', content, ...(toolCalls.length ? { toolCalls } : {}) });
    else if (texts.length > 0) messages.push({ role: 'user', content });
  });
  return { messages, toolReferences };
}

/** A system entry holds text; its tool changes (a beta) are refused in the words Claude Code falls back on. */
function systemBlockText(block: Block, path: FieldPath): string {
  if (block.type === 'text') return stringField(block, 'text', path);
  if (block.type === 'tool_addition' || block.type === 'tool_removal') {
    throw invalidField([...path, 'type'], `tool definitions in messages (${block.type}) are not available on this platform: declare tools in \`tools\`, deferred ones loaded by \`tool_reference\``);
  }
  throw unexpectedTag(path, block.type, ['text'], 'a system message holds text only');
}

/** A tool result as the model reads it: its text, and `Tool loaded: <name>` for each tool it loads. */
function toolResultText(content: unknown, path: FieldPath, references: ToolReference[]): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidField([...path, 'content'], 'Input should be a valid string or a valid list');
  const parts = content.map((block: Block, i) => {
    const blockPath = [...path, 'content', i];
    switch (block.type) {
      case 'text':
        return { text: stringField(block, 'text', blockPath), line: false };
      case 'tool_reference': {
        const name = stringField(block, 'tool_name', blockPath);
        references.push({ name, path: blockPath });
        return { text: `Tool loaded: ${name}`, line: true };
      }
      default:
        throw unexpectedTag(blockPath, String(block.type), TOOL_RESULT_BLOCKS, 'tool results are read as text');
    }
  });
  // Text blocks run on as they came; a loaded tool takes a line of its own.
  return parts.map((part, i) => (i > 0 && (part.line || parts[i - 1]?.line) ? `\n${part.text}` : part.text)).join('');
}

function stringField(block: Block, field: string, path: FieldPath): string {
  const value = block[field];
  if (typeof value !== 'string') throw invalidField([...path, field], value === undefined ? 'Field required' : 'Input should be a valid string');
  return value;
}

function inputOf(input: unknown, path: FieldPath): Record<string, unknown> {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidField([...path, 'input'], 'Input should be a valid dictionary');
  return input as Record<string, unknown>;
}
