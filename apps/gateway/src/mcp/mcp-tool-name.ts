/**
 * How MCP tools are named for the model and the permission rules: `mcp__<server>__<tool>`.
 * The first `__` after `mcp__` ends the server's name, so a server name may not hold `__` nor
 * end in `_` (`docs__evil` would offer `mcp__docs__evil__pwn`, which reads as the tool
 * `evil__pwn` of `docs`, and a rule written for `docs` would cover it).
 */
export const MCP_SERVER_NAME = /^(?=.{1,32}$)[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

export const MCP_SERVER_NAME_RULE =
  'a server name is 1 to 32 letters, digits, "-" and single "_" between them (no "__", no "_" at either end): its tools are named mcp__<server>__<tool>';

/** What a model may call a function: most APIs accept only these characters, 64 at most. */
const TOOL_NAME_LIMIT = 64;
const PREFIX = 'mcp__';

/** `mcp__<server>__<tool>`, the name the permission rules use (`mcp__github__*`). */
export function mcpToolName(server: string, tool: string): string {
  return `${PREFIX}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, TOOL_NAME_LIMIT);
}

/**
 * The server and tool a name stands for (`mcp__github` is a server alone, as a rule names one);
 * undefined for a name that is not an MCP one. Read the same way for tools and rules, so a rule
 * covers exactly the tools of the server it names.
 */
export function parseMcpName(name: string): { server: string; tool?: string } | undefined {
  if (!name.startsWith(PREFIX)) return undefined;
  const rest = name.slice(PREFIX.length);
  const end = rest.indexOf('__');
  if (end < 0) return rest === '' ? undefined : { server: rest };
  const server = rest.slice(0, end);
  return server === '' ? undefined : { server, tool: rest.slice(end + 2) };
}
