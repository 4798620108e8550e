import type { ToolDefinition } from '@weft/contracts';
import { invalidField, unexpectedTag } from './anthropic-errors';
import type { ToolReference } from './message-content';
import type { MessagesTool } from './messages-schema';

/**
 * The tools the model is offered, as Anthropic's tool search does: a tool with
 * `defer_loading: true` stays out of the prompt until a `tool_reference` in the conversation
 * names it. Loaded tools come after the others, in the order they were loaded, so loading one
 * only appends to the prompt's tool section.
 */
export function offeredTools(tools: readonly MessagesTool[] | undefined, references: readonly ToolReference[]): ToolDefinition[] | undefined {
  const declared = new Map<string, MessagesTool>();
  tools?.forEach((tool, i) => {
    if (tool.type !== undefined && tool.type !== 'custom') {
      throw unexpectedTag(['tools', i], tool.type, ['custom'], "a server tool runs on Anthropic's servers: Weft serves client tools only");
    }
    declared.set(tool.name, tool);
  });
  const loaded: MessagesTool[] = [];
  for (const reference of references) {
    const tool = declared.get(reference.name);
    if (!tool) throw invalidField([...reference.path, 'tool_name'], `Tool reference '${reference.name}' not found in available tools`);
    if (tool.defer_loading === true && !loaded.includes(tool)) loaded.push(tool);
  }
  if (tools === undefined) return undefined;
  return [...tools.filter((tool) => tool.defer_loading !== true), ...loaded].map(toDefinition);
}

function toDefinition(tool: MessagesTool): ToolDefinition {
  return { name: tool.name, description: tool.description ?? '', parameters: tool.input_schema ?? { type: 'object', properties: {} } };
}
