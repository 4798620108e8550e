import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { ApiCaller, type SendRequest, queryString, routePath } from './api-caller';
import { apiRoutes } from './api-routes';
import { openApiDocument, openApiPaths } from './openapi';

describe('the OpenAPI document', () => {
  const document = openApiDocument('0.1.0');

  it('validates as OpenAPI 3.1 against the specification schema', async () => {
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    expect(result.valid, JSON.stringify(result.valid ? [] : result.errors, null, 2)).toBe(true);
  });

  it('has every route of the table once, each with its request and answer schemas', () => {
    const paths = document.paths as Record<string, Record<string, { operationId: string; requestBody?: unknown; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    const operations = Object.values(paths).flatMap((methods) => Object.values(methods));
    // The files route is two paths in OpenAPI (with and without the file's path).
    expect(operations).toHaveLength(Object.keys(apiRoutes).length + 1);
    const createSession = paths['/v1/sessions']?.post;
    expect(createSession?.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { type: 'object', required: ['workspaceId', 'model'] } } } });
    expect(createSession?.responses['201']?.content?.['application/json']?.schema).toMatchObject({ properties: { id: { type: 'string' } } });
    expect(paths['/v1/sessions/{id}/turns/{turnId}/cancel']?.post?.operationId).toBe('cancelTurn');
    expect(paths['/v1/workspaces/{id}/files/{path}']?.get?.operationId).toBe('workspaceFilesWithPath');
  });

  it('marks the public routes as needing no key and every other as needing one', () => {
    const paths = document.paths as Record<string, Record<string, { security: unknown[] }>>;
    expect(paths['/healthz']?.get?.security).toEqual([]);
    expect(paths['/openapi.json']?.get?.security).toEqual([]);
    expect(paths['/v1/me']?.get?.security).toEqual([{ apiKey: [] }]);
  });
});

describe('routePath', () => {
  it('fills and percent-encodes each parameter', () => {
    expect(routePath(apiRoutes.cancelTurn, { id: 'ses_a/b', turnId: 'turn_1 2' })).toBe('/v1/sessions/ses_a%2Fb/turns/turn_1%202/cancel');
  });

  it('keeps the slashes of a file path, encoding each segment, and drops an absent optional part', () => {
    expect(routePath(apiRoutes.workspaceFiles, { id: 'ws_1', path: 'src/a b.ts' })).toBe('/v1/workspaces/ws_1/files/src/a%20b.ts');
    expect(routePath(apiRoutes.workspaceFiles, { id: 'ws_1' })).toBe('/v1/workspaces/ws_1/files');
    expect(routePath(apiRoutes.workspaceFiles, { id: 'ws_1', path: '' })).toBe('/v1/workspaces/ws_1/files');
  });

  it('knows each route\'s parameters at compile time', () => {
    // @ts-expect-error: the turn's id is missing
    expect(() => routePath(apiRoutes.cancelTurn, { id: 'ses_1' })).toThrow('"turnId" is empty');
  });

  it('refuses an empty required parameter rather than calling another route', () => {
    expect(() => routePath(apiRoutes.session, { id: '' })).toThrow('the path parameter "id" is empty');
  });

  it('converts Express paths to OpenAPI paths', () => {
    expect(openApiPaths('/openai/v1/models/*id')).toEqual(['/openai/v1/models/{id}']);
    expect(openApiPaths('/v1/workspaces/:id/files{/*path}')).toEqual(['/v1/workspaces/{id}/files', '/v1/workspaces/{id}/files/{path}']);
  });

  it('writes a query string of the defined values only', () => {
    expect(queryString({ from: '2026-01-01', model: undefined, n: 2 })).toBe('?from=2026-01-01&n=2');
    expect(queryString({})).toBe('');
  });
});

describe('ApiCaller', () => {
  function recording(answer: () => Response) {
    const sent: SendRequest[] = [];
    const caller = new ApiCaller({
      send: async (request) => {
        sent.push(request);
        return answer();
      },
      unexpected: (request, response, problem) => new Error(`${request.method} ${request.path} ${response.status}: ${problem}`),
    });
    return { caller, sent };
  }

  it('sends a JSON body with its content type and parses the answer by the route\'s schema', async () => {
    const { caller, sent } = recording(() => Response.json({ turnId: 'turn_abcdefgh' }, { status: 202 }));
    const answer = await caller.json(apiRoutes.postMessage, { params: { id: 'ses_abcdefgh' }, body: { content: 'hi', mode: 'plan' } });
    expect(answer).toEqual({ turnId: 'turn_abcdefgh' });
    expect(sent).toEqual([{ method: 'POST', path: '/v1/sessions/ses_abcdefgh/messages', body: '{"content":"hi","mode":"plan"}', contentType: 'application/json', headers: undefined, signal: undefined }]);
  });

  it('turns an answer that does not match the schema into the transport\'s error, naming the field', async () => {
    const { caller } = recording(() => Response.json({ id: 7, name: 'x' }));
    await expect(caller.json(apiRoutes.me, {})).rejects.toThrow('GET /v1/me 200: id: Invalid input: expected string, received number');
  });
});
