import { describe, expect, it } from 'vitest';
import { McpConfigError, expandFromEnvironment, hostAllowed, parseMcpServers } from './mcp-config';
import type { AgentTool } from '../agent-core/tools/define-tool';
import { addServerTools, formatResult } from './mcp-tools';
import { mcpToolName } from './mcp-tool-name';

describe('mcpServers documents', () => {
  it('reads remote and stdio servers, keeps a bad one as invalid with its problem, and refuses a document that is not one', () => {
    const servers = parseMcpServers(
      JSON.stringify({
        mcpServers: {
          github: { type: 'http', url: 'https://mcp.example.com/x', headers: { authorization: 'Bearer ${TOKEN}' } },
          files: { command: 'npx', args: ['-y', 'server-files'] },
          neither: { args: [] },
          'no spaces': { url: 'https://a.example' },
          ftp: { url: 'ftp://example.com' },
        },
      }),
      'server',
      expandFromEnvironment({ TOKEN: 't0k' }),
    );
    expect(servers.map((s) => [s.name, s.kind])).toEqual([
      ['github', 'remote'],
      ['files', 'stdio'],
      ['neither', 'invalid'],
      ['no spaces', 'invalid'],
      ['ftp', 'invalid'],
    ]);
    expect(servers[0]).toMatchObject({ config: { headers: { authorization: 'Bearer t0k' } } });
    expect(servers[4]).toMatchObject({ problem: expect.stringContaining('http(s) URL') });
    expect(parseMcpServers('', 'server')).toEqual([]);
    expect(() => parseMcpServers('{', 'server')).toThrow(McpConfigError);
    expect(() => parseMcpServers('{"servers":{}}', 'server')).toThrow(McpConfigError);
  });

  it('refuses a server name that would make its tools read as another server\'s: "__" inside, "_" at either end', () => {
    const names = ['docs__evil', 'docs_', '_docs', 'my_docs', 'a-b_c-d', 'x'.repeat(32), 'x'.repeat(33)];
    const document = JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, { url: 'https://a.example/mcp' }])) });
    expect(parseMcpServers(document, 'user').map((s) => [s.name, s.kind])).toEqual([
      ['docs__evil', 'invalid'],
      ['docs_', 'invalid'],
      ['_docs', 'invalid'],
      ['my_docs', 'remote'],
      ['a-b_c-d', 'remote'],
      ['x'.repeat(32), 'remote'],
      ['x'.repeat(33), 'invalid'],
    ]);
    expect(parseMcpServers(document, 'user')[0]).toMatchObject({ problem: expect.stringContaining('no "__"') });
  });

  it("never expands a workspace's ${NAME}: a repository must not read the server's environment", () => {
    const [server] = parseMcpServers(JSON.stringify({ mcpServers: { x: { url: 'https://a.example/${HOME}' } } }), 'workspace');
    expect(server).toMatchObject({ config: { url: 'https://a.example/${HOME}' } });
  });

  it('matches allowed hosts exactly, or a domain and its subdomains with a leading dot', () => {
    expect(hostAllowed('https://mcp.example.com/x', ['mcp.example.com'])).toBe(true);
    expect(hostAllowed('https://evil-mcp.example.com/x', ['mcp.example.com'])).toBe(false);
    expect(hostAllowed('https://a.b.example.com/x', ['.example.com'])).toBe(true);
    expect(hostAllowed('https://example.com.evil.net/x', ['.example.com'])).toBe(false);
    expect(hostAllowed('http://localhost:1/x', [])).toBe(false);
  });
});

describe('MCP tools as agent tools', () => {
  it('names tools mcp__<server>__<tool> with only the characters function names allow', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('fs', 'read.file/v2')).toBe('mcp__fs__read_file_v2');
    expect(mcpToolName('s', 'x'.repeat(100))).toHaveLength(64);
  });

  it("keeps a tool name with the server that offered it first: a later scope's server never replaces it", () => {
    const tool = (label: string): AgentTool => ({ definition: { name: label, description: label, parameters: {} }, run: () => Promise.resolve({ isError: false, output: label }) });
    const tools = new Map<string, AgentTool>();
    expect(addServerTools(tools, new Map([['mcp__docs__evil__pwn', tool('admin')]]))).toEqual([]);
    expect(addServerTools(tools, new Map([['mcp__docs__evil__pwn', tool('user')], ['mcp__mine__x', tool('user')]]))).toEqual(['mcp__docs__evil__pwn']);
    expect(tools.get('mcp__docs__evil__pwn')?.definition.description).toBe('admin');
    expect([...tools.keys()]).toEqual(['mcp__docs__evil__pwn', 'mcp__mine__x']);
  });

  it('gives the model text parts, names what it cannot read, and marks errors with the server', () => {
    expect(formatResult('s', { content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).toEqual({
      isError: false,
      output: 'a\n[image image/png omitted]',
    });
    expect(formatResult('s', { content: [], structuredContent: { n: 1 } })).toEqual({ isError: false, output: '{"n":1}' });
    expect(formatResult('s', { isError: true, content: [{ type: 'text', text: 'nope' }] })).toEqual({
      isError: true,
      output: 'MCP.TOOL_FAILED: MCP server "s" reported an error: nope',
    });
  });
});
