import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@weft/contracts';
import type { ToolOutcome } from '../agent-core/ports';
import type { AgentTool } from '../agent-core/tools/define-tool';
import { mcpToolName } from './mcp-tool-name';

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

/**
 * Adds a server's tools to the turn's, servers in the order declared (the admin's, the user's, the
 * workspace's): a name already taken stays with the earlier server, so a later scope can never
 * replace a tool the admin (or the user) offered. Returns the names left out.
 */
export function addServerTools(into: Map<string, AgentTool>, tools: ReadonlyMap<string, AgentTool>): string[] {
  const leftOut: string[] = [];
  for (const [name, tool] of tools) {
    if (into.has(name)) leftOut.push(name);
    else into.set(name, tool);
  }
  return leftOut;
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
