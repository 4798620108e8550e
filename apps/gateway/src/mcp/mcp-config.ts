import { z } from 'zod';
import { MCP_SERVER_NAME, MCP_SERVER_NAME_RULE } from './mcp-tool-name';

/** Where a server was declared: by the admin for everyone, by a user for their sessions, or by a workspace's `.weft/mcp.json`. */
export type McpScope = 'server' | 'user' | 'workspace';


const remoteServerSchema = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  headers: z.record(z.string(), z.string()).optional(),
});

const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

const serverSchema = z.union([remoteServerSchema, stdioServerSchema], {
  error: 'needs either "url" (a remote server) or "command" (a stdio server)',
});

/** The format other agents use (`.mcp.json`, `claude_desktop_config.json`): `{"mcpServers": {name: {...}}}`. */
export const mcpFileSchema = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()).default({}) });

export type RemoteServerConfig = z.infer<typeof remoteServerSchema>;
export type StdioServerConfig = z.infer<typeof stdioServerSchema>;

export type DeclaredServer =
  | { name: string; scope: McpScope; kind: 'remote'; config: RemoteServerConfig }
  | { name: string; scope: McpScope; kind: 'stdio'; config: StdioServerConfig }
  /** Declared, but wrongly: listed with its problem so the user sees why it is missing. */
  | { name: string; scope: McpScope; kind: 'invalid'; problem: string };

/**
 * Reads an `mcpServers` document. A document that is not one is an error naming the problem;
 * one bad server is kept as `invalid` with its problem, and the others still count.
 */
export function parseMcpServers(text: string, scope: McpScope, expand: (value: string) => string = (v) => v): DeclaredServer[] {
  if (text.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`not JSON (${(error as Error).message})`);
  }
  const file = mcpFileSchema.safeParse(json);
  if (!file.success) throw new McpConfigError(z.prettifyError(file.error).replaceAll('\n', '; '));
  return Object.entries(file.data.mcpServers).map(([name, raw]): DeclaredServer => {
    if (!MCP_SERVER_NAME.test(name)) {
      return { name, scope, kind: 'invalid', problem: MCP_SERVER_NAME_RULE };
    }
    const parsed = serverSchema.safeParse(raw);
    if (!parsed.success) return { name, scope, kind: 'invalid', problem: z.prettifyError(parsed.error).replaceAll('\n', '; ') };
    const config = parsed.data;
    if ('url' in config) {
      const headers = config.headers ? Object.fromEntries(Object.entries(config.headers).map(([k, v]) => [k, expand(v)])) : undefined;
      return { name, scope, kind: 'remote', config: { ...config, url: expand(config.url), ...(headers ? { headers } : {}) } };
    }
    return { name, scope, kind: 'stdio', config };
  });
}

/**
 * `${NAME}` in the admin's own declarations reads the gateway's environment, so tokens stay in
 * `.env`. Never applied to a workspace's file: a repository must not read the server's secrets.
 */
export function expandFromEnvironment(env: NodeJS.ProcessEnv): (value: string) => string {
  return (value) => value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}

/** A host on the admin's list (`example.com`, or `.example.com` for it and its subdomains). */
export function hostAllowed(url: string, allowed: readonly string[]): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return allowed.some((entry) => (entry.startsWith('.') ? host === entry.slice(1) || host.endsWith(entry) : host === entry));
}

export class McpConfigError extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'McpConfigError';
  }
}
