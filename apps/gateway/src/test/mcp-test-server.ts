import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpTestServer {
  url: string;
  calls: Array<{ tool: string; args: unknown }>;
  close(): Promise<void>;
}

/**
 * A real MCP server over streamable HTTP (the official SDK, stateless: a server per request),
 * with a tool that adds, one that reports an error and one that never answers. It answers only
 * requests carrying `authorization: Bearer <token>`.
 */
export async function startMcpTestServer(token: string): Promise<McpTestServer> {
  const calls: McpTestServer['calls'] = [];
  const http: Server = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const server = new McpServer({ name: 'demo', version: '1.0.0' });
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      calls.push({ tool: 'add', args: { a, b } });
      return { content: [{ type: 'text', text: String(a + b) }] };
    });
    server.registerTool('fail', { description: 'Always reports an error', inputSchema: {} }, async () => {
      calls.push({ tool: 'fail', args: {} });
      return { isError: true, content: [{ type: 'text', text: 'the demo tool broke' }] };
    });
    server.registerTool('hang', { description: 'Never answers', inputSchema: {} }, async () => {
      calls.push({ tool: 'hang', args: {} });
      return new Promise<never>(() => undefined);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    let body = '';
    for await (const chunk of req) body += String(chunk);
    await transport.handleRequest(req, res, body ? (JSON.parse(body) as unknown) : undefined);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections(); // clients keep connections alive
      }),
  };
}
