import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@weft/contracts';
import type { AgentTool, ToolOutcome } from '../agent/tools/define-tool';

/** What a model may call a function: most APIs accept only these characters, 64 at most. */
const TOOL_NAME_LIMIT = 64;

/** `mcp__<server>__<tool>`, the name the permission rules use (`mcp__github__*`). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, TOOL_NAME_LIMIT);
}

export type CallMcpTool = (tool: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<CallToolResult>;

/** A server's tools as the agent's tools: the model sees their schemas, the gate sees their names. */
export function toAgentTools(server: string, tools: readonly Tool[], call: CallMcpTool): Map<string, AgentTool> {
  const agentTools = new Map<string, AgentTool>();
  for (const tool of tools) {
    const name = mcpToolName(server, tool.name);
    if (agentTools.has(name)) continue; // two names that differ only in characters we replace
    // `$schema` is noise to a model (as for the built-in tools).
    const parameters: Record<string, unknown> = { ...tool.inputSchema };
    delete parameters.$schema;
    agentTools.set(name, {
      definition: {
        name,
        description: `${tool.description ?? tool.title ?? tool.name} (MCP server "${server}")`,
        parameters,
      },
      async run(args, context): Promise<ToolOutcome> {
        const object = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
        try {
          return formatResult(server, await call(tool.name, object, context.signal));
        } catch (error) {
          // A server's failure is the call's result, never the turn's end.
          return { isError: true, output: `${ErrorCode.McpToolFailed}: MCP server "${server}" failed on ${tool.name}: ${describe(error)}` };
        }
      },
    });
  }
  return agentTools;
}

/** Text parts as they are; other parts named, since the model reads text only. */
export function formatResult(server: string, result: CallToolResult): ToolOutcome {
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'resource':
        return 'text' in part.resource ? String(part.resource.text) : `[resource ${part.resource.uri} (${part.resource.mimeType ?? 'binary'})]`;
      case 'resource_link':
        return `[resource ${part.uri}${part.name ? ` "${part.name}"` : ''}]`;
      case 'image':
      case 'audio':
        return `[${part.type} ${part.mimeType} omitted]`;
      default:
        return `[${(part as { type: string }).type} omitted]`;
    }
  });
  if (parts.length === 0 && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  if (result.isError) return { isError: true, output: `${ErrorCode.McpToolFailed}: MCP server "${server}" reported an error: ${text}` };
  return { isError: false, output: text };
}

export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}
